"""Each piece's own lattice during pruning: is the piece its own best segmentation, and if so,
which pieces would replace it (the second-best segmentation)?

The library (tokenizers 0.23.3, `UnigramTrainer::prune_sentence_pieces`) runs `Lattice::nbest(2)`
on the string of every piece: an A* search from the end of the lattice, on a 4-ary heap
(`dary_heap::QuaternaryHeap`) whose comparison never answers "equal".
- `piece_alternatives` does it for all pieces at once with numpy: a piece's lattice is the part of
  the corpus lattice inside one of its occurrences (a window). A Viterbi pass over all windows
  gives the best path (ties: the edge starting first) and the best path without the
  whole-piece edge. Without ties that is what the A* search returns.
- Where two candidates tie anywhere in a window, the A* order decides, so `exact_nbest` replays
  the library's search for that piece: nodes inserted as `populate_nodes` does (by start,
  shorter first, the unknown edge last), its Viterbi, then the A* with the heap's sift-up and
  sift-down-to-bottom, where a <= b only when a's estimate is strictly smaller.

What it does not do: score or remove pieces (library.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.training.unigram.lattices import first_maximum_groups


@dataclass
class Alternatives:
    is_own_best: np.ndarray  # per candidate: the whole-piece edge is the best path
    pieces: np.ndarray  # per candidate: the second-best path's pieces, left to right, -1 padded


def piece_alternatives(lattices, edges, scores, candidates, representative, lengths) -> Alternatives:
    """For every candidate piece (all longer than one character), from the window of the corpus
    at its representative occurrence."""
    count = len(candidates)
    longest = int(lengths.max(initial=1))
    if count == 0:
        return Alternatives(np.zeros(0, dtype=bool), np.full((0, longest), -1, dtype=np.int64))
    # 1. The (window, edge) pairs: edges starting inside the window and ending within it.
    row_window = np.repeat(np.arange(count), lengths)
    row_offset = np.arange(len(row_window)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = representative[row_window] + row_offset
    in_windows = np.zeros(lattices.n + 1, dtype=bool)
    in_windows[position] = True
    starts, edge_lengths, edge_pieces = edges.by_start(in_windows)
    del in_windows
    multiplier = lattices.multiplier
    keys = starts.astype(np.int64) * multiplier + edge_lengths
    first = np.searchsorted(starts, position)
    stop = np.searchsorted(keys, position * multiplier + (lengths[row_window] - row_offset), side="right")
    sizes = stop - first
    pair_row = np.repeat(np.arange(len(sizes)), sizes)
    pair_edge = (
        np.repeat(first, sizes) + np.arange(len(pair_row)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    )
    pair_window, pair_offset = row_window[pair_row], row_offset[pair_row]
    pair_piece = edge_pieces[pair_edge]
    pair_end = pair_offset + edge_lengths[pair_edge]
    pair_score = scores[pair_piece]
    order = np.lexsort((pair_offset, pair_window, pair_end))
    pair_window, pair_offset, pair_piece, pair_end, pair_score = (
        column[order] for column in (pair_window, pair_offset, pair_piece, pair_end, pair_score)
    )
    # 2. Viterbi over every window, depth by depth.
    width = longest + 1
    best = np.full(count * width, -np.inf)
    best[np.arange(count) * width] = 0.0
    best_pair = np.full(count * width, -1, dtype=np.int64)
    tie = np.zeros(count, dtype=bool)
    bounds = np.searchsorted(pair_end, np.arange(1, longest + 2))
    for low, high in zip(bounds[:-1], bounds[1:]):
        if high == low:
            continue
        windows = pair_window[low:high]
        offsets = np.flatnonzero(np.concatenate(([True], windows[1:] != windows[:-1])))
        values = best[windows * width + pair_offset[low:high]] + pair_score[low:high]
        maxima, winners = first_maximum_groups(values, offsets)
        cells = windows[offsets] * width + pair_end[low]
        best[cells] = maxima
        best_pair[cells] = winners + low
        tie[windows[offsets][_reaching_counts(values, offsets, maxima) > 1]] = True
    # 3. The whole piece is its best path when the winning edge at its end starts at 0.
    own_best = pair_offset[best_pair[np.arange(count) * width + lengths]] == 0
    # 4. The best path without the whole-piece edge: its last edge, then the Viterbi pointers.
    last = np.flatnonzero((pair_end == lengths[pair_window]) & (pair_offset > 0))
    windows = pair_window[last]
    offsets = np.flatnonzero(np.concatenate(([True], windows[1:] != windows[:-1])))
    values = best[windows * width + pair_offset[last]] + pair_score[last]
    maxima, winners = first_maximum_groups(values, offsets)
    alt_last = np.full(count, -1, dtype=np.int64)
    alt_last[windows[offsets]] = last[winners]
    alt_value = np.full(count, -np.inf)
    alt_value[windows[offsets]] = maxima
    tie[windows[offsets][_reaching_counts(values, offsets, maxima) > 1]] = True
    tie |= own_best & (alt_value == best[np.arange(count) * width + lengths])
    path = np.full((count, longest), -1, dtype=np.int64)
    steps = np.zeros(count, dtype=np.int64)
    current = alt_last.copy()
    walking = np.flatnonzero(own_best & (current >= 0))
    while len(walking):
        pairs = current[walking]
        path[walking, steps[walking]] = pair_piece[pairs]
        steps[walking] += 1
        start = pair_offset[pairs]
        current[walking] = np.where(start > 0, best_pair[walking * width + start], -1)
        walking = walking[start > 0]
    # Left to right, as the library lists them.
    pieces = np.full((count, longest), -1, dtype=np.int64)
    columns = np.arange(longest)
    valid = columns[None, :] < steps[:, None]
    source = np.where(valid, steps[:, None] - 1 - columns[None, :], 0)
    pieces[valid] = np.take_along_axis(path, source, axis=1)[valid]
    result = Alternatives(own_best, pieces)
    for index in np.flatnonzero(tie).tolist():
        mine = np.flatnonzero(pair_window == index)
        nodes = sorted(
            zip(pair_offset[mine], pair_end[mine] - pair_offset[mine], pair_piece[mine], pair_score[mine])
        )
        paths = exact_nbest(nodes, int(lengths[index]), lattices.unk)
        result.is_own_best[index] = len(paths) > 1 and len(paths[0]) == 1
        result.pieces[index] = -1
        if result.is_own_best[index]:
            result.pieces[index, : len(paths[1])] = paths[1]
    return result


def _reaching_counts(values, offsets, maxima):
    sizes = np.diff(np.append(offsets, len(values)))
    return np.add.reduceat((values == np.repeat(maxima, sizes)).astype(np.int64), offsets)


# ---------------------------------------------------------------- the library's A* search, exactly


class _Node:
    __slots__ = ("piece", "pos", "length", "score", "prev", "backtrace")

    def __init__(self, piece, pos, length, score):
        self.piece, self.pos, self.length, self.score = piece, pos, length, score
        self.prev, self.backtrace = None, 0.0


def exact_nbest(nodes, length: int, unk: int) -> list[list[int]]:
    """The library's `nbest(2)` on one piece's lattice: up to two paths, as lists of pieces.
    `nodes`: (start, length, piece, score) tuples, in any order."""
    # populate_nodes inserts by start, pieces shortest first, the unknown edge last.
    ordered = sorted(nodes, key=lambda node: (node[0], node[2] == unk, node[1]))
    begin: list[list[_Node]] = [[] for _ in range(length + 1)]
    end: list[list[_Node]] = [[] for _ in range(length + 1)]
    bos, eos = _Node(-1, 0, 0, 0.0), _Node(-2, length, 0, 0.0)
    end[0].append(bos)
    begin[length].append(eos)
    for start, size, piece, score in ordered:
        node = _Node(int(piece), int(start), int(size), float(score))
        begin[node.pos].append(node)
        end[node.pos + node.length].append(node)
    # Lattice::viterbi fills the backtrace scores.
    for pos in range(length + 1):
        for right in begin[pos]:
            best_score, best_node = 0.0, None
            for left in end[pos]:
                score = left.backtrace + right.score
                if best_node is None or score > best_score:
                    best_node, best_score = left, score
            right.prev, right.backtrace = best_node, best_score
    heap = _QuaternaryHeap()
    heap.push((eos.score, eos.score, eos, None))
    paths = []
    while len(heap.data):
        fx, gx, node, following = top = heap.pop()
        if node is bos:
            path = []
            while following[3] is not None:
                path.append(following[2].piece)
                following = following[3]
            paths.append(path)
            if len(paths) == 2:
                break
            continue
        for left in end[node.pos]:
            heap.push((left.backtrace + gx, left.score + gx, left, top))
    return paths


class _QuaternaryHeap:
    """dary_heap's QuaternaryHeap with the library's Hypothesis order: a <= b iff a.fx < b.fx.
    Items are (fx, ...) tuples."""

    def __init__(self):
        self.data = []

    def push(self, item):
        self.data.append(item)
        self._sift_up(0, len(self.data) - 1)

    def pop(self):
        item = self.data.pop()
        if self.data:
            item, self.data[0] = self.data[0], item
            self._sift_down_to_bottom(0)
        return item

    def _sift_up(self, start, pos):
        data = self.data
        element = data[pos]
        while pos > start:
            parent = (pos - 1) // 4
            if element[0] < data[parent][0]:
                break
            data[pos] = data[parent]
            pos = parent
        data[pos] = element

    def _sift_down_to_bottom(self, pos):
        data = self.data
        end, start, element = len(data), pos, data[pos]
        child = 4 * pos + 1
        while child <= max(end - 4, 0):
            a = child + 1 if data[child][0] < data[child + 1][0] else child
            b = child + 3 if data[child + 2][0] < data[child + 3][0] else child + 2
            child = b if data[a][0] < data[b][0] else a
            data[pos] = data[child]
            pos = child
            child = 4 * pos + 1
        for other in range(child + 1, end):
            if data[child][0] < data[other][0]:
                child = other
        if child < end:
            data[pos] = data[child]
            pos = child
        data[pos] = element
        self._sift_up(start, pos)
