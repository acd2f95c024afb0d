"""The Compare page's figure of a run's merges against a pretrained tokenizer's: how many of the
run's first N merges the pretrained one has too (a count and a share), and at which of its own
ranks each of the run's merges sits.

What it does not do: compare any merges (explorer.compare.merge_overlap does) or import it: it
takes plain lists.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from explorer.drawing.charts.compare_figures import SERIES_COLOURS
from explorer.drawing.charts.labels import escape

GUIDE_COLOUR = "#adb5bd"


def merge_overlap_figure(
    steps: Sequence[int],
    matched: Sequence[int],
    rank_points: Sequence[tuple[int, int]],
    run_merges: int,
    pretrained: str,
    title: str = "",
) -> go.Figure:
    """Three panels over N, the run's first N merges: how many the pretrained tokenizer
    `pretrained` (a label) has too, as a count beside the line where all of them would be and as
    a share; and the pretrained rank of the run's merges against their own, both as "merge n"
    (rank + 1), the diagonal where the two orders agree. `steps`, `matched`: the curve's points;
    `rank_points`: (run rank, pretrained rank) of the run merges drawn (those it has, or a
    sample of them); `run_merges`: how many merges the run made."""
    from plotly.subplots import make_subplots

    name = escape(pretrained)
    figure = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=["merges in common", "share in common", f"merge n in {name}"],
        horizontal_spacing=0.1,
    )
    # Lists, not arrays: a few hundred points, written into the page's JSON as plain numbers.
    n = [int(step) for step in steps]
    found = [int(count) for count in matched]
    share = [count / max(step, 1) for step, count in zip(n, found)]
    colour = SERIES_COLOURS[0]
    figure.add_trace(_diagonal(n, "all of them"), row=1, col=1)
    count_shown = "%{y:,} in " + name + " (%{customdata:.1%})"
    share_shown = "%{y:.1%} in " + name + " (%{customdata:,})"
    figure.add_trace(_curve(n, found, share, colour, count_shown, f"in {name}"), row=1, col=1)
    figure.add_trace(_curve(n, share, found, colour, share_shown), row=1, col=2)
    run_n = [ours + 1 for ours, _ in rank_points]
    their_n = [theirs + 1 for _, theirs in rank_points]
    if run_merges:
        figure.add_trace(_diagonal([1, run_merges]), row=1, col=3)
    figure.add_trace(
        go.Scattergl(
            x=run_n,
            y=their_n,
            mode="markers",
            marker={"color": colour, "size": 4, "opacity": 0.6},
            showlegend=False,
            hovertemplate="run merge %{x:,}<br>merge %{y:,} in " + name + "<extra></extra>",
        ),
        row=1,
        col=3,
    )
    figure.update_yaxes(tickformat=".0%", range=[0, 1.02], row=1, col=2)
    figure.update_yaxes(type="log", dtick=1, row=1, col=3)  # 1, 10, 100...: no minor labels
    figure.update_xaxes(title_text="the run's first N merges", row=1, col=1)
    figure.update_xaxes(title_text="the run's first N merges", row=1, col=2)
    figure.update_xaxes(title_text="run merge n", row=1, col=3)
    figure.update_layout(height=380, margin={"l": 50, "r": 20, "t": 60 if title else 40, "b": 50})
    if title:
        figure.update_layout(title={"text": escape(title)})
    return figure


def _diagonal(points: list[int], name: str | None = None) -> go.Scatter:
    """The dotted line y = x through `points`, where the two numbers would be equal."""
    return go.Scatter(
        x=points,
        y=points,
        mode="lines",
        line={"color": GUIDE_COLOUR, "dash": "dot"},
        name=name,
        hoverinfo="skip",
        showlegend=False,
    )


def _curve(
    n: list[int], values: list, other: list, colour: str, shown: str, name: str | None = None
) -> go.Scatter:
    """A line over the run's first N merges of `values`, the hover saying `shown` of it (`other`,
    the same point in the other form, as its custom data)."""
    return go.Scatter(
        x=n,
        y=values,
        customdata=other,
        mode="lines",
        line={"color": colour, "width": 2},
        name=name,
        showlegend=False,
        hovertemplate="first %{x:,} merges<br>" + shown + "<extra></extra>",
    )
