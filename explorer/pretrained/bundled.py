"""One way in to every bundled tokenizer, whatever reads its file: `encode(name, text,
special_tokens)`, `decode(name, ids)`, `load_tokenizer(name)`.

Each tokenizer is loaded on first use and kept for the life of the process (one per name):
tiktoken for GPT, Llama, Qwen and tekken files, the `tokenizers` library for DeepSeek's
tokenizer.json, `sentencepiece` for Mistral's `.model` files. All three hand out the same
`Piece`s and `Decoding`s.

What it does not do: download anything (every file comes from an installed package, checked
against its sha256), or cache encodings (callers that need it do).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from typing import Protocol

from explorer.pretrained.decoding import DecodedToken, Decoding
from explorer.pretrained.registry import BUNDLED, SENTENCEPIECE, TIKTOKEN_KINDS, TOKENIZER_JSON, info_for
from explorer.tokens import Piece


class PretrainedTokenizer(Protocol):
    name: str
    vocab_size: int  # ids are 0 .. vocab_size - 1 (some may be unused)
    special_tokens: dict[str, int]

    def encode(self, text: str, special_tokens: bool = False) -> list[Piece]: ...

    def token(self, token_id: int) -> DecodedToken: ...

    def decode(self, ids: Sequence[int]) -> Decoding: ...


_loading = threading.Lock()  # two sessions asking for one tokenizer at once load it once


@functools.lru_cache(maxsize=len(BUNDLED))
def _load(name: str) -> PretrainedTokenizer:
    info = info_for(name)
    if info.kind in TIKTOKEN_KINDS:
        from explorer.pretrained.tiktoken_backend import TiktokenTokenizer

        return TiktokenTokenizer(name)
    if info.kind == TOKENIZER_JSON:
        from explorer.pretrained.library_backend import LibraryTokenizer

        return LibraryTokenizer(name)
    if info.kind == SENTENCEPIECE:
        from explorer.pretrained.files import read_verified
        from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

        (data,) = [read_verified(info.module, data_file) for data_file in info.files]
        return SentencePieceTokenizer.from_bytes(data, name)
    raise ValueError(f"{name!r}: no reader for {info.kind} files")


def load_tokenizer(name: str) -> PretrainedTokenizer:
    """The bundled tokenizer `name`, loaded on first use (ValueError for an unknown name,
    PretrainedDataError when its package or file is missing or not the verified one)."""
    info_for(name)
    if name not in _loaded:  # a loaded one is handed out without waiting for another's load
        with _loading:
            _load(name)
            _loaded.add(name)
    return _load(name)


_loaded: set[str] = set()


def is_loaded(name: str) -> bool:
    """Whether `name` is loaded in this process already (so a page can say "loading..." first)."""
    return name in _loaded


def encode(name: str, text: str, special_tokens: bool = False) -> list[Piece]:
    """Encode `text` with the bundled tokenizer `name`.

    `special_tokens=False`: special-token text such as "<|endoftext|>" or "[INST]" is ordinary text
    (never an error). True: each occurrence is one token with the model's own id, as the model
    sees it in a chat or at a document boundary. Lone surrogates count as U+FFFD.
    """
    tokenizer = load_tokenizer(name)
    return tokenizer.encode(text, special_tokens)


def encode_pretrained(name: str, text: str) -> list[Piece]:
    """Encode `text` with special-token text treated as plain text (`encode(..., False)`)."""
    return encode(name, text, special_tokens=False)


def decode(name: str, ids: Sequence[int]) -> Decoding:
    """The text of `ids` and one token per id; ids out of range or unused are named, not raised."""
    tokenizer = load_tokenizer(name)
    return tokenizer.decode(ids)


def vocab_size(name: str) -> int:
    """The number of ids of `name` (from the registry: no file is read)."""
    return info_for(name).vocab_size
