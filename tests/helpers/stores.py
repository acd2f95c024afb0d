"""A test's own run store on either backend, for the store's contract tests (the `run_stores`
fixture of tests/conftest.py runs each of them on SQLite and on PostgreSQL).

`stores(**options)` opens the test's store (the same data at every call: a second server, a
reopened one); `stores.refuse_writes()` makes every connection opened from then on read-only, as a
read-only disk (SQLite) or a database turned read-only (PostgreSQL) would: the tests run as root,
for whom file modes do not stop writes, so SQLite connections are opened with SQLite's own
read-only mode (`file:...?mode=ro`), and the PostgreSQL role gets `default_transaction_read_only`.
Either way the write fails inside the database, and the store must find that out itself.
`stores.close()` closes every store it opened and drops what it made.

On PostgreSQL each test is a role of its own with a schema of the same name, which the role's
search path ("$user") puts its tables in: cheaper than a database per test (a few ms against half
a second on a busy machine), and as separate.

What it does not do: start PostgreSQL (tests/helpers/postgres_cluster.py).
"""

from __future__ import annotations

import itertools
import sqlite3
import urllib.parse
from pathlib import Path

import pytest

from explorer.runstore import RunStore, SQLiteRunStore
from explorer.runstore import sqlite as runstore_sqlite
from tests.helpers.postgres_cluster import Cluster

SECRET = b"s" * 32
_connect = sqlite3.connect
_roles = itertools.count()


class SQLiteStores:
    backend = "sqlite"

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch):
        self.path = folder / "runs.sqlite3"
        self.monkeypatch = monkeypatch
        self.opened: list[SQLiteRunStore] = []

    def __call__(self, secret: bytes | None = SECRET, **options) -> SQLiteRunStore:
        store = SQLiteRunStore(self.path, secret=secret, **options)
        self.opened.append(store)
        return store

    def refuse_writes(self) -> None:
        def read_only_connect(database, *args, uri=False, **options):
            if not uri:
                database = f"file:{urllib.parse.quote(str(database))}?mode=ro"
            elif "mode=ro" not in str(database):
                database = f"{database}{'&' if '?' in str(database) else '?'}mode=ro"
            return _connect(database, *args, uri=True, **options)

        self.monkeypatch.setattr(sqlite3, "connect", read_only_connect)
        # The store makes its file (mode 0600) before SQLite opens it; on a read-only disk that
        # os.open fails and is only logged: here it makes nothing, as it would there.
        self.monkeypatch.setattr(runstore_sqlite, "create_private", lambda path: None)

    def close(self) -> None:
        for store in self.opened:
            store.close()


class PostgresStores:
    backend = "postgres"

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.role = f"test_{next(_roles)}"
        self.url = cluster.url(user=self.role)
        self.opened: list[RunStore] = []
        self._admin(f"CREATE ROLE {self.role} LOGIN", f"CREATE SCHEMA {self.role} AUTHORIZATION {self.role}")

    def _admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.cluster.url(), autocommit=True, connect_timeout=5) as admin:
            for statement in statements:
                admin.execute(statement)

    def __call__(self, secret: bytes | None = SECRET, **options) -> RunStore:
        from explorer.runstore.postgres import PostgresRunStore

        store = PostgresRunStore(self.url, secret=secret, **{"wait": 2.0, **options})
        self.opened.append(store)
        return store

    def refuse_writes(self) -> None:
        self._admin(f"ALTER ROLE {self.role} SET default_transaction_read_only = on")

    def close(self) -> None:
        import psycopg

        for store in self.opened:
            store.close()
        try:
            self._admin(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{self.role}'",
                f"DROP SCHEMA {self.role} CASCADE",
                f"DROP ROLE {self.role}",
            )
        except psycopg.OperationalError:
            pass  # the test stopped the server: its folder goes with it
