"""The live text box alone (explorer.ui.common.live_text, its script live_text.js): the box in a
fragment, what the server received below it, and the fragment's last element answering the box.
Its browser test is tests/browser/test_live_text_component.py; `streamlit run
tests/browser/apps/live_text.py` shows it by hand.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui.common.live_text import answered, live_text


@st.fragment
def echo() -> None:
    text = live_text("Text to echo", "echo", "Hello", rows=2, live_characters=40)
    st.container(key="echo").text(f"Received: {text}")
    answered("echo")


echo()
