"""The Merge history page's body for each kind of run, the page's one dispatch on it: a `MergeRun`
(BPE, WordPiece) plays its merges (explorer.ui.history.player), a `RoundRun` (Unigram) its rounds
under the title "Training history" (explorer.ui.history.unigram_rounds).

What it does not do: draw a step's panels (step_panels, merge_views, unigram_rounds).
"""

from __future__ import annotations

import streamlit as st

from explorer.compare.columns import sentences_from
from explorer.lessons.explain import stop_reason_text
from explorer.runs.run import MergeRun, RoundRun, Run
from explorer.samples import SAMPLE_SENTENCES
from explorer.ui.common import course_check, state
from explorer.ui.history import player, unigram_rounds


def show_merges(run: MergeRun) -> bool:
    """The player over the run's merges and every panel of the current step; False when the run
    learned no merge."""
    if run.history.steps == 0:
        st.info(f"This run learned no merge ({stop_reason_text(run.history)}): there is nothing to play.")
        return False
    sentences = sentences_from(state.get(state.COMPARE_TEXT) or "\n".join(SAMPLE_SENTENCES))
    player.show(player.MergeTrack(run, sentences))
    return True


def show(run: MergeRun | RoundRun) -> bool:
    """The page's body for the run; whether it has a player (which keeps the step in the URL)."""
    if isinstance(run, MergeRun):  # the page's one question of the run's kind
        course_check.show_merges(run)  # a lesson's run: the course's printed results beside ours
        return show_merges(run)
    course_check.show_rounds(run)
    return unigram_rounds.show(run)


TITLES = {"round": (unigram_rounds.TITLE, unigram_rounds.INTRO)}


def retitle(run: Run) -> tuple[str, str] | None:
    """The page's title and intro when the history is not of merges (for `frame.page`)."""
    return TITLES.get(run.history.step_noun)
