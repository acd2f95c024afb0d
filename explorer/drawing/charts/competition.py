"""The competition for one merge: the pairs that competed, as labelled horizontal bars, the chosen
one first and in red, each with its value (a count, or a likelihood score with its formula
count(ab) / (count(a) × count(b))). The merge player draws it at every step, so a learner sees the
competition of the step the rest of the page shows.

What it does not do: rank the candidates (the trace recorded them, explorer.training.bpe.merge_history),
or animate
(the app's player steps through the merges).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.drawing.charts.labels import escape, pair_label, token_labels
from explorer.training.bpe.merge_history import Trace

TOP_CANDIDATES = 10
BAR_COLOUR = "#8fb8de"
WINNER_COLOUR = "#e4572e"


def competition_figure(
    trace: Trace, merge: int, labels: Sequence[str] | None = None, top: int = TOP_CANDIDATES
) -> go.Figure:
    """The pairs that competed for merge number `merge` (1-based) as horizontal bars, the chosen
    one first and in red, each bar labelled with its pair and its value."""
    labels = token_labels(trace) if labels is None else labels
    candidates = trace.candidates[merge - 1][:top]
    scored = candidates[0][3] is not None
    recorded = trace.candidates.symbol_counts_at(merge - 1)
    symbol_counts: Sequence[tuple[int, int] | None] = recorded or [None] * len(candidates)
    values = [score if scored else count for _, _, count, score in candidates]
    names = [pair_label(labels, left, right) for left, right, _, _ in candidates]
    value_texts = [
        _value_text(count, score, counts, scored)
        for (_, _, count, score), counts in zip(candidates, symbol_counts)
    ]
    left, right, new_id = trace.merges[merge - 1]
    title = (
        f"The competition for merge {merge:,}: {pair_label(labels, left, right)} → {escape(labels[new_id])}"
    )
    return go.Figure(
        {
            "data": [_bars(values, [f"{name}   {value}" for name, value in zip(names, value_texts)])],
            "layout": _layout(title, scored, max(values, default=0) or 1, len(candidates)),
        }
    )


def _value_text(count: int, score: float | None, counts: tuple[int, int] | None, scored: bool) -> str:
    """A bar's value: the pair's count; or its score, with the formula when count(a), count(b)
    were recorded."""
    if not scored:
        return f"{count:,}"
    if counts is None:
        return f"{score:.4g}"
    return f"{score:.4g} = {count:,} / ({counts[0]:,} × {counts[1]:,})"


def _bars(values: list, texts: list[str]) -> dict:
    """One bar per candidate, ranked from the top, the winner (the first) in red."""
    return {
        "type": "bar",
        "orientation": "h",
        "x": values,
        "y": [f"#{rank}" for rank in range(1, len(values) + 1)],
        "text": texts,
        "textposition": "outside",
        "cliponaxis": False,
        "textfont": {"size": 14},
        "marker": {"color": [WINNER_COLOUR] + [BAR_COLOUR] * (len(values) - 1)},
        "hovertemplate": "%{text}<extra></extra>",
    }


def _layout(title: str, scored: bool, largest: float, bar_count: int) -> dict:
    return {
        "title": {"text": title},
        "xaxis": {
            "title": {"text": "likelihood score" if scored else "pair count"},
            # Room for the labels outside the bars (a score's label holds its formula).
            "range": [0, largest * (2.9 if scored else 1.9)],
            "rangemode": "tozero",
        },
        "yaxis": {"autorange": "reversed", "title": {"text": "rank"}},
        "margin": {"l": 50, "r": 20, "t": 50, "b": 40},
        "height": 110 + 28 * bar_count,
        "showlegend": False,
    }
