"""What the run store costs on PostgreSQL against SQLite, for one finished run.

    .venv/bin/python bench/bench_store.py [--smoke] [--repeat N]

Trains BPE 5,000 on ../shared/data/tinyshakespeare.txt (EXPLORER_SHARED_DIR overrides ../shared;
skipped with a message when absent), then, N times (default 5) on each backend, stores the run's
trace JSON and corpus under a new key (`put`: compression, the write, the bound's eviction check)
and reads it back (`get`: the read, decompression), the backends in turn within each repeat.
Prints the median and best of each, of the compression alone (`pack`, both backends' share of a
put), and PostgreSQL's added cost (its median minus SQLite's). SQLite is a file in a temporary
folder; PostgreSQL a private server on 127.0.0.1 started for the bench
(tests/helpers/postgres_cluster.py: initdb and pg_ctl, fsync off, as the tests run it) and stopped
at the end; a server of a real deployment, with fsync and over a network, adds its round trips
and its disk.
--smoke (what CI runs, so that the script cannot rot): a built-in sample, BPE 300, one repeat;
PostgreSQL's row says "not installed" where it is not.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.run_config import RunConfig, TrainerConfig  # noqa: E402
from explorer.runstore import RunStore, SQLiteRunStore  # noqa: E402
from explorer.runstore.store import pack  # noqa: E402
from explorer.samples import HF_COURSE  # noqa: E402
from explorer.train import train_corpus  # noqa: E402
from tests.helpers.postgres_cluster import Cluster, programs  # noqa: E402

CORPUS = (
    Path(os.environ.get("EXPLORER_SHARED_DIR") or ROOT.parent / "shared") / "data" / "tinyshakespeare.txt"
)
SECRET = b"s" * 32


def timed(stores: dict[str, RunStore], payload: bytes, corpus: bytes, repeat: int) -> dict[str, list[float]]:
    """Seconds of each repeat, by row: the packing alone, then each store's put and get, taken in
    turn within every repeat so that a busy machine weighs on every row alike."""
    times: dict[str, list[float]] = {"pack (in every put)": []}
    for attempt in range(repeat):
        key = f"{attempt:064x}"
        started = time.perf_counter()
        pack(key, payload, corpus, {"attempt": attempt})
        times["pack (in every put)"].append(time.perf_counter() - started)
        for name, store in stores.items():
            started = time.perf_counter()
            assert store.put(key, payload, corpus, {"attempt": attempt})
            times.setdefault(f"{name} put", []).append(time.perf_counter() - started)
            started = time.perf_counter()
            entry = store.get(key)
            times.setdefault(f"{name} get", []).append(time.perf_counter() - started)
            assert entry is not None and entry.payload == payload
    return times


def row(name: str, times: list[float]) -> str:
    return f"{name:<22} {statistics.median(times) * 1000:>10.1f} {min(times) * 1000:>10.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a small run, once (what CI runs)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.smoke:
        text, vocab, repeat = HF_COURSE.text, 300, 1
    elif not CORPUS.exists():
        print(f"skipped: {CORPUS} is absent (the benchmark corpus lives in ../shared/data)")
        return
    else:
        text, vocab, repeat = CORPUS.read_text(encoding="utf-8"), 5_000, args.repeat
    payload = train_corpus(text, RunConfig(TrainerConfig(vocab_size=vocab))).to_json().encode("utf-8")
    corpus = text.encode("utf-8")
    print(
        f"BPE {vocab:,}: trace JSON {len(payload) / 1e6:.2f} MB, corpus {len(corpus) / 1e6:.2f} MB, "
        f"{repeat} put + get each"
    )
    print(f"{'':<22} {'median ms':>10} {'best ms':>10}")
    folder_of_programs = programs()
    cluster = None if folder_of_programs is None else Cluster(folder_of_programs)
    try:
        with tempfile.TemporaryDirectory() as folder:
            stores: dict[str, RunStore] = {
                "sqlite": SQLiteRunStore(Path(folder) / "runs.sqlite3", secret=SECRET)
            }
            if cluster is not None:
                from explorer.runstore.postgres import PostgresRunStore

                stores["postgres"] = PostgresRunStore(cluster.url(), secret=SECRET)
            times = timed(stores, payload, corpus, repeat)
            for store in stores.values():
                store.close()
    finally:
        if cluster is not None:
            cluster.stop()
    for name, seconds in times.items():
        print(row(name, seconds))
    if cluster is None:
        print("postgres: not installed (Debian: apt-get install postgresql)")
        return
    for name in ("put", "get"):
        ours_ms = statistics.median(times[f"postgres {name}"]) * 1000
        base_ms = statistics.median(times[f"sqlite {name}"]) * 1000
        print(f"postgres adds to a {name}: {ours_ms - base_ms:+.1f} ms (median), x{ours_ms / base_ms:.2f}")


if __name__ == "__main__":
    main()
