"""The incremental merge engine shared by every trainer (BPE and WordPiece, both flavors).

State: each distinct word as a list of symbol ids, its corpus count, `pair_counts` (pair -> weighted
number of adjacent occurrences, overlaps included, exactly as the `tokenizers` library counts them),
and for the likelihood score the weighted frequency of every symbol. A merge rewrites only the words
that hold the pair and reports the pair-count deltas the library's `Word::merge` reports, in the same
order, so the library's priority queue can be replayed exactly. Nothing is ever re-counted.

The engine also records, for every character boundary inside every word, the merge step that
removed it (`boundary_steps`): that single array is what lets a MergeHistory answer "how is every word
segmented after step k" without replaying anything.

What it does not do: choose the next pair (see `queues.py`), build vocabularies or ids, or
pre-tokenize text.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from typing import Any

from explorer.run_config import MAX_SYMBOLS
from explorer.training.bpe.shared import NEVER

# A pair (left id, right id) is packed into one int: hashing and comparing an int is much cheaper
# than a tuple on the hot path, and `left << PAIR_SHIFT | right` orders pairs exactly like
# the library's `(id_left, id_right)` tuple comparison.
# Ids stay below MAX_SYMBOLS (a TrainerConfig checks its vocab_size against it).
PAIR_SHIFT = MAX_SYMBOLS.bit_length() - 1
PAIR_MASK = (1 << PAIR_SHIFT) - 1

# Words longer than this are held as numpy arrays and merged with whole-array operations (same
# results and deltas as the loop), which keeps a merge linear and fast even for a 1,000,000-
# character pre-token; in-place list deletes would make it quadratic.
LONG_WORD = 2048


def pack(left: int, right: int) -> int:
    return left << PAIR_SHIFT | right


def unpack(pair: int) -> tuple[int, int]:
    return pair >> PAIR_SHIFT, pair & PAIR_MASK


class MergeEngine:
    """Words as symbol-id lists plus incrementally maintained pair counts."""

    def __init__(
        self,
        words: list[list[int]],
        counts: list[int],
        token_lengths: list[int],
        prefix_length: int = 0,
        track_symbol_freqs: bool = False,
        track_pair_words: bool = False,
    ):
        # A word longer than LONG_WORD symbols becomes a numpy int64 array once counted.
        self.words: list[Any] = words
        self.counts = counts
        # Length of each token's string, decorations included. Every symbol's string is its
        # characters with the prefix when it does not start the word (and the suffix when it ends
        # it), so the characters before a boundary follow from these lengths and the position.
        self.token_lengths = token_lengths
        self.prefix_length = prefix_length
        self.boundary_steps = [
            array("i", [NEVER]) * (len(w) - 1) if len(w) > 1 else array("i") for w in words
        ]
        self.pair_counts: defaultdict[int, int] = defaultdict(int)
        # pair -> words that held it when it was counted (a superset: never pruned eagerly).
        self.initial_pair_words: dict[int, set[int]] = {}
        self.symbol_freqs: dict[int, int] | None = {} if track_symbol_freqs else None
        self.pair_words: dict[int, set[int]] | None = None
        self.pairs_by_symbol: dict[int, set[int]] | None = None
        self._count_pairs()
        if track_pair_words:
            # The course's queues keep no sets of their own: the engine's become the live index.
            self.pair_words = dict(self.initial_pair_words)
            self.initial_pair_words = {}
        if track_symbol_freqs:
            self.pairs_by_symbol = {}
            for pair in self.pair_counts:
                left, right = unpack(pair)
                self.pairs_by_symbol.setdefault(left, set()).add(pair)
                self.pairs_by_symbol.setdefault(right, set()).add(pair)

    def _count_pairs(self) -> None:
        pair_counts = self.pair_counts
        pair_words: defaultdict[int, set[int]] = defaultdict(set)
        symbol_freqs = self.symbol_freqs
        for index, (symbols, count) in enumerate(zip(self.words, self.counts)):
            if len(symbols) > LONG_WORD:
                self._count_long_word(index, pair_words)
                continue
            if symbol_freqs is not None:
                for symbol in symbols:
                    symbol_freqs[symbol] = symbol_freqs.get(symbol, 0) + count
            for pair in [left << PAIR_SHIFT | right for left, right in zip(symbols, symbols[1:])]:
                pair_counts[pair] += count
                pair_words[pair].add(index)
        self.initial_pair_words = pair_words

    def _count_long_word(self, index: int, pair_words) -> None:
        import numpy as np

        symbols = self.words[index] = np.array(self.words[index], dtype=np.int64)
        count = self.counts[index]
        if self.symbol_freqs is not None:
            freqs = self.symbol_freqs
            for symbol, times in zip(*(part.tolist() for part in np.unique(symbols, return_counts=True))):
                freqs[symbol] = freqs.get(symbol, 0) + times * count
        pairs = symbols[:-1] << PAIR_SHIFT | symbols[1:]
        for pair, times in zip(*(part.tolist() for part in np.unique(pairs, return_counts=True))):
            self.pair_counts[pair] += times * count
            pair_words[pair].add(index)

    def merge(self, merged_pair: int, new_symbol: int, candidate_words, step: int):
        """Merge `merged_pair` into `new_symbol` in every word of `candidate_words` that holds it.

        Returns (new_pairs, words_changed, occurrences): `new_pairs` maps every pair that received
        a positive delta to the set of words where it did (the library's `where_to_update`);
        `occurrences` is the number of corpus occurrences merged (weighted by word counts).
        """
        left, right = merged_pair >> PAIR_SHIFT, merged_pair & PAIR_MASK
        words = self.words
        counts = self.counts
        pair_counts = self.pair_counts
        lengths = self.token_lengths
        prefix_length = self.prefix_length
        boundary_steps = self.boundary_steps
        new_pairs: defaultdict[int, set[int]] = defaultdict(set)
        words_changed = 0
        occurrences = 0
        shift = PAIR_SHIFT
        new_shifted = new_symbol << shift
        right_shifted = right << shift
        last_character_of_left = lengths[left] - 1
        merged_per_word = []

        for index in candidate_words:
            symbols = words[index]
            size = len(symbols)
            if size < 2:
                continue
            if size > LONG_WORD:
                merged_here = self._merge_long_word(index, left, right, new_symbol, step, new_pairs)
                if merged_here:
                    merged_per_word.append(merged_here * counts[index])
                continue
            # Counting first (in C) makes a word that no longer holds the pair cost almost nothing.
            remaining = symbols.count(left)
            if not remaining:
                continue
            merged_here = 0
            position = -1
            while remaining:
                position = symbols.index(left, position + 1)
                remaining -= 1
                if position >= size - 1:
                    break
                if symbols[position + 1] != right:
                    continue
                if right == left:
                    remaining -= 1
                if not merged_here:
                    count = counts[index]
                    steps = boundary_steps[index]
                # The boundary removed sits after the left symbol's characters (a prefix on every
                # symbol but the first one is not a character of the word).
                if position:
                    steps[
                        sum(map(lengths.__getitem__, symbols[:position]))
                        - prefix_length * position
                        + last_character_of_left
                    ] = step
                    previous_shifted = symbols[position - 1] << shift
                    pair_counts[previous_shifted | left] -= count
                    pair = previous_shifted | new_symbol
                    pair_counts[pair] += count
                    new_pairs[pair].add(index)
                else:
                    steps[last_character_of_left] = step
                symbols[position] = new_symbol
                del symbols[position + 1]
                size -= 1
                if position < size - 1:
                    following = symbols[position + 1]
                    pair_counts[right_shifted | following] -= count
                    pair = new_shifted | following
                    pair_counts[pair] += count
                    new_pairs[pair].add(index)
                merged_here += 1
            if merged_here:
                merged_per_word.append(merged_here * count)
        words_changed = len(merged_per_word)
        occurrences = sum(merged_per_word)
        if self.symbol_freqs is not None and occurrences:
            freqs = self.symbol_freqs
            freqs[left] -= occurrences
            freqs[right] -= occurrences
            freqs[new_symbol] = freqs.get(new_symbol, 0) + occurrences
        if self.pair_words is not None:
            pair_words = self.pair_words
            for pair, holders in new_pairs.items():
                known = pair_words.get(pair)
                if known is None:
                    pair_words[pair] = set(holders)
                else:
                    known |= holders
        if self.pairs_by_symbol is not None:
            by_symbol = self.pairs_by_symbol
            for pair in new_pairs:
                by_symbol.setdefault(pair >> PAIR_SHIFT, set()).add(pair)
                by_symbol.setdefault(pair & PAIR_MASK, set()).add(pair)
        return new_pairs, words_changed, occurrences

    def _merge_long_word(self, index, left, right, new_symbol, step, new_pairs) -> int:
        """The short-word loop's merge, deltas and boundary steps, as whole-array operations."""
        import numpy as np

        symbols = self.words[index]
        size = symbols.size
        starts = np.flatnonzero((symbols[:-1] == left) & (symbols[1:] == right))
        if left == right and starts.size > 1:
            # Overlapping occurrences (`aaa`): left to right, every other one of a run of starts.
            run_begins = np.empty(starts.size, dtype=bool)
            run_begins[0] = True
            run_begins[1:] = np.diff(starts) != 1
            run_start = np.maximum.accumulate(np.where(run_begins, starts, 0))
            starts = starts[(starts - run_start) % 2 == 0]
        if not starts.size:
            return 0
        count = self.counts[index]
        # Boundary removed: after the left symbol's characters (see the short-word loop).
        lengths = np.array(self.token_lengths, dtype=np.int64)
        char_lengths = lengths[symbols]
        before = np.cumsum(char_lengths) - char_lengths
        offsets = before[starts] + lengths[left] - self.prefix_length * starts - 1
        np.frombuffer(self.boundary_steps[index], dtype=np.int32)[offsets] = step
        # The loop's deltas: (previous, left) -> (previous, new), where previous is the new symbol
        # right after an adjacent occurrence, and (right, following) -> (new, following).
        adjacent = np.zeros(starts.size, dtype=bool)
        adjacent[1:] = np.diff(starts) == 2
        has_previous = starts > 0
        previous = np.where(adjacent, new_symbol, symbols[np.maximum(starts - 1, 0)])[has_previous]
        following = symbols[starts[starts + 2 < size] + 2]
        lost = np.concatenate((previous << PAIR_SHIFT | left, right << PAIR_SHIFT | following))
        gained = np.concatenate((previous << PAIR_SHIFT | new_symbol, new_symbol << PAIR_SHIFT | following))
        pair_counts = self.pair_counts
        for pairs, change in ((lost, -count), (gained, count)):
            for pair, times in zip(*(part.tolist() for part in np.unique(pairs, return_counts=True))):
                pair_counts[pair] += change * times
        for pair in np.unique(gained).tolist():
            new_pairs[pair].add(index)
        symbols[starts] = new_symbol
        keep = np.ones(size, dtype=bool)
        keep[starts + 1] = False
        merged = symbols[keep]
        self.words[index] = merged if merged.size > LONG_WORD else merged.tolist()
        return int(starts.size)

    def first_occurrence(self, pair: int) -> tuple[int, int]:
        """(word index, symbol position) of the pair's first occurrence in corpus order.

        Needs `track_pair_words`. Prunes words that no longer hold the pair on the way.
        """
        left, right = pair >> PAIR_SHIFT, pair & PAIR_MASK
        assert self.pair_words is not None  # needs track_pair_words
        holders = self.pair_words[pair]
        for index in sorted(holders):
            symbols = self.words[index]
            if len(symbols) > LONG_WORD:  # a numpy array
                hits = (symbols[:-1] == left) & (symbols[1:] == right)
                if hits.any():
                    return index, int(hits.argmax())
                holders.discard(index)
                continue
            position = 0
            size = len(symbols)
            while True:
                try:
                    position = symbols.index(left, position, size - 1)
                except ValueError:
                    break
                if symbols[position + 1] == right:
                    return index, position
                position += 1
            holders.discard(index)
        raise LookupError("pair has no occurrence left")
