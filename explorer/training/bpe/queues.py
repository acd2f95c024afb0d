"""Which pair to merge next: the two selection rules, each a lazy priority queue over the engine.

- `LibraryQueue` replays the `tokenizers` library's BpeTrainer queue exactly: a max-heap of
  (count, smallest (id_left, id_right) first) entries, each carrying the set of words it will
  rewrite; only its top is ever looked at: a top entry whose count is stale is corrected and
  pushed back. Entries are only pushed for pairs that gained occurrences in the last merge, with
  the words where they did; this is the library's behaviour, quirks included (an entry only
  rewrites the words it carries, and which of two entries of one pair at one count comes first
  is decided by the layout of the library's heap, an 8-ary `dary_heap::OctonaryHeap`, which
  `OctonaryHeap` (octonary_heap.py) replays; so nothing but the top may be touched).
- `CourseQueue` reproduces the Hugging Face course loop (recount everything, take the first best
  pair in dict order) without recounting: the score is the pair frequency (BPE) or the likelihood
  count(ab) / (count(a) * count(b)) computed with the same float expression as the course
  (WordPiece, `LikelihoodQueue`); ties go to the pair whose first occurrence comes first when
  scanning words in order of first appearance, left to right, which is the course's dict
  insertion order.

Both report the top competing candidates at each step for the trace, from a `Ranking`.
What this module does not do: rewrite words (engine.py) or assign ids (trainer.py).
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import count as counter
from operator import itemgetter
from typing import Any

from explorer.training.bpe.engine import PAIR_MASK, PAIR_SHIFT, MergeEngine
from explorer.training.bpe.octonary_heap import SEQ_BITS, SEQ_MASK, OctonaryHeap
from explorer.training.bpe.shared import STALE_ENTRIES_KEPT, STALE_FACTOR


@dataclass(slots=True)  # not frozen: a frozen dataclass sets each field through object.__setattr__
class Pick:
    """The pair chosen at one step, with the runners-up seen while choosing it."""

    pair: int
    count: int
    score: float | None
    words: object  # the words to rewrite (a set of word indices)
    # The competing pairs as columns: pairs, counts, scores (None when pairs are ranked by count):
    # the chosen pair first, then the best others.
    candidate_pairs: list[int]
    candidate_counts: list[int]
    candidate_scores: list[float] | None
    # For likelihood scores: the frequencies of each candidate's two symbols, count(a) and
    # count(b), the denominators of count(ab) / (count(a) * count(b)), in the same order.
    candidate_symbol_counts: list[tuple[int, int]] | None = None


# Integer scores (pair counts) are ranked as one int per entry, `pair - (score << PAIR_BITS)`:
# it orders exactly like the tuple (-score, pair) (pairs are below 2**PAIR_BITS), and comparing two
# ints is several times cheaper than comparing two tuples, which is what a heap does most.
PAIR_BITS = 2 * PAIR_SHIFT
PAIR_BITS_MASK = (1 << PAIR_BITS) - 1


def packed(score: int, pair: int) -> int:
    """The packed entry of an integer score: orders like (-score, pair)."""
    return pair - (score << PAIR_BITS)


class Ranking:
    """Pairs by score, best first (ties: smallest pair): a lazy max-heap of (-score, pair) entries,
    with the best few held out of it, sorted, from one call to the next. With `packed`, scores are
    ints and each entry is the single int `packed(score, pair)` (same order); `best` still returns
    (-score, pair) tuples.

    Invariant, kept by the owner: every live pair has an entry at its current score or a stale
    higher one, so whenever a pair's score rises the owner pushes an entry at the new score onto
    `heap` (with heapq, in the form above). A stale entry is corrected when it surfaces; a held
    entry whose score fell goes back corrected, one whose score rose is dropped (its newer entry
    is in the heap), a dead pair's entry is dropped.
    """

    def __init__(
        self,
        entries: list[Any],
        score: Callable[[int], float | int | None],
        packed: bool = False,
        counts: dict[int, int] | None = None,
        alive: dict[int, int] | None = None,
    ):
        self.heap: list[Any] = entries
        heapq.heapify(self.heap)
        self.held: list = []
        self.score = score  # the pair's current score, None for a dead pair
        self.packed = packed
        # A packed ranking's `score`, spelled out for `best_packed` (see there).
        self.counts: dict[int, int] = {} if counts is None else counts
        self.alive = alive

    def compact(self, pairs: Iterable[int]) -> None:
        """The heap rebuilt with one entry per live pair of `pairs` at its current score: the stale
        entries dropped (the invariant holds: every live pair has its current entry), the held
        ones left held. Which pairs `best` gives does not change; only the memory does (a course
        WordPiece run on 1 MB of prose piled up a million stale entries, 45 MB)."""
        score = self.score
        entries: list = []
        for pair in pairs:
            value = score(pair)
            if value is not None:
                entries.append(packed(value, pair) if self.packed else (-value, pair))  # type: ignore[arg-type]
        heapq.heapify(entries)
        self.heap = entries

    def best(self, limit: int, whole_tie_group: bool = False) -> list[tuple[float, int]]:
        """The `limit` best pairs as (-score, pair), best first, one entry per pair (and with
        `whole_tie_group`, every pair tied at the best score, however many)."""
        if self.packed:
            return [
                (entry >> PAIR_BITS, entry & PAIR_BITS_MASK)
                for entry in self.best_packed(limit, whole_tie_group)
            ]
        heap, score = self.heap, self.score
        heappop, heappush = heapq.heappop, heapq.heappush
        held = []
        for entry in self.held:
            current = score(entry[1])
            if current == -entry[0]:
                held.append(entry)
            elif current is not None and current < -entry[0]:
                heappush(heap, (-current, entry[1]))
        held_pairs = {entry[1] for entry in held}
        while heap:
            top = heap[0]
            if len(held) >= limit and top > held[limit - 1] and (not whole_tie_group or top[0] > held[0][0]):
                break
            heappop(heap)
            pair = top[1]
            if pair in held_pairs:
                continue  # the same entry again
            current = score(pair)
            if current is None:
                continue
            if current != -top[0]:
                if current < -top[0]:  # a risen score already has its newer entry
                    heappush(heap, (-current, pair))
                continue
            insort(held, top)
            held_pairs.add(pair)
        return self._hold(held, limit, whole_tie_group, itemgetter(0))

    def best_packed(self, limit: int, whole_tie_group: bool = False) -> list[int]:
        """`best` of a packed ranking, as its packed entries (score -(entry >> PAIR_BITS), pair
        entry & KEY_MASK). Its score is inlined: a pair's count in `counts`, dead at 0, and with
        `alive` also dead when `alive.get(pair)` is falsy (the same as `score`, without a call)."""
        heap, counts, alive = self.heap, self.counts, self.alive
        heappop, heappush = heapq.heappop, heapq.heappush
        held = []
        for entry in self.held:
            pair = entry & PAIR_BITS_MASK
            current = counts.get(pair, 0)
            if current <= 0 or (alive is not None and not alive.get(pair)):
                continue
            if current == -(entry >> PAIR_BITS):
                held.append(entry)
            elif current < -(entry >> PAIR_BITS):
                heappush(heap, pair - (current << PAIR_BITS))
        held_pairs = {entry & PAIR_BITS_MASK for entry in held}
        while heap:
            top = heap[0]
            if (
                len(held) >= limit
                and top > held[limit - 1]
                and (not whole_tie_group or top >> PAIR_BITS > held[0] >> PAIR_BITS)
            ):
                break
            heappop(heap)
            pair = top & PAIR_BITS_MASK
            if pair in held_pairs:
                continue  # the same entry again
            current = counts.get(pair, 0)
            if current <= 0 or (alive is not None and not alive.get(pair)):
                continue
            if current != -(top >> PAIR_BITS):
                if current < -(top >> PAIR_BITS):  # a risen score already has its newer entry
                    heappush(heap, pair - (current << PAIR_BITS))
                continue
            insort(held, top)
            held_pairs.add(pair)
        return self._hold(held, limit, whole_tie_group, _negated_packed_score)

    def _hold(self, held: list, limit: int, whole_tie_group: bool, negated_score: Callable) -> list:
        """Holds the `limit` first of `held` (sorted, best first), or with `whole_tie_group` all
        those tied at the best score if more, and puts the others back in the heap."""
        keep = limit
        if whole_tie_group and held:
            best = negated_score(held[0])
            while keep < len(held) and negated_score(held[keep]) == best:
                keep += 1
        for entry in held[keep:]:
            heapq.heappush(self.heap, entry)
        del held[keep:]
        self.held = held
        return held


def _negated_packed_score(entry: int) -> int:
    """-score of a packed entry (`packed(score, pair)`)."""
    return entry >> PAIR_BITS


class LibraryQueue:
    """The library's OctonaryHeap<Merge>, replayed: max count first, then the smallest
    (id_left, id_right); two entries of one pair at one count in the order the heap's layout
    gives them. Entries are pushed in the engine's order (first occurrence), where the library
    drains a hash map: where the library's own answer depends on that order, it changes from run
    to run, and ours is one of its answers."""

    def __init__(self, engine: MergeEngine, candidates: int):
        self.engine = engine
        self.limit = max(1, candidates)
        self._sequence = counter()
        pair_counts = engine.pair_counts
        # sequence -> the words its entry will rewrite
        self.words: dict[int, object] = {}
        self.heap = OctonaryHeap()
        for pair, words in engine.initial_pair_words.items():
            count = pair_counts[pair]
            if count > 0:
                sequence = next(self._sequence)
                self.heap.push(packed(count, pair) << SEQ_BITS | sequence)
                self.words[sequence] = words
        # The runners-up for the trace come from a ranking of their own, never from the heap:
        # the pairs the library could still pick, i.e. with an entry in its heap (a merged pair
        # keeps its count in the library's pair_counts, but not its entry).
        self.entries = entries = dict.fromkeys(
            (entry >> SEQ_BITS & PAIR_BITS_MASK for entry in self.heap.data), 1
        )  # pair -> entries in the heap

        def pickable_count(pair: int) -> int | None:
            count = pair_counts[pair]
            return count if count > 0 and entries.get(pair) else None

        self.ranking = Ranking(
            [entry >> SEQ_BITS for entry in self.heap.data], pickable_count, True, pair_counts, entries
        )

    def pick(self) -> Pick | None:
        heap = self.heap
        pair_counts = self.engine.pair_counts
        heappop, heappush = heap.pop, heap.push
        # The library's loop: pop the top; an entry whose count is stale is corrected and pushed
        # back. (The library pushes zero counts back too; such an entry can only stop training
        # once nothing positive is left, which an empty queue reports.)
        entries = self.entries
        while heap:
            entry = heappop()
            rest = entry >> SEQ_BITS
            pair = rest & PAIR_BITS_MASK
            current = pair_counts[pair]
            if -(rest >> PAIR_BITS) == current:
                break
            if current > 0:
                heappush((pair - (current << PAIR_BITS)) << SEQ_BITS | entry & SEQ_MASK)
            else:
                entries[pair] -= 1
                del self.words[entry & SEQ_MASK]
        else:
            return None
        winner = pair
        entries[winner] -= 1
        # The pick first (usually the pair with the highest count; not always when a merge made an
        # existing token again and the library kept a stale count), then the best others.
        others = [entry & PAIR_BITS_MASK for entry in self.ranking.best_packed(self.limit)]
        others = [pair for pair in others if pair != winner][: self.limit - 1]
        return Pick(
            winner,
            current,
            None,
            self.words.pop(entry & SEQ_MASK),
            [winner, *others],
            [current, *map(pair_counts.__getitem__, others)],
            None,
        )

    def after_merge(self, merged_pair: int, new_pairs: dict[int, set[int]]) -> None:
        pair_counts = self.engine.pair_counts
        heap, words_of, entries = self.heap, self.words, self.entries
        ranking_heap = self.ranking.heap
        sequence = self._sequence
        heappush = heapq.heappush
        for pair, words in new_pairs.items():
            current = pair_counts[pair]
            if current > 0:
                entry = pair - (current << PAIR_BITS)
                number = next(sequence)
                heap.push(entry << SEQ_BITS | number)
                words_of[number] = words
                entries[pair] = entries.get(pair, 0) + 1
                heappush(ranking_heap, entry)  # the ranking's invariant: a risen count gets an entry


class CourseQueue:
    """Max score first; exact ties broken by first occurrence in corpus scan order.

    Scored by pair frequency (the course's BPE). The ranking's invariant: `after_merge` pushes
    every pair whose score rose.
    """

    likelihood = False

    def __init__(self, engine: MergeEngine, candidates: int):
        self.engine = engine
        self.limit = max(1, candidates)
        score = self.scorer()
        entries: list = []
        for pair in engine.pair_counts:
            value = score(pair)
            if value is not None:
                entries.append((-value, pair) if self.likelihood else packed(value, pair))  # type: ignore[arg-type]
        self.ranking = Ranking(entries, score, not self.likelihood, engine.pair_counts)

    def scorer(self) -> Callable[[int], float | int | None]:
        """The course's score for a pair, or None when the pair no longer occurs."""
        pair_counts = self.engine.pair_counts

        def score(pair: int) -> int | None:
            count = pair_counts.get(pair, 0)
            return count if count > 0 else None

        return score

    def pick(self) -> Pick | None:
        held = self.ranking.best(self.limit, whole_tie_group=True)
        if not held:
            return None
        best = -held[0][0]
        tied = [pair for negated, pair in held if -negated == best]
        winner = tied[0] if len(tied) == 1 else min(tied, key=self.engine.first_occurrence)
        ranked = [(best, winner)] + [(-negated, pair) for negated, pair in held if pair != winner][
            : self.limit - 1
        ]
        pair_counts, pair_words = self.engine.pair_counts, self.engine.pair_words
        assert pair_words is not None  # the course's engine tracks the words holding each pair
        pairs = [pair for _, pair in ranked]
        symbol_counts = None
        if self.likelihood:
            freqs = self.engine.symbol_freqs
            assert freqs is not None  # a likelihood queue's engine tracks symbol frequencies
            symbol_counts = [(freqs[pair >> PAIR_SHIFT], freqs[pair & PAIR_MASK]) for pair in pairs]
        return Pick(
            winner,
            pair_counts[winner],
            best if self.likelihood else None,
            pair_words[winner],
            pairs,
            [pair_counts[pair] for pair in pairs],
            [score for score, _ in ranked] if self.likelihood else None,
            symbol_counts,
        )

    def after_merge(self, merged_pair: int, new_pairs: dict[int, set[int]]) -> None:
        pair_counts = self.engine.pair_counts
        self._forget(merged_pair)
        heap = self.ranking.heap
        for pair in new_pairs:
            count = pair_counts[pair]
            if count > 0:
                heapq.heappush(heap, pair - (count << PAIR_BITS))  # packed(count, pair)
        self.compact_when_stale()

    def compact_when_stale(self) -> None:
        """Rebuild the ranking's heap once it holds more stale entries than pairs (amortized: the
        rebuild costs one entry per pair, after at least as many pushes)."""
        pair_counts = self.engine.pair_counts
        if len(self.ranking.heap) > STALE_FACTOR * len(pair_counts) + STALE_ENTRIES_KEPT:
            self.ranking.compact(pair_counts)

    def _forget(self, pair: int) -> None:
        # The course recounts after merging: a merged pair has no occurrence left, whatever the
        # overlap-counting deltas say (in `aaa`, (a, a) counted 2 but only 1 was merged).
        self.engine.pair_counts[pair] = 0
        pair_words = self.engine.pair_words
        assert pair_words is not None  # the course's engine tracks the words holding each pair
        pair_words.pop(pair, None)


class LikelihoodQueue(CourseQueue):
    """The course's WordPiece: score = count(ab) / (count(a) * count(b)), best first.

    A merge lowers the frequencies of its two symbols, which raises the score of every pair
    holding them: each of those pairs gets an entry at its new score (the ranking's invariant).
    Pairs whose score falls keep their stale higher entry until it surfaces.
    """

    likelihood = True

    def scorer(self) -> Callable[[int], float | None]:
        pair_counts, freqs = self.engine.pair_counts, self.engine.symbol_freqs
        assert freqs is not None  # a likelihood queue's engine tracks symbol frequencies

        def score(pair: int) -> float | None:
            count = pair_counts.get(pair, 0)
            if count <= 0:
                return None
            # Same expression as the course's compute_pair_scores: freq / (freq_a * freq_b).
            return count / (freqs[pair >> PAIR_SHIFT] * freqs[pair & PAIR_MASK])

        return score

    def after_merge(self, merged_pair: int, new_pairs: dict[int, set[int]]) -> None:
        engine = self.engine
        pair_counts, freqs, by_symbol = engine.pair_counts, engine.symbol_freqs, engine.pairs_by_symbol
        assert freqs is not None and by_symbol is not None  # tracked for a likelihood queue
        self._forget(merged_pair)
        to_push = set(new_pairs)
        for symbol in (merged_pair >> PAIR_SHIFT, merged_pair & PAIR_MASK):
            if not freqs.get(symbol):
                # Gone from the corpus: every pair holding it is dead.
                by_symbol.pop(symbol, None)
                continue
            holders = by_symbol.get(symbol)
            if holders:
                to_push |= holders
        heap = self.ranking.heap
        heappush = heapq.heappush
        shift, mask = PAIR_SHIFT, PAIR_MASK
        dead = []
        # This loop is the likelihood's hot path (about 80 pairs per merge on a book): inlined.
        # (-count / product is exactly -(count / product): IEEE division is sign-symmetric.)
        for pair in to_push:
            count = pair_counts.get(pair, 0)
            if count > 0:
                heappush(heap, (-count / (freqs[pair >> shift] * freqs[pair & mask]), pair))
            else:
                dead.append(pair)
        for pair in dead:
            by_symbol.get(pair >> PAIR_SHIFT, set()).discard(pair)
            by_symbol.get(pair & PAIR_MASK, set()).discard(pair)
        self.compact_when_stale()
