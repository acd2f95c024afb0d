"""A shared, content-addressed store of finished runs on local disk (SQLite, standard library).

    store = open_store()                      # EXPLORER_STORE_PATH, _MB, _DAYS, EXPLORER_SECRET
    key = run_key(store.secret, corpus_sha256, canonical_json(settings))
    store.put(key, trace_json_bytes, corpus_bytes, {"label": ...})
    entry = store.get(key)                    # Entry(payload, corpus, meta, ...) or None

- Keys: `run_key` is HMAC-SHA256 of the corpus's sha256 and the settings' canonical JSON under a
  per-deployment secret (EXPLORER_SECRET, else 32 random bytes created once in `secret.key` next to
  the database, mode 0600). Without the corpus nobody can compute a key, and the store has no
  listing: a visitor cannot reach another visitor's corpus. Keys are 64 lowercase hex digits
  (`is_run_key` checks one taken from a URL).
- Bounds: at most `max_bytes` stored (compressed sizes; least recently read evicted first) and
  nothing older than `max_age` seconds since it was stored. Reads refresh "last read" (at most
  once a minute per entry, to keep reads from becoming writes under a class's load).
- Payload and corpus are compressed with zlib level 6. bench/bench_workers.py compares codecs on
  tinyshakespeare traces: against lzma preset 0, zlib 6 decompresses about 4x faster (8 ms
  against 29 ms for a 5.8 MB trace) for 17-25 % more bytes, and a read is what a visitor waits
  for; both compress in about the same time (~0.1 s, paid by the worker that stores the run).
- SQLite in WAL mode, one connection per thread and process, so several threads and several
  server processes on one machine share a store. A database file that is corrupt or was deleted
  is recreated with a log line; any other database error is logged and the call behaves as a
  miss (`get` -> None, `put` -> False): a cache failure never breaks a page.

Defaults: `~/.cache/tokenizer-explorer/runs.sqlite3` ($XDG_CACHE_HOME respected), 512 MB, 7 days.
`RunStore` is the interface (put / get / delete); `SQLiteRunStore` the implementation, so a
networked store can be added for several replicas.

What it does not do: know what a payload means (the caller stores a Trace's JSON), work on a
network file system (SQLite's locking needs a local disk), or list entries.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import sqlite3
import threading
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from explorer.checks import MB

LOG = logging.getLogger(__name__)

DEFAULT_MAX_MB = 512
DEFAULT_MAX_DAYS = 7
DAY = 86_400.0
TOUCH_SECONDS = 60.0  # "last read" is refreshed at most this often per entry
CODEC = "zlib"
SECRET_FILE = "secret.key"
_RUN_KEY = re.compile(r"[0-9a-f]{64}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    payload BLOB NOT NULL,
    corpus BLOB,
    meta TEXT NOT NULL,
    codec TEXT NOT NULL,
    size INTEGER NOT NULL,
    created REAL NOT NULL,
    accessed REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_access ON runs (accessed);
CREATE INDEX IF NOT EXISTS runs_by_age ON runs (created);
"""


# ---------------------------------------------------------------- keys


def canonical_json(value: object) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept (for hashing settings)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def run_key(secret: bytes, corpus_sha256: str, settings_json: str) -> str:
    """HMAC-SHA256 (hex) of the corpus digest and the settings; the digest has a fixed length,
    so the two parts cannot be shifted into each other."""
    if not re.fullmatch(r"[0-9a-f]{64}", corpus_sha256):
        raise ValueError("corpus_sha256 must be 64 lowercase hex digits")
    message = f"{corpus_sha256}\n{settings_json}".encode("utf-8", "surrogatepass")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def is_run_key(text: object) -> bool:
    return isinstance(text, str) and _RUN_KEY.fullmatch(text) is not None


def load_secret(folder: Path, environ: Mapping[str, str] | None = None) -> bytes:
    """EXPLORER_SECRET, else the secret in `folder/secret.key`, created once (mode 0600).

    Created under a temporary name and linked into place, so two server processes starting at
    once agree on one secret and neither reads a half-written file."""
    environ = os.environ if environ is None else environ
    if environ.get("EXPLORER_SECRET"):
        return environ["EXPLORER_SECRET"].encode("utf-8")
    path = folder / SECRET_FILE
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_hex(32))
            os.link(temporary, path)
            LOG.info("created the run store's secret %s", path)
        except FileExistsError:
            pass  # another process made it first: use theirs
        finally:
            temporary.unlink()
    secret = path.read_text().strip()
    if len(secret) < 32:
        raise ValueError(f"the secret in {path} is too short: delete the file to have a new one made")
    return secret.encode("utf-8")


