"""The run store several servers share: PostgreSQL (psycopg 3, a connection pool per process).

`EXPLORER_STORE_URL=postgresql://...` selects it (backends.py); it keeps the contract of the SQLite
store (store.py, whose `BoundedStore` holds the reads, bounds and eviction both keep) in two
tables, `runs` and `started`, made on first use:

- Writes are idempotent per key: `put` is an `INSERT ... ON CONFLICT (key) DO UPDATE`, so two
  replicas storing the same run at once leave one row. Each write takes one advisory lock for the
  whole database (`pg_advisory_xact_lock`) while it evicts, so that two servers never both evict
  for the same overflow; reads take no lock and see either the old entry or the new one whole.
- The pool holds at most `pool_size` connections per process, each checked before it is handed
  out; a call whose connection a restarted server broke is made again on a new pool. A server
  that cannot be reached makes every call a miss (`get` -> None, `put` -> False; the first after
  at most `wait` seconds, the others at once, as a new connection is refused), said in one log
  line when it goes and one when it is back (`reachable`); its first call back reconnects.
- A database this role may not write (a read-only transaction default, a hot standby, no INSERT
  privilege) is read-only, as the SQLite store on a read-only disk: found out when opened or at the
  first refused write, said in one log line.
- The deployment's secret is EXPLORER_SECRET, else one made once in the database's `secret` table
  (every server reading the same store agrees on it).

What it does not do: migrate a schema, create the database or its role (the operator does:
docs/serving.md), or run without psycopg (imported only when this store is chosen).
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TypeVar

import psycopg
import psycopg_pool
from psycopg import errors

from explorer.checks import MB
from explorer.runstore.bounds import DAY, DEFAULT_MAX_DAYS, DEFAULT_MAX_MB, DEFAULT_POOL, positive_number
from explorer.runstore.store import BoundedStore, Entry

LOG = logging.getLogger("explorer.runstore")
T = TypeVar("T")

WAIT_SECONDS = 5.0  # a call waits this long for a connection before it is a miss
WRITE_LOCK = 0x52554E53  # the advisory lock every write holds ("RUNS")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    payload BYTEA NOT NULL,
    corpus BYTEA,
    meta TEXT NOT NULL,
    codec TEXT NOT NULL,
    size BIGINT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    accessed DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_access ON runs (accessed);
CREATE INDEX IF NOT EXISTS runs_by_age ON runs (created);
CREATE TABLE IF NOT EXISTS started (key TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS secret (id INTEGER PRIMARY KEY CHECK (id = 1), value TEXT NOT NULL);
"""
_REFUSED = (errors.ReadOnlySqlTransaction, errors.InsufficientPrivilege)  # a write this role may not do


