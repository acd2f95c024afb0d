"""The worker pool and the run store, measured: start-up, shipping a trace back, the server's CPU.

    .venv/bin/python bench/bench_workers.py [--corpus PATH] [--vocab 5000,20000] [--repeat 3] [--smoke]

On tinyshakespeare (../shared/data/tinyshakespeare.txt, or --corpus), BPE library flavor,
byte-level:
  1. Pool start-up: `WorkerPool(size).warm_up()` with and without preloading explorer.work.tasks,
     and one tiny job's round trip on a warm pool.
  2. Shipping a finished run to the server, per vocabulary size: (a) the trace JSON pickled back
     through the pool (from the moment the worker's function returns to the server holding the
     result), then `trace_from_json`; (b) the worker stores the run (zstd + SQLite, timed inside
     the worker as part of its job) and the server reads it back (`get` + `trace_from_json`).
  3. Compression of that trace JSON for the store: zstd (the store's codec, level 3), zlib (an
     older version's) and lzma at a few levels (size, times).
  4. The server while the largest vocabulary trains, in a worker and (the old design) in a thread
     of the server: the server process's CPU seconds, and how late a server thread that wants to
     run every millisecond wakes up (GIL contention shows as ~5 ms, the switch interval).
--smoke (what CI runs, so that the script cannot rot): every part once, on the first 20,000
characters of the bundled Shakespeare sample (bench_train.smoke_corpus), vocabulary 400, 3 round
trips, a 0.5 s idle baseline.
Best of --repeat where it says so. A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import lzma
import os
import statistics
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

import zstandard

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import ship_tasks  # noqa: E402
from bench.bench_train import smoke_corpus  # noqa: E402
from explorer.checks import Limits  # noqa: E402
from explorer.run_config import RunConfig, TrainerConfig  # noqa: E402
from explorer.runstore import SQLiteRunStore  # noqa: E402
from explorer.train import trace_from_json, train_corpus  # noqa: E402
from explorer.work import DONE, WorkerPool  # noqa: E402

SHARED = Path(os.environ.get("EXPLORER_SHARED_DIR") or ROOT.parent / "shared")
LIMITS = dataclasses.asdict(Limits(max_seconds=600))


def settings(vocab: int) -> dict:
    return RunConfig(TrainerConfig(vocab_size=vocab, special_tokens=("<|endoftext|>",))).to_dict()


def best(values):
    return min(values)


def start_up(repeat: int, trips_timed: int = 20) -> None:
    print("1. Pool start-up (2 workers)")
    for preload in ((), ("explorer.work.tasks",)):
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            pool = WorkerPool(size=2, preload=preload)
            pool.warm_up()
            times.append(time.perf_counter() - started)
            pool.shutdown()
        print(f"   warm_up, preload {preload or 'nothing'}: {best(times) * 1000:.0f} ms (best of {repeat})")
    pool = WorkerPool(size=1)
    pool.warm_up()
    trips = []
    for index in range(trips_timed):
        started = time.perf_counter()
        job = pool.submit(f"echo-{index}", ship_tasks.echo, index)
        job.wait()
        trips.append(time.perf_counter() - started)
        assert job.state == DONE and job.result == index, job
    pool.shutdown()
    print(
        f"   a tiny job on a warm worker, submit to result: median {statistics.median(trips) * 1000:.1f} ms"
    )


def ship(corpus: str, vocabs: list[int], repeat: int, folder: Path) -> bytes:
    print("2. Shipping a finished run back to the server")
    store = SQLiteRunStore(folder / "runs.sqlite3", secret=b"s" * 32)
    pool = WorkerPool(size=1, preload=("explorer.work.tasks",))
    pool.warm_up()
    largest_json = b""
    for vocab in vocabs:
        pipe, via_store, parse, read = [], [], [], []
        for attempt in range(repeat):
            job = pool.submit(
                f"pipe-{vocab}-{attempt}", ship_tasks.train_and_stamp, corpus, settings(vocab), LIMITS
            )
            job.wait()
            received = time.time()
            assert job.state == DONE, job.error
            pipe.append(received - job.result["finished_at"])
            trace_json = job.result["trace_json"]
            started = time.perf_counter()
            trace_from_json(trace_json)
            parse.append(time.perf_counter() - started)
            key = f"{vocab:064d}"[-64:]
            spec = {**store.location(), "key": key, "meta": {}, "keep_corpus": False}
            job = pool.submit(
                f"store-{vocab}-{attempt}", ship_tasks.train_and_stamp, corpus, settings(vocab), LIMITS, spec
            )
            job.wait()
            via_store.append(job.result["store_seconds"])
            started = time.perf_counter()
            entry = store.get(key)
            trace_from_json(entry.payload)
            read.append(time.perf_counter() - started)
        steps = job.result["steps"]
        print(f"   BPE {vocab:,} ({steps:,} merges), trace JSON {len(trace_json) / 1e6:.1f} MB:")
        print(
            f"     (a) pickled through the pool: {best(pipe) * 1000:.0f} ms, "
            f"then trace_from_json {best(parse) * 1000:.0f} ms "
            f"(server total {(best(pipe) + best(parse)) * 1000:.0f} ms)"
        )
        print(
            f"     (b) via the store: the worker's put {best(via_store) * 1000:.0f} ms; "
            "the server's get + trace_from_json "
            f"{best(read) * 1000:.0f} ms; stored {store.stored_bytes() / 1e6:.2f} MB in all so far"
        )
        largest_json = trace_json
    pool.shutdown()
    return largest_json


def compression(data: bytes, repeat: int) -> None:
    print(f"3. Compressing the last trace JSON ({len(data) / 1e6:.1f} MB), best of {repeat}")
    codecs = [
        ("zstd 1", zstandard.ZstdCompressor(level=1).compress, zstandard.ZstdDecompressor().decompress),
        ("zstd 3", zstandard.ZstdCompressor(level=3).compress, zstandard.ZstdDecompressor().decompress),
        ("zlib 1", lambda b: zlib.compress(b, 1), zlib.decompress),
        ("zlib 6", lambda b: zlib.compress(b, 6), zlib.decompress),
        ("zlib 9", lambda b: zlib.compress(b, 9), zlib.decompress),
        ("lzma 0", lambda b: lzma.compress(b, preset=0), lzma.decompress),
        ("lzma 6", lambda b: lzma.compress(b, preset=6), lzma.decompress),
    ]
    for name, compress, decompress in codecs:
        packed_times, unpacked_times = [], []
        for _ in range(repeat):
            started = time.perf_counter()
            packed = compress(data)
            packed_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            decompress(packed)
            unpacked_times.append(time.perf_counter() - started)
        print(
            f"   {name}: {len(packed) / 1e3:,.0f} KB ({len(packed) / len(data):.1%}), compress "
            f"{best(packed_times) * 1000:.0f} ms, decompress {best(unpacked_times) * 1000:.1f} ms"
        )


def probe(stop: threading.Event, lateness: list[float]) -> None:
    """A server thread that wants to run every millisecond (as a page's rerun wants the GIL): how
    late it wakes up. In a thread of the same process as a training, it waits for the GIL's
    switch interval (5 ms); with the training in a worker it waits only for the machine's cores."""
    while not stop.is_set():
        started = time.perf_counter()
        time.sleep(0.001)
        lateness.append(time.perf_counter() - started - 0.001)


def while_probing(work) -> tuple[list[float], float, float]:
    """(probe lateness samples, server CPU seconds, wall seconds) while `work()` runs here."""
    stop, lateness = threading.Event(), []
    prober = threading.Thread(target=probe, args=(stop, lateness))
    cpu, wall = time.process_time(), time.perf_counter()
    prober.start()
    work()
    stop.set()
    prober.join()
    return lateness, time.process_time() - cpu, time.perf_counter() - wall


def server_cpu(corpus: str, vocab: int, idle_seconds: float = 2.0) -> None:
    print(f"4. The server while BPE {vocab:,} trains; a server thread asks to run every 1 ms meanwhile")
    print(
        f"   (load average before: {', '.join(f'{load:.1f}' for load in os.getloadavg())}: "
        "other work on the machine shows too)"
    )
    pool = WorkerPool(size=1, preload=("explorer.work.tasks",))
    pool.warm_up()
    config = RunConfig(TrainerConfig(vocab_size=vocab, special_tokens=("<|endoftext|>",)))

    def in_worker() -> None:
        pool.submit(f"cpu-{time.time()}", ship_tasks.train_and_stamp, corpus, settings(vocab), LIMITS).wait()

    cases = [
        (f"idle ({idle_seconds:g} s)", lambda: time.sleep(idle_seconds)),
        ("training in a worker", in_worker),
        ("training in a server thread", lambda: train_corpus(corpus, config)),
    ]
    for name, work in cases:
        lateness, cpu, wall = while_probing(work)
        lateness.sort()
        median, p99 = lateness[len(lateness) // 2], lateness[int(len(lateness) * 0.99)]
        print(
            f"   {name}: {wall:.1f} s; server CPU {cpu:.2f} s (probe included); probe late by median "
            f"{median * 1000:.2f} ms, p99 {p99 * 1000:.1f} ms, max {lateness[-1] * 1000:.1f} ms"
        )
    quiet_cpu = time.process_time()
    started = time.perf_counter()
    in_worker()
    print(
        "   without the probe, the server's CPU while a worker trained for "
        f"{time.perf_counter() - started:.1f} s: "
        f"{time.process_time() - quiet_cpu:.3f} s (dispatcher, progress, receiving the result)"
    )
    pool.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=SHARED / "data" / "tinyshakespeare.txt")
    parser.add_argument("--vocab", default="5000,20000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="every part once, small (what CI runs)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = smoke_corpus(Path(folder)) if args.smoke else args.corpus
        if not path.is_file():
            print(f"{path} is absent: pass --corpus or set EXPLORER_SHARED_DIR")
            return
        corpus = path.read_text(encoding="utf-8")
    vocabs = [400] if args.smoke else [int(value) for value in args.vocab.split(",")]
    repeat = 1 if args.smoke else args.repeat
    print(
        f"corpus {path.name}: {len(corpus.encode()) / 1e6:.2f} MB; {os.cpu_count()} cores; "
        f"Python {sys.version.split()[0]}"
    )
    start_up(repeat, trips_timed=3 if args.smoke else 20)
    with tempfile.TemporaryDirectory() as folder:
        largest_json = ship(corpus, vocabs, repeat, Path(folder))
    compression(largest_json, repeat)
    server_cpu(corpus, max(vocabs), idle_seconds=0.5 if args.smoke else 2.0)


if __name__ == "__main__":
    main()
