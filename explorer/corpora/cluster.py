"""Counting a corpus on a Dask cluster: one task per shard, the counts added in shard order.

`count_on_cluster(inputs, counting, scheduler)` cuts the inputs into a few large shards
(`explorer.corpora.streaming.shards`: byte ranges of a plain file cut just after a "\\n", or whole
compressed and Parquet files) and submits one task per shard. Each task streams its shard through
the counter on its worker (`streaming.count_shard`: the compiled counter on the compiled engine)
and sends back the shard's words and counts as one Arrow IPC buffer (two columns, figures in its
metadata), not a Python object per word. The client adds the shards' counts as they arrive, but in
shard order (a shard that finishes early waits for those before it), as Arrow columns until the
end, so the result is word for word, in the same order, `streaming.count_inputs(inputs)` in one
process: the same count file.

The scheduler is "local:N" (a `LocalCluster` of N worker processes of one thread each on this
machine, closed afterwards) or the address of a running scheduler ("tcp://HOST:PORT", started
with `dask scheduler`, its workers with `dask worker`; docs/scaling.md). The workers open the
shards' files by their absolute paths: they must see the same files (a shared filesystem). A
worker that dies mid-count is Dask's to handle: its tasks run again on another worker.

Every problem a user can cause is a ValueError of one sentence: a scheduler string that is
neither form, a scheduler that cannot be reached in time or has no workers, stdin (which no worker
can read), a file a worker cannot see, a shard whose workers kept dying.

Dask is imported here only, when a count runs on a cluster: it is heavy, and nothing else needs it.

What it does not do: read or count a shard (explorer.corpora.streaming), write a count file
(explorer.corpora.count_files), or start remote workers.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack

from explorer.corpora.counting import Counting, WordCounts, no_figures
from explorer.corpora.inputs import STDIN, CorpusInput
from explorer.corpora.streaming import Shard, count_shard, shards
from explorer.training.word_counts import FIGURES

LOCAL = "local:"
CONNECT_SECONDS = 20.0  # how long a scheduler (and its first worker) may take to answer
# Few, large shards: a task's cost (a message each way, the adding of its words) is paid per shard,
# and each worker should get a few shards so that a slow or lost one delays little.
SHARDS_PER_WORKER = 4
LARGEST_SHARD_BYTES = 256 << 20
SMALLEST_SHARD_BYTES = 16 << 20  # below this, a task's fixed costs (a message each way) start to show
_FIGURES_KEY = b"figures"

# progress(shards_done, shards_total, bytes_done, bytes_total): after each shard's counts arrive.
Progress = Callable[[int, int, int, int], None]


def count_on_cluster(
    inputs: list[CorpusInput],
    counting: Counting,
    scheduler: str,
    *,
    shard_bytes: int | None = None,
    engine: str | None = None,
    progress: Progress | None = None,
    connect_seconds: float = CONNECT_SECONDS,
) -> WordCounts:
    """The word counts of `inputs` (in order) counted on the Dask cluster `scheduler` ("local:N"
    or "tcp://HOST:PORT"), in shards of about `shard_bytes` (None: the inputs' size over
    `SHARDS_PER_WORKER` shards per worker, within 16-256 MB); `engine` is the workers' engine
    (None: their default). The same counts as `streaming.count_inputs(inputs, counting)`."""
    workers = _local_workers(scheduler)
    if any(item.path == STDIN for item in inputs):
        raise ValueError(
            "stdin cannot be counted on a cluster (no worker can read it): save it to a file first"
        )
    from distributed import Client, LocalCluster

    with ExitStack() as stack:
        if workers is not None:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                )
            )
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(_connected(Client, scheduler, connect_seconds))
            workers = _worker_count(client, scheduler, connect_seconds)
        visible = [dataclasses.replace(item, path=os.path.abspath(item.path)) for item in inputs]
        size = sum(item.size or 0 for item in visible)
        cut = shards(visible, shard_bytes or default_shard_bytes(size, workers))
        futures = [client.submit(_count_packed, shard, counting, engine, pure=False) for shard in cut]
        counts = _add_in_order(_in_shard_order(futures, cut, progress), counting)
    counts.sources = [item.describe() for item in inputs]
    return counts


def default_shard_bytes(total_bytes: int, workers: int) -> int:
    """About `SHARDS_PER_WORKER` shards per worker, each 16-256 MB."""
    share = -(-total_bytes // max(1, workers * SHARDS_PER_WORKER))
    return min(LARGEST_SHARD_BYTES, max(SMALLEST_SHARD_BYTES, share))


def _local_workers(scheduler: str) -> int | None:
    """N of "local:N"; None for a scheduler's address; a ValueError for anything else."""
    if scheduler.startswith(LOCAL):
        number = scheduler[len(LOCAL) :]
        if not number.isdigit() or int(number) < 1:
            raise ValueError(f"{scheduler!r}: a local cluster is local:N, N workers of at least 1 (local:2)")
        return int(number)
    if "://" not in scheduler:
        raise ValueError(
            f"{scheduler!r} is not a scheduler: give a Dask scheduler's address (tcp://HOST:8786) "
            "or local:N for N worker processes on this machine"
        )
    return None


