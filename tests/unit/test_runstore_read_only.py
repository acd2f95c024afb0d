"""A run store this process cannot write (issue 20: a read-only disk made an existing run "expired",
kept no new run, and logged six tracebacks per case): it is opened read-only, its runs are still
served, `put` keeps nothing, and all it says is one log line.

On both backends (`run_stores`, tests/helpers/stores.py, which says how a read-only disk or
database is made: the tests run as root, for whom file modes do not stop writes). A write then
fails inside the database, and the store must find that out itself."""

from __future__ import annotations

import logging
import re
import time

from explorer.runstore import DAY, SECRET_FILE, open_store, store_at
from tests.helpers.stores import SECRET, SQLiteStores


class Clock:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def said(record: logging.LogRecord, what: str) -> bool:
    """Whether `record` is the one line saying the store `what` (with the database's reason or not)."""
    return (
        re.fullmatch(
            rf"run store \S+ {what}( \(.*\))?: stored runs are served read-only, new runs are not kept",
            record.getMessage(),
        )
        is not None
    )


def stored(run_stores, clock=None):
    store = run_stores(clock=clock or Clock())
    assert store.writable
    assert store.put("k" * 64, b"trace", b"corpus", {"label": "old"})
    store.close()
    return store


def test_stored_runs_stay_readable_and_new_ones_are_not_kept(run_stores, caplog):
    clock = Clock()
    stored(run_stores, clock)
    run_stores.refuse_writes()
    with caplog.at_level(logging.DEBUG, logger="explorer.runstore"):
        store = run_stores(clock=clock)
        clock.now += 2 * 60  # past TOUCH_SECONDS: a writable store would refresh "last read"
        entry = store.get("k" * 64)
        assert entry is not None and entry.payload == b"trace" and entry.meta == {"label": "old"}
        assert store.put("n" * 64, b"new", None, {}) is False
        assert store.get("n" * 64) is None
        store.delete("k" * 64)
        store.prune()
        assert store.get("k" * 64) is not None
    assert not store.writable
    assert [said(record, "cannot be written") for record in caplog.records] == [True]
    assert all(record.exc_info is None for record in caplog.records)


def test_an_expired_run_in_a_read_only_store_is_a_miss_without_an_error(run_stores, caplog):
    clock = Clock()
    stored(run_stores, clock)
    run_stores.refuse_writes()
    store = run_stores(clock=clock)
    clock.now += 100 * DAY
    caplog.clear()  # the one line saying the store is read-only
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert store.get("k" * 64) is None
    assert not caplog.records


def test_a_worker_reopens_a_read_only_store_read_only(run_stores):
    stored(run_stores, time.time)  # a worker's store keeps the real time
    run_stores.refuse_writes()
    store = run_stores()
    again = store_at(store.location())
    assert not again.writable and again.get("k" * 64) is not None
    again.close()


def test_a_store_file_that_neither_exists_nor_can_be_created_is_none_with_a_log_line(
    tmp_path, monkeypatch, caplog
):
    (tmp_path / SECRET_FILE).write_bytes(SECRET)
    SQLiteStores(tmp_path, monkeypatch).refuse_writes()
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert open_store({"EXPLORER_STORE_PATH": str(tmp_path / "runs.sqlite3")}) is None
    assert any("no run store" in record.getMessage() for record in caplog.records)


def test_a_store_made_read_only_while_open_serves_its_runs_and_says_so_once(run_stores, caplog):
    clock = Clock()
    store = stored(run_stores, clock)  # writable, its connection closed: the next one is opened anew
    run_stores.refuse_writes()
    clock.now += 2 * 60  # past TOUCH_SECONDS: the read refreshes "last read", a write refused now
    with caplog.at_level(logging.DEBUG, logger="explorer.runstore"):
        entry = store.get("k" * 64)
        assert entry is not None and entry.payload == b"trace"  # not "expired"
        assert store.put("n" * 64, b"new", None, {}) is False
        store.mark_started("m" * 64)
        assert store.get("k" * 64) is not None
    assert not store.writable
    assert [said(record, "can no longer be written") for record in caplog.records] == [True]
    assert all(record.exc_info is None for record in caplog.records)  # no traceback in the log
