"""What only the PostgreSQL run store does (its contract is test_runstore.py's, on both backends):
chosen by EXPLORER_STORE_URL; a server restarted under it, or gone for a while, costs the calls
made meanwhile (a miss, said in one log line, no traceback) and nothing stored, and the pool
reconnects by itself; the deployment's secret lives in the database, so every server agrees."""

from __future__ import annotations

import logging

import pytest

from explorer.runstore import open_store
from explorer.runstore.postgres import PostgresRunStore, describe
from tests.helpers.postgres_cluster import free_port

pytestmark = pytest.mark.usefixtures("postgres_cluster")


@pytest.fixture
def stores(postgres_cluster):
    from tests.helpers.stores import PostgresStores

    made = PostgresStores(postgres_cluster)
    yield made
    made.close()


def test_the_url_in_the_environment_chooses_postgres(stores):
    store = open_store(
        {"EXPLORER_STORE_URL": stores.url, "EXPLORER_STORE_MB": "3", "EXPLORER_STORE_POOL": "2"}
    )
    assert isinstance(store, PostgresRunStore) and store.writable
    assert (store.max_bytes, store.pool_size) == (3_000_000, 2)
    assert store.put("a" * 64, b"trace", None, {}) and store.get("a" * 64).payload == b"trace"
    store.close()


def test_a_url_of_another_database_is_no_store_and_one_sentence(caplog):
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert open_store({"EXPLORER_STORE_URL": "mysql://host/db"}) is None
    assert [record.getMessage() for record in caplog.records] == [
        "no run store (EXPLORER_STORE_URL must start with postgresql://, not 'mysql'): runs will not be "
        "shared or kept across reloads"
    ]


def test_every_server_reads_the_one_secret_the_database_keeps(stores):
    first, second = stores(secret=None), stores(secret=None)
    assert len(first.secret) == 64 and first.secret == second.secret
    assert stores(secret=b"from EXPLORER_SECRET").secret == b"from EXPLORER_SECRET"


def test_keys_are_still_made_while_a_shared_stores_secret_cannot_be_read(monkeypatch, stores):
    """A server started while PostgreSQL is down (no EXPLORER_SECRET): pages make keys with this
    process's secret, not a traceback, and the database's once it answers."""
    from explorer.session import serving

    gone = PostgresRunStore(stores.url.replace(str(stores.cluster.port), str(free_port())), wait=0.2)
    monkeypatch.setattr(serving, "_store", [gone])
    assert serving.secret() == serving._process_secret
    monkeypatch.setattr(serving, "_store", [stores(secret=None)])
    assert serving.secret() != serving._process_secret and len(serving.secret()) == 64


def test_the_log_names_the_server_without_the_password():
    assert describe("postgresql://app:hunter2@db.internal:6543/runs") == "postgresql://db.internal:6543/runs"


def test_a_restarted_server_costs_no_stored_run_and_the_pool_reconnects(stores, postgres_cluster, caplog):
    store = stores()
    assert store.put("before", b"payload", None, {})
    postgres_cluster.restart()  # every pooled connection is broken
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert store.get("before").payload == b"payload"
        assert store.put("after", b"payload", None, {})
    assert store.get("after") is not None and caplog.records == []


def test_a_server_gone_for_a_while_makes_misses_said_once_then_comes_back(stores, postgres_cluster, caplog):
    store = stores(wait=0.5)
    assert store.put("kept", b"payload", None, {})
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        postgres_cluster.stop(keep=True)
        try:
            assert store.get("kept") is None
            assert store.put("new", b"payload", None, {}) is False
            assert not store.was_started("kept") and not store.reachable
        finally:
            postgres_cluster.start()
        assert store.get("kept").payload == b"payload"  # nothing stored was lost
        assert store.put("new", b"payload", None, {}) and store.reachable
    ours = [record for record in caplog.records if record.name == "explorer.runstore"]  # not the pool's
    messages = [record.getMessage() for record in ours]
    assert len(messages) == 2 and "cannot be reached" in messages[0] and "reached again" in messages[1]
    assert all(record.exc_info is None for record in ours)
