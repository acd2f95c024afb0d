"""The run store on local disk: one SQLite file (standard library), shared by threads and processes.

- Bounds: at most `max_bytes` stored (compressed sizes; least recently read evicted first) and
  nothing older than `max_age` seconds since it was stored. Reads refresh "last read" (at most
  once a minute per entry, to keep reads from becoming writes under a class's load).
- SQLite in WAL mode, one connection per thread and process (sqlite_connections.py), so several
  threads and several server processes on one machine share a store. A database file that is
  corrupt or was deleted is recreated with a log line; any other database error is logged and the
  call behaves as a miss (`get` -> None, `put` -> False): a cache failure never breaks a page.
- A store this process cannot write (a read-only disk or folder, a file it may not write) is
  opened read-only (`writable` is False, said in one log line): stored runs are still served,
  `put` keeps nothing and returns False, and nothing is refreshed or evicted. A store that becomes
  read-only while it is open finds out at its first refused write, and is read-only from then on
  (one log line, no traceback).
- `mark_started(key)` / `was_started(key)`: a key whose training started and whose run was not
  stored since (within `max_age`), so that a link to a run that never finished (a restart during
  its training) is told apart from one that expired. `put` clears the mark.

`SQLiteRunStore` is the default `RunStore` (store.py: the interface, the entry, the packing, and
`BoundedStore`, the reads, bounds and eviction both backends keep, which this one runs on its
connections); several servers on several machines share a PostgreSQL one instead (postgres.py).

What it does not do: know what a payload means (the caller stores a history's JSON), work on a
network file system (SQLite's locking needs a local disk), or list entries.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from explorer.checks import MB
from explorer.runstore.bounds import DAY, DEFAULT_MAX_DAYS, DEFAULT_MAX_MB, default_path, positive_number
from explorer.runstore.keys import load_secret
from explorer.runstore.sqlite_connections import ThreadConnections, can_write
from explorer.runstore.store import BoundedStore, Entry

LOG = logging.getLogger("explorer.runstore")

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
CREATE TABLE IF NOT EXISTS started (
    key TEXT PRIMARY KEY,
    created REAL NOT NULL
);
"""


class SQLiteRunStore(BoundedStore):
    """The default RunStore: one SQLite file (see the module docstring)."""

    PARAM = "?"
    INSERT = "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    STARTED = "INSERT OR REPLACE INTO started VALUES (?, ?)"

    def __init__(
        self,
        path: str | os.PathLike,
        max_bytes: int = DEFAULT_MAX_MB * MB,
        max_age: float = DEFAULT_MAX_DAYS * DAY,
        secret: bytes | None = None,
        clock=time.time,
        read_only: bool | None = None,
    ):
        """`read_only`: None finds out (`can_write`); True opens an existing file read-only.
        OSError when the file neither exists nor can be created."""
        self.path = Path(path)
        self.name = str(self.path)
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.clock = clock
        create_private(self.path)
        self._secret = secret
        if read_only is None:
            read_only = not can_write(self.path)
        if read_only and not self.path.is_file():
            raise OSError(f"{self.path} does not exist and cannot be created")
        if read_only:
            LOG.warning(
                "run store %s cannot be written: stored runs are served read-only, new runs are not kept",
                self.path,
            )
        self.writable = not read_only
        self._connections = ThreadConnections(self.path, _SCHEMA, read_only=read_only)

    @property
    def secret(self) -> bytes:
        """The deployment's secret for `run_key`, read (or created) on first use."""
        if self._secret is None:
            self._secret = load_secret(self.path.parent)
        return self._secret

    def location(self) -> dict:
        """Plain data to reopen this store elsewhere (a worker process): `SQLiteRunStore.at(...)`."""
        return {
            "backend": "sqlite",
            "path": str(self.path),
            "max_bytes": self.max_bytes,
            "max_age": self.max_age,
            "read_only": not self.writable,
        }

    @classmethod
    def at(cls, location: dict) -> SQLiteRunStore:
        return cls(
            location["path"], location["max_bytes"], location["max_age"], read_only=location.get("read_only")
        )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SQLiteRunStore:
        """EXPLORER_STORE_PATH, EXPLORER_STORE_MB, EXPLORER_STORE_DAYS, EXPLORER_SECRET (ValueError
        naming a malformed one)."""
        environ = os.environ if environ is None else environ
        megabytes = positive_number(environ, "EXPLORER_STORE_MB", DEFAULT_MAX_MB)
        days = positive_number(environ, "EXPLORER_STORE_DAYS", DEFAULT_MAX_DAYS)
        path = default_path(environ)
        create_private(path)
        return cls(path, int(megabytes * MB), days * DAY, load_secret(path.parent, environ))

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        self._connections.close()

    def _run(self, operation, default):
        return self._connections.run(operation, default)

    def _refused(self, error: Exception) -> bool:
        return isinstance(error, sqlite3.OperationalError) and "readonly" in str(error)

    @contextmanager
    def _transaction(self, connection: sqlite3.Connection) -> Iterator[None]:
        """BEGIN IMMEDIATE: the write lock at once, so two writers never both evict."""
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def get(self, key: str) -> Entry | None:
        def read(connection: sqlite3.Connection) -> Entry | None:
            row = connection.execute(
                "SELECT payload, corpus, meta, codec, created, accessed FROM runs WHERE key = ?", (key,)
            ).fetchone()
            return self._entry(connection, key, row)

        return self._run(read, None)


def create_private(path: Path) -> None:
    """The store's folder (0700 when this makes it) and an empty database file readable by its
    owner only (0600): it holds pasted corpora. SQLite gives its -wal and -shm files the database
    file's mode. An existing file keeps its mode; a folder that cannot be written is left to the
    caller's first write to report."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    except OSError as error:
        LOG.info("run store file %s not created here (%s)", path, error)
