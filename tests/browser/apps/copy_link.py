"""The "Copy link" box alone (explorer.ui.common.link.copy_link, its script copy_link.js), on a page
whose URL says `sample=demo`. Its browser test is tests/browser/test_copy_link_component.py;
`streamlit run tests/browser/apps/copy_link.py` shows it by hand.
"""

from __future__ import annotations

import streamlit as st

from explorer.ui.common import link

if st.query_params.get("sample") != "demo":
    st.query_params["sample"] = "demo"
link.copy_link("train", in_sidebar=False)
