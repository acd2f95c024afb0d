"""Draw a Plotly figure with its title as page text above it.

A Plotly title is one line of SVG text: at 800 px with the sidebar open it runs past the chart's
edge and is cut ("The competition for merg"). Written as a line of the page instead, it wraps.
The figure builders (explorer.drawing.charts, explorer.drawing.charts.round_charts) keep their titles,
so a figure
saved or tested on its own still says what it shows; only the drawing here moves it.

What it does not do: build figures, or write anything but the title (escaped: it may hold tokens).
"""

from __future__ import annotations

import contextlib

import plotly.graph_objects as go
import streamlit as st

from explorer.drawing.charts import plain_text
from explorer.drawing.token_html import escape_text

TOP_MARGIN = 10  # the figure's top margin once its title is gone


def plotly_chart(figure: go.Figure, key: str, container=None) -> None:
    """`figure` in `container` (a column; the page when None), its title a wrapping line above it."""
    title = figure.layout.title.text
    if title:
        figure = go.Figure(figure)  # a copy: the caller's figure (perhaps memoized) keeps its title
    with container if container is not None else contextlib.nullcontext():
        if title:
            st.html(f'<div class="chart-title">{escape_text(plain_text(title))}</div>')
            figure.update_layout(title=None, margin={"t": TOP_MARGIN})
        st.plotly_chart(figure, key=key)
