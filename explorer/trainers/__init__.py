"""Train BPE or WordPiece from word counts, in two flavors, recording the whole history as a Trace.

Flavors:
- `library`: bit-exact with the `tokenizers` library's BpeTrainer / WordPieceTrainer (WordPiece there
  is BPE with the `##` continuing-subword prefix and plain frequency merges). Ids: special tokens,
  then every character by code point, then (only with a prefix or suffix) the decorated character
  tokens, then merges in the order learned. The library adds that decorated block in hash-map
  order, which changes from run to run; we add it in code-point order.
- `course`: bit-exact with the Hugging Face course notebooks: initial vocabulary = special tokens +
  the sorted alphabet of initial symbols; BPE merges the most frequent pair, WordPiece the pair with
  the best likelihood score; ties go to the pair seen first in corpus order. Like the course, the
  stop test counts every appended token, duplicates included.

Both run on the same incremental engine (engine.py) and differ only in the queue (queues.py).
Stop reasons: `vocab_size` (target reached), `no_pair_left`, `min_frequency` (best count below it),
`stopped` (the caller's `should_stop` said so: a Stop button or a time/step budget).

Not supported: the library's `limit_alphabet` (it breaks ties at random) and `max_token_length`.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from explorer.run_config import RunConfig, TrainerConfig
from explorer.trace import Candidates, Trace
from explorer.trainers.engine import PAIR_MASK, PAIR_SHIFT, MergeEngine
from explorer.trainers.queues import CourseQueue, LibraryQueue, LikelihoodQueue

STOP_REASONS = {
    "vocab_size": "vocabulary size reached",
    "no_pair_left": "no pair left to merge",
    "min_frequency": "best pair count below min_frequency",
    "stopped": "stopped before the end (Stop button or budget)",
}


@dataclass
class _Vocab:
    tokens: list[str] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)

    def add(self, token: str) -> int:
        existing = self.ids.get(token)
        if existing is not None:
            return existing
        self.ids[token] = len(self.tokens)
        self.tokens.append(token)
        return self.ids[token]


def _decorate(char: str, first: bool, last: bool, prefix: str | None, suffix: str | None) -> str:
    if prefix and not first:
        char = prefix + char
    if suffix and last:
        char = char + suffix
    return char


def _initial_symbols(words: list[str], prefix: str | None, suffix: str | None) -> list[str] | list[list[str]]:
    if not prefix and not suffix:
        return words  # a word is already the sequence of its characters
    if not suffix:  # WordPiece's usual case, on the fast path
        return [[word[0], *[prefix + char for char in word[1:]]] for word in words]
    symbols = []
    for word in words:
        last = len(word) - 1
        symbols.append([_decorate(c, i == 0, i == last, prefix, suffix) for i, c in enumerate(word)])
    return symbols


def train(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    config: TrainerConfig,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    decorated_order: Iterable[str] | None = None,
    max_steps: int | None = None,
) -> Trace:
    """Learn merges from word counts (in order of first appearance) and return the full Trace.

    `progress(step, planned_steps)` and `should_stop()` are called every few dozen steps.
    With `max_steps`, training stops (reason `stopped`) after exactly that many merges.
    `decorated_order` replaces the code-point order of the library flavor's decorated character
    block (`##x`, `x</w>`): parity tests pass the order one library run happened to use.
    """
    started = time.perf_counter()
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    words = [word for word, _ in items if word]
    counts = [count for word, count in items if word]
    prefix, suffix = config.prefix, config.suffix

    vocab = _Vocab()
    for token in config.special_tokens:
        vocab.add(token)
    symbol_strings = _initial_symbols(words, prefix, suffix)
    if config.flavor == "library":
        alphabet = sorted({c for word in words for c in word} | {a[0] for a in config.initial_alphabet if a})
        for char in alphabet:
            vocab.add(char)
        decorated = sorted(set().union(*symbol_strings) - vocab.ids.keys())
        for token in decorated if decorated_order is None else decorated_order:
            vocab.add(token)
    else:
        initial = set().union(*symbol_strings)
        initial |= {_decorate(a[0], True, False, None, None) for a in config.initial_alphabet if a}
        for token in sorted(initial):
            vocab.add(token)
        # The course's `while len(vocab) < vocab_size` counts special tokens and alphabet as listed.
        course_length = len(config.special_tokens) + len(initial)
    symbol_words = [list(map(vocab.ids.__getitem__, symbols)) for symbols in symbol_strings]
    initial_vocab_size = len(vocab.tokens)
    token_lengths = [len(token) for token in vocab.tokens]

    likelihood = config.flavor == "course" and config.algorithm == "wordpiece"
    engine = MergeEngine(
        symbol_words,
        counts,
        token_lengths,
        prefix_length=len(prefix or ""),
        track_symbol_freqs=likelihood,
        track_pair_words=config.flavor == "course",
    )
    if config.flavor == "library":
        queue = LibraryQueue(engine, config.candidates)
    else:
        queue = (LikelihoodQueue if likelihood else CourseQueue)(engine, config.candidates)

    merges: list[tuple[int, int, int]] = []
    merge_counts: list[int] = []
    merge_scores: list[float | None] = []
    words_changed: list[int] = []
    occurrences: list[int] = []
    candidate_ends, candidate_lefts, candidate_rights = array("i"), array("i"), array("i")
    candidate_counts, candidate_scores = array("q"), array("d")
    candidate_left_counts, candidate_right_counts = array("q"), array("q")
    min_count = max(1, config.min_frequency)
    planned = max(0, config.vocab_size - initial_vocab_size)
    stop_reason = None
    step = 0
    while True:
        if config.flavor == "library":
            if len(vocab.tokens) >= config.vocab_size:
                stop_reason = "vocab_size"
                break
        elif course_length + step >= config.vocab_size:
            stop_reason = "vocab_size"
            break
        if step == max_steps:
            stop_reason = "stopped"
            break
        if step % 32 == 0:
            if should_stop is not None and should_stop():
                stop_reason = "stopped"
                break
            if progress is not None:
                progress(step, planned)
        pick = queue.pick()
        if pick is None:
            stop_reason = "no_pair_left"
            break
        if pick.count < min_count:
            stop_reason = "min_frequency"
            break
        left, right = pick.key >> PAIR_SHIFT, pick.key & PAIR_MASK
        right_part = vocab.tokens[right]
        if prefix and right_part.startswith(prefix):
            right_part = right_part[len(prefix) :]
        new_id = vocab.add(vocab.tokens[left] + right_part)
        if new_id == len(token_lengths):
            token_lengths.append(len(vocab.tokens[new_id]))
        new_pairs, changed, merged = engine.merge(pick.key, new_id, pick.words, step)
        queue.after_merge(pick.key, new_pairs)
        merges.append((left, right, new_id))
        merge_counts.append(pick.count)
        merge_scores.append(pick.score)
        words_changed.append(changed)
        occurrences.append(merged)
        keys = pick.candidate_keys
        candidate_lefts.extend([key >> PAIR_SHIFT for key in keys])
        candidate_rights.extend([key & PAIR_MASK for key in keys])
        candidate_counts.extend(pick.candidate_counts)
        if pick.candidate_scores is not None:
            candidate_scores.extend(pick.candidate_scores)
            for left_count, right_count in pick.candidate_symbol_counts:
                candidate_left_counts.append(left_count)
                candidate_right_counts.append(right_count)
        candidate_ends.append(len(candidate_lefts))
        step += 1
    if progress is not None:
        progress(step, planned)

    return Trace(
        config=RunConfig(config, pre_tokenizer=None),
        words=words,
        counts=counts,
        vocab=vocab.tokens,
        initial_vocab_size=initial_vocab_size,
        merges=merges,
        merge_counts=merge_counts,
        merge_scores=merge_scores,
        words_changed=words_changed,
        occurrences=occurrences,
        candidates=Candidates(
            candidate_ends,
            candidate_lefts,
            candidate_rights,
            candidate_counts,
            candidate_scores if likelihood else None,
            (candidate_left_counts, candidate_right_counts) if likelihood else None,
        ),
        stop_reason=stop_reason,
        boundary_steps=engine.boundary_steps,
        seconds=time.perf_counter() - started,
    )