def _connected(client_type, address: str, seconds: float):
    try:
        return client_type(address, timeout=seconds)
    except (OSError, TimeoutError) as error:
        raise ValueError(
            f"cannot reach the Dask scheduler at {address} within {seconds:g} s ({error}): "
            "start it with `dask scheduler` and check the address"
        ) from None


def _worker_count(client, address: str, seconds: float) -> int:
    """The scheduler's workers, after waiting `seconds` for a first one."""
    try:
        client.wait_for_workers(1, timeout=seconds)
    except TimeoutError:
        raise ValueError(
            f"the Dask scheduler at {address} has no workers after {seconds:g} s: "
            f"start some with `dask worker {address}`"
        ) from None
    return len(client.scheduler_info(n_workers=-1)["workers"])


def _count_packed(shard: Shard, counting: Counting, engine: str | None) -> bytes:
    """A task, on a worker: the shard's counts, packed (`_unpacked` reads them)."""
    path = shard.input.path
    if not os.path.isfile(path):
        raise ValueError(
            f"the Dask worker on {socket.gethostname()} cannot see {path!r}: "
            "workers must see the corpus's files at the same paths (a shared filesystem)"
        )
    return _packed(count_shard(shard, counting, engine=engine))


def _packed(counts: WordCounts) -> bytes:
    """Words and counts as an Arrow IPC stream of two columns, the figures in its metadata."""
    import pyarrow as pa

    table = pa.table(
        {
            "word": pa.array(list(counts.words), pa.string()),
            "count": pa.array(list(counts.words.values()), pa.int64()),
        }
    ).replace_schema_metadata({_FIGURES_KEY: json.dumps(counts.figures)})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _unpacked(data: bytes):
    """The Arrow table `_count_packed` sent."""
    import pyarrow as pa

    return pa.ipc.open_stream(data).read_all()


def _add_in_order(tables: Iterable, counting: Counting) -> WordCounts:
    """The shards' counts (Arrow tables, in shard order) added: each word where it first appears,
    its counts summed; the figures summed.

    Not `add_word_counts`, which adds dicts a word at a time in Python: here the words stay Arrow
    columns until the end, so the client's share of the work stays small beside the workers'.
    The total and the tables waiting are folded into one (Arrow's dictionary_encode keeps values
    in order of first appearance) whenever the waiting tables hold as many rows as the total."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    words = pa.array([], pa.large_string())
    counts = np.zeros(0, np.int64)
    figures = no_figures()
    waiting: list = []
    waiting_rows = 0

    def fold() -> None:
        nonlocal words, counts, waiting, waiting_rows
        every_word = pa.concat_arrays(
            [words, *(table.column("word").combine_chunks().cast(pa.large_string()) for table in waiting)]
        )
        every_count = np.concatenate([counts, *(table.column("count").to_numpy() for table in waiting)])
        encoded = pc.dictionary_encode(every_word)
        words, counts = encoded.dictionary, np.zeros(len(encoded.dictionary), np.int64)
        np.add.at(counts, encoded.indices.to_numpy(), every_count)
        waiting, waiting_rows = [], 0

    for table in tables:
        shard_figures = json.loads(table.schema.metadata[_FIGURES_KEY])
        for name in FIGURES:
            figures[name] += shard_figures[name]
        waiting.append(table)
        waiting_rows += table.num_rows
        if waiting_rows >= len(words):
            fold()
    if waiting:
        fold()
    return WordCounts(dict(zip(words.to_pylist(), counts.tolist(), strict=True)), figures, counting)


def _in_shard_order(futures: list, cut: list[Shard], progress: Progress | None) -> Iterator:
    """The shards' counts (Arrow tables) in shard order, each as soon as it and every shard
    before it arrived (later ones are kept until their turn)."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    sizes = [_shard_bytes(shard) for shard in cut]
    index_of = {future.key: index for index, future in enumerate(futures)}
    waiting: dict = {}
    turn = done_bytes = 0
    for done, future in enumerate(as_completed(futures), start=1):
        index = index_of[future.key]
        try:
            waiting[index] = _unpacked(future.result())
        except KilledWorker:
            raise ValueError(
                f"the workers counting {cut[index].describe()!r} kept dying (out of memory?): "
                "give them more memory, or smaller shards (--shard-mb)"
            ) from None
        future.release()
        done_bytes += sizes[index]
        if progress is not None:
            progress(done, len(futures), done_bytes, sum(sizes))
        while turn in waiting:
            yield waiting.pop(turn)
            turn += 1


def _shard_bytes(shard: Shard) -> int:
    end = shard.input.size or 0 if shard.end is None else shard.end
    return end - shard.start
