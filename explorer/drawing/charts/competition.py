"""The competition for one merge: the pairs that competed, as a ranked list of labelled bars in
HTML, the chosen one first and in red, each with its value (a count, or a likelihood score with
its formula count(ab) / (count(a) × count(b))). The merge player draws it at every step, so a
learner sees the competition of the step the rest of the page shows.

HTML, not a Plotly figure: it is on the Merge history page's first screen and is drawn again at
every tick of the player, and a Plotly chart there cost the browser about a second of CPU per
page open (its script and its drawing; measured in Chromium). A list of bars is also text a screen
reader reads, and it wraps at any width.

What it does not do: rank the candidates (the trace recorded them, explorer.training.bpe.merge_history),
or animate (the app's player steps through the merges).
"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.drawing.charts.labels import escape, pair_label, token_labels
from explorer.training.bpe.merge_history import MergeHistory

TOP_CANDIDATES = 10  # the bars drawn: the chosen pair and the nine after it


def competition_html(
    trace: MergeHistory, merge: int, labels: Sequence[str] | None = None, top: int = TOP_CANDIDATES
) -> str:
    """The pairs that competed for merge number `merge` (1-based), ranked, the chosen one first
    and in red (explorer.drawing.stylesheet: `.competition`): each row its rank, its pair, its
    value, and a bar as long as its value is against the largest. Every token is escaped."""
    labels = token_labels(trace) if labels is None else labels
    candidates = trace.candidates[merge - 1][:top]
    scored = candidates[0][3] is not None
    recorded = trace.candidates.symbol_counts_at(merge - 1)
    symbol_counts: Sequence[tuple[int, int] | None] = recorded or [None] * len(candidates)
    values = [score if scored else count for _, _, count, score in candidates]
    largest = max(values, default=0) or 1
    left, right, new_id = trace.merges[merge - 1]
    title = (
        f"The competition for merge {merge:,}: {pair_label(labels, left, right)} → {escape(labels[new_id])}"
    )
    unit = "likelihood score" if scored else "pair count"
    rows = "".join(
        f'<li class="{"bar winner" if rank == 1 else "bar"}" style="--share:{100 * value / largest:.1f}%">'
        f'<span class="bar-rank">#{rank}</span> <span class="bar-pair">{pair_label(labels, a, b)}</span> '
        f'<span class="bar-value">{value_text(count, score, counts, scored)}</span></li>'
        for rank, ((a, b, count, score), value, counts) in enumerate(
            zip(candidates, values, symbol_counts), start=1
        )
    )
    return (
        f'<figure class="competition"><figcaption class="chart-title">{title}</figcaption>'
        f'<ol class="bars" aria-label="{unit} of each pair, the chosen one first">{rows}</ol>'
        f'<div class="bars-unit">Bars: {unit}, against the largest.</div></figure>'
    )


def value_text(count: int, score: float | None, counts: tuple[int, int] | None, scored: bool) -> str:
    """A bar's value: the pair's count; or its score, with the formula when count(a), count(b)
    were recorded."""
    if not scored:
        return f"{count:,}"
    if counts is None:
        return f"{score:.4g}"
    return f"{score:.4g} = {count:,} / ({counts[0]:,} × {counts[1]:,})"
