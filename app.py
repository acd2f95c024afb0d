"""Tokenizer Explorer, home page "Train": a corpus in, BPE, WordPiece or Unigram settings, Train.

Run with `streamlit run app.py`. The other pages live in pages/ (Streamlit's multipage folder).
Every input is checked as it is typed (explorer.checks, through explorer.ui.train.corpus_input and
explorer.ui.train.settings_form); training runs in a worker process with a Stop button and a time and
step budget (explorer.ui.common.training), and its result is kept in the server's run store, so the URL
(which names the run) brings it back.
"""

import streamlit as st

from explorer.runs.settings import limits_or_defaults
from explorer.ui.common import frame, link, state, training
from explorer.ui.train import corpus_input, run_summary, settings_form
from explorer.ui.train import lesson_buttons as lessons
from explorer.ui.train.train_controls import train_controls

with frame.page(
    "Train",
    "Paste a corpus, pick BPE, WordPiece or Unigram, train, then watch it learn on the Merge history page.",
    shows_form=True,
):
    limits, limits_problem = limits_or_defaults()
    if limits_problem:
        frame.warning(limits_problem)
    lessons.follow_link(limits)  # `?lesson=`: trained, then Merge history at step 1
    settings_form.initialise(limits)
    settings_form.restore_pasted_corpus()
    if state.get(state.LINK_EXPIRED) and state.current_run() is None:
        frame.info(state.get(state.LINK_EXPIRED))

    lessons.reproduce_buttons(limits)
    # Train, the run in progress and its result come first, filled below once the form has been read:
    # the button is above the fold and the result appears where the click was, not under the form.
    actions = st.container()
    corpus_column, settings_column = st.columns([5, 6], gap="large")
    with corpus_column:
        corpus = corpus_input.corpus_input(limits)
        corpus_ok, shrunk = corpus_input.corpus_feedback(corpus, limits)
    with settings_column:
        settings = settings_form.settings_input(limits, corpus_input.fixed_counting(corpus))
        settings_ok = settings_form.settings_feedback(settings, limits)

    # The summary shows the current run only when the form says exactly what trained it; the URL
    # names that run (or the job training it), else only the form: the link and the page agree. The
    # URL is written before the Train controls too: a reload while they wait for a job finds it.
    link.write(link.train_page_view(settings, corpus)[1])
    with actions:
        train_controls(corpus, corpus_ok, shrunk, settings, settings_ok, limits)
        shown, params = link.train_page_view(settings, corpus)  # again: Train may have found a stored run
        run = state.current_run()
        if shown is not None and training.current_job() is None:
            run_summary.summary(shown)  # with the lesson it reproduces, or should
        elif run is not None and training.current_job() is None:
            st.caption(
                f"The corpus or the settings below changed since run #{run.number}: Train to see their "
                f"result. The other pages still show run #{run.number}."
            )
    frame.finish("train", params)
