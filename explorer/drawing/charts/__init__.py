"""Figures of a training run and of a comparison, built by pure functions: data in, a Plotly
figure (or, for the competition, HTML) out. One module per figure (or pair of figures):

| module | figures |
|---|---|
| `labels` | readable token labels, pair names, HTML escaping for Plotly and back (no figure) |
| `competition` | `competition_html`: the pairs that competed for one merge, as labelled bars in HTML |
| `curves` | `merge_timeline` (every merge's count and score), `compression_curve` |
| `merge_tree` | `merge_tree_figure`: an icicle chart of how one token was built |
| `compare_figures` | `metrics_bar_chart`, `metrics_curve_figure` (the Compare page) |
| `overlap_figure` | `merge_overlap_figure`: a run's merges found in a pretrained tokenizer's (Compare) |

Callers write `from explorer import charts; charts.merge_timeline(...)`: every figure and constant
is re-exported here.

What it does not do: import streamlit, or train or measure anything.
"""

from __future__ import annotations

from explorer.drawing.charts.compare_figures import (
    COMPARED_METRICS,
    CURVE_PANELS,
    MAX_NAME_LENGTH,
    SERIES_COLOURS,
    metrics_bar_chart,
    metrics_curve_figure,
    short_names,
)
from explorer.drawing.charts.competition import TOP_CANDIDATES, competition_html
from explorer.drawing.charts.curves import MARKER_COLOUR, compression_curve, merge_timeline
from explorer.drawing.charts.labels import (
    pair_label,
    plain_text,
    readable_vocab_token,
    token_labels,
    uses_scores,
    vocab_piece,
)
from explorer.drawing.charts.merge_tree import merge_tree_figure
from explorer.drawing.charts.overlap_figure import merge_overlap_figure

__all__ = [
    "COMPARED_METRICS",
    "CURVE_PANELS",
    "MARKER_COLOUR",
    "MAX_NAME_LENGTH",
    "SERIES_COLOURS",
    "TOP_CANDIDATES",
    "competition_html",
    "compression_curve",
    "merge_overlap_figure",
    "merge_timeline",
    "merge_tree_figure",
    "metrics_bar_chart",
    "metrics_curve_figure",
    "pair_label",
    "plain_text",
    "readable_vocab_token",
    "short_names",
    "token_labels",
    "uses_scores",
    "vocab_piece",
]
