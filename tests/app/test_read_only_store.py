"""A server whose run store cannot be written (issue 20): a stored run still opens from its link,
a new run still trains (it is just not kept), and the page says "runs are not kept" once.

Each on both backends (`run_stores`: SQLite and PostgreSQL, tests/helpers/stores.py, which says
how a store is made read-only: the tests run as root, for whom a chmod'ed file or folder stays
writable). tests/unit/test_runstore_read_only.py checks that a store finds out it cannot write by
itself. Issue 50: a store that turns read-only while the server runs, a run larger than the store
takes, and a link to a run whose training a restart interrupted each say what happened, and no page
hands out a link that a reload cannot open; issue 52: so does a PostgreSQL store whose server is
gone, and the runs it kept open again once it is back."""

from __future__ import annotations

from explorer.checks import Limits
from explorer.runs.run import corpus_digest
from explorer.runs.settings import Settings
from explorer.session import serving, stored_runs
from explorer.ui.common import link
from tests.app.helpers import MERGES, new_app, query, run_of, texts
from tests.app.test_serving import train_pasted, words


def test_a_read_only_store_serves_its_runs_keeps_no_new_ones_and_says_so(monkeypatch, run_stores):
    writable = run_stores()
    monkeypatch.setattr(serving, "_store", [writable])
    first = train_pasted(new_app(), words(300, seed=11))
    link = query(first)
    assert writable.get(run_of(first).store_key) is not None

    read_only = run_stores(read_only=True)
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
    monkeypatch, run_stores
):
    writable = run_stores()
    monkeypatch.setattr(serving, "_store", [writable])
    assert writable.put("k" * 64, b"trace", None, {})  # a store in use: its file already set up
    writable.close()
    run_stores.refuse_writes()  # the disk turns read-only under the running server (and its workers)
    at = train_pasted(new_app(), words(300, seed=13))
    assert not at.exception and run_of(at) is not None
    assert "run" not in query(at) and "runs" not in query(at)  # no link that a reload cannot open
    assert texts(at, "warning").count(serving.RUNS_NOT_KEPT) == 1
    assert not writable.writable


def test_a_run_larger_than_the_store_takes_gives_no_link_and_says_so(monkeypatch, run_stores):
    small = run_stores(max_bytes=1_000)
    monkeypatch.setattr(serving, "_store", [small])  # EXPLORER_STORE_MB below one run's size
    at = train_pasted(new_app(), words(300, seed=14))
    assert not at.exception and run_of(at) is not None and small.get(run_of(at).store_key) is None
    assert "run" not in query(at) and "runs" not in query(at)
    assert texts(at, "warning").count(stored_runs.RUN_NOT_KEPT) == 1
    at.switch_page(MERGES).run()
    assert texts(at, "warning").count(stored_runs.RUN_NOT_KEPT) == 1 and "run" not in query(at)


def test_a_postgres_store_gone_gives_no_link_says_so_and_its_runs_open_once_it_is_back(
    monkeypatch, postgres_cluster
):
    from tests.helpers.stores import PostgresStores

    stores = PostgresStores(postgres_cluster)
    shared = stores(wait=0.5)
    monkeypatch.setattr(serving, "_store", [shared])
    first = train_pasted(new_app(), words(300, seed=17))
    link = query(first)
    postgres_cluster.stop(keep=True)  # the database server goes away under the running app
    try:
        at = train_pasted(new_app(), words(300, seed=18))
        assert not at.exception and run_of(at) is not None
        assert "run" not in query(at) and "runs" not in query(at)
        assert texts(at, "warning").count(stored_runs.RUN_NOT_KEPT) == 1
    finally:
        postgres_cluster.start()
    again = new_app(link, MERGES)
    assert not again.exception and run_of(again).store_key == run_of(first).store_key
    stores.close()


def test_a_link_to_a_run_that_never_finished_says_so_not_that_it_expired():
    settings = Settings()
    text = words(300, seed=15)
    key = serving.training_key(corpus_digest(text), settings, Limits())
    serving.store_spec(key, {}, keep_corpus=True)  # its training started; the server restarted
    at = new_app({"run": key}, MERGES)
    assert link.UNFINISHED in texts(at, "info") and link.EXPIRED not in texts(at, "info")
    at = new_app({"run": serving.training_key(corpus_digest(words(300, seed=16)), settings, Limits())})
    assert link.EXPIRED in texts(at, "info")  # never started here: expired (or never was)
