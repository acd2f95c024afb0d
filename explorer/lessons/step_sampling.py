"""Which steps of a long training run to show or measure: a few hundred, evenly spread.

A run of 20,000 merges measured at every step would cost far more than a figure can show: the
vocabulary curve (explorer.compare.curve) takes its points at `sampled_steps`, always with the
first and the last step.

What it does not do: read a trace (it works on step counts) or draw anything (explorer.drawing.charts).
"""

from __future__ import annotations

MAX_FRAMES = 300  # points sampled from a long run


def sampled_steps(total_steps: int, max_frames: int = MAX_FRAMES) -> list[int]:
    """Up to `max_frames` step indices in 0..total_steps-1, evenly spread, first and last kept.

    >>> sampled_steps(5), sampled_steps(11, 3)
    ([0, 1, 2, 3, 4], [0, 5, 10])
    """
    if total_steps <= 0:
        return []
    if max_frames <= 1:
        return [0]
    if total_steps <= max_frames:
        return list(range(total_steps))
    last = total_steps - 1
    return sorted({round(i * last / (max_frames - 1)) for i in range(max_frames)})
