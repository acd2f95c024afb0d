"""Where a tokenizer.json only the `tokenizers` library reads (WordLevel, some Unigram files) is
parsed, encoded and decoded: a `LibraryHost`.

Parsing such a file is `tokenizers.Tokenizer.from_str`, which holds the GIL from start to end
(6.4 s for a WordLevel file of 500,000 entries, 8.8 MB): in the server's process every visitor's
page and /_stcore/health would wait that long. So the Compare column of such an upload
(explorer.compare.readers) is built from what the worker that read the file found
(`readers.LibraryFacts`), and encodes and decodes through a host:

- `HERE`: this process parses the file on first use (once per file and special-token switch:
  `parsed`) and encodes and decodes with it: a worker process, the CLI, the tests;
- the server's (explorer.session.library_jobs.IN_WORKERS): each call is a job of the worker pool,
  which runs `HERE` in a worker.

What it does not do: read or check the file (explorer.compare.readers, explorer.compare.upload_checks),
ask the worker pool (explorer.session.library_jobs), or draw.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import tokenizers

from explorer.compare.decode import library_decoder
from explorer.compare.encoders import encoded_texts, library_pieces
from explorer.measures.metrics import EncodedTexts
from explorer.pretrained.decoding import Decoding
from explorer.tokens import Piece


@dataclass(frozen=True)
class LibraryFile:
    """A library-only tokenizer.json as a column uses it: its `key` (the upload's), its `text`,
    whether special-token text is special (`special_tokens`), and the facts its pieces need."""

    key: str
    text: str
    special_tokens: bool
    byte_level: bool
    unknown_id: int | None


class LibraryHost(Protocol):
    """Encodes and decodes with a `LibraryFile`, wherever it is parsed."""

    def encode(self, library: LibraryFile, texts: Sequence[str]) -> list[list[Piece]]:
        """Each text's pieces (no [CLS]/[SEP]), as `encoders.library_pieces` gives them."""
        ...

    def decode(self, library: LibraryFile, ids: Sequence[int]) -> Decoding:
        """The ids as text and tokens (`decode.library_decoder`)."""
        ...


@functools.lru_cache(maxsize=2)
def _parsed(text: str) -> tokenizers.Tokenizer:
    return tokenizers.Tokenizer.from_str(text)


def parsed(text: str, special_tokens: bool) -> tokenizers.Tokenizer:
    """The `tokenizers` library's Tokenizer of `text`, special-token text special or plain (the
    library's `encode_special_tokens`, set for this use: a worker runs one job at a time). The
    last two files parsed are kept, so a worker parses a file once, whichever the switch and
    whether it reads, measures or encodes it."""
    library = _parsed(text)
    library.encode_special_tokens = not special_tokens
    return library


class LocalHost:
    """The host that parses in this process (`HERE`)."""

    def encode(self, library: LibraryFile, texts: Sequence[str]) -> list[list[Piece]]:
        tok = parsed(library.text, library.special_tokens)
        return [library_pieces(tok, library.byte_level, library.unknown_id, text) for text in texts]

    def decode(self, library: LibraryFile, ids: Sequence[int]) -> Decoding:
        return library_decoder(parsed(library.text, library.special_tokens), library.byte_level)(ids)

    def encode_batch(self, library: LibraryFile, texts: Sequence[str]) -> EncodedTexts:
        """Many texts' ids and spans in arrays (`TokenizerColumn.encode_batch`: a corpus measured
        in a worker)."""
        tok = parsed(library.text, library.special_tokens)
        return encoded_texts(tok.encode_batch(list(texts), add_special_tokens=False), library.unknown_id)


HERE = LocalHost()


def encode_one(host: LibraryHost, library: LibraryFile, text: str) -> list[Piece]:
    """One text's pieces through `host` (a column's `encode`)."""
    return host.encode(library, [text])[0]
