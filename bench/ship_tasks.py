"""Tasks for bench/bench_workers.py (a worker imports a task by name, so they cannot live in the
bench script, which runs as __main__).

`train_and_stamp` is `train_task` with the store step timed apart (the same `_store_run` that
`train_task` calls) and the wall-clock time at which the worker finished, so the bench can time
the trip of the result back to the server."""

from __future__ import annotations

import time

from explorer.work import tasks


def echo(reporter, value):
    return value


def train_and_stamp(reporter, corpus_text, settings, limits, store=None):
    result = tasks.train_task(reporter, corpus_text, settings, limits)
    if store is not None:
        started = time.perf_counter()
        result["stored_key"] = tasks._store_run(store, store["key"], result, corpus_text)
        result["store_seconds"] = time.perf_counter() - started
        result["trace_json"] = None
    result["finished_at"] = time.time()
    return result
