"""Tokenizer Explorer, home page "Train": a corpus in, BPE or WordPiece settings, Train.

Run with `streamlit run app.py`. The other pages live in pages/ (Streamlit's multipage folder).
Every input is checked as it is typed (explorer.checks through explorer.ui.train_panel); training
runs in a worker process with a Stop button and a time and step budget (explorer.ui.training), and
its result is kept in the server's run store, so the URL (which names the run) brings it back.
"""

import streamlit as st

from explorer.ui import frame, link, state, train_panel, training
from explorer.ui.settings import limits_or_defaults

frame.page(
    "Train",
    "Paste a corpus, pick BPE or WordPiece, train, then watch every merge on the Merge history page.",
)
limits, limits_problem = limits_or_defaults()
if limits_problem:
    frame.warning(limits_problem)
train_panel.initialise(limits)
train_panel.restore_pasted_corpus()
if state.get(state.LINK_EXPIRED) and state.current_run() is None:
    frame.info(link.EXPIRED)

corpus_column, settings_column = st.columns([5, 6], gap="large")
with corpus_column:
    corpus = train_panel.corpus_input(limits)
    corpus_ok, shrunk = train_panel.corpus_feedback(corpus, limits)
with settings_column:
    settings = train_panel.settings_input(limits)
    settings_ok = train_panel.settings_feedback(settings, limits)
# The run this page shows, or the one training for it: a reload finds it (explorer.ui.link).
named = training.current_job() or state.current_run()
link.write(
    link.params_for(
        settings,
        corpus.sample_key if corpus else None,
        named.key if isinstance(named, training.TrainingJob) else named.store_key if named else None,
    )
)

train_panel.train_controls(corpus, corpus_ok, shrunk, settings, settings_ok, limits)
run = state.current_run()
if run is not None and training.current_job() is None:
    train_panel.summary(run)
frame.finish()
