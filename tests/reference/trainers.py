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


# --- the queues, kept plainly: every pair scanned at every step, the library's heap step by step ---
#
# Stand-ins for explorer/training/bpe/queues.py's three queues, for
# tests/parity/test_trainers.py::test_queues_equal_a_scan_of_every_pair: the trainer is run with
# them in place of its own, on its own engine (explorer/training/bpe/engine.py, which keeps the pair
# counts), so they answer the same three calls: `Queue(engine, candidates)`, `pick()` (an object
# with Pick's fields, or None) and `after_merge(merged_pair, new_pairs)`. They share no code or encoding
# with the production queues: entries are plain records, scanned with min()/sorted() under the
# rule spelled out (the library's: kept in a plainly written 8-ary heap, whose layout orders two
# equal entries), where the production queues keep lazy heaps of packed ints.

from dataclasses import dataclass  # noqa: E402

from explorer.training.bpe.engine import PAIR_SHIFT  # noqa: E402  (a packed pair: left, right)


def _left_right(pair):
    """(left id, right id) of a packed pair (the engine's int)."""
    return divmod(pair, 1 << PAIR_SHIFT)


@dataclass
class PlainPick:
    """The fields of explorer.training.bpe.queues.Pick that the trainer and its recorder read."""

    pair: int
    count: int
    score: float | None
    words: object
    candidate_pairs: list
    candidate_counts: list
    candidate_scores: list | None
    candidate_symbol_counts: list | None = None


def _ranked(scores, winner, limit):
    """The winner, then the other pairs by score, best first (ties: smallest (left, right)), `limit`
    pairs in all."""
    others = sorted(
        (pair for pair in scores if pair != winner), key=lambda pair: (-scores[pair], _left_right(pair))
    )
    return [winner, *others][:limit]


@dataclass
class _Entry:
    count: int  # as the entry stores it: corrected only when the entry is at the top
    pair: int
    words: object  # the words it will rewrite

    def rank(self):
        """Smaller is better: the highest count, then the smallest (left, right). Two entries of one
        pair at one count rank the same, as in the library's `Merge` order."""
        return (-self.count, _left_right(self.pair))


