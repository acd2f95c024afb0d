"""A run store this process cannot write (issue 20: a read-only disk made an existing run "expired",
kept no new run, and logged six tracebacks per case): it is opened read-only, its runs are still
served, `put` keeps nothing, and all it says is one log line.

How a read-only disk is simulated: the tests run as root, for whom file modes do not stop writes,
so `refuse_writes` makes every connection SQLite opens use SQLite's own read-only mode (the
`file:...?mode=ro` URI). A write then fails inside SQLite as it does on a read-only disk
("attempt to write a readonly database"), and the store must find that out itself."""

from __future__ import annotations

import logging
import sqlite3
import time
import urllib.parse

import pytest

from explorer.runstore import DAY, SECRET_FILE, SQLiteRunStore, open_store
from explorer.runstore import sqlite as runstore_sqlite

SECRET = b"s" * 32
connect = sqlite3.connect


@pytest.fixture()
def refuse_writes(monkeypatch):
    """A function that makes every SQLite connection from then on read-only, whatever it asks for."""

    def read_only_connect(database, *args, uri=False, **options):
        if not uri:
            database = f"file:{urllib.parse.quote(str(database))}?mode=ro"
        elif "mode=ro" not in str(database):
            database = f"{database}{'&' if '?' in str(database) else '?'}mode=ro"
        return connect(database, *args, uri=True, **options)

    def refuse() -> None:
        monkeypatch.setattr(sqlite3, "connect", read_only_connect)
        # The store makes its file (mode 0600) before SQLite opens it; on a read-only disk that
        # os.open fails and is only logged: here it makes nothing, as it would there.
        monkeypatch.setattr(runstore_sqlite, "create_private", lambda path: None)

    return refuse


class Clock:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def stored(tmp_path, clock=None) -> SQLiteRunStore:
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=SECRET, clock=clock or Clock())
    assert store.writable
    assert store.put("k" * 64, b"trace", b"corpus", {"label": "old"})
    store.close()
    return store


def test_stored_runs_stay_readable_and_new_ones_are_not_kept(tmp_path, refuse_writes, caplog):
    clock = Clock()
    stored(tmp_path, clock)
    refuse_writes()
    with caplog.at_level(logging.DEBUG, logger="explorer.runstore"):
        store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=SECRET, clock=clock)
        clock.now += 2 * 60  # past TOUCH_SECONDS: a writable store would refresh "last read"
        entry = store.get("k" * 64)
        assert entry is not None and entry.payload == b"trace" and entry.meta == {"label": "old"}
        assert store.put("n" * 64, b"new", None, {}) is False
        assert store.get("n" * 64) is None
        store.delete("k" * 64)
        store.prune()
        assert store.get("k" * 64) is not None
    assert not store.writable
    assert [record.getMessage() for record in caplog.records] == [
        f"run store {tmp_path / 'runs.sqlite3'} cannot be written: stored runs are served read-only, "
        "new runs are not kept"
    ]
    assert all(record.exc_info is None for record in caplog.records)


def test_an_expired_run_in_a_read_only_store_is_a_miss_without_an_error(tmp_path, refuse_writes, caplog):
    clock = Clock()
    stored(tmp_path, clock)
    refuse_writes()
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=SECRET, clock=clock)
    clock.now += 100 * DAY
    caplog.clear()  # the one line saying the store is read-only
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert store.get("k" * 64) is None
    assert not caplog.records


def test_a_worker_reopens_a_read_only_store_read_only(tmp_path, refuse_writes):
    stored(tmp_path, time.time)  # a worker's store keeps the real time
    refuse_writes()
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=SECRET)
    again = SQLiteRunStore.at(store.location())
    assert not again.writable and again.get("k" * 64) is not None


def test_a_store_that_neither_exists_nor_can_be_created_is_none_with_a_log_line(
    tmp_path, refuse_writes, caplog
):
    (tmp_path / SECRET_FILE).write_bytes(SECRET)
    refuse_writes()
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert open_store({"EXPLORER_STORE_PATH": str(tmp_path / "runs.sqlite3")}) is None
    assert any("no run store" in record.getMessage() for record in caplog.records)


def test_a_store_made_read_only_while_open_serves_its_runs_and_says_so_once(tmp_path, refuse_writes, caplog):
    clock = Clock()
    store = stored(tmp_path, clock)  # writable, its connection closed: the next one is opened anew
    refuse_writes()
    clock.now += 2 * 60  # past TOUCH_SECONDS: the read refreshes "last read", a write refused now
    with caplog.at_level(logging.DEBUG, logger="explorer.runstore"):
        entry = store.get("k" * 64)
        assert entry is not None and entry.payload == b"trace"  # not "expired"
        assert store.put("n" * 64, b"new", None, {}) is False
        store.mark_started("m" * 64)
        assert store.get("k" * 64) is not None
    assert not store.writable
    assert [record.getMessage().split(" (")[0] for record in caplog.records] == [
        f"run store {tmp_path / 'runs.sqlite3'} can no longer be written"
    ]
    assert all(record.exc_info is None for record in caplog.records)  # no traceback in the log
