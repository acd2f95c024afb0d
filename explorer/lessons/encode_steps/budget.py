"""How many steps a text may record: pre-tokens longer than `MAX_SYMBOLS_WITH_STEPS` symbols, and
all pre-tokens once `MAX_RECORDED_PIECES` pieces have been recorded for one text, get their final
tokens from the merge loop alone and a note instead of steps. A 100,000-character word then costs
O(n log n) like `encode`, not the quadratic time and memory of recording every step
(bench/bench_encode_steps.py).

What it does not do: encode, or decide what a step is (each model's module does).
"""

from __future__ import annotations

MAX_SYMBOLS_WITH_STEPS = 400
MAX_RECORDED_PIECES = 300_000


class StepBudget:
    """How many more pieces may be recorded for this text (snapshots share unchanged pieces,
    but each step still holds a tuple as long as the pre-token)."""

    def __init__(self, pieces: int = MAX_RECORDED_PIECES):
        self.left = pieces

    def refusal(self, symbol_count: int) -> str:
        """Why this pre-token gets no steps, or "" when it may have them (and pays for them)."""
        if symbol_count > MAX_SYMBOLS_WITH_STEPS:
            return (
                f"{symbol_count:,} symbols: steps are shown for pre-tokens of up to "
                f"{MAX_SYMBOLS_WITH_STEPS:,} symbols; only its final tokens are shown"
            )
        cost = symbol_count * (symbol_count + 1) // 2
        if cost > self.left:
            return "the text is too long to show every step; only this pre-token's final tokens are shown"
        self.left -= cost
        return ""
