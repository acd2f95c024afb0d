"""Which pair to merge next: the two selection rules, each a lazy priority queue over the engine.

- `LibraryQueue` replays the `tokenizers` library's BpeTrainer queue exactly: a max-heap of
  (count, smallest (id_left, id_right) first) entries, each carrying the set of words it will
  rewrite; a popped entry whose count is stale is corrected and pushed back. Entries are only
  pushed for pairs that gained occurrences in the last merge, with the words where they did; this
  is the library's behaviour, quirks included (an entry only rewrites the words it carries).
- `CourseQueue` reproduces the Hugging Face course loop (recount everything, take the first best
  pair in dict order) without recounting: the score is the pair frequency (BPE) or the likelihood
  count(ab) / (count(a) * count(b)) computed with the same float expression as the course
  (WordPiece); ties go to the pair whose first occurrence comes first when scanning words in order
  of first appearance, left to right, which is the course's dict insertion order.

Both also report the top competing candidates at each step for the trace.
What this module does not do: rewrite words (engine.py) or assign ids (trainers/__init__.py).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import count as counter

from explorer.trainers.engine import PAIR_MASK, PAIR_SHIFT, MergeEngine


@dataclass(frozen=True)
class Pick:
    """The pair chosen at one step, with the runners-up seen while choosing it."""

    key: int
    count: int
    score: float | None
    words: object  # the words to rewrite (a set of word indices)
    # The top competing pairs, best first, winner included, as columns: keys, counts, scores
    # (scores None when pairs are ranked by count).
    candidate_keys: list[int]
    candidate_counts: list[int]
    candidate_scores: list[float] | None


class LibraryQueue:
    """The library's BinaryHeap<Merge>, replayed with heapq (counts negated for a max-heap)."""

    def __init__(self, engine: MergeEngine, candidates: int):
        self.engine = engine
        self.limit = max(1, candidates)
        self._sequence = counter()
        pair_counts = engine.pair_counts
        self.heap = [
            (-pair_counts[key], key, next(self._sequence), words)
            for key, words in engine.initial_pair_words.items()
            if pair_counts[key] > 0
        ]
        heapq.heapify(self.heap)

    def pick(self) -> Pick | None:
        heap = self.heap
        pair_counts = self.engine.pair_counts
        heappop, heappush = heapq.heappop, heapq.heappush
        winner = None
        held = []
        taken: dict[int, int] = {}
        limit = self.limit
        # Pop until `limit` distinct pairs with current counts are out: the first is the library's
        # pick, the others are pushed back untouched. A popped entry whose count is stale is
        # corrected and pushed back, as the library does when it reaches the top.
        while heap and len(taken) < limit:
            entry = heappop(heap)
            key = entry[1]
            current = pair_counts[key]
            if -entry[0] != current:
                if current > 0:
                    # (The library pushes zero counts back too; such an entry can only stop
                    # training once nothing positive is left, which an empty queue reports.)
                    heappush(heap, (-current, key, entry[2], entry[3]))
                continue
            if winner is None:
                winner = entry
            else:
                held.append(entry)
            if key not in taken:
                taken[key] = current
        for entry in held:
            heappush(heap, entry)
        if winner is None:
            return None
        return Pick(winner[1], -winner[0], None, winner[3], list(taken), list(taken.values()), None)

    def after_merge(self, key: int, new_symbol: int, new_pairs: dict[int, set[int]]) -> None:
        pair_counts = self.engine.pair_counts
        heap = self.heap
        sequence = self._sequence
        for pair, words in new_pairs.items():
            current = pair_counts[pair]
            if current > 0:
                heapq.heappush(heap, (-current, pair, next(sequence), words))


