"""From word counts to a trained history: the one place that picks a run's trainer.

`train_counted(word_counts, figures, config)` trains a BPE or WordPiece run (bpe/trainer.py; a
byte-level library run starts from all 256 byte symbols, as GPT-2 and the library's
ByteLevelBPETokenizer do: `effective_config`) or a Unigram run (unigram/), and leaves the
RunConfig in the history (`history.config`), as the trainer ran it.

What it does not do: count a corpus's words (word_counts.py; explorer.train.train_corpus does
both).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import cast

from explorer.pipeline.bytelevel import BYTE_LEVEL_ALPHABET
from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
from explorer.training.bpe.trainer import train
from explorer.training.history import TrainingHistory

# Unigram's modules are imported where a Unigram run needs them: they load numpy (16 MB and
# 45 ms), which a BPE or WordPiece run never uses.


def effective_config(config: RunConfig) -> RunConfig:
    """The library flavor with byte-level starts from all 256 byte symbols (a BPE or WordPiece
    run's config; a Unigram run has no initial alphabet)."""
    trainer = cast(TrainerConfig, config.trainer)  # only a BPE or WordPiece run comes here
    if config.is_byte_level and trainer.flavor == "library" and not trainer.initial_alphabet:
        return replace(config, trainer=replace(trainer, initial_alphabet=tuple(BYTE_LEVEL_ALPHABET)))
    return config


def train_counted(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    figures: dict[str, int] | None,
    config: RunConfig,
    progress=None,
    should_stop=None,
    max_steps: int | None = None,
    engine: str | None = None,
) -> TrainingHistory:
    """Train `config` on `word_counts` (`word_counts.count_corpus` of the run's normalizers and
    pre-tokenizer, with the corpus `figures` it gives a merge history; or (word, count) pairs in
    that order, which the trainer reads once). A caller that counted the words can let the corpus
    text go before training. `engine`: the engine that trains
    (explorer.training.engines; None: the environment's)."""
    history: TrainingHistory
    if config.is_unigram:
        if max_steps is not None:
            raise ValueError("a step limit counts merges; a Unigram run has rounds, limit it by time instead")
        unigram = cast(UnigramConfig, config.trainer)  # is_unigram: the trainer is a UnigramConfig
        from explorer.training.unigram import train_unigram

        history = train_unigram(
            word_counts, unigram, progress=progress, should_stop=should_stop, engine=engine
        )
    else:
        config = effective_config(config)
        merges = train(
            word_counts,
            cast(TrainerConfig, config.trainer),  # not is_unigram: a TrainerConfig
            progress=progress,
            should_stop=should_stop,
            max_steps=max_steps,
            engine=engine,
        )
        merges.corpus = figures
        history = merges
    history.config = config
    return history
