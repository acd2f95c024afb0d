"""Merge history: play the training run merge by merge; every panel follows the step."""

import streamlit as st

from explorer.samples import SAMPLE_SENTENCES
from explorer.ui import compare, frame, literal, player, state

frame.page(
    "Merge history",
    "Play the run merge by merge, or scrub to any step: every panel shows that step, "
    "and says why its pair won.",
)
run = frame.require_run(keep_params=(player.STEP_PARAM,))

if (
    run.trace.config.is_unigram
):  # its training history (rounds, loss, lattice) is explorer.ui.unigram_history's
    st.info(
        "This is a Unigram run: it prunes pieces instead of merging them, so it has no merges to play. "
        "Its pieces and their scores are on the Vocabulary page, and Compare shows how it segments a "
        "word (the Viterbi table)."
    )
elif run.trace.steps == 0:
    st.info(f"This run learned no merge ({literal.stop_reason_text(run.trace)}): there is nothing to play.")
else:
    player.start_from_link(run.trace.steps)
    player.controls(run)
    sentences = compare.sentences_from(state.get(state.COMPARE_TEXT) or "\n".join(SAMPLE_SENTENCES))
    player.step_view(run, sentences)
frame.finish()