class CourseQueue:
    """Max score first; exact ties broken by first occurrence in corpus scan order.

    Scored by pair frequency (the course's BPE). Invariant: the heap holds, for every live pair, an
    entry at its current score or a stale higher one (which `pick` corrects when it surfaces), so
    `after_merge` pushes every pair whose score rose.
    """

    def __init__(self, engine: MergeEngine, candidates: int):
        self.engine = engine
        self.limit = max(1, candidates)
        self.likelihood = False
        self.heap = []
        for key in engine.pair_counts:
            score = self.score(key)
            if score is not None:
                self.heap.append((-score, key))
        heapq.heapify(self.heap)

    def score(self, key: int):
        """The course's score for a pair, or None when the pair no longer occurs."""
        pair_count = self.engine.pair_counts.get(key, 0)
        return pair_count if pair_count > 0 else None

    def pick(self) -> Pick | None:
        heap = self.heap
        heappop, heappush = heapq.heappop, heapq.heappush
        pair_counts, freqs, likelihood = self.engine.pair_counts, self.engine.symbol_freqs, self.likelihood
        taken: dict[int, float] = {}
        best = None
        limit = self.limit
        # Pop until the whole tie group at the best score and `limit` distinct pairs are out.
        while heap:
            stored = -heap[0][0]
            if best is not None and stored < best and len(taken) >= limit:
                break
            key = heappop(heap)[1]
            if key in taken:
                continue  # a duplicate entry; one is pushed back below
            current = pair_counts.get(key, 0)  # self.score(key), inlined on this hot path
            if current <= 0:
                continue
            if likelihood:
                current = current / (freqs[key >> PAIR_SHIFT] * freqs[key & PAIR_MASK])
            if current != stored:
                if current < stored:  # a risen score already has its entry (the invariant)
                    heappush(heap, (-current, key))
                continue
            if best is None:
                best = current
            taken[key] = current
        if best is None:
            return None
        tied = [key for key, score in taken.items() if score == best]
        winner = tied[0] if len(tied) == 1 else min(tied, key=self.engine.first_occurrence)
        for key, score in taken.items():
            if key != winner:
                heappush(heap, (-score, key))
        pair_counts = self.engine.pair_counts
        ranked = sorted(taken.items(), key=lambda item: (-item[1], item[0] != winner, item[0]))[: self.limit]
        keys = [key for key, _ in ranked]
        return Pick(
            winner,
            pair_counts[winner],
            best if self.likelihood else None,
            self.engine.pair_words[winner],
            keys,
            [pair_counts[key] for key in keys],
            [score for _, score in ranked] if self.likelihood else None,
        )

    def after_merge(self, key: int, new_symbol: int, new_pairs: dict[int, set[int]]) -> None:
        pair_counts = self.engine.pair_counts
        self._forget(key)
        heap = self.heap
        for pair in new_pairs:
            count = pair_counts[pair]
            if count > 0:
                heapq.heappush(heap, (-count, pair))

    def _forget(self, key: int) -> None:
        # The course recounts after merging: a merged pair has no occurrence left, whatever the
        # overlap-counting deltas say (in `aaa`, (a, a) counted 2 but only 1 was merged).
        self.engine.pair_counts[key] = 0
        self.engine.pair_words.pop(key, None)


class LikelihoodQueue(CourseQueue):
    """The course's WordPiece: score = count(ab) / (count(a) * count(b)), best first.

    A merge lowers the frequencies of its two symbols, which raises the score of every pair
    holding them: each of those pairs gets an entry at its new score (the heap invariant of
    CourseQueue). Pairs whose score falls keep their stale higher entry until it surfaces.
    """

    def __init__(self, engine: MergeEngine, candidates: int):
        super().__init__(engine, candidates)
        self.likelihood = True

    def score(self, key: int):
        pair_count = self.engine.pair_counts.get(key, 0)
        if pair_count <= 0:
            return None
        freqs = self.engine.symbol_freqs
        # Same expression as the course's compute_pair_scores: freq / (freq_a * freq_b).
        return pair_count / (freqs[key >> PAIR_SHIFT] * freqs[key & PAIR_MASK])

    def after_merge(self, key: int, new_symbol: int, new_pairs: dict[int, set[int]]) -> None:
        engine = self.engine
        pair_counts, freqs, by_symbol = engine.pair_counts, engine.symbol_freqs, engine.pairs_by_symbol
        self._forget(key)
        to_push = set(new_pairs)
        for symbol in (key >> PAIR_SHIFT, key & PAIR_MASK):
            if not freqs.get(symbol):
                # Gone from the corpus: every pair holding it is dead.
                by_symbol.pop(symbol, None)
                continue
            holders = by_symbol.get(symbol)
            if holders:
                to_push |= holders
        heap = self.heap
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
