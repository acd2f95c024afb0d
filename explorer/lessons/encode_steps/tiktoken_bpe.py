"""Step-by-step BPE over bytes for the bundled tiktoken-style encodings (GPT-2, cl100k_base,
o200k_base, Llama 3 and 4, Qwen, Mistral's tekken).

Follows tiktoken (0.14.0): the text is split with the encoding's pattern; a pre-token that is
itself a token is looked up whole (`_encode_ordinary_native`); otherwise its bytes are merged,
the lowest-rank adjacent pair whose concatenation is a token first, leftmost among equal ranks
(`_byte_pair_merge`, and `_educational.bpe_encode` for the same rule in Python). The merges run
through `models.merge_all` with a token's rank as both its merge priority and its id. The whole
pre-token's lookup is shown as a last "whole-word" step only when it differs from the merges.

What it does not do: special tokens (their text is ordinary text, as in `encode_pretrained`),
or load anything itself (`pretrained.load_encoding` does, offline).
"""

from __future__ import annotations

import functools

import regex

from explorer.drawing.token_html import readable_token
from explorer.lessons.encode_steps.budget import StepBudget
from explorer.lessons.encode_steps.merges import record_merges, whole_word_step
from explorer.lessons.encode_steps.records import EncodeSteps, PreTokenSteps, Step, StepPiece
from explorer.pipeline.models import merge_all
from explorer.pretrained import byte_to_char_index, info_for, load_encoding, replace_surrogates


class _Ranks:
    """A pretrained encoding's ranks, asked of tiktoken itself (the Python dict of them is dropped
    once the encoding is built: explorer.pretrained): `rank(token bytes)` or None, and `token(rank)`.
    An ordinary token's id is its rank."""

    def __init__(self, encoding):
        self.encoding = encoding

    def rank(self, token_bytes: bytes) -> int | None:
        try:
            return self.encoding.encode_single_token(token_bytes)
        except KeyError:
            return None

    def token(self, rank: int) -> bytes:
        return self.encoding.decode_single_token_bytes(rank)


@functools.lru_cache(maxsize=16)
def _tiktoken_tables(name: str):
    """(split regex, ranks) of a pretrained tiktoken encoding; a ValueError naming the choices for
    an unknown name."""
    encoding = load_encoding(name)
    # tiktoken's own `_educational.SimpleBytePairEncoding.from_tiktoken` reads the pattern too.
    return regex.compile(encoding._pat_str), _Ranks(encoding)


def _tiktoken_pre_token(name: str, word: str, start: int, text: str, budget: StepBudget) -> PreTokenSteps:
    _, ranks = _tiktoken_tables(name)
    data = word.encode("utf-8")
    owners = byte_to_char_index(word)

    def make(first_byte: int, end_byte: int, token_id: int) -> StepPiece:
        token_bytes = data[first_byte:end_byte]
        span = (start + owners[first_byte], start + owners[end_byte - 1] + 1)
        return StepPiece(
            readable_token(token_bytes), token_id, *span, "token", text[slice(*span)], span, token_bytes
        )

    def lookup(pair: tuple[int, int]):
        rank = ranks.rank(ranks.token(pair[0]) + ranks.token(pair[1]))
        return None if rank is None else (rank, rank)

    def merged_piece(first: int, last: int, _left, _right, merged_id: int) -> StepPiece:
        # Symbols start as one byte each: array symbols first..last are those bytes.
        return make(first, last + 1, merged_id)

    ids = [ranks.rank(data[i : i + 1]) for i in range(len(data))]
    lengths = [1] * len(ids)
    note = budget.refusal(len(data))
    if note:  # no step: only the final pieces, made from the merged arrays
        merge_all(ids, lengths, lookup)
        starts = [i for i in range(len(ids)) if lengths[i]]
        final = tuple(make(first, first + lengths[first], ids[first]) for first in starts)
        steps = []
    else:
        pieces = [make(i, i + 1, token_id) for i, token_id in enumerate(ids)]
        merges, final = record_merges(pieces, list(range(len(ids))), ids, lengths, lookup, merged_piece, True)
        steps = [Step("start", tuple(pieces)), *merges]
    # tiktoken looks the whole pre-token up before merging (`_encode_ordinary_native`).
    whole = ranks.rank(data)
    if whole is not None:
        step = whole_word_step(final, make(0, len(data), whole))
        if step is not None:
            steps += [] if note else [step]
            final = step.pieces
    return PreTokenSteps(word, start, start + len(word), tuple(steps), final, data, note=note)


def tiktoken_encode_steps(name: str, text: str) -> EncodeSteps:
    """`encode_pretrained(name, text)` step by step: tiktoken's split pattern, then byte merges."""
    split_pattern, _ = _tiktoken_tables(name)
    clean_text = replace_surrogates(text)
    budget = StepBudget()
    pre_tokens = tuple(
        _tiktoken_pre_token(name, match.group(), match.start(), clean_text, budget)
        for match in split_pattern.finditer(clean_text)
    )
    return EncodeSteps(clean_text, info_for(name).label, "BPE (tiktoken)", True, pre_tokens)