# ---------------------------------------------------------------- the store


@dataclass(frozen=True)
class Entry:
    key: str
    payload: bytes
    corpus: bytes | None
    meta: dict
    created: float  # time.time() when stored
    accessed: float  # when last read (before this read)


class RunStore(Protocol):
    secret: bytes

    def put(self, key: str, payload: bytes, corpus: bytes | None, meta: dict) -> bool: ...
    def get(self, key: str) -> Entry | None: ...
    def delete(self, key: str) -> None: ...


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get("EXPLORER_STORE_PATH"):
        return Path(environ["EXPLORER_STORE_PATH"]).expanduser()
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "tokenizer-explorer" / "runs.sqlite3"


def _positive_number(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{name} must be a number above 0, not {raw!r}")
    return value


class SQLiteRunStore:
    """The default RunStore: one SQLite file (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike,
        max_bytes: int = DEFAULT_MAX_MB * MB,
        max_age: float = DEFAULT_MAX_DAYS * DAY,
        secret: bytes | None = None,
        clock=time.time,
    ):
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._secret = secret
        self._local = threading.local()
        self._reopen_lock = threading.Lock()

    @property
    def secret(self) -> bytes:
        """The deployment's secret for `run_key`, read (or created) on first use."""
        if self._secret is None:
            self._secret = load_secret(self.path.parent)
        return self._secret

    def location(self) -> dict:
        """Plain data to reopen this store elsewhere (a worker process): `SQLiteRunStore.at(...)`."""
        return {"path": str(self.path), "max_bytes": self.max_bytes, "max_age": self.max_age}

    @classmethod
    def at(cls, location: dict) -> SQLiteRunStore:
        return cls(location["path"], location["max_bytes"], location["max_age"])

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SQLiteRunStore:
        """EXPLORER_STORE_PATH, EXPLORER_STORE_MB, EXPLORER_STORE_DAYS, EXPLORER_SECRET (ValueError
        naming a malformed one)."""
        environ = os.environ if environ is None else environ
        megabytes = _positive_number(environ, "EXPLORER_STORE_MB", DEFAULT_MAX_MB)
        days = _positive_number(environ, "EXPLORER_STORE_DAYS", DEFAULT_MAX_DAYS)
        path = default_path(environ)
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(path, int(megabytes * MB), days * DAY, load_secret(path.parent, environ))

    # ------------------------------------------------------------ connections

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, reopened when the file was deleted or replaced meanwhile."""
        local = self._local
        try:
            identity = os.stat(self.path).st_ino
        except FileNotFoundError:
            identity = None
        if (
            getattr(local, "connection", None) is not None
            and local.pid == os.getpid()
            and local.identity == identity
        ):
            return local.connection
        if getattr(local, "connection", None) is not None:
            local.connection.close()
            local.connection = None
            if identity is None:
                LOG.warning("run store %s was deleted: creating a new, empty one", self.path)
                self._remove_journal(self.path)  # a stale WAL must not be replayed into the new file
        local.connection = self._open()
        local.pid, local.identity = os.getpid(), os.stat(self.path).st_ino
        return local.connection

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable enough for a cache
            connection.executescript(_SCHEMA)
        except sqlite3.DatabaseError:
            connection.close()
            raise
        return connection

    @staticmethod
    def _remove_journal(path: Path, aside: Path | None = None) -> None:
        for suffix in ("-wal", "-shm"):
            source = Path(f"{path}{suffix}")
            if source.exists():
                if aside is None:
                    source.unlink(missing_ok=True)
                else:
                    source.replace(Path(f"{aside}{suffix}"))

    def _recreate(self, error: Exception) -> None:
        """Move a corrupt database aside and start an empty one (once, whichever thread sees it)."""
        with self._reopen_lock:
            self.close()
            if self.path.exists():
                try:
                    probe = sqlite3.connect(self.path, timeout=30.0)
                    try:
                        healthy = probe.execute("PRAGMA quick_check").fetchone() == ("ok",)
                    finally:
                        probe.close()
                except sqlite3.DatabaseError:
                    healthy = False
                if healthy:
                    return  # another thread has already recreated it
                aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
                LOG.warning(
                    "run store %s is unreadable (%s): moved to %s, starting an empty one",
                    self.path,
                    error,
                    aside,
                )
                self.path.replace(aside)
                self._remove_journal(self.path, aside)

    def _run(self, operation, default):
        """`operation(connection)`; a corrupt file is recreated and the operation tried once more;
        other database errors are logged and give `default`."""
        for attempt in (1, 2):
            try:
                return operation(self._connection())
            except sqlite3.DatabaseError as error:
                corrupt = "not a database" in str(error) or "malformed" in str(error)
                if corrupt and attempt == 1:
                    self._recreate(error)
                    continue
                LOG.exception("run store %s: %s", self.path, error)
                return default
        return default

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        if getattr(self._local, "connection", None) is not None:
            self._local.connection.close()
            self._local.connection = None

    # ------------------------------------------------------------ the interface

    def put(self, key: str, payload: bytes, corpus: bytes | None, meta: dict) -> bool:
        """Store (or replace) an entry; False when it alone exceeds the byte bound or on error."""
        packed_payload = zlib.compress(payload, 6)
        packed_corpus = None if corpus is None else zlib.compress(corpus, 6)
        meta_json = canonical_json(meta)
        size = len(packed_payload) + len(packed_corpus or b"") + len(meta_json.encode("utf-8")) + len(key)
        if size > self.max_bytes:
            LOG.info(
                "run %s not stored: %d bytes is over the store's bound of %d", key[:8], size, self.max_bytes
            )
            return False

        def write(connection: sqlite3.Connection) -> bool:
            now = self.clock()
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute(
                    "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (key, packed_payload, packed_corpus, meta_json, CODEC, size, now, now),
                )
                self._evict(connection, now, keep=key)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            return True

        return self._run(write, False)

    def get(self, key: str) -> Entry | None:
        def read(connection: sqlite3.Connection) -> Entry | None:
            row = connection.execute(
                "SELECT payload, corpus, meta, codec, created, accessed FROM runs WHERE key = ?", (key,)
            ).fetchone()
            if row is None:
                return None
            payload, corpus, meta, codec, created, accessed = row
            now = self.clock()
            if now - created > self.max_age:
                connection.execute("DELETE FROM runs WHERE key = ?", (key,))
                return None
            if codec != CODEC:
                LOG.warning("run %s has an unknown codec %r: dropped", key[:8], codec)
                connection.execute("DELETE FROM runs WHERE key = ?", (key,))
                return None
            if now - accessed >= TOUCH_SECONDS:
                connection.execute("UPDATE runs SET accessed = ? WHERE key = ?", (now, key))
            return Entry(
                key,
                zlib.decompress(payload),
                None if corpus is None else zlib.decompress(corpus),
                json.loads(meta),
                created,
                accessed,
            )

        return self._run(read, None)

    def delete(self, key: str) -> None:
        self._run(lambda connection: connection.execute("DELETE FROM runs WHERE key = ?", (key,)), None)

    def prune(self) -> None:
        """Apply the age and byte bounds now (`put` does it too)."""

        def prune(connection: sqlite3.Connection) -> None:
            connection.execute("BEGIN IMMEDIATE")
            try:
                self._evict(connection, self.clock(), keep=None)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise

        self._run(prune, None)

    def stored_bytes(self) -> int:
        """The total size the byte bound applies to (for tests and the operator's log)."""
        return self._run(
            lambda connection: connection.execute("SELECT coalesce(sum(size), 0) FROM runs").fetchone()[0], 0
        )

    def _evict(self, connection: sqlite3.Connection, now: float, keep: str | None) -> None:
        """Drop entries past their age, then the least recently read ones until under the bound."""
        connection.execute("DELETE FROM runs WHERE created < ?", (now - self.max_age,))
        total = connection.execute("SELECT coalesce(sum(size), 0) FROM runs").fetchone()[0]
        if total <= self.max_bytes:
            return
        rows = connection.execute(
            "SELECT key, size FROM runs WHERE key IS NOT ? ORDER BY accessed, created", (keep,)
        ).fetchall()
        for old_key, size in rows:
            if total <= self.max_bytes:
                break
            connection.execute("DELETE FROM runs WHERE key = ?", (old_key,))
            total -= size


def open_store(environ: Mapping[str, str] | None = None) -> SQLiteRunStore | None:
    """The server's store from the environment, or None (logged) when it cannot be opened: the
    app then works without one, training every run."""
    try:
        return SQLiteRunStore.from_env(environ)
    except (OSError, ValueError, sqlite3.Error) as error:
        LOG.warning("no run store (%s): runs will not be shared or kept across reloads", error)
        return None
