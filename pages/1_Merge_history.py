"""Merge history (Training history for a Unigram run): play the training run step by step; every
panel follows the step."""

import streamlit as st

from explorer.ui.common import frame, link
from explorer.ui.history import by_kind, player
from explorer.ui.train import lesson_buttons as lessons

PAGE = "history"
with frame.page(
    "Merge history",
    "Play the run merge by merge, or scrub to any step: every panel shows that step, "
    "and says why its pair won.",
    retitle=by_kind.retitle,
):
    run = frame.require_run(PAGE)
    lessons.point_to_lesson(run)  # the course's corpus with settings that learn nothing

    has_player = by_kind.show(run)  # the run's merges, or its rounds (a lesson's: the course's beside)
    # The player's fragment keeps `step` in the URL and draws its own Copy link (it follows the step).
    step = st.query_params.get(player.STEP_PARAM) if has_player else None
    frame.finish(PAGE, link.run_params(run, {player.STEP_PARAM: step}), copy_link=not has_player)
