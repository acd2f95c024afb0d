"""Plain re-count-every-step trainers: the slow, obviously-correct references for differential tests.

`library_reference` follows the measured rules of the `tokenizers` BpeTrainer (shared reference
notes): recount every pair (overlaps count), best = highest count then smallest (id_left, id_right),
rewrite every word left to right. (The library departs from a recount only when a merge
result reuses a token id already present in words, which needs prefix or suffix characters inside
the text; the tests compare those corpora with the library itself.) `course_reference` is the
Hugging Face course's loop, nearly line for line (dict insertion order breaks ties; WordPiece
scores freq / (freq_a * freq_b)).
Kept in tests only: they are quadratic on purpose.
"""

from collections import defaultdict


def _decorate(word, prefix, suffix):
    out = []
    for i, c in enumerate(word):
        s = c
        if prefix and i > 0:
            s = prefix + s
        if suffix and i == len(word) - 1:
            s = s + suffix
        out.append(s)
    return out


TOP = 10  # candidates recorded per step, like TrainerConfig.candidates


def library_reference(
    word_counts,
    vocab_size,
    special_tokens=(),
    min_frequency=0,
    prefix=None,
    suffix=None,
    initial_alphabet=(),
    decorated_order=None,
    candidates=None,
):
    """(vocab, merges); with a list as `candidates`, appends each step's top pairs to it as
    (left, right, count) strings and counts, best first."""
    words = [w for w in word_counts if w]
    counts = [word_counts[w] for w in words]
    vocab, ids = [], {}

    def add(token):
        if token not in ids:
            ids[token] = len(vocab)
            vocab.append(token)
        return ids[token]

    for token in special_tokens:
        add(token)
    for c in sorted({c for w in words for c in w} | {a[0] for a in initial_alphabet if a}):
        add(c)
    splits = [_decorate(w, prefix, suffix) for w in words]
    block = sorted({s for split in splits for s in split} - set(ids))
    for token in decorated_order if decorated_order is not None else block:
        add(token)
    splits = [[ids[s] for s in split] for split in splits]
    merges = []
    while len(vocab) < vocab_size:
        pair_counts = defaultdict(int)
        for split, count in zip(splits, counts):
            for pair in zip(split, split[1:]):
                pair_counts[pair] += count
        if not pair_counts:
            break
        best = min(pair_counts, key=lambda p: (-pair_counts[p], p))
        if pair_counts[best] < max(1, min_frequency):
            break
        if candidates is not None:
            ranked = sorted(pair_counts, key=lambda p: (-pair_counts[p], p))[:TOP]
            candidates.append([(vocab[a], vocab[b], pair_counts[(a, b)]) for a, b in ranked])
        left, right = best
        right_part = vocab[right]
        if prefix and right_part.startswith(prefix):
            right_part = right_part[len(prefix) :]
        new_id = add(vocab[left] + right_part)
        merges.append((vocab[left], vocab[right]))
        for index, split in enumerate(splits):
            i, out = 0, []
            while i < len(split):
                if i + 1 < len(split) and split[i] == left and split[i + 1] == right:
                    out.append(new_id)
                    i += 2
                else:
                    out.append(split[i])
                    i += 1
            splits[index] = out
    return vocab, merges


