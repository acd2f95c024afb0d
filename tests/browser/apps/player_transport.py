"""The step player's transport alone (explorer.ui.history.player, its script player.js): a track of
`STEPS` steps whose line and panel only say the step, no run, no training. Its browser test is
tests/browser/test_player_component.py; `streamlit run tests/browser/apps/player_transport.py`
shows it by hand.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.ui.history import player

STEPS = 6


class CountingTrack(player.Track):
    """Steps 0..STEPS, each drawn as its number: the line in the transport, a panel below it."""

    noun = "step"
    slider_label = "Step"

    def summary_html(self, k: int) -> str:
        return f'<span class="line-step">Line at step {k}</span>'

    def panels(self, k: int) -> None:
        st.container(key="panel").markdown(f"Panel at step {k}")

    def link_at(self, k: int) -> dict[str, str]:
        return {player.STEP_PARAM: str(k)}


no_run: Any = None  # the track's run is read only by link_at, which this track answers itself
player.show(CountingTrack(no_run, STEPS, "0.25 s per merge"))
