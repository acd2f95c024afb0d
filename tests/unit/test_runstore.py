"""The run store (explorer.runstore): round trip, byte bound with least-recently-read eviction, age
limit, concurrent writers (threads and processes), what a reader sees while a writer replaces an
entry, and a worker's store from its location on both backends (`run_stores`: SQLite and
PostgreSQL), one run where two servers store it at once; keys; SQLite's recovery from a corrupt
or deleted file and its secret file (PostgreSQL's own cases: test_runstore_postgres.py)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from explorer.runstore import (
    DAY,
    SECRET_FILE,
    TOUCH_SECONDS,
    SQLiteRunStore,
    canonical_json,
    default_path,
    is_run_key,
    load_secret,
    open_store,
    run_key,
    store_at,
)
from explorer.runstore import store as store_module
from tests import ROOT

SECRET = b"s" * 32


class Clock:
    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def sqlite_store(tmp_path: Path, **options) -> SQLiteRunStore:
    return SQLiteRunStore(tmp_path / "runs.sqlite3", secret=SECRET, **options)


def random_bytes(size: int, seed: int) -> bytes:
    """Incompressible bytes (zlib cannot shrink them), so stored sizes are predictable."""
    blocks, counter = [], 0
    while sum(map(len, blocks)) < size:
        blocks.append(hashlib.sha256(f"{seed}:{counter}".encode()).digest())
        counter += 1
    return b"".join(blocks)[:size]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_stored_run_comes_back_whole_and_compressed(run_stores):
    store = run_stores()
    payload, corpus = (
        b'{"format": "tokenizer-explorer-trace"}' * 1000,
        "Ünïcode corpus\n".encode() * 500,
    )
    assert store.put("a" * 64, payload, corpus, {"label": "Shakespeare", "steps": 3})
    entry = store.get("a" * 64)
    assert (entry.payload, entry.corpus, entry.meta) == (
        payload,
        corpus,
        {"label": "Shakespeare", "steps": 3},
    )
    assert store.stored_bytes() < len(payload) + len(corpus)  # compressed
    assert store.put("b" * 64, b"no corpus", None, {})
    assert store.get("b" * 64).corpus is None
    assert store.put("a" * 64, b"replaced", None, {})
    assert store.get("a" * 64).payload == b"replaced"
    store.delete("a" * 64)
    assert store.get("a" * 64) is None
    assert store.get("never stored") is None


def test_runs_are_stored_with_zstd_and_runs_an_older_version_stored_with_zlib_still_read(
    run_stores, monkeypatch
):
    store = run_stores()
    payload, corpus = b'{"merges": [[1, 2, 3]]}' * 2000, "Ünïcode corpus\n".encode() * 500
    monkeypatch.setattr(store_module, "CODEC", "zlib")  # what versions before zstd wrote
    assert store.put("o" * 64, payload, corpus, {"label": "old"})
    monkeypatch.undo()
    assert store.put("n" * 64, payload, corpus, {"label": "new"})
    assert (store.get("o" * 64).payload, store.get("o" * 64).corpus) == (payload, corpus)
    assert (store.get("n" * 64).payload, store.get("n" * 64).corpus) == (payload, corpus)
    assert store_module.pack("n" * 64, payload, corpus, {}).payload.startswith(b"\x28\xb5\x2f\xfd")  # zstd
    assert store_module.pack("n" * 64, payload, corpus, {}).codec == "zstd"


def test_the_byte_bound_evicts_the_least_recently_read_first(run_stores):
    clock = Clock()
    store = run_stores(max_bytes=35_000, clock=clock)
    for index, key in enumerate("abc"):
        clock.now += 1
        assert store.put(key, random_bytes(10_000, index), None, {})
    clock.now += TOUCH_SECONDS
    assert store.get("a") is not None  # read: now b is the least recently used
    clock.now += 1
    assert store.put("d", random_bytes(10_000, 3), None, {})
    assert store.get("b") is None
    assert all(store.get(key) is not None for key in "acd")
    assert store.stored_bytes() <= 35_000


def test_an_entry_larger_than_the_whole_bound_is_not_stored(run_stores):
    store = run_stores(max_bytes=5_000)
    assert store.put("kept", random_bytes(1_000, 0), None, {})
    assert store.put("huge", random_bytes(10_000, 1), None, {}) is False
    assert store.get("huge") is None and store.get("kept") is not None


def test_a_run_over_the_bound_is_refused_in_a_warning(run_stores, caplog):
    store = run_stores(max_bytes=5_000)
    with caplog.at_level(logging.INFO, logger="explorer.runstore"):
        assert store.put("huge", random_bytes(10_000, 1), None, {}) is False
    assert [record.levelno for record in caplog.records] == [logging.WARNING]  # the operator sees it


def test_a_run_that_started_and_was_not_stored_is_told_from_one_never_trained(run_stores):
    clock = Clock()
    store = run_stores(max_age=2 * DAY, clock=clock)
    store.mark_started("training")
    assert store.was_started("training") and not store.was_started("unknown")
    store.put("training", b"trace", None, {})
    assert not store.was_started("training")  # stored: finished
    store.mark_started("interrupted")
    clock.now += 2 * DAY + 1
    assert not store.was_started("interrupted")  # past the store's age, as a stored run would be


def test_entries_expire_after_the_age_limit(run_stores):
    clock = Clock()
    store = run_stores(max_age=2 * DAY, clock=clock)
    store.put("old", b"old", b"corpus", {})
    clock.now += DAY
    store.put("young", b"young", None, {})
    clock.now += DAY + 1
    assert store.get("old") is None  # reading does not keep an entry alive past its age
    assert store.get("young") is not None
    clock.now += DAY
    store.prune()
    assert store.stored_bytes() == 0


def test_threads_write_and_read_at_once(run_stores):
    store = run_stores()
    errors = []

    def work(thread: int) -> None:
        try:
            for index in range(25):
                key = f"{thread}-{index}"
                assert store.put(key, f"payload {key}".encode(), None, {"thread": thread})
                assert store.get(key).payload == f"payload {key}".encode()
        except BaseException as error:  # reported below: an assert in a thread would be lost
            errors.append(error)

    threads = [threading.Thread(target=work, args=(thread,)) for thread in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert all(store.get(f"{thread}-{index}") is not None for thread in range(8) for index in range(25))


def test_a_reader_sees_the_old_entry_or_the_new_one_whole_while_a_writer_replaces_it(run_stores):
    writer, reader = run_stores(), run_stores()  # two servers sharing the store
    versions = [random_bytes(50_000, seed) for seed in range(2)]
    assert writer.put("k" * 64, versions[0], None, {"version": 0})
    done = threading.Event()
    seen: list[tuple[int, bool]] = []

    def read() -> None:
        while not done.is_set():
            entry = reader.get("k" * 64)
            version = entry.meta["version"] if entry is not None else -1
            seen.append((version, entry is not None and entry.payload == versions[version]))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for index in range(1, 11):
            assert writer.put("k" * 64, versions[index % 2], None, {"version": index % 2})
    finally:
        done.set()
        thread.join()
    assert seen and all(version in (0, 1) and whole for version, whole in seen), seen[:5]


def test_threads_opening_a_new_file_at_once_all_succeed(tmp_path):
    """SQLite answers "database is locked" at once, without waiting, to a connection switching a
    new file to WAL while another does the same: without the retry about 1 fresh file in 20 lost a
    write here (40 files, so this failed nearly every run before the fix)."""
    failed = []

    def first_write(store, thread: int) -> None:
        if not store.put(f"{thread}", b"payload", None, {}):
            failed.append(thread)

    for trial in range(40):
        store = sqlite_store(tmp_path / str(trial))
        threads = [threading.Thread(target=first_write, args=(store, thread)) for thread in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failed == []


WRITER = """
import json, sys
from explorer.runstore import store_at
store = store_at(json.loads(sys.argv[1]))
for index in range(60):
    assert store.put(f"{sys.argv[2]}-{index}", b"x" * 5000, b"corpus", {"index": index})