def course_reference(
    word_freqs,
    vocab_size,
    special_tokens=(),
    wordpiece=False,
    candidates=None,
    symbol_counts=None,
    pair_tables=None,
):
    """The course notebooks' loop (BPE: chapter 6 section 5; WordPiece: section 6).

    With a list as `candidates`, appends each step's top pairs to it as (left, right, count,
    score) with score None for BPE: best score first, the chosen pair first among equals, then
    by (left id, right id) in the final vocabulary (ids are filled in once training ends).
    With a list as `symbol_counts` too, appends each step's (count(left), count(right)) of the same
    pairs, in the same order: the course's `letter_freqs` of the two symbols. With a list as
    `pair_tables`, appends each step's whole table as the course computes it, in its dict order:
    [(left, right, pair count, count(left), count(right), score or None)].
    """
    if wordpiece:
        splits = {w: [c if i == 0 else f"##{c}" for i, c in enumerate(w)] for w in word_freqs if w}
    else:
        splits = {w: list(w) for w in word_freqs if w}
    alphabet = sorted({s for split in splits.values() for s in split})
    vocab = list(special_tokens) + alphabet
    merges = []
    while len(vocab) < vocab_size:
        letter_freqs = defaultdict(int)
        pair_freqs = defaultdict(int)
        for word, split in splits.items():
            freq = word_freqs[word]
            for s in split:
                letter_freqs[s] += freq
            for i in range(len(split) - 1):
                pair_freqs[(split[i], split[i + 1])] += freq
        if wordpiece:
            scores = {p: f / (letter_freqs[p[0]] * letter_freqs[p[1]]) for p, f in pair_freqs.items()}
        else:
            scores = dict(pair_freqs)
        if pair_tables is not None:
            pair_tables.append(
                [
                    (a, b, f, letter_freqs[a], letter_freqs[b], scores[(a, b)] if wordpiece else None)
                    for (a, b), f in pair_freqs.items()
                ]
            )
        best_pair, max_score = None, None
        for pair, score in scores.items():
            if max_score is None or max_score < score:
                best_pair, max_score = pair, score
        if best_pair is None:
            break
        if candidates is not None:
            candidates.append(
                (best_pair, {p: (pair_freqs[p], scores[p] if wordpiece else None) for p in scores})
            )
            if symbol_counts is not None:
                symbol_counts.append(dict(letter_freqs))
        a, b = best_pair
        merged = a + b[2:] if (wordpiece and b.startswith("##")) else a + b
        for word, split in splits.items():
            i = 0
            while i < len(split) - 1:
                if split[i] == a and split[i + 1] == b:
                    split = split[:i] + [merged] + split[i + 2 :]
                else:
                    i += 1
            splits[word] = split
        merges.append(best_pair)
        vocab.append(merged)
    if candidates is not None:
        ids = {token: index for index, token in enumerate(dict.fromkeys(vocab))}
        for step, (best, competing) in enumerate(candidates):
            ranked = sorted(
                competing,
                key=lambda p: (-competing[p][0 if not wordpiece else 1], p != best, ids[p[0]], ids[p[1]]),
            )
            candidates[step] = [(a, b, *competing[(a, b)]) for a, b in ranked[:TOP]]
            if symbol_counts is not None:
                letters = symbol_counts[step]
                symbol_counts[step] = [(letters[a], letters[b]) for a, b in ranked[:TOP]]
    return vocab, merges


# --- the queues' picks by scanning every pair every step (no ranking kept between steps) ---------

import heapq  # noqa: E402

from explorer.training.bpe.engine import PAIR_MASK, PAIR_SHIFT  # noqa: E402
from explorer.training.bpe.queues import (  # noqa: E402
    SEQ_BITS,
    CourseQueue,
    LibraryQueue,
    LikelihoodQueue,
    Pick,
    library_entry,
    packed,
)


def _scan(queue, scores: dict, winner: int) -> tuple[list[int], list]:
    """Winner first, then the other pairs by score (ties: smallest pair), `limit` in all."""
    ranked = sorted(scores, key=lambda key: (key != winner, -scores[key], key))[: queue.limit]
    return ranked, [scores[key] for key in ranked]


class PlainLibraryQueue(LibraryQueue):
    """The library's loop on its heap's top, and the runners-up from a sort of every live pair."""

    def pick(self):
        heap, pair_counts = self.heap, self.engine.pair_counts
        while heap:
            entry = heapq.heappop(heap)
            stored, key, sequence = library_entry(entry)
            current = pair_counts[key]
            if stored == current:
                break
            if current > 0:
                heapq.heappush(heap, packed(current, key) << SEQ_BITS | sequence)
        else:
            return None
        # The pairs it could still pick: those with an entry in its heap (the winner's is out).
        counts = {}
        for other in heap:
            other_key = library_entry(other)[1]
            if pair_counts[other_key] > 0:
                counts[other_key] = pair_counts[other_key]
        counts[key] = current
        keys, values = _scan(self, counts, key)
        return Pick(key, current, None, self.words.pop(sequence), keys, values, None)


def _plain_course_pick(self):
    score = self.scorer()
    scores = {key: score(key) for key in self.engine.pair_counts}
    scores = {key: score for key, score in scores.items() if score is not None}
    if not scores:
        return None
    best = max(scores.values())
    tied = [key for key, score in scores.items() if score == best]
    winner = min(tied, key=self.engine.first_occurrence)
    keys, values = _scan(self, scores, winner)
    counts, freqs = self.engine.pair_counts, self.engine.symbol_freqs
    symbol_counts = (
        [(freqs[key >> PAIR_SHIFT], freqs[key & PAIR_MASK]) for key in keys] if self.likelihood else None
    )
    return Pick(
        winner,
        counts[winner],
        best if self.likelihood else None,
        self.engine.pair_words[winner],
        keys,
        [counts[key] for key in keys],
        values if self.likelihood else None,
        symbol_counts,
    )


class PlainCourseQueue(CourseQueue):
    pick = _plain_course_pick


class PlainLikelihoodQueue(LikelihoodQueue):
    pick = _plain_course_pick


PLAIN_QUEUES = {
    "LibraryQueue": PlainLibraryQueue,
    "CourseQueue": PlainCourseQueue,
    "LikelihoodQueue": PlainLikelihoodQueue,
}
