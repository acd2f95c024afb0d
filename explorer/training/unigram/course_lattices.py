"""The course's `encode_word` for many words at once, with numpy, bit for bit.

Every word's candidate pieces (the seed pieces it contains: `word_edges`) are found once, as
flat arrays. A batch is a list of words, each with its own set of candidates (the same word can
appear several times, e.g. once per piece whose removal is being scored). The Viterbi search then advances all
of them together one character position at a time: at position d, the candidates ending there,
across the whole batch, are one numpy slice, grouped by batch item.

Same arithmetic as the course: a candidate scores `model[piece] + best score at its start`
(one addition, the word starting at 1), a position keeps the smallest score and, among equal
ones, the candidate tried first (the smallest start), exactly as the course's strict `>` test.

What it does not do: decide anything (unigram_course.py).
"""

from __future__ import annotations

import numpy as np

from explorer.training.unigram.lattices import first_maximum_groups


def word_edges(word: str, pieces, longest: int) -> list[tuple[int, int, str]]:
    """The substrings of `word` that are seed pieces, as (start, end, piece), in the order the
    course's encode_word tries them (start, then end)."""
    length = len(word)
    return [
        (start, end, word[start:end])
        for start in range(length)
        for end in range(start + 1, min(length, start + longest) + 1)
        if word[start:end] in pieces
    ]


class CourseLattices:
    def __init__(self, words: list[str], seeds: list[str], longest: int):
        index = {piece: position for position, piece in enumerate(seeds)}
        rows = [
            (word_index, start, end, index[piece])
            for word_index, word in enumerate(words)
            for start, end, piece in word_edges(word, index, longest)
        ]
        table = np.array(rows, dtype=np.int64).reshape(-1, 4)
        self.edge_word, self.edge_start, self.edge_end, self.edge_piece = (
            table[:, column].copy() for column in range(4)
        )
        self.lengths = np.asarray([len(word) for word in words], dtype=np.int64)

    def alive_edges(self, alive: np.ndarray):
        """Edge indices of alive pieces, grouped by word: (indices, first per word, count per word)."""
        edges = np.flatnonzero(alive[self.edge_piece])
        count = np.bincount(self.edge_word[edges], minlength=len(self.lengths))
        return edges, np.cumsum(count) - count, count

    def best(
        self, items: np.ndarray, edges: np.ndarray, item_of_edge: np.ndarray, values: np.ndarray, paths=False
    ):
        """Best score of every batch item (a word index in `items`) over its candidate `edges`;
        with `paths`, also (item, piece) for each token of each best segmentation."""
        lengths = self.lengths[items]
        offsets = np.cumsum(lengths + 1) - (lengths + 1)
        starts, ends, pieces = self.edge_start[edges], self.edge_end[edges], self.edge_piece[edges]
        width = int(lengths.max(initial=0)) + 1
        order = np.argsort((ends * len(items) + item_of_edge) * width + starts, kind="stable")
        starts, ends, pieces, owner = starts[order], ends[order], pieces[order], item_of_edge[order]
        best = np.full(int(lengths.sum() + len(lengths)), np.inf)
        best[offsets] = 1.0  # encode_word's {"start": 0, "score": 1}
        pointer = np.full(len(best), -1, dtype=np.int64)
        bounds = np.searchsorted(ends, np.arange(1, int(lengths.max(initial=0)) + 2))
        for low, high in zip(bounds[:-1], bounds[1:]):
            if high == low:
                continue
            group_items = owner[low:high]
            groups = np.flatnonzero(np.concatenate(([True], group_items[1:] != group_items[:-1])))
            scores = values[pieces[low:high]] + best[offsets[group_items] + starts[low:high]]
            negated, first = first_maximum_groups(-scores, groups)  # the first smallest
            cells = offsets[group_items[groups]] + ends[low]
            best[cells] = -negated
            pointer[cells] = first + low
        totals = best[offsets + lengths]
        if not paths:
            return totals
        tokens_item, tokens_piece = [], []
        cell = offsets + lengths
        walking = np.flatnonzero(lengths > 0)
        while len(walking):
            edge = pointer[cell[walking]]
            tokens_item.append(walking)
            tokens_piece.append(pieces[edge])
            cell[walking] = offsets[walking] + starts[edge]
            walking = walking[starts[edge] > 0]
        if not tokens_item:
            return totals, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return totals, np.concatenate(tokens_item), np.concatenate(tokens_piece)
