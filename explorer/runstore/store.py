"""What every run store is: the `RunStore` interface, the `Entry` a read gives, and the packing both
backends share (zlib, the size the byte bound counts).

- Payload and corpus are compressed with zlib level 6. bench/bench_workers.py compares codecs on
  tinyshakespeare traces: against lzma preset 0, zlib 6 decompresses about 4x faster (8 ms
  against 29 ms for a 5.8 MB trace) for 17-25 % more bytes, and a read is what a visitor waits
  for; both compress in about the same time (~0.1 s, paid by the worker that stores the run).
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
from dataclasses import dataclass
from typing import Protocol

from explorer.runstore.keys import canonical_json

TOUCH_SECONDS = 60.0  # "last read" is refreshed at most this often per entry
CODEC = "zlib"


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


def pack(key: str, payload: bytes, corpus: bytes | None, meta: dict) -> Packed:
    packed_payload = zlib.compress(payload, 6)
    packed_corpus = None if corpus is None else zlib.compress(corpus, 6)
    meta_json = canonical_json(meta)
    size = len(packed_payload) + len(packed_corpus or b"") + len(meta_json.encode("utf-8")) + len(key)
    return Packed(packed_payload, packed_corpus, meta_json, size)


def unpack(
    key: str, payload: bytes, corpus: bytes | None, meta_json: str, created: float, accessed: float
) -> Entry:
    return Entry(
        key,
        zlib.decompress(payload),
        None if corpus is None else zlib.decompress(corpus),
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
