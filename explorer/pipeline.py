"""Corpus text -> trained Trace -> Tokenizer: the whole pipeline in two calls.

`train_corpus` counts words (normalizers + pre-tokenizer, see corpus.py), gives the byte-level
library run its 256-symbol initial alphabet (as GPT-2 and the library's ByteLevelBPETokenizer
do), trains, and records the pipeline settings in the trace's config so that
`tokenizer_from_trace` can rebuild the matching Tokenizer (normalizer, pre-tokenizer, model,
decoder, post-processor) for encoding and export.

What it does not do: enforce size limits or time budgets (the callers pass `should_stop` and
`max_steps`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from explorer.bytelevel import BYTE_LEVEL_ALPHABET, symbols_to_bytes
from explorer.corpus import count_text, count_words
from explorer.hf_json import build_tokenizer
from explorer.normalizers import NORMALIZERS
from explorer.pre_tokenizers import PRE_TOKENIZERS
from explorer.tokenizer import ByteLevelDecoder, Tokenizer
from explorer.trace import Trace
from explorer.trainers import TrainerConfig, train


def check_pipeline(normalizers: tuple[str, ...], pre_tokenizer: str) -> None:
    """Raise ValueError with the valid names when a stage name is unknown."""
    unknown = [name for name in normalizers if name not in NORMALIZERS]
    if unknown:
        raise ValueError(f"unknown normalizer {unknown[0]!r} (choose from {', '.join(NORMALIZERS)})")
    if pre_tokenizer not in PRE_TOKENIZERS:
        raise ValueError(f"unknown pre-tokenizer {pre_tokenizer!r} (choose from {', '.join(PRE_TOKENIZERS)})")


def effective_config(config: TrainerConfig, pre_tokenizer: str) -> TrainerConfig:
    """The library flavor with byte-level starts from all 256 byte symbols."""
    if pre_tokenizer == "byte-level" and config.flavor == "library" and not config.initial_alphabet:
        return replace(config, initial_alphabet=tuple(BYTE_LEVEL_ALPHABET))
    return config


def train_corpus(
    text: str,
    config: TrainerConfig,
    normalizers: tuple[str, ...] = (),
    pre_tokenizer: str = "byte-level",
    progress=None,
    should_stop=None,
    max_steps: int | None = None,
) -> Trace:
    check_pipeline(tuple(normalizers), pre_tokenizer)
    word_counts = count_words(text, tuple(normalizers), pre_tokenizer)
    trace = train(
        word_counts,
        effective_config(config, pre_tokenizer),
        progress=progress,
        should_stop=should_stop,
        max_steps=max_steps,
    )
    trace.config["normalizers"] = list(normalizers)
    trace.config["pre_tokenizer"] = pre_tokenizer
    trace.corpus = count_text(text)
    return trace


def tokenizer_from_trace(trace: Trace, k: int | None = None) -> Tokenizer:
    """The trained tokenizer, or the one the first k merges make (vocabulary as it was then)."""
    config = trace.config
    return build_tokenizer(
        config["algorithm"],
        trace.vocab if k is None else trace.vocab[: trace.vocab_sizes[k]],
        trace.model_merges(k),
        list(config.get("normalizers") or []),
        config.get("pre_tokenizer"),
        list(config.get("special_tokens") or []),
        continuing_subword_prefix=trace.prefix or None,
        end_of_word_suffix=trace.suffix or None,
    )


@dataclass(frozen=True)
class Piece:
    """One token of an encoded text, in the shape renderers and metrics take."""

    id: int
    value: str
    start: int
    end: int
    token_bytes: bytes | None  # the token's own bytes when they are known exactly (byte-level)


def encode_pieces(tokenizer: Tokenizer, text: str, add_special_tokens: bool = False) -> list[Piece]:
    """Encode `text`; without `add_special_tokens` the post-processor's [CLS]/[SEP] are left out."""
    encoding = tokenizer.encode(text, add_special_tokens=add_special_tokens)
    byte_level = isinstance(tokenizer.decoder, ByteLevelDecoder)
    return [
        Piece(token_id, token, start, end, symbols_to_bytes(token) if byte_level else None)
        for token_id, token, (start, end) in zip(encoding.ids, encoding.tokens, encoding.offsets)
    ]
