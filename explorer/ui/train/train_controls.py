"""The Train page's Train button, the run in progress (its Stop button and progress) and what the
last training said.

A click on Train with inputs that block training says what to fix; with good inputs, or after a
click on "Train on the first X MB" / "Train on a random sample of lines", the training starts in
a worker (`training.start`) and the page is drawn again with Train disabled and the Stop button.

What it does not do: check the inputs (explorer.ui.train.corpus_input, explorer.ui.train.settings_form show
their checks), train (explorer.ui.common.training), or show the finished run (explorer.ui.train.run_summary).
"""

from __future__ import annotations

import streamlit as st

from explorer.checks import Limits
from explorer.runs.settings import Settings
from explorer.session.training_jobs import Submitted
from explorer.ui.common import frame, state, training
from explorer.ui.train.corpus_input import Corpus

EMPTY_HINT = "Paste some text, upload a .txt file or pick a sample corpus."


def train_controls(
    corpus: Corpus | None,
    corpus_ok: bool,
    shrunk: Corpus | None,
    settings: Settings,
    settings_ok: bool,
    limits: Limits,
) -> None:
    """The Train button, the run in progress (Stop button, progress) and what the last training
    said. `shrunk`: the smaller corpus one of the corpus's size buttons chose in this script run."""
    job = training.current_job()
    clicked = st.button(
        "Train",
        key=state.Widget.TRAIN,
        type="primary",
        icon=":material/play_arrow:",
        disabled=job is not None,
        help="Trains in the background: a Stop button ends it early and keeps the merges learned so far.",
    )
    chosen = shrunk
    if clicked and corpus is not None:
        chosen = _clicked_corpus(corpus, corpus_ok and settings_ok, limits)
    if chosen is not None and job is None:
        if corpus is not None:
            state.note_trained_part(corpus.text, chosen.text)
        started = training.start(
            chosen.text, settings, chosen.label, chosen.sample_key, chosen.shared_label, chosen.source
        )
        if isinstance(started, Submitted):
            st.rerun()  # draw the page again with Train disabled and the Stop button
    training.show_job()
    _outcome()


def _clicked_corpus(corpus: Corpus, inputs_ok: bool, limits: Limits) -> Corpus | None:
    """The corpus to train after a click on Train, or None after saying what to fix first."""
    if corpus.source is not None:  # a host's file or a count file: no text here
        return corpus if inputs_ok else None
    if not corpus.text or corpus.text.isspace():
        empty = training.corpus_check(corpus.text, limits).errors[0]
        frame.error(f"{empty} {EMPTY_HINT}")
        return None
    if not inputs_ok:
        frame.error("Cannot train yet: fix the problems shown above first.")
        return None
    return corpus


def _outcome() -> None:
    """What the last training started said: a reused run (a caption) or why it failed."""
    for kind, message in state.get(state.OUTCOME) or ():
        if kind == "caption":
            st.caption(message)
        else:
            frame.error(message)
