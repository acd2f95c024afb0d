"""Figures of the Compare page: the metrics of several tokenizers side by side as bars, and the
vocabulary curve of several training runs (the measures against vocabulary size).

What it does not do: measure anything (explorer.measures.metrics, explorer.compare.curve do).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.charts.labels import escape
from explorer.drawing.wording import METRIC_COLUMNS

# What the Compare page's bar chart draws, as named in `metrics.TokenizerMetrics` /
# `wording.METRIC_COLUMNS`: the ratios, and beside them the characters no token spells out.
COMPARED_METRICS = ("chars_per_token", "bytes_per_token", "fertility", "split_word_share", "lost_characters")
# The curve's panels (`compare.metrics_curve` columns): the first three are the table's measures;
# the split share there is of pre-tokens, a measure of its own.
CURVE_PANELS = {
    "chars_per_token": "characters / token",
    "bytes_per_token": "bytes / token",
    "fertility": "tokens per word",
    "split_pre_token_share": "pre-tokens split",
}
SERIES_COLOURS = ("#3a6ea5", "#e4572e", "#76b041", "#8e6fbf", "#e49b0f", "#17a2b8", "#b5446e", "#6c757d")
MAX_NAME_LENGTH = 42


def short_names(names: Sequence[str], limit: int = MAX_NAME_LENGTH) -> list[str]:
    """Names cut to `limit` characters (with "…") and kept distinct, for axis labels."""
    shown: list[str] = []
    for name in names:
        short = name if len(name) <= limit else name[: limit - 1] + "…"
        candidate, number = short, 2
        while candidate in shown:
            candidate, number = f"{short} ({number})", number + 1
        shown.append(candidate)
    return shown


def metrics_bar_chart(table, title: str = "") -> go.Figure:
    """One panel of horizontal bars per figure (characters / token, bytes / token, tokens per word,
    words split, and characters lost: a tokenizer cannot look efficient by dropping text), one bar
    per tokenizer; `table` is `metrics.metrics_table(...)` (tokenizer names as index)."""
    from plotly.subplots import make_subplots

    labels = [METRIC_COLUMNS[field] for field in COMPARED_METRICS]
    names = [str(name) for name in table.index]
    shown = [escape(name) for name in short_names(names)]
    figure = make_subplots(
        rows=1, cols=len(labels), shared_yaxes=True, subplot_titles=labels, horizontal_spacing=0.03
    )
    for position, label in enumerate(labels, start=1):
        values = np.asarray(table[label], dtype=float) if label in table else np.full(len(names), np.nan)
        percent = label == METRIC_COLUMNS["split_word_share"]
        count = label == METRIC_COLUMNS["lost_characters"]
        figure.add_trace(
            go.Bar(
                x=values,
                y=shown,
                orientation="h",
                marker={"color": [SERIES_COLOURS[i % len(SERIES_COLOURS)] for i in range(len(names))]},
                customdata=[escape(name) for name in names],
                text=[_bar_text(v, percent, count) for v in values],
                textposition="auto",
                hovertemplate="%{customdata}<br>"
                + escape(label)
                + (" %{x:,}" if count else " %{x:.3f}")
                + "<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=position,
        )
        if percent:
            figure.update_xaxes(tickformat=".0%", row=1, col=position)
    figure.update_yaxes(autorange="reversed")
    figure.update_layout(
        height=max(220, 90 + 34 * len(names)),
        margin={"l": 10, "r": 10, "t": 60 if title else 40, "b": 30},
        bargap=0.25,
    )
    if title:
        figure.update_layout(title={"text": escape(title)})
    return figure


def _bar_text(value: float, percent: bool, count: bool) -> str:
    if np.isnan(value):
        return ""
    return f"{value:.0%}" if percent else f"{value:,.0f}" if count else f"{value:.2f}"


def metrics_curve_figure(curves) -> go.Figure:
    """`CURVE_PANELS` against vocabulary size (2 x 2 panels), one line per training run; `curves`
    maps a run's name to `compare.metrics_curve(trace)` (columns vocab_size, merges, the ratios)."""
    from plotly.subplots import make_subplots

    labels = list(CURVE_PANELS.values())
    figure = make_subplots(
        rows=2, cols=2, subplot_titles=labels, horizontal_spacing=0.08, vertical_spacing=0.14
    )
    for index, (name, curve) in enumerate(curves.items()):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        for position, field in enumerate(CURVE_PANELS):
            figure.add_trace(
                go.Scatter(
                    x=np.asarray(curve["vocab_size"], dtype=np.int64),
                    y=np.asarray(curve[field], dtype=float),
                    customdata=np.asarray(curve["merges"], dtype=np.int64),
                    mode="lines",
                    name=escape(name),
                    legendgroup=str(index),
                    showlegend=position == 0,
                    line={"color": colour, "width": 2},
                    hovertemplate="vocab %{x}<br>after %{customdata} merges<br>"
                    + escape(labels[position])
                    + " %{y:.3f}<extra></extra>",
                ),
                row=position // 2 + 1,
                col=position % 2 + 1,
            )
    figure.update_yaxes(tickformat=".0%", row=2, col=2)
    figure.update_xaxes(title_text="vocabulary size", row=2)
    figure.update_layout(
        height=560,
        margin={"l": 50, "r": 20, "t": 40, "b": 40},
        legend={"orientation": "h", "y": -0.16, "x": 0},
    )
    return figure
