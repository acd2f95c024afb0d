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
from bisect import insort
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


def _distinct_cutoff(entries: list[tuple], limit: int) -> int | None:
    """Index of the entry where the `limit`-th distinct pair appears in sorted `entries`, or None."""
    seen = set()
    for index, entry in enumerate(entries):
        seen.add(entry[1])
        if len(seen) == limit:
            return index
    return None


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
        self.held: list[tuple] = []  # valid entries popped for the last step's runners-up, sorted

    def pick(self) -> Pick | None:
        heap, held = self.heap, self.held
        pair_counts = self.engine.pair_counts
        heappop, heappush = heapq.heappop, heapq.heappush
        limit = self.limit
        # The entries popped for the previous step's runners-up wait in `held` (sorted) instead of
        # going back into the heap: first, those whose count changed since are corrected and
        # pushed back (as the library does with a stale entry when it reaches the top).
        kept = []
        for entry in held:
            current = pair_counts[entry[1]]
            if -entry[0] == current:
                kept.append(entry)
            elif current > 0:
                # (The library pushes zero counts back too; such an entry can only stop training
                # once nothing positive is left, which an empty queue reports.)
                heappush(heap, (-current, entry[1], entry[2], entry[3]))
        held = kept
        # Then pop until `limit` distinct pairs with current counts come before the heap's top:
        # the first held entry is the library's pick, the others are the runners-up.
        while heap:
            cutoff = _distinct_cutoff(held, limit)
            if cutoff is not None and heap[0] > held[cutoff]:
                break
            entry = heappop(heap)
            current = pair_counts[entry[1]]
            if -entry[0] != current:
                if current > 0:
                    heappush(heap, (-current, entry[1], entry[2], entry[3]))
                continue
            insort(held, entry)
        if not held:
            self.held = held
            return None
        cutoff = _distinct_cutoff(held, limit)
        if cutoff is not None:  # entries beyond the runners-up go back
            for entry in held[cutoff + 1 :]:
                heappush(heap, entry)
            del held[cutoff + 1 :]
        winner = held.pop(0)
        self.held = held
        taken = {winner[1]: -winner[0]}
        for entry in held:
            if len(taken) >= limit:
                break
            taken.setdefault(entry[1], -entry[0])
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
        self.held: list[tuple[float, int]] = []  # valid entries popped for the last step's runners-up

    def score(self, key: int):
        """The course's score for a pair, or None when the pair no longer occurs."""
        pair_count = self.engine.pair_counts.get(key, 0)
        return pair_count if pair_count > 0 else None

    def pick(self) -> Pick | None:
        heap, held = self.heap, self.held
        heappop, heappush = heapq.heappop, heapq.heappush
        pair_counts, freqs, likelihood = self.engine.pair_counts, self.engine.symbol_freqs, self.likelihood
        limit = self.limit

        def current_score(key: int):  # self.score(key), inlined on this hot path
            count = pair_counts.get(key, 0)
            if count <= 0:
                return None
            return count / (freqs[key >> PAIR_SHIFT] * freqs[key & PAIR_MASK]) if likelihood else count

        # The last step's runners-up wait in `held` (sorted, one entry per pair): those whose
        # score fell go back into the heap at their new score; a risen score already has its
        # newer entry there (the invariant); a dead pair is dropped.
        kept = []
        for entry in held:
            current = current_score(entry[1])
            if current == -entry[0]:
                kept.append(entry)
            elif current is not None and current < -entry[0]:
                heappush(heap, (-current, entry[1]))
        held = kept
        in_held = {entry[1] for entry in held}
        # Pop until the whole tie group at the best score and `limit` distinct pairs are held.
        while heap:
            top = heap[0]
            if len(held) >= limit and top > held[limit - 1] and top[0] > held[0][0]:
                break
            heappop(heap)
            key = top[1]
            if key in in_held:
                continue  # a duplicate entry
            current = current_score(key)
            if current is None:
                continue
            if current != -top[0]:
                if current < -top[0]:
                    heappush(heap, (-current, key))
                continue
            insort(held, top)
            in_held.add(key)
        if not held:
            self.held = held
            return None
        best = -held[0][0]
        keep = limit  # the runners-up, and the whole tie group at the best score
        while keep < len(held) and -held[keep][0] == best:
            keep += 1
        for entry in held[keep:]:
            heappush(heap, entry)
        del held[keep:]
        tied = [entry[1] for entry in held if -entry[0] == best]
        winner = tied[0] if len(tied) == 1 else min(tied, key=self.engine.first_occurrence)
        position = next(index for index, entry in enumerate(held) if entry[1] == winner)
        ranked = [held.pop(position)] + held[: limit - 1]
        self.held = held
        keys = [key for _, key in ranked]
        return Pick(
            winner,
            pair_counts[winner],
            best if likelihood else None,
            self.engine.pair_words[winner],
            keys,
            [pair_counts[key] for key in keys],
            [-negated for negated, _ in ranked] if likelihood else None,
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
