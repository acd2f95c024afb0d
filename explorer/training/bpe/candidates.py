"""The competing pairs of every merge step of a MergeHistory, as flat columns.

At each step a trainer's queue chose one pair among others (the library can choose a pair below the
best, see queues.py); the MergeHistory keeps the chosen pair and the best others, with their
counts, likelihood scores and the counts of their two symbols when the run scores by likelihood.
Written into the trace's JSON as packed columns (explorer.training.packing); see
explorer.training.bpe.merge_history for
the schema.

What it does not do: choose or rank pairs (queues.py), or record them (recorder.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence as SequenceOf

from explorer.training.packing import Packed, resolve_packed, unpack_array


class Candidates(SequenceOf):
    """Per step, the competing pairs as (left_id, right_id, count, score) tuples: the chosen pair,
    then the best others (score None when pairs are ranked by count).

    Stored as flat columns (`ends[k]` = rows up to the end of step k): ten candidates for each of
    50,000 steps would otherwise be half a million tuples to build, keep and serialize.
    """

    def __init__(
        self,
        ends: array,
        lefts: array,
        rights: array,
        counts: array,
        scores: array | None,
        symbol_counts: tuple[array, array] | None = None,
    ):
        if not len(lefts) == len(rights) == len(counts) == (len(ends) and ends[-1]):
            raise ValueError("trace: candidate columns differ in length")
        if scores is not None and len(scores) != len(lefts):
            raise ValueError("trace: candidate scores differ in length")
        if symbol_counts is not None and not len(symbol_counts[0]) == len(symbol_counts[1]) == len(lefts):
            raise ValueError("trace: candidate symbol counts differ in length")
        self.ends, self.lefts, self.rights, self.counts, self.scores = ends, lefts, rights, counts, scores
        # count(a) and count(b) of each candidate (a, b) when scored by likelihood; None otherwise
        # (and in traces written before version 3).
        self.symbol_counts = symbol_counts

    @classmethod
    def from_steps(cls, steps) -> Candidates:
        """From nested lists: [[(left, right, count, score), ...] per step] (version 1 files, tests)."""
        ends, lefts, rights, counts, scores = array("i"), array("i"), array("i"), array("q"), array("d")
        scored = False
        for step in steps:
            for left, right, count, score in step:
                lefts.append(left)
                rights.append(right)
                counts.append(count)
                scored = scored or score is not None
                scores.append(float("nan") if score is None else score)
            ends.append(len(lefts))
        return cls(ends, lefts, rights, counts, scores if scored else None)

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, step):
        if isinstance(step, slice):
            return [self[index] for index in range(*step.indices(len(self)))]
        if step < 0:
            step += len(self.ends)
        if not 0 <= step < len(self.ends):
            raise IndexError("candidates: no such step")
        start, stop = (self.ends[step - 1] if step else 0), self.ends[step]
        scores = self.scores[start:stop] if self.scores is not None else [None] * (stop - start)
        return list(zip(self.lefts[start:stop], self.rights[start:stop], self.counts[start:stop], scores))

    def symbol_counts_at(self, step: int) -> list[tuple[int, int]] | None:
        """count(a), count(b) of every candidate of one step, in order (likelihood runs only)."""
        if self.symbol_counts is None:
            return None
        start, stop = (self.ends[step - 1] if step else 0), self.ends[step]
        lefts, rights = self.symbol_counts
        return list(zip(lefts[start:stop], rights[start:stop]))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Candidates):
            return NotImplemented
        return (
            (self.ends, self.lefts, self.rights, self.counts)
            == (other.ends, other.lefts, other.rights, other.counts)
            and (self.scores is None) == (other.scores is None)
            and (self.scores is None or self.scores == other.scores)
            and self.symbol_counts == other.symbol_counts
        )

    def to_dict(self) -> dict:
        return resolve_packed(self.json_fields())

    def json_fields(self) -> dict:
        """`to_dict()` with its columns still to pack (explorer.training.packing.Packed)."""
        packed = {
            "ends": Packed(self.ends, "i32"),
            "left": Packed(self.lefts, "i32"),
            "right": Packed(self.rights, "i32"),
            "count": Packed(self.counts, "i64"),
            "score": None if self.scores is None else Packed(self.scores, "f64"),
        }
        if self.symbol_counts is not None:
            packed["left_count"], packed["right_count"] = (
                Packed(column, "i64") for column in self.symbol_counts
            )
        return packed

    @classmethod
    def from_dict(cls, data) -> Candidates:
        if isinstance(data, list):  # version 1
            return cls.from_steps(data)
        scores = data.get("score")
        symbol_counts = None
        if data.get("left_count") is not None:
            symbol_counts = (
                unpack_array(data["left_count"], "i64"),
                unpack_array(data["right_count"], "i64"),
            )
        return cls(
            unpack_array(data["ends"], "i32"),
            unpack_array(data["left"], "i32"),
            unpack_array(data["right"], "i32"),
            unpack_array(data["count"], "i64"),
            None if scores is None else unpack_array(scores, "f64"),
            symbol_counts,
        )
