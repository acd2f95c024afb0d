"""The Streamlit layer: the only package (with app.py and pages/) that imports streamlit.

state (session keys) · frame (page setup, sidebar) · train_panel (Train page widgets) ·
training (cached training with a progress bar) · link (shareable URLs) · player (merge player) ·
and pure helpers without streamlit: settings, runs, views, compare.
"""
