"""Both engines in one call, for every trainer and word-counting test: `train` trains (BPE,
WordPiece, Unigram's library flavor) with the Python engine (the readable reference) and, when it
is built, with the compiled one, checks that the two traces are the same bytes (the trace JSON, but
for the run's `seconds` and `engine`), and returns the Python one; `count` does the same for
counting a corpus's words (the same words, counts, order and figures).

One call per example rather than a parametrized fixture: the references the tests compare against
(recount loops, the `tokenizers` library) run once, and every example proves the two engines
agree. `tests/parity/test_engines.py` checks that CI built the compiled engine.
"""

from __future__ import annotations

import dataclasses
import functools
from array import array
from collections.abc import Iterable, Mapping

from explorer.run_config import UnigramConfig
from explorer.training import engines
from explorer.training.bpe import trainer as bpe
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.unigram import train_unigram
from explorer.training.unigram.round_history import RoundHistory
from explorer.training.word_counts import COMPILED_PRE_TOKENIZERS, FIGURES, count_corpus, count_text


def trace_bytes(trace: MergeHistory | RoundHistory) -> str:
    """The trace's JSON but for the two facts about the run itself: how long it took and which
    engine ran it."""
    return dataclasses.replace(trace, seconds=0.0, engine="").to_json()


def built_engines() -> list[str]:
    """The engines this machine can train with: Python, and Rust when it is built."""
    return ["python"] + (["rust"] if engines.compiled() is not None else [])


def train(word_counts: Mapping[str, int] | Iterable[tuple[str, int]], config, **options):
    """A BPE / WordPiece MergeHistory for a TrainerConfig, a RoundHistory for a UnigramConfig (the course's
    Unigram trains in Python only: once)."""
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    if isinstance(config, UnigramConfig):
        trainer = functools.partial(train_unigram, items, config, **options)
        if config.flavor == "course":
            return trainer()
    else:
        trainer = functools.partial(bpe.train, items, config, **options)
    python = trainer(engine="python")
    if engines.compiled() is not None:
        rust = trainer(engine="rust")
        assert rust.engine == "rust"
        assert trace_bytes(rust) == trace_bytes(python), "the two engines' traces differ"
    return python


def count(
    text: str, normalizers: tuple[str, ...] = (), pre_tokenizer: str = "byte-level", **options
) -> tuple[dict[str, int], dict[str, int] | None]:
    """`count_corpus` on both engines; the compiled counter is also called with parts of 1 and 7
    bytes on two threads, so that a short text is cut at every line and its parts added up."""
    python = count_corpus(text, normalizers, pre_tokenizer, engine="python", **options)
    module = engines.compiled()
    if module is None:
        return python
    rust = count_corpus(text, normalizers, pre_tokenizer, engine="rust", **options)
    assert list(rust[0].items()) == list(python[0].items()), "the two engines count different words"
    assert rust[1] == python[1], "the two engines count different figures"
    if pre_tokenizer in COMPILED_PRE_TOKENIZERS and not normalizers:
        figures = count_text(text)
        for part_size in (1, 7):
            counted = module.count_corpus(text, pre_tokenizer, figures=True, jobs=2, part_size=part_size)
            if counted is None:  # a lone surrogate: Python counted it above
                continue
            words, counts, totals = counted
            assert list(zip(words, array("q", counts))) == list(python[0].items())
            assert dict(zip(FIGURES, totals)) == figures
    return python
