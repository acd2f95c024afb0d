"""Train BPE or WordPiece from word counts, in two flavors, recording the whole history as a MergeHistory.

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
`train` is three named stages, like the library's `BpeTrainer::do_train`: 1. the initial
vocabulary, 2. the engine and the queue for the flavor, 3. the merges, each recorded by a
`MergeRecorder` (recorder.py), which owns the trace's columns. Stages 2 and 3 run in Rust when the
compiled engine trains (compiled.py); either way the run ends as `MergeColumns` (merge_columns.py),
which builds the MergeHistory.
Stop reasons: `vocab_size` (target reached), `no_pair_left`, `min_frequency` (best count below it),
`stopped` (the caller's `should_stop` said so: a Stop button or a time/step budget).

Not supported: the library's `limit_alphabet` (it breaks ties at random) and `max_token_length`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from explorer.run_config import TrainerConfig
from explorer.training import engines
from explorer.training.bpe.compiled import (
    compiled_run,
    compiled_run_from_words,
    merge_compiled,
    symbol_arrays,
)
from explorer.training.bpe.engine import PAIR_MASK, PAIR_SHIFT, MergeEngine
from explorer.training.bpe.merge_columns import MergeColumns
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.bpe.queues import CourseQueue, LibraryQueue, LikelihoodQueue
from explorer.training.bpe.recorder import MergeRecorder
from explorer.training.bpe.shared import CHECK_EVERY, MergeSettings
from explorer.training.held_words import HeldWords
from explorer.training.memory import large_blocks_mapped


@dataclass
class _Vocab:
    """Tokens in id order; `lengths` (each token's string length) is shared with the engine."""

    tokens: list[str] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)

    def add(self, token: str) -> int:
        existing = self.ids.get(token)
        if existing is not None:
            return existing
        self.ids[token] = len(self.tokens)
        self.tokens.append(token)
        self.lengths.append(len(token))
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
        assert prefix is not None  # not both empty (returned above)
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
    engine: str | None = None,
) -> MergeHistory:
    """Learn merges from word counts (in order of first appearance) and return the full MergeHistory.

    `progress(step, planned_steps)` and `should_stop()` are called every few dozen steps.
    With `max_steps`, training stops (reason `stopped`) after exactly that many merges.
    `decorated_order` replaces the code-point order of the library flavor's decorated character
    block (`##x`, `x</w>`): parity tests pass the order one library run happened to use.
    `engine`: `auto`, `rust` or `python` (explorer.training.engines; None: $EXPLORER_ENGINE); both
    give the same MergeHistory.
    """
    started = time.perf_counter()
    trained_on = engines.resolve(engine)
    if isinstance(word_counts, HeldWords) and trained_on == "rust":
        return _train_held(word_counts, config, progress, should_stop, decorated_order, max_steps)
    words, counts = [], []
    for word, count in word_counts.items() if isinstance(word_counts, Mapping) else word_counts:
        if word:
            words.append(word)
            counts.append(count)

    # 1. The initial vocabulary: special tokens, then the alphabet, each word as its symbols.
    symbol_strings = _initial_symbols(words, config.prefix, config.suffix)
    characters: set[str] = set().union(*words)
    symbols = characters if symbol_strings is words else set().union(*symbol_strings)
    vocab, course_size = _initial_vocabulary(characters, symbols, config, decorated_order)
    initial_vocab_size = len(vocab.tokens)
    settings = MergeSettings.of(config, course_size, max_steps)
    columns: MergeColumns
    if trained_on == "rust":
        # 2 and 3 in Rust (compiled.py): the same engine, queue and merges.
        symbol_ids, lengths = symbol_arrays(symbol_strings, vocab.ids)
        # A WordPiece word's symbols are strings ("##x", an object each): freed once they are ids,
        # they take nothing from the merges (5 MB of CJK, course WordPiece: 155 -> 134 MB peak).
        del symbol_strings
        with large_blocks_mapped():  # the run's vectors, mapped apart (memory.py)
            run = compiled_run(symbol_ids, lengths, counts, vocab.tokens, settings)
            del symbol_ids  # copied into the run's engine
            columns = merge_compiled(run, lengths, settings, initial_vocab_size, progress, should_stop)
    else:
        # 2. The engine over the words as symbol ids, and the queue that picks pairs the way the
        # flavor does.
        symbol_words = [list(map(vocab.ids.__getitem__, symbols)) for symbols in symbol_strings]
        del symbol_strings  # as above (the same run on this engine: 217 -> 151 MB peak)
        merge_engine, queue = _engine_and_queue(symbol_words, counts, vocab, settings)

        # 3. Merges, until the vocabulary is full, no pair is left or the caller stops us.
        recorder = MergeRecorder(scored=settings.likelihood)
        stop_reason = _merge(merge_engine, queue, vocab, settings, recorder, progress, should_stop)
        columns = recorder.columns(vocab.tokens, stop_reason, merge_engine.boundary_steps)

    return columns.history(
        config,
        words,
        counts,
        initial_vocab_size,
        seconds=time.perf_counter() - started,
        engine=trained_on,
    )


