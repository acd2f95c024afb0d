"""Tokenizer Explorer, home page "Train": a corpus in, BPE or WordPiece settings, Train.

Run with `streamlit run app.py`. The other pages live in pages/ (Streamlit's multipage folder).
"""

import streamlit as st

from explorer.ui import frame, link, state, train_panel, training

frame.page(
    "Train",
    "Paste a corpus, pick BPE or WordPiece, train, then watch every merge on the Merge history page.",
)
notes, opened_from_link = train_panel.initialise()
for note in notes:
    st.warning(note)

corpus_column, settings_column = st.columns([5, 6], gap="large")
with corpus_column:
    corpus = train_panel.corpus_input()
with settings_column:
    settings = train_panel.settings_input()
link.write(link.params_for(settings, corpus.sample_key if corpus else None))

if st.button("Train", key=state.Widget.TRAIN, type="primary", icon=":material/play_arrow:") and corpus is not None:
    run = training.train_run(corpus.text, settings, corpus.label, corpus.sample_key)
    if run is not None:
        state.set_current_run(run, corpus.text)
elif opened_from_link and state.current_run() is None:
    link.train_from_link()

run = state.current_run()
if run is not None:
    train_panel.summary(run)
frame.finish()