class _PlainOctonaryHeap:
    """dary_heap's OctonaryHeap as its steps are written: a list where node i's children are
    8i+1 .. 8i+8. Push: append, then swap up while the parent ranks strictly worse. Pop: take the
    root, put the last entry there, walk it down to a leaf, each time swapping with the last of the
    best-ranked children, then swap it up as after a push."""

    def __init__(self):
        self.items = []

    def push(self, entry):
        self.items.append(entry)
        self._up(len(self.items) - 1)

    def pop(self):
        items = self.items
        items[0], items[-1] = items[-1], items[0]
        top = items.pop()
        if items:
            at = 0
            while children := list(range(8 * at + 1, min(8 * at + 9, len(items)))):
                best = min(entry.rank() for entry in (items[child] for child in children))
                child = [child for child in children if items[child].rank() == best][-1]
                items[at], items[child] = items[child], items[at]
                at = child
            self._up(at)
        return top

    def _up(self, at):
        items = self.items
        while at and items[at].rank() < items[(at - 1) // 8].rank():
            parent = (at - 1) // 8
            items[at], items[parent] = items[parent], items[at]
            at = parent


class PlainLibraryQueue:
    """The library's queue (tokenizers `bpe/trainer.rs`) as a plain 8-ary heap of entries.

    Each step pops the top entry: the highest stored count, then the smallest (left, right); two
    entries of one pair at one count in the order the heap's layout gives. An entry whose stored
    count differs from the pair's count now is corrected and pushed back (dropped when the pair is
    gone), and the next top is popped. Entries are added only after a merge, one per pair whose
    count rose, carrying the words where it rose, in the engine's order. The runners-up: the other
    pairs that still have an entry, by count now.
    """

    def __init__(self, engine, candidates):
        self.engine, self.limit = engine, max(1, candidates)
        self.heap = _PlainOctonaryHeap()
        for pair, words in engine.initial_pair_words.items():
            if engine.pair_counts[pair] > 0:
                self.heap.push(_Entry(engine.pair_counts[pair], pair, words))

    def pick(self):
        pair_counts = self.engine.pair_counts
        while self.heap.items:
            top = self.heap.pop()
            current = pair_counts[top.pair]
            if current == top.count:
                break
            if current > 0:
                top.count = current
                self.heap.push(top)
        else:
            return None
        entries = self.heap.items
        counts = {entry.pair: pair_counts[entry.pair] for entry in entries if pair_counts[entry.pair] > 0}
        counts[top.pair] = top.count
        pairs = _ranked(counts, top.pair, self.limit)
        return PlainPick(top.pair, top.count, None, top.words, pairs, [counts[pair] for pair in pairs], None)

    def after_merge(self, merged_pair, new_pairs):
        pair_counts = self.engine.pair_counts
        for pair, words in new_pairs.items():
            if pair_counts[pair] > 0:
                self.heap.push(_Entry(pair_counts[pair], pair, words))


# Two queue entries of one pair at one count are equal in the library's `Merge` order: which pops
# first is its OctonaryHeap's layout, and decides which words the merge rewrites. Such entries exist
# once a merge makes an existing token again (here `a` + `>` in the text makes the suffixed `a>`):
# an entry of a pair holding that token is pushed again while an older one, at a stale count, waits,
# and is corrected to the same count. In these corpora (found by a search over random ones), the
# library gave one answer in 30 runs (its hash maps' order changes from run to run; a replay of its
# heap with 60 random push orders gave that answer every time too), and it is the newer entry first
# in the first, the older in the second, so no rule on age can match both: (text lines, vocab size,
# BpeTrainer options), for tests/parity/test_trainers.py and tests/unit/test_references_catch_bugs.py.
EQUAL_ENTRIES = [
    (
        [
            ">aaa a>a>>a a a>>a aaa>aa>a aaa >>aa>>a",
            "aa>>>a>a >aa>aa a>a aaa aaa>a>>>a",
            ">aaa",
            ">>a>a >>>>a>>a >a",
        ],
        12,
        {"end_of_word_suffix": ">"},
    ),
    (
        [
            "#aaaaaaa #aaaaaa aaa #aaaaaa #aaaa",
            "aaaaaaaa #aa",
            "aaa #aaaaaa",
            "#aaaaa aa aaaaaaaa #aaaaaaaa #aaaa #a",
            "a aaaa #aa #aaaaaaa aa aaaaaaaa",
        ],
        24,
        {"continuing_subword_prefix": "#"},
    ),
]


class PlainCourseQueue:
    """The course's pick: the best score among every pair that occurs (BPE: its count), ties to the
    pair whose first occurrence comes first (the engine's `first_occurrence`). After a merge the
    merged pair is gone, as the course's recount finds: its count and its words are cleared in the
    engine (whose deltas never lower the merged pair itself)."""

    likelihood = False

    def __init__(self, engine, candidates):
        self.engine, self.limit = engine, max(1, candidates)

    def score(self, pair, count):
        return count

    def pick(self):
        engine = self.engine
        scores = {pair: self.score(pair, count) for pair, count in engine.pair_counts.items() if count > 0}
        if not scores:
            return None
        best = max(scores.values())
        winner = min((pair for pair in scores if scores[pair] == best), key=engine.first_occurrence)
        pairs = _ranked(scores, winner, self.limit)
        counts = [engine.pair_counts[pair] for pair in pairs]
        if not self.likelihood:
            return PlainPick(winner, counts[0], None, engine.pair_words[winner], pairs, counts, None)
        freqs = engine.symbol_freqs
        symbol_counts = [tuple(freqs[symbol] for symbol in _left_right(pair)) for pair in pairs]
        values = [scores[pair] for pair in pairs]
        return PlainPick(
            winner, counts[0], best, engine.pair_words[winner], pairs, counts, values, symbol_counts
        )

    def after_merge(self, pair, new_pairs):
        self.engine.pair_counts[pair] = 0
        self.engine.pair_words.pop(pair, None)


class PlainLikelihoodQueue(PlainCourseQueue):
    """The course's WordPiece pick: score count(ab) / (count(a) * count(b)), the course's expression."""

    likelihood = True

    def score(self, pair, count):
        left, right = _left_right(pair)
        return count / (self.engine.symbol_freqs[left] * self.engine.symbol_freqs[right])


PLAIN_QUEUES = {
    "LibraryQueue": PlainLibraryQueue,
    "CourseQueue": PlainCourseQueue,
    "LikelihoodQueue": PlainLikelihoodQueue,
}