def _initial_vocabulary(
    characters: Iterable[str],
    symbols: Iterable[str],
    config: TrainerConfig,
    decorated_order: Iterable[str] | None,
) -> tuple[_Vocab, int | None]:
    """The vocabulary before any merge, from the words' `characters` and their initial `symbols`
    (a character each, decorated: `_initial_symbols`), and (course flavor only, else None) the
    vocabulary size the course's stop test counts before any merge."""
    vocab = _Vocab()
    for token in config.special_tokens:
        vocab.add(token)
    course_size = None
    if config.flavor == "library":
        # The library's order: every character by code point, then the decorated ones.
        alphabet = sorted(set(characters) | {a[0] for a in config.initial_alphabet if a})
        for char in alphabet:
            vocab.add(char)
        decorated = sorted(set(symbols) - vocab.ids.keys())
        for token in decorated if decorated_order is None else decorated_order:
            vocab.add(token)
    else:
        # The course's: the sorted set of initial symbols, decorated or not.
        initial = set(symbols)
        initial |= {_decorate(a[0], True, False, None, None) for a in config.initial_alphabet if a}
        for token in sorted(initial):
            vocab.add(token)
        # The course's `while len(vocab) < vocab_size` counts special tokens and alphabet as listed.
        course_size = len(config.special_tokens) + len(initial)
    return vocab, course_size


def _train_held(
    held: HeldWords,
    config: TrainerConfig,
    progress: Callable[[int, int], None] | None,
    should_stop: Callable[[], bool] | None,
    decorated_order: Iterable[str] | None,
    max_steps: int | None,
) -> MergeHistory:
    """`train` on words the compiled counter holds: the run reads them where they are (its
    symbols made in Rust), and the MergeHistory keeps them there as its words."""
    started = time.perf_counter()
    prefix, suffix = config.prefix or "", config.suffix or ""
    # 1. The initial vocabulary, from the words' characters and symbols as Rust finds them.
    characters = held.initial_symbols("", "")
    symbols = held.initial_symbols(prefix, suffix) if prefix or suffix else characters
    vocab, course_size = _initial_vocabulary(characters, symbols, config, decorated_order)
    # 2. and 3. The run over the words as symbol ids, and its merges. Its vectors grow by doubling,
    # each a MB or more mapped apart and unmapped when it moves or is freed: left in the heap, they
    # were 4 MB of a 47 MB peak on 5 MB of prose (memory.py).
    settings = MergeSettings.of(config, course_size, max_steps)
    initial_vocab_size = len(vocab.tokens)
    with large_blocks_mapped():
        run = compiled_run_from_words(held, vocab.tokens, suffix, settings)
        columns = merge_compiled(run, held.lengths(), settings, initial_vocab_size, progress, should_stop)
    return columns.history(
        config,
        held.words,
        held.counts,
        initial_vocab_size,
        seconds=time.perf_counter() - started,
        engine="rust",
    )


def _engine_and_queue(
    symbol_words: list[list[int]], counts: list[int], vocab: _Vocab, settings: MergeSettings
):
    """One engine for every trainer; the queue is what differs. The likelihood score needs symbol
    frequencies, and the course's queues find a pair's first occurrence through the engine's index
    of words per pair."""
    likelihood = settings.likelihood
    engine = MergeEngine(
        symbol_words,
        counts,
        vocab.lengths,
        prefix_length=len(settings.prefix),
        track_symbol_freqs=likelihood,
        track_pair_words=not settings.library,
    )
    queue: LibraryQueue | CourseQueue
    if settings.library:
        queue = LibraryQueue(engine, settings.candidates)
    else:
        queue = (LikelihoodQueue if likelihood else CourseQueue)(engine, settings.candidates)
    return engine, queue


def _merge(
    engine: MergeEngine,
    queue,
    vocab: _Vocab,
    settings: MergeSettings,
    recorder: MergeRecorder,
    progress: Callable[[int, int], None] | None,
    should_stop: Callable[[], bool] | None,
) -> str:
    """Pick, merge, record, until a stop reason; returns it (a key of STOP_REASONS)."""
    prefix, min_count, course_size = settings.prefix, settings.min_count, settings.course_size
    planned = max(0, settings.vocab_size - len(vocab.tokens))
    step = 0
    while True:
        # The library counts distinct tokens; the course counts every token it appended.
        size = len(vocab.tokens) if course_size is None else course_size + step
        if size >= settings.vocab_size:
            stop_reason = "vocab_size"
            break
        if step == settings.max_steps:
            stop_reason = "stopped"
            break
        if step % CHECK_EVERY == 0:
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
        # The new token: left + right without the right's continuing-subword prefix. It may
        # already exist (the same string made twice), then it keeps its id.
        left, right = pick.pair >> PAIR_SHIFT, pick.pair & PAIR_MASK
        right_part = vocab.tokens[right]
        if prefix and right_part.startswith(prefix):
            right_part = right_part[len(prefix) :]
        new_id = vocab.add(vocab.tokens[left] + right_part)
        new_pairs, words_changed, occurrences = engine.merge(pick.pair, new_id, pick.words, step)
        queue.after_merge(pick.pair, new_pairs)
        recorder.record(pick, new_id, words_changed, occurrences)
        step += 1
    if progress is not None:
        progress(step, planned)
    return stop_reason
