"""The sample a view uses in place of a run's training corpus when the run has no running text
(trained from word counts): the view's sentence saying so, then a picker of the app's samples.

What it does not do: measure or audit (the page's own section does, on the text returned), or
decide which runs have no text (`Run.from_counts`; explorer.views.stand_in_text).
"""

from __future__ import annotations

import streamlit as st

from explorer.samples import SAMPLES, Sample
from explorer.ui.common import frame
from explorer.views.stand_in_text import STAND_INS, no_running_text

DEFAULT = "scarlet"  # a paragraph: measured or audited at once


def stand_in(needs: str, key: str) -> Sample:
    """Says that the run has no running text to `needs` ("measure", "audit"), and returns the
    sample the visitor picks instead (widget `key`)."""
    frame.info(no_running_text(needs))
    chosen = st.selectbox(
        f"Sample text to {needs} on",
        STAND_INS,
        index=STAND_INS.index(DEFAULT),
        format_func=lambda sample_key: SAMPLES[sample_key].label,
        key=key,
    )
    return SAMPLES[chosen or DEFAULT]
