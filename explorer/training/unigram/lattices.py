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
library's A* search order matter, `exact_nbest` (nbest.py) is used for that piece.

Sums are not in the library's order (it sums in parallel, in hash-map order, and its own results
change in the last digits from run to run); final scores agree with a line-by-line port of the
library (tests/reference/unigram_library.py) to about 1e-10. They are in one order of our own, so
that the compiled engine (engine/src/unigram.rs, compiled_lattices.py) gives the same bits: a
group's terms one after the other (np.bincount, not np.add.reduceat, which adds pairwise),
expected counts edge after edge in forward order (np.add.at), the objective word after word; exp
and log are portable_math's (numpy's own differ by CPU).

Memory: the edges are the bulk (several per character of the corpus, tens of millions on a few
megabytes of text), so they are kept once per pass order in 32 bits (lengths in 8), and dropped
for good as soon as their piece dies (a trainer's set of alive pieces only shrinks): after the
first EM iteration most seeds are gone. The by-start order is built only when pruning asks for it,
for the edges inside its pieces' windows; the posterior counts are summed in blocks of edges with
`np.add.at`, which adds in the same order as one `np.bincount` (the same sums, bit for bit),
without an array of floats per edge.

What it does not do: decide anything (library.py) or count seeds (seeds.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.training.unigram import portable_math
from explorer.training.unigram.seeds import FlatCorpus, Seeds


class StopTraining(Exception):
    """`should_stop()` said yes in the middle of a pass (a very long word can make one pass long)."""


CHECK_EVERY = 256  # depths between two should_stop() calls inside a pass
BLOCK = 1 << 18  # edges per block when summing posterior counts (about 10 MB of temporaries)


@dataclass
class _Edges:
    """Edges sorted for one pass, grouped by the position they update (end, or start going
    backward); groups sorted by depth."""

    starts: np.ndarray
    lengths: np.ndarray
    pieces: np.ndarray
    group_first: np.ndarray  # per group: its first edge; one more entry: the number of edges
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
            first, stop = int(first_of[low]), int(first_of[high])
            offsets = first_of[low:high] - first
            yield first, stop, offsets, self.group_sizes[low:high], self.group_anchor[low:high]


@dataclass
class CurrentEdges:
    """The edges of the alive pieces (and unknown characters), in the orders the passes need."""

    forward: _Edges
    backward: _Edges
    lattices: CorpusLattices

    def by_start(self, positions: np.ndarray) -> list:
        """(starts, lengths, pieces) of the edges starting at the marked positions (a boolean per
        corpus position), by start, then length: pruning asks only about its pieces' windows."""
        forward = self.forward
        chosen = np.flatnonzero(positions[forward.starts])
        starts, lengths = forward.starts[chosen], forward.lengths[chosen]
        order = np.argsort(self.lattices._keys("by_start", starts, lengths), kind="stable")
        return [starts[order], lengths[order], forward.pieces[chosen[order]]]


def _sorting_order(keys: np.ndarray) -> np.ndarray:
    """The permutation that sorts `keys` (unique, >= 0), computed in the keys' own memory when each
    edge's index fits beside its key in 63 bits (np.argsort would need a second array as large)."""
    count = len(keys)
    bits = max(1, count.bit_length())
    if count == 0 or int(keys.max()) >= 1 << (63 - bits):
        return np.argsort(keys)
    keys <<= bits
    for low in range(0, count, BLOCK):
        keys[low : low + BLOCK] |= np.arange(low, min(low + BLOCK, count), dtype=np.int64)
    keys.sort()
    keys &= (1 << bits) - 1
    return keys


def _sorted_merge(base_keys, base, extra_keys, extra):
    """Insert the `extra` columns into the sorted `base` columns by key."""
    order = np.argsort(extra_keys, kind="stable")
    at = np.searchsorted(base_keys, extra_keys[order])
    return [np.insert(column, at, added[order]) for column, added in zip(base, extra)]


class CorpusLattices:
    def __init__(self, flat: FlatCorpus, seeds: Seeds, max_length: int):
        """Takes the seed edges over: `seeds.edge_*` are emptied (they would double the memory)."""
        self.flat = flat
        self.unk = len(seeds.pieces)  # the unknown edges' piece index
        n = int(flat.word_ends[-1]) + 1 if len(flat.word_ends) else 0  # the characters and separators
        self.n = n
        lengths = flat.word_ends - flat.word_starts
        word_of = np.repeat(np.arange(len(flat.words), dtype=np.int32), lengths + 1)
        self.word_of = word_of
        self.word_start_of = flat.word_starts.astype(np.int32)[word_of]
        self.word_end_of = flat.word_ends.astype(np.int32)[word_of]
        self.counts = flat.counts.astype(np.float64)
        self.char_piece = seeds.char_piece
        self.in_word = np.arange(n) < self.word_end_of
        self.multiplier = max_length + 2
        # Edges are kept in 32 bits (a corpus of 2**31 characters is far beyond anything here),
        # lengths in 8 bits when pieces are short enough; sort keys are computed in 64 bits.
        self.length_type = np.uint8 if max_length < 256 else np.int32
        starts = seeds.edge_starts.astype(np.int32, copy=False)
        lengths_ = seeds.edge_lengths.astype(self.length_type, copy=False)
        pieces = seeds.edge_pieces.astype(np.int32, copy=False)
        seeds.edge_starts = seeds.edge_lengths = seeds.edge_pieces = np.zeros(0, dtype=np.int64)
        # Keys are unique (one edge per start and length): any sort gives the one order, and
        # the in-place one needs no buffer. The last order reuses the seed columns' memory.
        order = _sorting_order(self._keys("backward", starts, lengths_))
        backward = [starts[order], lengths_[order], pieces[order]]
        order = _sorting_order(self._keys("forward", starts, lengths_))
        starts = starts[order]
        lengths_ = lengths_[order]
        pieces = pieces[order]
        del order
        self._orders = {"forward": [starts, lengths_, pieces], "backward": backward}
        self._alive = None  # the alive pieces the stored edges were last filtered for

    def _keys(self, name, starts, lengths):
        """64-bit sort keys, computed in place (on tens of millions of edges every copy counts)."""
        n, m = self.n + 1, self.multiplier
        keys = starts.astype(np.int64)
        if name == "forward":  # by end depth, end, then start (longest first)
            keys += lengths  # the end e; the key is ((e - word start) * n + e) * m + ...
            keys *= n + 1
            for low in range(0, len(keys), BLOCK):
                keys[low : low + BLOCK] -= self.word_start_of[starts[low : low + BLOCK]].astype(np.int64) * n
            keys *= m
            keys += m - 1
            keys -= lengths
        elif name == "backward":  # by distance from the word's end, then start
            keys -= self.word_end_of[starts]
            keys *= -n
            keys += starts
            keys *= m
            keys += lengths
        else:  # by start, then length
            keys *= m
            keys += lengths
        return keys

    def _drop_dead(self, alive: np.ndarray) -> None:
        """Forget the edges of pieces no longer alive; alive sets only shrink from call to call."""
        if self._alive is not None:
            if np.array_equal(alive, self._alive):
                return
            if (alive & ~self._alive).any():
                raise ValueError("a piece came back to life: the lattices dropped its edges")
        for name, columns in self._orders.items():
            keep = alive[columns[2]]
            if not keep.all():
                self._orders[name] = [column[keep] for column in columns]
        self._alive = alive.copy()

    def edges(self, alive: np.ndarray) -> CurrentEdges:
        """The current edges in each order: alive seed pieces plus unknown characters."""
        self._drop_dead(alive)
        char_piece = self.char_piece
        unknown = np.flatnonzero(self.in_word & ((char_piece < 0) | ~alive[np.maximum(char_piece, 0)]))
        result = {}
        for name, columns in self._orders.items():
            if len(unknown):
                ones = np.ones(len(unknown), dtype=self.length_type)
                extra = [unknown.astype(np.int32), ones, np.full(len(unknown), self.unk, dtype=np.int32)]
                columns = _sorted_merge(
                    self._keys(name, columns[0], columns[1]), columns, self._keys(name, unknown, ones), extra
                )
            result[name] = columns
        forward, backward = result["forward"], result["backward"]
        return CurrentEdges(
            self._with_steps(forward[0], forward[1], forward[2], by_end=True),
            self._with_steps(backward[0], backward[1], backward[2], by_end=False),
            self,
        )

    def _with_steps(self, starts, lengths, pieces, by_end: bool) -> _Edges:
        if by_end:
            anchor = starts + lengths
            depth = anchor - self.word_start_of[starts]
        else:
            anchor = starts
            depth = self.word_end_of[starts] - starts
        new_group = np.ones(len(anchor), dtype=bool)
        new_group[1:] = anchor[1:] != anchor[:-1]
        group_first = np.flatnonzero(new_group)
        del new_group
        group_sizes = np.diff(np.append(group_first, len(anchor)))
        depth_groups = np.searchsorted(depth[group_first], np.arange(1, int(depth.max(initial=0)) + 2))
        return _Edges(
            starts,
            lengths,
            pieces,
            np.append(group_first, len(anchor)),
            group_sizes,
            anchor[group_first],
            depth_groups.tolist(),
        )

    # -- the E step

    def expected_counts(
        self, edges: CurrentEdges, scores: np.ndarray, should_stop=None
    ) -> tuple[np.ndarray, float]:
        """Expected count of every piece (index `unk` for unknown edges) and the library's
        objective: minus the count-weighted mean log-likelihood of the words."""
        forward, backward = edges.forward, edges.backward
        alpha = np.zeros(self.n + 1)
        for first, stop, offsets, sizes, ends in forward.steps(should_stop):
            values = alpha[forward.starts[first:stop]] + scores[forward.pieces[first:stop]]
            alpha[ends] = _log_sum_exp_groups(values, offsets, sizes)
        beta = np.zeros(self.n + 1)
        for first, stop, offsets, sizes, starts in backward.steps(should_stop):
            values = (
                scores[backward.pieces[first:stop]]
                + beta[backward.starts[first:stop] + backward.lengths[first:stop]]
            )
            beta[starts] = _log_sum_exp_groups(values, offsets, sizes)
        expected = np.zeros(self.unk + 1)
        for low in range(0, len(forward.starts), BLOCK):
            starts = forward.starts[low : low + BLOCK]
            pieces = forward.pieces[low : low + BLOCK]
            total = alpha[starts] + scores[pieces] + beta[starts + forward.lengths[low : low + BLOCK]]
            total -= alpha[self.word_end_of[starts]]
            # np.add.at adds one edge after the other, as np.bincount does: the same sums
            np.add.at(expected, pieces, self.counts[self.word_of[starts]] * portable_math.exp(total))
        weighted = self.counts * alpha[self.flat.word_ends]  # count times log-likelihood, per word
        objective = -float(np.add.accumulate(weighted)[-1] if len(weighted) else 0.0) / float(
            self.counts.sum()
        )
        return expected, objective

    # -- Viterbi

    def viterbi_counts(self, edges: CurrentEdges, scores: np.ndarray, should_stop=None) -> np.ndarray:
        """How often each piece occurs in the words' best segmentations (count-weighted)."""
        forward = edges.forward
        best = np.zeros(self.n + 1)
        best_edge = np.zeros(self.n + 1, dtype=np.int64)
        for first, stop, offsets, sizes, ends in forward.steps(should_stop):
            values = best[forward.starts[first:stop]] + scores[forward.pieces[first:stop]]
            maxima, winners = first_maximum_groups(values, offsets, sizes)
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
    """Per group: max + log(sum of exp(value - max)), the sum taken one value after the other in
    the group's order (np.bincount adds in element order; np.add.reduceat would add pairwise)."""
    maxima = np.maximum.reduceat(values, offsets)
    terms = portable_math.exp(values - np.repeat(maxima, sizes))
    group = np.repeat(np.arange(len(offsets)), sizes)
    return maxima + portable_math.log(np.bincount(group, weights=terms, minlength=len(offsets)))


def first_maximum_groups(values: np.ndarray, offsets: np.ndarray, sizes: np.ndarray | None = None):
    """Per group: the maximum and the index (in `values`) of the first element reaching it."""
    maxima = np.maximum.reduceat(values, offsets)
    if sizes is None:
        sizes = np.diff(np.append(offsets, len(values)))
    reaching = values == np.repeat(maxima, sizes)
    indices = np.where(reaching, np.arange(len(values)), len(values))
    return maxima, np.minimum.reduceat(indices, offsets)
