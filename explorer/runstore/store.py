"""What every run store is: the `RunStore` interface, the `Entry` a read gives, the packing both
backends share (zstd, the size the byte bound counts), and the rules both keep alike
(`BoundedStore`: bounds, eviction, reads, turning read-only).

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

`BoundedStore` is those rules written once over a backend's SQL connection: `put` (one entry over
the byte bound refused with a log line; else stored, its started mark cleared and the bounds
applied in one write transaction), `prune`, eviction (past `max_age`, then least recently read
until under `max_bytes`), an entry read (expired or unreadable: dropped; "last read" refreshed),
`delete`, `mark_started`, `was_started`, `stored_bytes`, and a refused write turning the store
read-only. A backend gives its SQL (`PARAM`, its placeholder; `INSERT`, `STARTED`), how it runs
an operation on a connection (`_run`), its write transaction (`_transaction`), which errors are a
refused write (`_refused`), and its `get`'s query.

What it does not do: connect to a database, make tables or hold transactions (sqlite.py,
postgres.py), or choose a backend (backends.py).
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import zstandard

from explorer.runstore.keys import canonical_json

LOG = logging.getLogger("explorer.runstore")
T = TypeVar("T")

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


class BoundedStore:
    """The rules both backends keep alike (see the module docstring), over their own connections:
    `SQLiteRunStore` and `PostgresRunStore` derive from it."""

    PARAM: ClassVar[str]  # the backend's SQL placeholder, written "?" in the statements here
    INSERT: ClassVar[str]  # the backend's statement storing (or replacing) one row of `runs`
    STARTED: ClassVar[str]  # ... and marking a key started (again: its time replaced)
    name: str  # what the log calls the store
    max_bytes: int
    max_age: float
    clock: Callable[[], float]
    writable: bool

    def _run(self, operation: Callable[[Any], T], default: T) -> T:
        """`operation(connection)`, or `default` when the database fails (logged)."""
        raise NotImplementedError

    def _refused(self, error: Exception) -> bool:
        """Whether `error` is a write this store may not do (read-only)."""
        raise NotImplementedError

    def _transaction(self, connection: Any) -> AbstractContextManager[None]:
        """The backend's write transaction, which evicting holds (one writer evicts at a time)."""
        raise NotImplementedError

    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.PARAM)

    def _fits(self, key: str, packed: Packed) -> bool:
        """Whether one entry is within the byte bound (else said in the log)."""
        if packed.size <= self.max_bytes:
            return True
        LOG.warning(
            "run %s not stored: %d bytes is over the store's bound of %d",
            key[:8],
            packed.size,
            self.max_bytes,
        )
        return False

    def _write(self, operation: Callable[[Any], T], default: T) -> T:
        """`operation(connection)`, a write; a refused write makes the store read-only
        (`_became_read_only`) and gives `default`."""

        def guarded(connection: Any) -> T:
            try:
                return operation(connection)
            except Exception as error:
                if not self._refused(error):
                    raise
                self._became_read_only(error)
                return default

        return self._run(guarded, default)

    def _became_read_only(self, error: Exception, how: str = "can no longer be written") -> None:
        """Read-only from now on, said once in the log (`how`: found out when opened, or later)."""
        if self.writable:
            LOG.warning(
                "run store %s %s (%s): stored runs are served read-only, new runs are not kept",
                self.name,
                how,
                str(error).strip(),
            )
        self.writable = False

    def _refresh(self, connection: Any, statement: str, values: tuple[Any, ...]) -> None:
        """A read's own write (its "last read", an expired entry dropped): skipped when read-only,
        and never a reason for the read to fail."""
        if not self.writable:
            return
        try:
            connection.execute(self._sql(statement), values)
        except Exception as error:
            if not self._refused(error):
                raise
            self._became_read_only(error)

    def _entry(self, connection: Any, key: str, row: tuple | None) -> Entry | None:
        """The entry of a row read (payload, corpus, meta, codec, created, accessed), or None: no
        row, or one past `max_age` or of a codec this version cannot read (dropped). Its "last
        read" is refreshed at most once per `TOUCH_SECONDS`."""
        if row is None:
            return None
        payload, corpus, meta, codec, created, accessed = row
        now = self.clock()
        if now - created > self.max_age or not readable(codec):
            if not readable(codec):
                LOG.warning("run %s has an unknown codec %r: dropped", key[:8], codec)
            self._refresh(connection, "DELETE FROM runs WHERE key = ?", (key,))
            return None
        if now - accessed >= TOUCH_SECONDS:
            self._refresh(connection, "UPDATE runs SET accessed = ? WHERE key = ?", (now, key))
        return unpack(key, payload, corpus, meta, created, accessed, codec)

    def put(self, key: str, payload: bytes, corpus: bytes | None, meta: dict) -> bool:
        """Store (or replace) an entry, clear its started mark and apply the bounds (never to the
        entry itself), in one write transaction; False when it alone exceeds the byte bound, when
        the store is read-only or cannot be reached, or on error."""
        if not self.writable:
            return False
        packed = pack(key, payload, corpus, meta)
        if not self._fits(key, packed):
            return False

        def write(connection: Any) -> bool:
            now = self.clock()
            row = (key, packed.payload, packed.corpus, packed.meta_json, packed.codec, packed.size, now, now)
            with self._transaction(connection):
                connection.execute(self.INSERT, row)
                connection.execute(self._sql("DELETE FROM started WHERE key = ?"), (key,))
                self._evict(connection, now, keep=key)
            return True

        return self._write(write, False)

    def mark_started(self, key: str) -> None:
        """Remember that the run `key` names started training (`put` forgets it again)."""
        if not self.writable:
            return
        self._write(lambda connection: connection.execute(self.STARTED, (key, self.clock())), None)

    def prune(self) -> None:
        """Apply the age and byte bounds now (`put` does it too); nothing when read-only."""
        if not self.writable:
            return

        def prune(connection: Any) -> None:
            with self._transaction(connection):
                self._evict(connection, self.clock(), keep=None)

        self._write(prune, None)

    def _evict(self, connection: Any, now: float, keep: str | None) -> None:
        """Drop entries past their age, then the least recently read ones (but `keep`) until under
        the bound. Called inside the backend's write transaction."""
        connection.execute(self._sql("DELETE FROM runs WHERE created < ?"), (now - self.max_age,))
        connection.execute(self._sql("DELETE FROM started WHERE created < ?"), (now - self.max_age,))
        total = self._total(connection)
        if total <= self.max_bytes:
            return
        rows = connection.execute(  # no key is empty: keep=None keeps none
            self._sql("SELECT key, size FROM runs WHERE key <> ? ORDER BY accessed, created"), (keep or "",)
        ).fetchall()
        for old_key, size in rows:
            if total <= self.max_bytes:
                break
            connection.execute(self._sql("DELETE FROM runs WHERE key = ?"), (old_key,))
            total -= size

    @staticmethod
    def _total(connection: Any) -> int:
        row = connection.execute("SELECT coalesce(sum(size), 0) FROM runs").fetchone()
        return int(row[0]) if row else 0

    def delete(self, key: str) -> None:
        if not self.writable:
            return
        self._write(
            lambda connection: connection.execute(self._sql("DELETE FROM runs WHERE key = ?"), (key,)), None
        )

    def was_started(self, key: str) -> bool:
        """Whether the run `key` names started training here within `max_age` and was not stored
        since: it never finished (a restart, a failure, a Stop before its first step)."""
        found = self._run(
            lambda connection: connection.execute(
                self._sql("SELECT 1 FROM started WHERE key = ? AND created >= ?"),
                (key, self.clock() - self.max_age),
            ).fetchone(),
            None,
        )
        return found is not None

    def stored_bytes(self) -> int:
        """The total size the byte bound applies to (for tests and the operator's log)."""
        return self._run(self._total, 0)