def describe(url: str) -> str:
    """The URL without its password, for the log."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(a malformed URL)"
    return f"postgresql://{parts.get('host', '')}:{parts.get('port', 5432)}/{parts.get('dbname', '')}"


class PostgresRunStore(BoundedStore):
    """The RunStore in PostgreSQL (see the module docstring)."""

    PARAM = "%s"
    INSERT = (
        "INSERT INTO runs VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (key) DO UPDATE SET payload = excluded.payload, corpus = excluded.corpus, "
        "meta = excluded.meta, codec = excluded.codec, size = excluded.size, created = excluded.created, "
        "accessed = excluded.accessed"
    )
    STARTED = "INSERT INTO started VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET created = excluded.created"

    def __init__(
        self,
        url: str,
        max_bytes: int = DEFAULT_MAX_MB * MB,
        max_age: float = DEFAULT_MAX_DAYS * DAY,
        secret: bytes | None = None,
        clock: Callable[[], float] = time.time,
        read_only: bool | None = None,
        pool_size: int = DEFAULT_POOL,
        wait: float = WAIT_SECONDS,
    ):
        """`read_only`: None finds out (at once when the server answers, else at its first call);
        True never writes."""
        self.url = url
        self.name = describe(url)
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.clock = clock
        self.pool_size = pool_size
        self.wait = wait
        self._secret = secret
        self.writable = not read_only
        self.reachable = True
        self._ready = bool(read_only)  # the tables made (or, read-only, left as they are)
        self._lock = threading.Lock()
        self._pool: psycopg_pool.ConnectionPool | None = None
        self._pool_pid = 0
        self._run(lambda connection: None, None)  # the tables, and whether this role may write

    @property
    def secret(self) -> bytes:
        """The deployment's secret for `run_key`: the one in the database, made on first use."""
        if self._secret is None:
            self._secret = self._run(self._read_secret, None)
            if self._secret is None:
                raise OSError(f"run store {self.name} cannot be reached to read its secret")
        return self._secret

    def _read_secret(self, connection: psycopg.Connection) -> bytes | None:
        if self.writable:
            connection.execute(
                "INSERT INTO secret VALUES (1, %s) ON CONFLICT (id) DO NOTHING", (secrets.token_hex(32),)
            )
        row = connection.execute("SELECT value FROM secret WHERE id = 1").fetchone()
        return None if row is None else row[0].encode("utf-8")

    def location(self) -> dict:
        """Plain data to reopen this store elsewhere (a worker process): `PostgresRunStore.at(...)`."""
        return {
            "backend": "postgres",
            "url": self.url,
            "max_bytes": self.max_bytes,
            "max_age": self.max_age,
            "read_only": not self.writable,
            "pool_size": self.pool_size,
            "wait": self.wait,
        }

    @classmethod
    def at(cls, location: dict) -> PostgresRunStore:
        return cls(
            location["url"],
            location["max_bytes"],
            location["max_age"],
            read_only=location.get("read_only"),
            pool_size=location.get("pool_size", DEFAULT_POOL),
            wait=location.get("wait", WAIT_SECONDS),
        )

    @classmethod
    def from_env(cls, url: str, environ: Mapping[str, str]) -> PostgresRunStore:
        """EXPLORER_STORE_MB, EXPLORER_STORE_DAYS, EXPLORER_STORE_POOL, EXPLORER_SECRET (ValueError
        naming a malformed one) for the store at `url`."""
        megabytes = positive_number(environ, "EXPLORER_STORE_MB", DEFAULT_MAX_MB)
        days = positive_number(environ, "EXPLORER_STORE_DAYS", DEFAULT_MAX_DAYS)
        pool_size = positive_number(environ, "EXPLORER_STORE_POOL", DEFAULT_POOL)
        if pool_size != int(pool_size):
            raise ValueError(f"EXPLORER_STORE_POOL must be a whole number, not {pool_size}")
        secret = environ["EXPLORER_SECRET"].encode("utf-8") if environ.get("EXPLORER_SECRET") else None
        return cls(url, int(megabytes * MB), days * DAY, secret, pool_size=int(pool_size))

    def close(self) -> None:
        """Close this process's connections (a later call opens new ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None and self._pool_pid == os.getpid():
            pool.close()

    def _connections(self) -> psycopg_pool.ConnectionPool:
        """This process's pool (a process forked from this one makes its own)."""
        with self._lock:
            if self._pool is None or self._pool_pid != os.getpid():
                self._pool = psycopg_pool.ConnectionPool(
                    self.url,
                    min_size=1,
                    max_size=self.pool_size,
                    kwargs={"autocommit": True, "connect_timeout": max(2, int(self.wait))},
                    check=psycopg_pool.ConnectionPool.check_connection,
                    timeout=self.wait,
                    num_workers=2,
                    name="run-store",
                    open=False,
                )
                self._pool.open(wait=False)
                self._pool_pid = os.getpid()
            return self._pool

    def _run(self, operation: Callable[[psycopg.Connection], T], default: T) -> T:
        """`operation(connection)` on a pooled connection, tried once more on a new pool when the
        server answers (connections a restart broke); a server that cannot be reached, or any
        other database error, is logged and gives `default`. While the server is gone each call
        costs one refused connection, not a wait for the pool."""
        if not self.reachable and not self._answers():
            return default
        for attempt in (1, 2):
            try:
                with self._connections().connection() as connection:
                    if not self._ready:
                        self._make_tables(connection)
                    result = operation(connection)
                break
            except psycopg.OperationalError as error:  # the server is gone (or no connection came)
                self.close()  # its connections are broken, and its reconnecting would only wait
                if attempt == 1 and self._answers():
                    continue
                if self.reachable:
                    LOG.warning(
                        "run store %s cannot be reached (%s): runs are not kept or read until it is back",
                        self.name,
                        (str(error).strip() or type(error).__name__).splitlines()[0],
                    )
                self.reachable = False
                return default
            except psycopg.Error as error:
                LOG.exception("run store %s: %s", self.name, error)
                return default
        if not self.reachable:
            LOG.warning("run store %s can be reached again", self.name)
            self.reachable = True
        return result

    def _refused(self, error: Exception) -> bool:
        return isinstance(error, _REFUSED)

    @contextmanager
    def _transaction(self, connection: psycopg.Connection) -> Iterator[None]:
        """A transaction holding the one advisory lock every write holds (`WRITE_LOCK`)."""
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield

    def _answers(self) -> bool:
        """Whether the server takes a new connection now."""
        try:
            psycopg.connect(self.url, connect_timeout=max(2, int(self.wait))).close()
        except psycopg.Error:
            return False
        return True

    def _make_tables(self, connection: psycopg.Connection) -> None:
        """The tables (one server at a time), or read-only when this role may not make or write them."""
        try:
            with self._transaction(connection):
                exists = connection.execute("SELECT to_regclass('secret') IS NOT NULL").fetchone()
                if not (exists and exists[0]):
                    connection.execute(_SCHEMA)
                connection.execute("DELETE FROM started WHERE false")  # refused if this role may not write
        except _REFUSED as error:
            self._became_read_only(error, "cannot be written")
        self._ready = True

    def get(self, key: str) -> Entry | None:
        def read(connection: psycopg.Connection) -> Entry | None:
            row = connection.execute(
                "SELECT payload, corpus, meta, codec, created, accessed FROM runs WHERE key = %s",
                (key,),
                binary=True,  # bytea as its bytes: in text, twice as long in hex, and decoded
            ).fetchone()
            return self._entry(connection, key, row)

        return self._run(read, None)
