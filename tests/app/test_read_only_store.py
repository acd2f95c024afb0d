"""A server whose run store cannot be written (issue 20): a stored run still opens from its link,
a new run still trains (it is just not kept), and the page says "runs are not kept" once.

The store is opened with SQLite's read-only mode (`SQLiteRunStore(..., read_only=True)`, the
`file:...?mode=ro` URI): the tests run as root, for whom a chmod'ed file or folder stays writable.
tests/unit/test_runstore_read_only.py checks that a store finds out it cannot write by itself.
Issue 50: a store that turns read-only while the server runs, a run larger than the store takes,
and a link to a run whose training a restart interrupted each say what happened, and no page
hands out a link that a reload cannot open."""

from __future__ import annotations

from explorer.checks import Limits
from explorer.runs.settings import Settings
from explorer.runstore import SQLiteRunStore
from explorer.session import serving
from explorer.ui.common import link
from tests.app.helpers import MERGES, new_app, query, run_of, texts
from tests.app.test_serving import train_pasted, words
from tests.unit.test_runstore_read_only import refuse_writes  # noqa: F401 (a fixture)


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


def test_a_store_made_read_only_while_the_server_runs_gives_no_link_and_says_runs_are_not_kept(
    monkeypatch,
    tmp_path,
    refuse_writes,  # noqa: F811 (the fixture imported above)
):
    writable = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=b"s" * 32)
    monkeypatch.setattr(serving, "_store", [writable])
    assert writable.put("k" * 64, b"trace", None, {})  # a store in use: its file already set up
    writable.close()
    refuse_writes()  # the disk turns read-only under the running server (and its workers)
    at = train_pasted(new_app(), words(300, seed=13))
    assert not at.exception and run_of(at) is not None
    assert "run" not in query(at) and "runs" not in query(at)  # no link that a reload cannot open
    assert texts(at, "warning").count(serving.RUNS_NOT_KEPT) == 1
    assert not writable.writable


def test_a_run_larger_than_the_store_takes_gives_no_link_and_says_so(monkeypatch, tmp_path):
    small = SQLiteRunStore(tmp_path / "runs.sqlite3", max_bytes=1_000, secret=b"s" * 32)
    monkeypatch.setattr(serving, "_store", [small])  # EXPLORER_STORE_MB below one run's size
    at = train_pasted(new_app(), words(300, seed=14))
    assert not at.exception and run_of(at) is not None and small.get(run_of(at).store_key) is None
    assert "run" not in query(at) and "runs" not in query(at)
    assert texts(at, "warning").count(serving.RUN_NOT_KEPT) == 1
    at.switch_page(MERGES).run()
    assert texts(at, "warning").count(serving.RUN_NOT_KEPT) == 1 and "run" not in query(at)


def test_a_link_to_a_run_that_never_finished_says_so_not_that_it_expired():
    settings = Settings()
    text = words(300, seed=15)
    key = serving.training_key(text, settings, Limits())
    serving.store_spec(key, {}, keep_corpus=True)  # its training started; the server restarted
    at = new_app({"run": key}, MERGES)
    assert link.UNFINISHED in texts(at, "info") and link.EXPIRED not in texts(at, "info")
    at = new_app({"run": serving.training_key(words(300, seed=16), settings, Limits())})
    assert link.EXPIRED in texts(at, "info")  # never started here: expired (or never was)
