"""Figures of a training run, built by pure functions: a Trace (and a step) in, a Plotly figure out.

- `competition_figure`: the pairs that competed for one merge, as labelled bars (the merge
  player draws it at every step; the app's player is the animation).
- `merge_timeline`: every merge's count (and likelihood score for the course's WordPiece), with
  the current step marked, on a linear or a log scale.
- `compression_curve`: corpus tokens against vocabulary size, with the current step marked.
- `merge_tree_figure`: an icicle chart of how one token was built from characters.

Every label that comes from the corpus is made readable (`token_labels`) and HTML-escaped,
because Plotly interprets a subset of HTML in text and hover labels (`<b>`, `<a href>`, `<br>`).

What it does not do: import streamlit, or train anything.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.bytelevel import symbols_to_bytes
from explorer.render import readable_token
from explorer.step_sampling import sampled_steps  # noqa: F401 (charts.sampled_steps)
from explorer.trace import Trace

TOP_CANDIDATES = 10
BAR_COLOUR = "#8fb8de"
WINNER_COLOUR = "#e4572e"
MARKER_COLOUR = "#e4572e"


# ------------------------------------------------------------------------------------ labels


def readable_vocab_token(token: str, byte_level: bool) -> str:
    """A vocabulary token made visible: byte-level symbols decoded to their bytes, then shown
    with `render.readable_token` (space as ·, partial characters as <0xE2>). Tokens that are not
    byte symbols (special tokens such as <|endoftext|>) are shown as their own text."""
    if byte_level:
        try:
            return readable_token(symbols_to_bytes(token))
        except ValueError:
            pass
    return readable_token(token.encode("utf-8", errors="surrogatepass"))


def token_labels(trace: Trace) -> list[str]:
    """The readable form of every vocabulary token, by id (not HTML-escaped)."""
    byte_level = trace.config.is_byte_level
    return [readable_vocab_token(token, byte_level) for token in trace.vocab]


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


def pair_label(labels: Sequence[str], left_id: int, right_id: int) -> str:
    """'left + right' in readable form, HTML-escaped for Plotly."""
    return f"{_escape(labels[left_id])} + {_escape(labels[right_id])}"


def uses_scores(trace: Trace) -> bool:
    """True when merges were chosen by a likelihood score (the course's WordPiece), not a count."""
    return any(score is not None for score in trace.merge_scores)


# ------------------------------------------------------------------------------------ helpers


def competition_figure(
    trace: Trace, merge: int, labels: Sequence[str] | None = None, top: int = TOP_CANDIDATES
) -> go.Figure:
    """The pairs that competed for merge number `merge` (1-based) as horizontal bars, the chosen
    one first and in red, each bar labelled with its pair and its value (count, or likelihood
    score with count(ab) / (count(a) × count(b))). Drawn on every step of the merge player, so a
    learner sees the competition of the step the rest of the page shows."""
    labels = token_labels(trace) if labels is None else labels
    candidates = trace.candidates[merge - 1][:top]
    scored = candidates[0][3] is not None
    symbol_counts = trace.candidates.symbol_counts_at(merge - 1) or [None] * len(candidates)
    values = [score if scored else count for _, _, count, score in candidates]
    names = [pair_label(labels, left, right) for left, right, _, _ in candidates]
    value_texts = []
    for (_, _, count, score), counts in zip(candidates, symbol_counts):
        if not scored:
            value_texts.append(f"{count:,}")
        elif counts is None:
            value_texts.append(f"{score:.4g}")
        else:
            value_texts.append(f"{score:.4g} = {count:,} / ({counts[0]:,} × {counts[1]:,})")
    largest = max(values, default=0) or 1
    left, right, new_id = trace.merges[merge - 1]
    return go.Figure(
        {
            "data": [
                {
                    "type": "bar",
                    "orientation": "h",
                    "x": values,
                    "y": [f"#{rank}" for rank in range(1, len(candidates) + 1)],
                    "text": [f"{name}   {value}" for name, value in zip(names, value_texts)],
                    "textposition": "outside",
                    "cliponaxis": False,
                    "textfont": {"size": 14},
                    "marker": {"color": [WINNER_COLOUR] + [BAR_COLOUR] * (len(candidates) - 1)},
                    "hovertemplate": "%{text}<extra></extra>",
                }
            ],
            "layout": {
                "title": {
                    "text": f"The competition for merge {merge:,}: {pair_label(labels, left, right)} → {_escape(labels[new_id])}"
                },
                "xaxis": {
                    "title": {"text": "likelihood score" if scored else "pair count"},
                    # Room for the labels outside the bars (a score's label holds its formula).
                    "range": [0, largest * (2.9 if scored else 1.9)],
                    "rangemode": "tozero",
                },
                "yaxis": {"autorange": "reversed", "title": {"text": "rank"}},
                "margin": {"l": 50, "r": 20, "t": 50, "b": 40},
                "height": 110 + 28 * len(candidates),
                "showlegend": False,
            },
        }
    )


def merge_timeline(trace: Trace, current_step: int | None = None, log_scale: bool = False) -> go.Figure:
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
    layout = {
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


def compression_curve(trace: Trace, current_step: int | None = None) -> go.Figure:
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
                "name": f"after {current_step:,} merges",
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


def merge_tree_figure(tree: dict, labels: Sequence[str]) -> go.Figure:
    """Icicle chart of `Trace.merge_tree(token_id)`: the token on top, its two parents below, down
    to characters. Box widths count the characters (initial symbols) each part covers."""
    ids, parents, texts, values, hovers = [], [], [], [], []

    def visit(node: dict, path: str, parent: str) -> int:
        children = node["children"]
        size = (
            sum(visit(child, f"{path}/{index}", path) for index, child in enumerate(children))
            if children
            else 1
        )
        ids.append(path)
        parents.append(parent)
        texts.append(_escape(labels[node["id"]]))
        values.append(size)
        rank = "initial symbol" if node["rank"] is None else f"merge {node['rank'] + 1:,}"
        hovers.append(f"id {node['id']}, {rank}")
        return size

    visit(tree, "0", "")
    return go.Figure(
        {
            "data": [
                {
                    "type": "icicle",
                    "ids": ids,
                    "parents": parents,
                    "labels": texts,
                    "values": values,
                    "branchvalues": "total",
                    "customdata": hovers,
                    "hovertemplate": "%{label}<br>%{customdata}<extra></extra>",
                    "tiling": {"orientation": "v"},
                    "textfont": {"size": 16},
                    "sort": False,
                }
            ],
            "layout": {"margin": {"l": 10, "r": 10, "t": 10, "b": 10}, "height": 300},
        }
    )


# ------------------------------------------------------------------------------------ comparing tokenizers

# What the Compare page's bar chart draws, as named in `metrics.TokenizerMetrics` /
# `metrics.METRIC_COLUMNS`: the ratios, and beside them the characters no token spells out.
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

    from explorer.metrics import METRIC_COLUMNS

    labels = [METRIC_COLUMNS[field] for field in COMPARED_METRICS]
    names = [str(name) for name in table.index]
    shown = [_escape(name) for name in short_names(names)]
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
                customdata=[_escape(name) for name in names],
                text=[_bar_text(v, percent, count) for v in values],
                textposition="auto",
                hovertemplate="%{customdata}<br>"
                + _escape(label)
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
        figure.update_layout(title={"text": _escape(title)})
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
                    name=_escape(name),
                    legendgroup=str(index),
                    showlegend=position == 0,
                    line={"color": colour, "width": 2},
                    hovertemplate="vocab %{x}<br>after %{customdata} merges<br>"
                    + _escape(labels[position])
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
