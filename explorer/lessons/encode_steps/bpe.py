"""One pre-token through our BPE model (explorer.pipeline.models.BPEModel), step by step: its initial
symbols (characters, or bytes for byte-level; dropped or unknown characters as explicit pieces),
then every merge (explorer.lessons.encode_steps.merges), then the whole-word lookup of `ignore_merges`.

Characters the model cannot represent are explicit pieces: "dropped" (BPE without an unknown token
drops them) or "unk" (the unknown token, with the characters it stands for).

What it does not do: pre-tokenize or cut out special tokens (explorer.lessons.encode_steps.pipeline_steps), or
tiktoken's byte-level BPE (explorer.lessons.encode_steps.tiktoken_bpe).
"""

from __future__ import annotations

from typing import cast

from explorer.lessons.encode_steps.budget import StepBudget
from explorer.lessons.encode_steps.merges import record_merges, whole_word_step
from explorer.lessons.encode_steps.records import PreTokenSteps, Step, StepPiece
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pipeline.models import BPEModel
from explorer.pipeline.normalizers import Normalized


def explain_initial_symbols(model: BPEModel, word: str) -> list[tuple[str, int | None, str, int, int]]:
    """(kind, id, symbol, first char, end char) per initial symbol of `word`, dropped ones included.

    Mirrors `BPEModel._initial_symbols` (prefix on every character but the first, suffix on the
    last, unknown characters dropped or made the unk token, a run of them fused with fuse_unk).
    """
    prefix, suffix = model.continuing_subword_prefix, model.end_of_word_suffix
    result: list[list] = []
    last = len(word) - 1
    for position, char in enumerate(word):
        symbol = (prefix + char if prefix and position > 0 else char) + (
            suffix if suffix and position == last else ""
        )
        symbol_id = model.vocab.get(symbol)
        if symbol_id is not None:
            result.append(["token", symbol_id, symbol, position, position + 1])
        elif model.unk_token is None:
            result.append(["dropped", None, symbol, position, position + 1])
        elif model.fuse_unk and result and result[-1][0] == "unk" and result[-1][4] == position:
            result[-1][4] = position + 1
        else:
            result.append(["unk", model._unk_id(), model.unk_token, position, position + 1])
    return [tuple(item) for item in result]


def bpe_pre_token(
    model: BPEModel, piece: Normalized, text: str, byte_level: bool, budget: StepBudget
) -> PreTokenSteps:
    """One pre-token through our BPE model: its initial symbols, then every merge."""
    word = piece.text
    # Offsets as the library counts them: bytes from 0 over the symbols kept (dropped ones do not
    # count), turned into the characters holding those bytes (`BPEModel._merge_word`).
    char_of_byte = [index for index, char in enumerate(word) for _ in range(_byte_length(char))]

    def make(value, symbol_id, word_span, source_word_span, kind):
        start, end = piece.original_span(*word_span)
        source_span = piece.original_span(*source_word_span)
        token_bytes = _symbol_bytes(value) if byte_level and kind == "token" else None
        return StepPiece(
            value, symbol_id, start, end, kind, text[slice(*source_span)], source_span, token_bytes
        )

    pieces, kept, ids, lengths = [], [], [], []
    byte_start = 0
    for kind, symbol_id, symbol, first, end in explain_initial_symbols(model, word):
        if kind == "dropped":
            pieces.append(make(symbol, None, (first, end), (first, end), kind))
            continue
        symbol_id = cast(int, symbol_id)  # only a dropped symbol has no id
        length = _byte_length(word[first:end])
        span = (char_of_byte[byte_start], char_of_byte[byte_start + length - 1] + 1)
        kept.append(len(pieces))
        ids.append(symbol_id)
        lengths.append(length)
        pieces.append(make(cast(str, model.id_to_token(symbol_id)), symbol_id, span, (first, end), kind))
        byte_start += length

    def merged_piece(_first, _last, left: StepPiece, right: StepPiece, merged_id: int) -> StepPiece:
        value = cast(str, model.id_to_token(merged_id))  # a merge's id is in the vocabulary
        source_span = (left.source_span[0], right.source_span[1])
        return StepPiece(
            value,
            merged_id,
            left.start,
            right.end,
            "token",
            text[slice(*source_span)],
            source_span,
            _symbol_bytes(value) if byte_level else None,
        )

    note = budget.refusal(len(pieces))
    merges, final = record_merges(pieces, kept, ids, lengths, model.merge_map.get, merged_piece, not note)
    steps = [] if note else [Step("start", tuple(pieces)), *merges]
    if model.ignore_merges and word in model.vocab:  # the library looks the whole word up first
        whole = make(word, model.vocab[word], (0, len(word)), (0, len(word)), "token")
        step = whole_word_step(final, whole)
        if step is not None:
            final = (whole,)
            steps += [] if note else [step]
    return PreTokenSteps(
        word,
        *piece.original_span(0, len(word)),
        tuple(steps),
        final,
        _symbol_bytes(word) if byte_level else None,
        dropped=tuple(p for p in pieces if p.kind == "dropped"),
        note=note,
    )


def _byte_length(text: str) -> int:
    return len(text.encode("utf-8"))


def _symbol_bytes(value: str) -> bytes | None:
    try:
        return symbols_to_bytes(value)
    except ValueError:  # not byte symbols, e.g. an unk token "[UNK]"
        return None
