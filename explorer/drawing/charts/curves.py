"""A run over all its merges: every merge's count (and likelihood score for the course's
WordPiece) on a linear or a log scale, and the compression curve (corpus tokens against vocabulary
size), each with the current step marked.

Both are redrawn on every move of the step slider: their series are numpy arrays, which Plotly
validates and serializes an order of magnitude faster than lists.

What it does not do: compute the counts or the curve (the trace recorded them,
explorer.training.bpe.merge_history).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.charts.labels import uses_scores
from explorer.drawing.wording import plural
from explorer.training.bpe.merge_history import MergeHistory

MARKER_COLOUR = "#e4572e"


def merge_timeline(
    trace: MergeHistory, current_step: int | None = None, log_scale: bool = False
) -> go.Figure:
    """Count of every merge (and its score when scored), x = merge number 1..steps.

    `current_step` (number of merges applied, 0..steps) draws a vertical marker at that merge;
    `log_scale` puts the counts (and scores) on a logarithmic axis, where the long tail of rare
    pairs late in training stays readable.
    """
    # numpy arrays: Plotly validates and serializes them an order of magnitude faster than lists,
    # which matters because these two charts are redrawn on every move of the step slider.
    merge_numbers = np.arange(1, trace.steps + 1)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "pair count",
            "x": merge_numbers,
            "y": np.asarray(trace.merge_counts, dtype=np.int64),
            "line": {"color": "#3a6ea5", "width": 1.5},
            "hovertemplate": "merge %{x}<br>count %{y}<extra></extra>",
        }
    ]
    layout: dict[str, Any] = {  # a Plotly layout: JSON
        "title": {"text": "Count of each merged pair"},
        "xaxis": {"title": {"text": "merge number"}},
        "yaxis": {
            "title": {"text": "pair count"},
            **({"type": "log"} if log_scale else {"rangemode": "tozero"}),
        },
        "margin": {"l": 60, "r": 60, "t": 50, "b": 40},
        "height": 320,
        "legend": {"orientation": "h", "y": 1.12, "x": 1, "xanchor": "right"},
    }
    if uses_scores(trace):
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "likelihood score",
                "x": merge_numbers,
                "y": np.array(
                    [np.nan if score is None else score for score in trace.merge_scores], dtype=float
                ),
                "yaxis": "y2",
                "line": {"color": "#e49b0f", "width": 1.5},
                "hovertemplate": "merge %{x}<br>score %{y:.4g}<extra></extra>",
            }
        )
        layout["yaxis2"] = {
            "title": {"text": "likelihood score"},
            "overlaying": "y",
            "side": "right",
            **({"type": "log"} if log_scale else {"rangemode": "tozero"}),
        }
        layout["title"]["text"] = "Count and score of each merged pair"
    if current_step:
        layout["shapes"] = [_vertical_marker(current_step)]
    return go.Figure({"data": data, "layout": layout})


def compression_curve(trace: MergeHistory, current_step: int | None = None) -> go.Figure:
    """Corpus length in tokens against vocabulary size, one point per merge step (0..steps)."""
    sizes = np.asarray(trace.vocab_sizes, dtype=np.int64)
    tokens = np.asarray(trace.corpus_tokens, dtype=np.int64)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "name": "corpus tokens",
            "x": sizes,
            "y": tokens,
            "line": {"color": "#3a6ea5", "width": 2},
            "hovertemplate": "vocab %{x}<br>%{y} tokens<extra></extra>",
        }
    ]
    if current_step is not None and 0 <= current_step < len(sizes):
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"after {plural(current_step, 'merge')}",
                "x": [int(sizes[current_step])],
                "y": [int(tokens[current_step])],
                "marker": {"color": MARKER_COLOUR, "size": 11},
                "hovertemplate": "vocab %{x}<br>%{y} tokens<extra>now</extra>",
            }
        )
    layout = {
        "title": {"text": "Compression: corpus tokens vs vocabulary size"},
        "xaxis": {"title": {"text": "vocabulary size"}},
        "yaxis": {"title": {"text": "tokens in the corpus"}, "rangemode": "tozero"},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 40},
        "height": 320,
        "showlegend": False,
    }
    return go.Figure({"data": data, "layout": layout})


def _vertical_marker(x: float) -> dict:
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": MARKER_COLOUR, "width": 2, "dash": "dot"},
    }
