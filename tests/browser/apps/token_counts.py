"""Compare's counts at a glance alone (explorer.ui.compare.token_counts, its script
token_counts.js): two tokenizers' counts of one sentence, and a button that gives the second one
more token (the rows drawn anew). Its browser test is tests/browser/test_token_counts_component.py;
`streamlit run tests/browser/apps/token_counts.py` shows it by hand.
"""

from __future__ import annotations

import streamlit as st

from explorer.compare.counts import CountRow
from explorer.ui.compare.token_counts import counts_table

st.session_state.setdefault("extra", 0)
if st.button("One more token", key="more"):
    st.session_state.extra += 1
second = ("Hello", ",", " wor", "ld", *("!" * st.session_state.extra))
counts_table(
    [
        CountRow("first", 3, 12, ids=((15496, 11, 995),), token_strings=(("Hello", ",", " world"),)),
        CountRow("second", len(second), 12, ids=(tuple(range(len(second))),), token_strings=(second,)),
    ]
)