store.close()
"""


def test_two_processes_write_to_one_store(run_stores):
    store = run_stores()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    location = json.dumps(store.location())
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, location, name], env=env) for name in ("one", "two")
    ]
    for index in range(60):  # and this process too, meanwhile
        assert store.put(f"three-{index}", b"y" * 5000, None, {})
    assert [writer.wait(60) for writer in writers] == [0, 0]
    for name in ("one", "two", "three"):
        assert all(store.get(f"{name}-{index}") is not None for index in range(60))


def test_two_servers_storing_one_run_at_once_store_one_row(run_stores):
    """Replicas training the same link at the same moment both store its run: one entry is left,
    whole, and the bound counts it once (PostgreSQL: INSERT ... ON CONFLICT under the write lock)."""
    servers = [run_stores(), run_stores()]
    payload = random_bytes(20_000, 7)
    start = threading.Barrier(len(servers))
    results: list[bool] = []

    def store_it(store) -> None:
        start.wait()
        results.append(store.put("k" * 64, payload, None, {"n": 1}))

    threads = [threading.Thread(target=store_it, args=(server,)) for server in servers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True, True]
    entry = servers[0].get("k" * 64)
    assert entry is not None and entry.payload == payload
    assert servers[1].stored_bytes() == servers[0].stored_bytes() < 2 * len(payload)


def test_keys_depend_on_corpus_settings_and_secret_and_on_nothing_else():
    settings = canonical_json({"vocab_size": 1000, "algorithm": "bpe"})
    key = run_key(SECRET, digest("corpus"), settings)
    assert is_run_key(key)
    assert key == run_key(SECRET, digest("corpus"), canonical_json({"algorithm": "bpe", "vocab_size": 1000}))
    others = {
        run_key(SECRET, digest("another corpus"), settings),
        run_key(SECRET, digest("corpus"), canonical_json({"vocab_size": 1001, "algorithm": "bpe"})),
        run_key(b"t" * 32, digest("corpus"), settings),
    }
    assert key not in others and len(others) == 3
    assert (
        key != digest("corpus")
        and key != hashlib.sha256((digest("corpus") + "\n" + settings).encode()).hexdigest()
    )
    with pytest.raises(ValueError, match="64 lowercase hex"):
        run_key(SECRET, "not a digest", settings)
    assert not is_run_key(key.upper()) and not is_run_key(key[:-1]) and not is_run_key(None)


def test_an_uploads_key_is_an_hmac_under_the_secret_not_its_files_digest(monkeypatch):
    """Issue 33: `upload:` + the bare sha256 of a file let anyone holding it confirm it was uploaded;
    the key is now run_key's HMAC under the deployment's secret, and an older link is told apart."""
    from explorer.runstore.keys import is_old_upload_key, is_upload_key
    from explorer.session import serving

    digest = hashlib.sha256(b"a tokenizer.json").hexdigest()
    keys = []
    for secret in (b"1" * 64, b"2" * 64):
        monkeypatch.setattr(serving, "secret", lambda secret=secret: secret)
        keys.append(serving.upload_key("upload:" + digest))
        assert keys[-1] == serving.upload_key("upload:" + digest)  # stable under one secret
    assert keys[0] != keys[1] and not any(digest[:16] in key for key in keys)
    assert all(is_upload_key(key) and not is_old_upload_key(key) for key in keys)
    assert is_old_upload_key("upload:" + digest) and not is_upload_key("upload:" + digest)


def test_a_corrupt_database_file_is_moved_aside_and_recreated(tmp_path, caplog):
    path = tmp_path / "runs.sqlite3"
    path.write_bytes(b"this is not a database, but it is long enough to look like a file header" * 20)
    store = SQLiteRunStore(path, secret=SECRET)
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert store.get("missing") is None
        assert store.put("key", b"payload", None, {})
    assert store.get("key").payload == b"payload"
    assert any("unreadable" in record.getMessage() for record in caplog.records)
    assert len(list(tmp_path.glob("runs.sqlite3.corrupt-*"))) == 1


def test_a_database_deleted_while_open_is_recreated(tmp_path, caplog):
    store = sqlite_store(tmp_path)
    assert store.put("before", b"payload", None, {})
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store.path}{suffix}").unlink(missing_ok=True)
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert store.get("before") is None
        assert store.put("after", b"payload", None, {})
    assert store.get("after") is not None
    assert any("was deleted" in record.getMessage() for record in caplog.records)


def test_the_secret_is_created_once_with_mode_0600(tmp_path):
    folder = tmp_path / "store"
    secrets_read = []
    threads = [
        threading.Thread(target=lambda: secrets_read.append(load_secret(folder, {}))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(secrets_read)) == 1 and len(secrets_read[0]) == 64
    assert stat.S_IMODE(os.stat(folder / SECRET_FILE).st_mode) == 0o600
    assert load_secret(folder, {}) == secrets_read[0]
    assert list(folder.iterdir()) == [folder / SECRET_FILE]  # no temporary file left
    assert load_secret(folder, {"EXPLORER_SECRET": "from the environment"}) == b"from the environment"
    assert SQLiteRunStore(folder / "runs.sqlite3").secret == secrets_read[0]


def test_settings_from_the_environment(tmp_path):
    environ = {
        "EXPLORER_STORE_PATH": str(tmp_path / "x" / "runs.db"),
        "EXPLORER_STORE_MB": "2",
        "EXPLORER_STORE_DAYS": "0.5",
    }
    store = SQLiteRunStore.from_env(environ)
    assert (
        store.path == tmp_path / "x" / "runs.db" and store.max_bytes == 2_000_000 and store.max_age == DAY / 2
    )
    assert (tmp_path / "x" / SECRET_FILE).exists()
    assert default_path({"XDG_CACHE_HOME": "/cache"}) == Path("/cache/tokenizer-explorer/runs.sqlite3")
    with pytest.raises(ValueError, match="EXPLORER_STORE_MB must be a number above 0, not 'lots'"):
        SQLiteRunStore.from_env({**environ, "EXPLORER_STORE_MB": "lots"})


def test_a_store_that_cannot_be_opened_is_none_with_a_log_line(tmp_path, caplog):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="explorer.runstore"):
        assert open_store({"EXPLORER_STORE_PATH": str(blocker / "runs.sqlite3")}) is None
    assert any("no run store" in record.getMessage() for record in caplog.records)


def test_a_worker_reopens_the_store_from_its_location(run_stores):
    store = run_stores(max_bytes=123_456, max_age=3 * DAY)
    elsewhere = store_at(store.location())
    assert type(elsewhere) is type(store) and elsewhere.location() == store.location()
    assert (elsewhere.max_bytes, elsewhere.max_age) == (123_456, 3 * DAY)
    assert elsewhere.put("key", b"from a worker", None, {})
    assert store.get("key").payload == b"from a worker"
    elsewhere.close()


def test_the_store_files_are_its_owners_alone(tmp_path):
    """It holds pasted corpora: the folder the store makes is 0700, the database 0600, and so are
    the -wal and -shm files SQLite makes beside it (they take the database file's mode)."""
    store = open_store(
        {"EXPLORER_STORE_PATH": str(tmp_path / "made" / "runs.sqlite3"), "EXPLORER_SECRET": "x"}
    )
    assert store is not None
    assert store.put("a" * 64, b"trace", b"a pasted corpus", {"n": 1})
    folder = tmp_path / "made"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = {path.name: stat.S_IMODE(path.stat().st_mode) for path in folder.iterdir()}
    assert {"runs.sqlite3", "runs.sqlite3-wal", "runs.sqlite3-shm"} <= set(files)
    assert all(mode == 0o600 for mode in files.values()), files


def test_a_store_made_again_after_its_file_was_deleted_is_still_private(tmp_path):
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=SECRET)
    assert store.put("a" * 64, b"trace", None, {})
    for path in tmp_path.glob("runs.sqlite3*"):
        path.unlink()
    assert store.put("b" * 64, b"trace", None, {})
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in tmp_path.glob("runs.sqlite3*")}
    assert "runs.sqlite3" in modes and all(mode == 0o600 for mode in modes.values()), modes
