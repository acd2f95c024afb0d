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

from dataclasses import replace

from explorer.bytelevel import BYTE_LEVEL_ALPHABET, symbols_to_bytes
from explorer.corpus import count_text, count_words
from explorer.hf_json import build_tokenizer
from explorer.normalizers import NORMALIZERS
from explorer.pre_tokenizers import PRE_TOKENIZERS
from explorer.tokenizer import ByteLevelDecoder, Tokenizer
from explorer.tokens import DROPPED, SPECIAL, UNKNOWN, Piece
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


def encode_pieces(tokenizer: Tokenizer, text: str) -> list[Piece]:
    """Encode `text` for display and measurement: no post-processor ([CLS]/[SEP] left out),
    offsets that count every character (`Tokenizer.encode_exactly`), each piece's kind, and a
    `DROPPED` piece for every character the model drops, in text order."""
    encoding, dropped = tokenizer.encode_exactly(text)
    byte_level = isinstance(tokenizer.decoder, ByteLevelDecoder)
    unknown = tokenizer.token_to_id(tokenizer.model.unk_token) if tokenizer.model.unk_token else None
    pieces = []
    for token_id, token, (start, end), special in zip(
        encoding.ids, encoding.tokens, encoding.offsets, encoding.special_tokens_mask
    ):
        if special:
            pieces.append(Piece(token_id, token, start, end, token.encode("utf-8"), SPECIAL))
        elif token_id == unknown:  # shown as itself ("[UNK]"), never as the text it stands for
            pieces.append(Piece(token_id, token, start, end, token.encode("utf-8"), UNKNOWN))
        else:
            pieces.append(Piece(token_id, token, start, end, symbols_to_bytes(token) if byte_level else None))
    if dropped:
        pieces += [Piece(-1, text[start:end], start, end, text[start:end].encode("utf-8", "surrogatepass"), DROPPED)
                   for start, end in dropped]
        pieces.sort(key=lambda piece: piece.start)
    return pieces
