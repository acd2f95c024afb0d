"""The rounds of a Unigram run, recorded while it trains: `RoundRecorder` collects what one round
removes (piece, reason, score, value), its losses and EM sizes, then `finish` turns it into the
`UnigramRound` a RoundHistory keeps (explorer.training.unigram.round_history), its columns as
numpy arrays.

What it does not do: decide what to remove (the trainers: course.py, library.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.training.unigram.round_history import REMOVAL_REASONS, UnigramRound


def _empty_rows() -> dict:
    return {"pieces": [], "reasons": [], "scores": [], "values": []}


@dataclass
class RoundRecorder:
    """What a trainer fills in during one round; `finish` turns it into an UnigramRound."""

    kind: str
    size_before: int
    losses: list[float] = field(default_factory=list)
    em_sizes: list[int] = field(default_factory=list)
    threshold: float | None = None
    added: list[str] = field(default_factory=list)
    first_kept: tuple[int, float] | None = None  # (seed index, value): see UnigramRound
    rows: dict = field(default_factory=_empty_rows)

    def remove(self, pieces, reason: str, scores, values=None) -> None:
        pieces = np.asarray(pieces, dtype=np.int64)
        self.rows["pieces"].append(pieces)
        self.rows["reasons"].append(np.full(len(pieces), REMOVAL_REASONS.index(reason), dtype=np.int8))
        self.rows["scores"].append(np.asarray(scores, dtype=np.float64))
        values = np.full(len(pieces), np.nan) if values is None else np.asarray(values, dtype=np.float64)
        self.rows["values"].append(values)

    def finish(self, alive, scores) -> UnigramRound:
        def joined(name, dtype):
            parts = self.rows[name]
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

        alive = np.asarray(alive, dtype=np.int32)
        return UnigramRound(
            kind=self.kind,
            size_before=self.size_before,
            size_after=len(alive),
            losses=[float(loss) for loss in self.losses],
            em_sizes=list(self.em_sizes),
            threshold=None if self.threshold is None else float(self.threshold),
            removed_pieces=joined("pieces", np.int32),
            removed_reasons=joined("reasons", np.int8),
            removed_scores=joined("scores", np.float64),
            removed_values=joined("values", np.float64),
            alive=alive,
            scores=np.asarray(scores, dtype=np.float64),
            added=list(self.added),
            first_kept=None
            if self.first_kept is None
            else (int(self.first_kept[0]), float(self.first_kept[1])),
        )
