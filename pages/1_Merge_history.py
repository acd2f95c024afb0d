"""Merge history (Training history for a Unigram run): play the training run step by step; every
panel follows the step."""

import streamlit as st

from explorer.lessons.explain import stop_reason_text
from explorer.samples import SAMPLE_SENTENCES
from explorer.ui.common import frame, link, state
from explorer.ui.compare import sections as compare
from explorer.ui.history import player
from explorer.ui.history import unigram_rounds as unigram_history
from explorer.ui.train import lesson_buttons as lessons

PAGE = "merges"
frame.page(
    "Merge history",
    "Play the run merge by merge, or scrub to any step: every panel shows that step, "
    "and says why its pair won.",
    retitle=unigram_history.retitle,
)
run = frame.require_run(PAGE)
lessons.course_check(run)  # a lesson's run: the course's printed results beside ours
lessons.point_to_lesson(run)  # the course's corpus with settings that learn nothing

has_player = False
if unigram_history.is_unigram(run):
    has_player = unigram_history.show(run)
elif run.trace.steps == 0:
    st.info(f"This run learned no merge ({stop_reason_text(run.trace)}): there is nothing to play.")
else:
    sentences = compare.sentences_from(state.get(state.COMPARE_TEXT) or "\n".join(SAMPLE_SENTENCES))
    track = player.merge_track(run, sentences)
    player.start_from_link(track.steps)
    player.controls(track)
    player.step_view(track)
    has_player = True
# The player's fragment keeps `step` in the URL and draws its own Copy link (it follows the step).
step = st.query_params.get(player.STEP_PARAM) if has_player else None
frame.finish(PAGE, link.run_params(run, {player.STEP_PARAM: step}), copy_link=not has_player)
