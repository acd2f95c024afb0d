"""The lattices of every word of the corpus at once, with numpy: forward-backward (the E step),
Viterbi (pruning) and the second-best segmentation of each piece (its alternatives).

Follows the library's `Lattice` (tokenizers 0.23.3, Rust `models/unigram/lattice.rs`) as the
trainer uses it, with its `populate_nodes` candidates: every alive seed piece occurring in a word,
plus an unknown-character edge (score min - 10) where no one-character piece is alive.

Vectorization: a word's lattice is a chain of positions; the value at a position depends only on
earlier positions of the same word. So all words advance together, one *depth* (characters from
the word's start) at a time: the edges ending at depth d, across every word, are one numpy slice,
grouped by end position for the log-sum-exp (or the maximum). The backward pass does the same
from the words' ends. Ties in the Viterbi maximum go to the edge starting first (the library's
first node in `end_nodes`).

Alternatives (the library's `nbest(2)` on the lattice of a piece's own string): the lattice of a
piece is the part of a corpus lattice inside one occurrence of it, so every piece is handled at
once as a window. The best path is the piece itself unless a segmentation scores more; the
second-best path is the best one not using the whole-piece edge. Where equal scores make the
library's A* search order matter, `exact_nbest` (unigram_nbest.py) is used for that piece.

Sums are not in the library's order (it sums in parallel, in hash-map order, and its own results
change in the last digits from run to run); final scores agree with a line-by-line port of the
library (tests/reference/unigram_library.py) to about 1e-10.

What it does not do: decide anything (unigram_library.py) or count seeds (unigram_seeds.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trainers.unigram_seeds import FlatCorpus, Seeds


class StopTraining(Exception):
    """`should_stop()` said yes in the middle of a pass (a very long word can make one pass long)."""


CHECK_EVERY = 256  # depths between two should_stop() calls inside a pass


@dataclass
class _Edges:
    """Edges sorted for one pass, grouped by the position they update (end, or start going
    backward); groups sorted by depth."""

    starts: np.ndarray
    lengths: np.ndarray
    pieces: np.ndarray
    group_first: list  # per group: its first edge; one more entry: the number of edges
    group_sizes: np.ndarray
    group_anchor: np.ndarray  # the position each group updates
    depth_groups: list  # per depth (from 1): its first group; one more entry: the number of groups

    def steps(self, should_stop=None):
        """Per depth: (first edge, stop edge, group offsets in the slice, group sizes, positions)."""
        first_of, depth_groups = self.group_first, self.depth_groups
        for depth in range(len(depth_groups) - 1):
            low, high = depth_groups[depth], depth_groups[depth + 1]
            if low == high:
                continue
            if should_stop is not None and depth % CHECK_EVERY == CHECK_EVERY - 1 and should_stop():
                raise StopTraining
            first, stop = first_of[low], first_of[high]
            offsets = np.asarray(first_of[low:high]) - first
            yield first, stop, offsets, self.group_sizes[low:high], self.group_anchor[low:high]


def _sorted_merge(base_keys, base, extra_keys, extra):
    """Insert the `extra` columns into the sorted `base` columns by key."""
    order = np.argsort(extra_keys, kind="stable")
    at = np.searchsorted(base_keys, extra_keys[order])
    return [np.insert(column, at, added[order]) for column, added in zip(base, extra)]


class CorpusLattices:
    def __init__(self, flat: FlatCorpus, seeds: Seeds, max_length: int):
        self.flat = flat
        self.unk = len(seeds.pieces)  # the unknown edges' piece index
        n = len(flat.codes)
        self.n = n
        lengths = flat.word_ends - flat.word_starts
        word_of = np.repeat(np.arange(len(flat.words)), lengths + 1)
        self.word_of = word_of
        self.word_start_of = flat.word_starts[word_of]
        self.word_end_of = flat.word_ends[word_of]
        self.counts = flat.counts.astype(np.float64)
        self.char_piece = seeds.char_piece
        self.in_word = np.arange(n) < self.word_end_of
        self.multiplier = max_length + 2
        # Edges are kept in 32 bits (a corpus of 2**31 characters is far beyond anything here);
        # sort keys are recomputed in 64 bits when unknown edges must be merged in.
        starts, lengths_, pieces = seeds.edge_starts, seeds.edge_lengths, seeds.edge_pieces
        self._orders = {}
        for name in ("forward", "backward", "by_start"):
            order = np.argsort(self._keys(name, starts, lengths_), kind="stable")
            self._orders[name] = (
                starts[order].astype(np.int32),
                lengths_[order].astype(np.int32),
                pieces[order].astype(np.int32),
            )

    def _keys(self, name, starts, lengths):
        starts, lengths = starts.astype(np.int64), lengths.astype(np.int64)
        n, m = self.n + 1, self.multiplier
        if name == "forward":  # by end depth, end, then start (longest first)
            ends = starts + lengths
            return ((ends - self.word_start_of[starts]) * n + ends) * m + (m - 1 - lengths)
        if name == "backward":  # by distance from the word's end, then start
            return ((self.word_end_of[starts] - starts) * n + starts) * m + lengths
        return starts * m + lengths  # by start, then length

    def edges(self, alive: np.ndarray) -> dict:
        """The current edges in each order: alive seed pieces plus unknown characters."""
        char_piece = self.char_piece
        unknown = np.flatnonzero(self.in_word & ((char_piece < 0) | ~alive[np.maximum(char_piece, 0)]))
        result = {}
        for name, (starts, lengths, pieces) in self._orders.items():
            keep = alive[pieces]
            columns = [starts[keep], lengths[keep], pieces[keep]]
            if len(unknown):
                ones = np.ones(len(unknown), dtype=np.int32)
                extra = [unknown.astype(np.int32), ones, np.full(len(unknown), self.unk, dtype=np.int32)]
                columns = _sorted_merge(
                    self._keys(name, columns[0], columns[1]), columns, self._keys(name, unknown, ones), extra
                )
            result[name] = columns
        result["forward"] = self._with_steps(*result["forward"], by_end=True)
        result["backward"] = self._with_steps(*result["backward"], by_end=False)
        return result

    def _with_steps(self, starts, lengths, pieces, by_end: bool) -> _Edges:
        ends = starts + lengths
        if by_end:
            depth, anchor = ends - self.word_start_of[starts], ends
        else:
            depth, anchor = self.word_end_of[starts] - starts, starts
        new_group = np.ones(len(anchor), dtype=bool)
        new_group[1:] = anchor[1:] != anchor[:-1]
        group_first = np.flatnonzero(new_group)
        group_sizes = np.diff(np.append(group_first, len(anchor)))
        depth_groups = np.searchsorted(depth[group_first], np.arange(1, int(depth.max(initial=0)) + 2))
        return _Edges(
            starts,
            lengths,
            pieces,
            group_first.tolist() + [len(anchor)],
            group_sizes,
            anchor[group_first],
            depth_groups.tolist(),
        )

    # -- the E step

    def expected_counts(self, edges: dict, scores: np.ndarray, should_stop=None) -> tuple[np.ndarray, float]:
        """Expected count of every piece (index `unk` for unknown edges) and the library's
        objective: minus the count-weighted mean log-likelihood of the words."""
        forward, backward = edges["forward"], edges["backward"]
        alpha = np.zeros(self.n + 1)
        edge_scores = scores[forward.pieces]
        for first, stop, offsets, sizes, ends in forward.steps(should_stop):
            values = alpha[forward.starts[first:stop]] + edge_scores[first:stop]
            alpha[ends] = _log_sum_exp_groups(values, offsets, sizes)
        beta = np.zeros(self.n + 1)
        back_scores = scores[backward.pieces]
        for first, stop, offsets, sizes, starts in backward.steps(should_stop):
            values = (
                back_scores[first:stop] + beta[backward.starts[first:stop] + backward.lengths[first:stop]]
            )
            beta[starts] = _log_sum_exp_groups(values, offsets, sizes)
        starts, ends = forward.starts, forward.starts + forward.lengths
        z = alpha[self.word_end_of[starts]]
        total = alpha[starts] + edge_scores + beta[ends] - z
        weights = self.counts[self.word_of[starts]] * np.exp(total)
        expected = np.bincount(forward.pieces, weights=weights, minlength=self.unk + 1)
        log_likelihood = alpha[self.flat.word_ends]
        objective = -float(np.dot(self.counts, log_likelihood)) / float(self.counts.sum())
        return expected, objective

    # -- Viterbi

    def viterbi_counts(self, edges: dict, scores: np.ndarray, should_stop=None) -> np.ndarray:
        """How often each piece occurs in the words' best segmentations (count-weighted)."""
        forward = edges["forward"]
        best = np.zeros(self.n + 1)
        best_edge = np.zeros(self.n + 1, dtype=np.int64)
        edge_scores = scores[forward.pieces]
        for first, stop, offsets, sizes, ends in forward.steps(should_stop):
            values = best[forward.starts[first:stop]] + edge_scores[first:stop]
            maxima, winners = _first_maximum_groups(values, offsets, sizes)
            best[ends] = maxima
            best_edge[ends] = winners + first
        freq = np.zeros(self.unk + 1)
        words = np.flatnonzero(self.flat.word_ends > self.flat.word_starts)
        position = self.flat.word_ends[words]
        starts = self.flat.word_starts[words]
        counts = self.counts[words]
        while len(position):
            edge = best_edge[position]
            freq += np.bincount(forward.pieces[edge], weights=counts, minlength=self.unk + 1)
            position = forward.starts[edge]
            going = position > starts
            position, starts, counts = position[going], starts[going], counts[going]
        return freq


def _log_sum_exp_groups(values: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    if len(offsets) == 1:  # one position at this depth (a long word's tail): no grouping needed
        maximum = values.max()
        return maximum + np.log(np.exp(values - maximum).sum(keepdims=True))
    maxima = np.maximum.reduceat(values, offsets)
    sums = np.add.reduceat(np.exp(values - np.repeat(maxima, sizes)), offsets)
    return maxima + np.log(sums)


def _first_maximum_groups(values: np.ndarray, offsets: np.ndarray, sizes: np.ndarray | None = None):
    """Per group: the maximum and the index (in `values`) of the first element reaching it."""
    maxima = np.maximum.reduceat(values, offsets)
    if sizes is None:
        sizes = np.diff(np.append(offsets, len(values)))
    reaching = values == np.repeat(maxima, sizes)
    indices = np.where(reaching, np.arange(len(values)), len(values))
    return maxima, np.minimum.reduceat(indices, offsets)
