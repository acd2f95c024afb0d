"""Everything drawn, as pure functions: Plotly and Altair figures (`charts/`), escaped HTML of
tokens (`token_html`), the app's one stylesheet (`stylesheet`) and the wording of counts and
durations (`wording`).

What it does not do: decide what to show (explorer/lessons/, explorer/ui/) or import streamlit.
"""
