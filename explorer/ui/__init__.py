"""The Streamlit layer: the only package (with app.py and pages/) that imports streamlit.

One subpackage per page: `train/` (app.py), `history/` (Merge history), `vocabulary/`,
`compare/`; and `common/`, what every page shares (state, frame, link, serving, runs).

What it does not do: compute what a page shows (explorer/lessons/, explorer/drawing/ and the
rest of explorer/ do, and tests reach them without Streamlit); pages/ only call into this package.
"""
