"""Our HTML view alone (explorer.ui.common.html_view, its script html_view.js): a link to a step
followed within the app, and keyed parts of which a button adds one. Its browser test is
tests/browser/test_html_view_component.py; `streamlit run tests/browser/apps/html_view.py` shows it
by hand.
"""

from __future__ import annotations

import streamlit as st

from explorer.drawing.token_html import escape_text
from explorer.ui.common.html_view import html_parts_view, html_view

st.session_state.setdefault("parts", 2)
if st.button("Add a part"):
    st.session_state.parts += 1

step = html_view(
    f'<p class="words">{escape_text("<b>not bold</b>")}</p>'
    '<a class="to-step" href="?step=3" target="_self" data-step="3">Step 3</a>',
    "view",
)
if step is not None:
    st.session_state.followed = step
st.container(key="followed").text(f"Followed: step {st.session_state.get('followed', 'none')}")
html_parts_view(
    [(f"part-{n}", f'<p class="part">Part {n}</p>') for n in range(st.session_state.parts)],
    "parts",
    "parts-view",
)
