"""What every run store is: the `RunStore` interface, the `Entry` a read gives, and the packing both
backends share (zstd, the size the byte bound counts).

- Payload and corpus are compressed with zstd level 1 (`CODEC`, written beside each entry). The
  worker that stores a run pays for it, within its time budget. Measured on two traces of
  generated Zipf text, BPE 32,000 (CPU seconds): 102 MB of JSON, zlib 6 1.91 s to 11.0 %, zstd 1
  0.20 s to 11.1 %, zstd 3 0.42 s to 10.8 %; 32 MB, zlib 6 2.31 s to 27.8 %, zstd 1 0.14 s to
  28.3 %, zstd 3 0.39 s to 26.1 %; reading back, zstd takes half of zlib's time or less
  (`bench/bench_workers.py`, part 3, on tinyshakespeare). Entries an older version wrote with zlib
  (`codec` "zlib") are still read: their links keep working until they expire.
- An entry's size, what the byte bound adds up, is its compressed payload and corpus, its meta's
  JSON and its key.

The contract (tests/unit/test_runstore.py runs it on both backends): `put` stores or replaces an
entry and evicts what the bounds say (least recently read first, nothing past `max_age`), False
when the entry alone is over the bound, the store is read-only or cannot be reached; `get` is the
entry or None (a miss, expired, or an error: logged, never raised), refreshing "last read" at
most once per `TOUCH_SECONDS`; a read-only store serves its entries and keeps nothing.

What it does not do: store anything (sqlite.py, postgres.py), or choose a backend (backends.py).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import zstandard

from explorer.runstore.keys import canonical_json

TOUCH_SECONDS = 60.0  # "last read" is refreshed at most this often per entry
CODEC = "zstd"  # what `pack` writes
ZSTD_LEVEL = 1
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "zstd": lambda data: zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(data),
    "zlib": lambda data: zlib.compress(data, 6),  # what versions before 2026-12-07 wrote
}
DECOMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "zstd": lambda data: zstandard.ZstdDecompressor().decompress(data),
    "zlib": zlib.decompress,
}


@dataclass(frozen=True)
class Entry:
    key: str
    payload: bytes
    corpus: bytes | None
    meta: dict
    created: float  # time.time() when stored
    accessed: float  # when last read (before this read)


@dataclass(frozen=True)
class Packed:
    """An entry as a store keeps it."""

    payload: bytes
    corpus: bytes | None
    meta_json: str
    size: int  # what the byte bound counts
    codec: str


def pack(key: str, payload: bytes, corpus: bytes | None, meta: dict) -> Packed:
    compress = COMPRESSORS[CODEC]
    packed_payload = compress(payload)
    packed_corpus = None if corpus is None else compress(corpus)
    meta_json = canonical_json(meta)
    size = len(packed_payload) + len(packed_corpus or b"") + len(meta_json.encode("utf-8")) + len(key)
    return Packed(packed_payload, packed_corpus, meta_json, size, CODEC)


def readable(codec: str) -> bool:
    """Whether an entry written with `codec` can be read (this version's, or an older one's)."""
    return codec in DECOMPRESSORS


def unpack(
    key: str,
    payload: bytes,
    corpus: bytes | None,
    meta_json: str,
    created: float,
    accessed: float,
    codec: str,
) -> Entry:
    decompress = DECOMPRESSORS[codec]
    return Entry(
        key,
        decompress(payload),
        None if corpus is None else decompress(corpus),
        json.loads(meta_json),
        created,
        accessed,
    )


class RunStore(Protocol):
    """A bounded store of finished runs (see the module docstring): `SQLiteRunStore` or
    `PostgresRunStore`."""

    writable: bool  # False: read-only (said once in the log), `put` keeps nothing

    @property
    def secret(self) -> bytes: ...
    def location(self) -> dict: ...
    def close(self) -> None: ...
    def put(self, key: str, payload: bytes, corpus: bytes | None, meta: dict) -> bool: ...
    def get(self, key: str) -> Entry | None: ...
    def delete(self, key: str) -> None: ...
    def mark_started(self, key: str) -> None: ...
    def was_started(self, key: str) -> bool: ...
    def prune(self) -> None: ...
    def stored_bytes(self) -> int: ...
