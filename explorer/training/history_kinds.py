"""Which kind a `TrainingHistory` is, for code that has dispatched on its `step_noun` and asks a
question only that kind answers (a merge's candidates, a round's removed pieces):
`as_merge_history(history)` (BPE, WordPiece) and `as_round_history(history)` (Unigram) give it
typed as its class, and a TypeError when it is the other kind.

What it does not do: import either history's code (numpy, for Unigram) at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from explorer.training.history import TrainingHistory

if TYPE_CHECKING:
    from explorer.training.bpe.merge_history import MergeHistory
    from explorer.training.unigram.round_history import RoundHistory


def as_merge_history(history: TrainingHistory) -> MergeHistory:
    """`history` as the MergeHistory it is (BPE, WordPiece); TypeError for a round history."""
    if history.step_noun != "merge":
        raise TypeError(f"a {type(history).__name__} records {history.step_noun}s, not merges")
    return cast("MergeHistory", history)


def as_round_history(history: TrainingHistory) -> RoundHistory:
    """`history` as the RoundHistory it is (Unigram); TypeError for a merge history."""
    if history.step_noun != "round":
        raise TypeError(f"a {type(history).__name__} records {history.step_noun}s, not rounds")
    return cast("RoundHistory", history)
