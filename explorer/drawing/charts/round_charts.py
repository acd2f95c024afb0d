"""Figures of a Unigram run, built by pure functions: numbers from a RoundHistory (and a round) in,
a Plotly figure out (the Training history page draws them at every round).

- `vocabulary_figure`: the vocabulary size after every round (0: the seeds), the target size as a
  dotted line, the current round marked.
- `loss_figure`: every recorded loss (library: each EM iteration's objective, x counting the
  iterations; course: the model's loss after each round, x the round), rounds separated by
  dotted lines, the current round's points marked.

No label comes from the corpus, so nothing here needs escaping.

What it does not do: import streamlit, or read anything but the numbers it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

LINE_COLOUR = "#3a6ea5"
MARKER_COLOUR = "#e4572e"
TARGET_COLOUR = "#888"
SEPARATOR_COLOUR = "#c8c8c8"
MOST_TICKS = 15  # on an axis of whole numbers (rounds, EM iterations)


def whole_number_ticks(count: int) -> dict:
    """An x axis over `count` whole numbers with ticks on whole numbers only, 1, 2 or 5 times a
    power of ten apart, at most MOST_TICKS of them (Plotly's own ticks on a short axis fall at
    halves: "1.5" EM iterations)."""
    step, scale = 1, 1
    while count / step > MOST_TICKS:
        for factor in (2, 5, 10):
            step = factor * scale
            if count / step <= MOST_TICKS:
                break
        scale *= 10
    return {"tickmode": "linear", "tick0": 0, "dtick": step}


def vocabulary_figure(sizes: Sequence[int], current_round: int, target: int | None = None) -> go.Figure:
    """Vocabulary size after round r for r = 0..len(sizes) - 1, round `current_round` marked."""
    rounds = list(range(len(sizes)))
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "pieces",
            "x": rounds,
            "y": list(sizes),
            "line": {"color": LINE_COLOUR, "width": 2},
            "marker": {"size": 6},
            "hovertemplate": "after round %{x}: %{y:,} pieces<extra></extra>",
        }
    ]
    if 0 <= current_round < len(sizes):
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"after round {current_round}",
                "x": [current_round],
                "y": [sizes[current_round]],
                "marker": {"color": MARKER_COLOUR, "size": 12},
                "hovertemplate": "after round %{x}: %{y:,} pieces<extra>now</extra>",
            }
        )
    shapes = []
    if target is not None:
        shapes.append(
            {
                "type": "line",
                "xref": "paper",
                "yref": "y",
                "x0": 0,
                "x1": 1,
                "y0": target,
                "y1": target,
                "line": {"color": TARGET_COLOUR, "width": 1, "dash": "dot"},
            }
        )
    layout = {
        "title": {"text": "The vocabulary shrinking, round by round"},
        "xaxis": {"title": {"text": "round (0: the seeds)"}, **whole_number_ticks(len(sizes))},
        "yaxis": {"title": {"text": "pieces"}, "rangemode": "tozero"},
        "shapes": shapes,
        "margin": {"l": 60, "r": 20, "t": 50, "b": 40},
        "height": 320,
        "showlegend": False,
    }
    return go.Figure({"data": data, "layout": layout})


def loss_points(
    losses: Sequence[Sequence[float]], first_round: int = 1
) -> tuple[list[int], list[int], list[float]]:
    """Every loss in order: (x: its position, from `first_round`; the round it belongs to, losses[i]
    being round first_round + i's; the loss)."""
    xs: list[int] = []
    rounds: list[int] = []
    values: list[float] = []
    for r, round_losses in enumerate(losses, start=first_round):
        for loss in round_losses:
            xs.append(len(xs) + first_round)
            rounds.append(r)
            values.append(float(loss))
    return xs, rounds, values


def loss_figure(
    losses: Sequence[Sequence[float]], current_round: int, x_title: str = "EM iteration", first_round: int = 1
) -> go.Figure:
    """`losses[i]`: the losses of round first_round + i, drawn one after another; dotted lines
    between rounds; the points of round `current_round` marked (none if it has none)."""
    xs, rounds, values = loss_points(losses, first_round)
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": "loss",
            "x": xs,
            "y": values,
            "customdata": rounds,
            "line": {"color": LINE_COLOUR, "width": 2},
            "marker": {"size": 5},
            "hovertemplate": "round %{customdata}: loss %{y:.6g}<extra></extra>",
        }
    ]
    current = [index for index, r in enumerate(rounds) if r == current_round]
    if current:
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"round {current_round}",
                "x": [xs[index] for index in current],
                "y": [values[index] for index in current],
                "marker": {"color": MARKER_COLOUR, "size": 11},
                "hovertemplate": "round " + str(current_round) + ": loss %{y:.6g}<extra>now</extra>",
            }
        )
    shapes = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": xs[index] - 0.5,
            "x1": xs[index] - 0.5,
            "y0": 0,
            "y1": 1,
            "line": {"color": SEPARATOR_COLOUR, "width": 1, "dash": "dot"},
        }
        for index in range(1, len(rounds))
        if rounds[index] != rounds[index - 1] and len(set(rounds)) < len(rounds)  # one loss a round: no lines
    ]
    layout = {
        "title": {"text": "The loss, every iteration (rounds separated)"},
        "xaxis": {"title": {"text": x_title}, **whole_number_ticks(len(xs))},
        "yaxis": {"title": {"text": "loss"}},
        "shapes": shapes,
        "margin": {"l": 60, "r": 20, "t": 50, "b": 40},
        "height": 320,
        "showlegend": False,
    }
    return go.Figure({"data": data, "layout": layout})
