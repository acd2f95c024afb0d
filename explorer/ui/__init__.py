"""The Streamlit layer: the only package (with app.py and pages/) that imports streamlit.

Every page: state (every session key) · frame (page setup, sidebar, messages) · link (shareable
URLs) · literal (user text shown literally) · serving (the server's worker pool, run store and
stored runs) · abandoned (jobs of visitors gone) · encode_panel (a text encoded step by step).
Train page (app.py): corpus_input · settings_form · first_values · train_controls · training (a
run in a worker, with a progress bar and Stop) · run_summary.
Merge history page: player (the step player) · step_panels (a BPE or WordPiece run at step k) ·
unigram_history (a Unigram run at round r).
Compare page: compare · model_picker · decode_panel · measuring (corpus figures in a worker).
Pure helpers, which never import streamlit: settings (`Settings`), runs (`Run`, `RunCache`),
views, merge_views, vocabulary_views, unigram_vocabulary.

What it does not do: compute what a page shows (explorer/ does, and tests reach it without
Streamlit); pages/ only call into this package.
"""
