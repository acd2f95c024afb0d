"""A server whose run store cannot be written (issue 20): a stored run still opens from its link,
a new run still trains (it is just not kept), and the page says "runs are not kept" once.

The store is opened with SQLite's read-only mode (`SQLiteRunStore(..., read_only=True)`, the
`file:...?mode=ro` URI): the tests run as root, for whom a chmod'ed file or folder stays writable.
tests/unit/test_runstore_read_only.py checks that a store finds out it cannot write by itself."""

from __future__ import annotations

from explorer.runstore import SQLiteRunStore
from explorer.session import serving
from tests.app.helpers import MERGES, new_app, query, run_of, texts
from tests.app.test_serving import train_pasted, words


def test_a_read_only_store_serves_its_runs_keeps_no_new_ones_and_says_so(monkeypatch, tmp_path):
    path = tmp_path / "runs.sqlite3"
    writable = SQLiteRunStore(path, secret=b"s" * 32)
    monkeypatch.setattr(serving, "_store", [writable])
    first = train_pasted(new_app(), words(300, seed=11))
    link = query(first)
    assert writable.get(run_of(first).store_key) is not None

    read_only = SQLiteRunStore(path, secret=b"s" * 32, read_only=True)
    monkeypatch.setattr(serving, "_store", [read_only])
    again = new_app(link, MERGES)
    assert not again.exception
    assert run_of(again) is not None and run_of(again).store_key == run_of(first).store_key
    assert texts(again, "warning").count(serving.RUNS_NOT_KEPT) == 1

    second = train_pasted(new_app(), words(300, seed=12))
    assert not second.exception and run_of(second) is not None
    assert read_only.get(run_of(second).store_key) is None
    assert texts(second, "warning").count(serving.RUNS_NOT_KEPT) == 1
