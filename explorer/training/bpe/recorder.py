"""The trace's per-merge columns, owned by one recorder: `record` appends one merge, `columns` hands
them over at the end as `MergeColumns` (merge_columns.py), the compiled engine's front does too.

A merge step contributes one row to each per-step list (the merged pair and new id, its count and
score, how many distinct words and corpus occurrences it rewrote) and a few rows to the candidate
columns (the chosen pair, then the best others). Keeping them here, in one place, is what lets the
merge loop in `trainer.py` stay a loop about merging.

What it does not do: choose pairs (queues.py), merge (engine.py), or build or read a MergeHistory
(merge_columns.py, merge_history.py).
"""

from __future__ import annotations

from array import array
from struct import pack

from explorer.training.bpe.candidates import Candidates
from explorer.training.bpe.engine import PAIR_MASK, PAIR_SHIFT
from explorer.training.bpe.merge_columns import MergeColumns
from explorer.training.bpe.queues import Pick

# The candidate columns wait in plain lists and go into their arrays in blocks of about this many
# rows: appending to an array converts every item on its own (about 150 ns each), `struct.pack`
# of a whole block about 45 ns, and the lists stay small.
FLUSH_ROWS = 1 << 16


def _extend(column: array, values: list) -> None:
    column.frombytes(pack(f"{len(values)}{column.typecode}", *values))


class MergeRecorder:
    """Columns filled one merge at a time. `scored`: the run ranks pairs by likelihood score, so the
    candidates keep their scores and the counts of their two symbols."""

    def __init__(self, scored: bool):
        self.scored = scored
        self.merges: list[tuple[int, int, int]] = []
        self.merge_counts: list[int] = []
        self.merge_scores: list[float | None] = []
        self.words_changed: list[int] = []
        self.occurrences: list[int] = []
        # Flat candidate columns (see explorer.training.bpe.candidates.Candidates): arrays, not
        # tuples, because ten candidates for each of 50,000 steps would be half a million objects.
        self.candidate_ends, self.candidate_lefts, self.candidate_rights = array("i"), array("i"), array("i")
        self.candidate_counts, self.candidate_scores = array("q"), array("d")
        self.candidate_left_counts, self.candidate_right_counts = array("q"), array("q")
        # Rows not yet in the arrays (see FLUSH_ROWS): the candidates' packed pairs, counts, scores
        # and (count(a), count(b)) tuples, and the row count at the end of each step.
        self._pairs: list[int] = []
        self._counts: list[int] = []
        self._scores: list[float] = []
        self._symbol_counts: list[tuple[int, int]] = []
        self._ends: list[int] = []
        self._rows = 0

    @property
    def steps(self) -> int:
        return len(self.merges)

    def record(self, pick: Pick, new_id: int, words_changed: int, occurrences: int) -> None:
        """One merge: `pick` (the pair and its competitors) made token `new_id`."""
        pair = pick.pair
        self.merges.append((pair >> PAIR_SHIFT, pair & PAIR_MASK, new_id))
        self.merge_counts.append(pick.count)
        self.merge_scores.append(pick.score)
        self.words_changed.append(words_changed)
        self.occurrences.append(occurrences)
        pairs = pick.candidate_pairs
        self._pairs += pairs
        self._counts += pick.candidate_counts
        if pick.candidate_scores is not None:
            assert pick.candidate_symbol_counts is not None  # set with the scores (likelihood)
            self._scores += pick.candidate_scores
            self._symbol_counts += pick.candidate_symbol_counts
        self._rows += len(pairs)
        self._ends.append(self._rows)
        if len(self._pairs) >= FLUSH_ROWS:
            self._flush()

    def _flush(self) -> None:
        """The waiting rows into the arrays."""
        pairs = self._pairs
        _extend(self.candidate_lefts, [pair >> PAIR_SHIFT for pair in pairs])
        _extend(self.candidate_rights, [pair & PAIR_MASK for pair in pairs])
        _extend(self.candidate_counts, self._counts)
        _extend(self.candidate_ends, self._ends)
        if self._scores:
            _extend(self.candidate_scores, self._scores)
            symbol_counts = self._symbol_counts
            _extend(self.candidate_left_counts, [left for left, _ in symbol_counts])
            _extend(self.candidate_right_counts, [right for _, right in symbol_counts])
        self._pairs, self._counts, self._scores, self._symbol_counts, self._ends = [], [], [], [], []

    def candidates(self) -> Candidates:
        self._flush()
        scored = self.scored
        return Candidates(
            self.candidate_ends,
            self.candidate_lefts,
            self.candidate_rights,
            self.candidate_counts,
            self.candidate_scores if scored else None,
            (self.candidate_left_counts, self.candidate_right_counts) if scored else None,
        )

    def columns(self, vocab: list[str], stop_reason: str, boundary_steps: list[array]) -> MergeColumns:
        """The recorded columns, with what the run ends with: its vocabulary, every word's
        boundary steps and why it stopped."""
        return MergeColumns(
            vocab=vocab,
            merges=self.merges,
            merge_counts=self.merge_counts,
            merge_scores=self.merge_scores,
            words_changed=self.words_changed,
            occurrences=self.occurrences,
            candidates=self.candidates(),
            stop_reason=stop_reason,
            boundary_steps=boundary_steps,
        )
