"""One SQLite file opened by many threads and processes, kept usable when the file is deleted or corrupted.

Each thread (and each process, after a fork) gets its own connection in WAL mode (the switch to WAL
is retried while another connection holds the new file's lock). When the file was
deleted or replaced, the next call reopens it (a stale WAL is removed so that it cannot be replayed
into the new file). A corrupt file is moved aside with a log line and an empty one started, once,
whichever thread sees it first; any other database error is logged and the call returns its
default, so that a cache failure never breaks a page.

`can_write(path)` tells whether this process may write the file (a read-only disk or folder, or a
file it may not write, says no); `ThreadConnections(..., read_only=True)` then opens it with
SQLite's read-only mode (`?mode=ro`; `?immutable=1` when even that needs a file it cannot create,
the -shm of a WAL database in a read-only folder), so the stored runs stay readable.

What it does not do: know the tables (the caller passes its schema) or retry anything but a corrupt
file and the switch to WAL.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from pathlib import Path

LOG = logging.getLogger("explorer.runstore")
OPEN_TIMEOUT = 30.0  # seconds a connection waits for another one's lock


def can_write(path: Path) -> bool:
    """Whether the database at `path` (created if missing) takes a write: its header's user_version
    written back unchanged, in a transaction rolled back (starting one is not enough: SQLite
    refuses a read-only file only at the first write). A database another connection is writing
    ("locked") counts as writable, and so does a corrupt file (ThreadConnections recreates it)."""
    try:
        connection = sqlite3.connect(path, timeout=OPEN_TIMEOUT, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            (version,) = connection.execute("PRAGMA user_version").fetchone()
            connection.execute(f"PRAGMA user_version = {int(version)}")
        finally:
            connection.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError as error:
        return "locked" in str(error)
    except sqlite3.DatabaseError:
        return True
    finally:
        connection.close()


def _new_private_file(path: Path) -> None:
    """An empty database file only its owner can read (it will hold pasted corpora; SQLite gives
    its -wal and -shm the same mode), where SQLite would make one with the default mode."""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        pass  # made meanwhile by another thread or process, or not writable: SQLite says which


class ThreadConnections:
    """`run(operation, default)`: `operation(connection)` on this thread's connection to `path`
    (opened read-only when `read_only`: the operations must then only read)."""

    def __init__(self, path: Path, schema: str, read_only: bool = False):
        self.path = path
        self.schema = schema
        self.read_only = read_only
        self._local = threading.local()
        self._reopen_lock = threading.Lock()
        self._open_lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
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
                _new_private_file(self.path)
        local.connection = self._open()
        local.pid, local.identity = os.getpid(), os.stat(self.path).st_ino
        return local.connection

    def _open(self) -> sqlite3.Connection:
        if self.read_only:
            return self._open_read_only()
        connection = sqlite3.connect(
            self.path, timeout=OPEN_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        try:
            with self._open_lock:  # the threads of this process switch the journal mode one at a time
                self._switch_to_wal(connection)
            connection.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable enough for a cache
            connection.executescript(self.schema)
        except sqlite3.DatabaseError:
            connection.close()
            raise
        return connection

    def _open_read_only(self) -> sqlite3.Connection:
        """SQLite's read-only mode; `immutable` (no locks, no -shm) when that cannot open the file."""
        location = urllib.parse.quote(str(self.path.resolve()))
        for options in ("mode=ro", "mode=ro&immutable=1"):
            connection = sqlite3.connect(
                f"file:{location}?{options}",
                uri=True,
                timeout=OPEN_TIMEOUT,
                isolation_level=None,
                check_same_thread=False,
            )
            try:
                connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return connection
            except sqlite3.OperationalError:
                connection.close()
                if "immutable" in options:
                    raise
        raise AssertionError("unreachable")

    @staticmethod
    def _switch_to_wal(connection: sqlite3.Connection) -> None:
        """`PRAGMA journal_mode=WAL`, retried while another connection holds the lock: SQLite answers
        "database is locked" at once here, without waiting for the connection's busy timeout, when a
        second connection (another thread or process) is creating or switching the same new file."""
        deadline = time.monotonic() + OPEN_TIMEOUT
        pause = 0.005
        while True:
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

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
                    probe = sqlite3.connect(self.path, timeout=OPEN_TIMEOUT)
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
                _new_private_file(self.path)

    def run(self, operation, default):
        """`operation(connection)`; a corrupt file is recreated and the operation tried once more;
        other database errors are logged and give `default`."""
        for attempt in (1, 2):
            try:
                return operation(self.connection())
            except sqlite3.DatabaseError as error:
                corrupt = "not a database" in str(error) or "malformed" in str(error)
                if corrupt and attempt == 1 and not self.read_only:
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
