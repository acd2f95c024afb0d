"""Which run store a server uses, chosen in one place from the environment: `open_store` (the
server's) and `store_at` (a worker's, from the store's `location()`).

EXPLORER_STORE_URL=postgresql://... is the PostgreSQL store several servers share (postgres.py);
without it, the SQLite file of one machine (sqlite.py, EXPLORER_STORE_PATH), the embedded default.

What it does not do: store anything, or import psycopg unless the PostgreSQL store is chosen.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Mapping

from explorer.runstore.bounds import store_url
from explorer.runstore.sqlite import SQLiteRunStore
from explorer.runstore.store import RunStore

LOG = logging.getLogger("explorer.runstore")


def open_store(environ: Mapping[str, str] | None = None) -> RunStore | None:
    """The server's store from the environment, or None (logged) when it cannot be opened: the
    app then works without one, training every run."""
    environ = os.environ if environ is None else environ
    try:
        url = store_url(environ)
        if url is None:
            return SQLiteRunStore.from_env(environ)
        from explorer.runstore.postgres import PostgresRunStore

        return PostgresRunStore.from_env(url, environ)
    except (OSError, ValueError, sqlite3.Error) as error:
        LOG.warning("no run store (%s): runs will not be shared or kept across reloads", error)
        return None


def store_at(location: dict) -> RunStore:
    """The store a `location()` describes, opened again (in a worker process)."""
    if location.get("backend") == "postgres":
        from explorer.runstore.postgres import PostgresRunStore

        return PostgresRunStore.at(location)
    return SQLiteRunStore.at(location)
