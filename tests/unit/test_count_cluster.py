"""explorer.corpora.cluster on real Dask parts: a `LocalCluster`, and a scheduler and two workers
started as separate processes on 127.0.0.1 (`dask scheduler`, `dask worker`), as docs/scaling.md
tells a host to. Every count on a cluster writes the same count file, byte for byte, as the count
in one process (`streaming.count_inputs`), for the three readings, several inputs, a gzip file and
shards cut inside a file; a worker killed (SIGKILL) while it counts a shard changes nothing (its
task runs again). A scheduler string of neither form, a scheduler nobody answers at, stdin and a
file the workers cannot see are each one sentence.
"""

from __future__ import annotations

import concurrent.futures
import gzip
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys

import pytest

from explorer.cli import main
from explorer.corpora.cluster import _add_in_order, _packed, _unpacked, count_on_cluster, default_shard_bytes
from explorer.corpora.count_files import write_count_file
from explorer.corpora.counting import Counting, WordCounts, add_word_counts
from explorer.corpora.inputs import CorpusInput, expand_inputs
from explorer.corpora.streaming import count_inputs
from explorer.training.word_counts import FIGURES
from tests import ROOT
from tests.helpers.processes import wait_until

pytest.importorskip("distributed")

# A vocabulary with multi-byte characters, so that shard edges fall between any bytes.
VOCABULARY = [f"w{number}" for number in range(3000)] + ["naïve", "日本語", "😀", "the", "cat", "Ġ"]


def _text(lines: int, seed: int) -> str:
    """Lines of random words; every tenth one ends with "\\r\\n", every 50th is empty."""
    chooser = random.Random(seed)
    rows = []
    for number in range(lines):
        ending = "\r\n" if number % 10 == 3 else "\n"
        rows.append(("" if number % 50 == 7 else " ".join(chooser.choices(VOCABULARY, k=9))) + ending)
    return "".join(rows)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[str]:
    """Three inputs: a plain file cut into many shards, a gzip file (one shard) and a plain file
    without a final line break."""
    folder = tmp_path_factory.mktemp("corpus")
    (folder / "a.txt").write_text(_text(4000, 1), encoding="utf-8")
    with gzip.open(folder / "b.txt.gz", "wt", encoding="utf-8") as file:
        file.write(_text(500, 2))
    (folder / "c.txt").write_text(_text(300, 3) + "last line, no break", encoding="utf-8")
    return [str(folder / name) for name in ("a.txt", "b.txt.gz", "c.txt")]


def _file_of(counts: WordCounts, path) -> bytes:
    write_count_file(path, counts)
    return path.read_bytes()


def _same_file_as_one_process(tmp_path, inputs: list[CorpusInput], counting: Counting, scheduler: str):
    """Count on `scheduler` in shards of 40,000 bytes and in one process: the same count file."""
    reports = []
    on_cluster = count_on_cluster(
        inputs, counting, scheduler, shard_bytes=40_000, progress=lambda *report: reports.append(report)
    )
    alone = count_inputs(inputs, counting)
    assert _file_of(on_cluster, tmp_path / "cluster.parquet") == _file_of(alone, tmp_path / "alone.parquet")
    assert list(on_cluster.words.items()) == list(alone.words.items())
    # Progress: every shard once, the bytes of all of them at the end.
    total = sum(item.size or 0 for item in inputs)
    assert [report[0] for report in reports] == list(range(1, len(reports) + 1))
    assert reports[-1] == (len(reports), len(reports), total, total)
    assert len(reports) > len(inputs)  # the plain files were cut into shards


@pytest.mark.slow
def test_count_on_a_local_cluster_writes_the_file_count_writes_alone(tmp_path, corpus, monkeypatch, capsys):
    """`count --scheduler local:2` (a LocalCluster of two processes) and `count`: the same file;
    its progress is bytes counted of the total and shards of all (redirected: a line per tenth;
    the clock is moved by the test, two seconds a reading, not waited for)."""
    from explorer.cli import common

    clock = iter(range(0, 10_000, 2))
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    cluster, alone = tmp_path / "cluster.parquet", tmp_path / "alone.parquet"
    assert (
        main(["count", *corpus, "--scheduler", "local:2", "--shard-mb", "0.04", "--out", str(cluster)]) == 0
    )
    progress = capsys.readouterr().err.splitlines()[:-1]
    assert main(["count", *corpus, "--out", str(alone)]) == 0
    assert cluster.read_bytes() == alone.read_bytes()
    assert re.fullmatch(
        r"counting: [\d.]+ of [\d.]+ [KMG]B \(100%\), (\d+) of \1 shards on local:2", progress[-1]
    )
    assert all(line.startswith("counting: ") for line in progress) and len(progress) > 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["a.txt", "--shard-mb", "64"], "--shard-mb cuts the inputs for a cluster: give --scheduler too"),
        (["a.txt", "--scheduler", "8786"], "'8786' is not a scheduler: give a Dask scheduler's address"),
        (["-", "--scheduler", "local:2"], "stdin cannot be counted on a cluster"),
    ],
)
def test_bad_cluster_options_of_count_are_one_sentence(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("a line\n", encoding="utf-8")
    assert main(["count", *args, "--out", "c.parquet"]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1, error


def test_count_add_takes_no_scheduler(tmp_path, corpus, capsys):
    counts = tmp_path / "c.parquet"
    assert main(["count", corpus[0], "--out", str(counts)]) == 0
    capsys.readouterr()
    assert main(["count", "--add", str(counts), "--scheduler", "local:2", "--out", str(counts)]) == 2
    assert "--scheduler is for counting inputs: --add adds" in capsys.readouterr().err


def _start(argv: list[str], log, environment) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *argv], stdout=log, stderr=subprocess.STDOUT, env=environment, cwd="/"
    )


def _address(scheduler_file) -> str | None:
    """The scheduler's address once it has written its file whole."""
    try:
        return json.loads(scheduler_file.read_text())["address"]
    except (FileNotFoundError, ValueError, KeyError):
        return None


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """The address of a `dask scheduler` with two `dask worker`s of one thread, each a process of
    its own on 127.0.0.1, started from "/" (the workers see files by their absolute paths); all
    stopped at the end, even on failure."""
    from distributed import Client

    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    processes: list[subprocess.Popen] = []
    with open(folder / "dask.log", "wb") as log:
        try:
            processes.append(
                _start(
                    ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
                    + ["--scheduler-file", str(scheduler_file)],
                    log,
                    environment,
                )
            )
            wait_until(lambda: _address(scheduler_file) is not None, 120, "the scheduler's address")
            address = _address(scheduler_file)
            assert address is not None
            for _ in range(2):
                processes.append(
                    _start(
                        ["worker", address, "--nworkers", "1", "--nthreads", "1"]
                        + ["--host", "127.0.0.1", "--no-dashboard"],
                        log,
                        environment,
                    )
                )
            with Client(address, timeout=120) as client:
                client.wait_for_workers(2, timeout=120)
            yield address
        finally:
            # The workers first, while their scheduler is there to say goodbye to.
            for group in (processes[1:], processes[:1]):
                _stop(group)


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.slow
@pytest.mark.parametrize("reading", ["lines", "lines-with-endings"])
def test_a_scheduler_and_two_worker_processes_give_the_same_count_file(tmp_path, corpus, scheduler, reading):
    _same_file_as_one_process(tmp_path, expand_inputs(corpus), Counting(reading=reading), scheduler)


@pytest.mark.slow
def test_count_on_a_scheduler_writes_the_file_count_writes_alone(tmp_path, corpus, scheduler):
    cluster, alone = tmp_path / "cluster.parquet", tmp_path / "alone.parquet"
    options = ["--reading", "lines", "--normalizer", "nfkc", "--split-pattern", "cl100k"]
    assert main(["count", *corpus, *options, "--scheduler", scheduler, "--out", str(cluster)]) == 0
    assert main(["count", *corpus, *options, "--out", str(alone)]) == 0
    assert cluster.read_bytes() == alone.read_bytes()


@pytest.mark.slow
def test_records_counted_on_worker_processes_give_the_same_count_file(tmp_path, scheduler, monkeypatch):
    texts = _text(3000, 4).split("\n")
    (tmp_path / "records.jsonl").write_text(
        "".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)  # a path relative to here, where the workers (started in "/") are not
    inputs = expand_inputs(["records.jsonl"], text_field="text")
    _same_file_as_one_process(tmp_path, inputs, Counting(reading="records"), scheduler)


@pytest.mark.slow
def test_a_file_the_workers_cannot_see_is_one_sentence(tmp_path, scheduler):
    # The client was told of a file (its size known) that is not where the workers look.
    missing = CorpusInput(str(tmp_path / "elsewhere.txt"), size=10)
    with pytest.raises(
        ValueError, match=r"^the Dask worker on .* cannot see '.*elsewhere.txt': workers must"
    ):
        count_on_cluster([missing], Counting(), scheduler)


@pytest.mark.slow
def test_a_worker_killed_mid_count_gives_the_same_count_file(tmp_path, corpus, scheduler):
    from distributed import Client

    inputs = expand_inputs(corpus)
    # The reading counted in Python: many shards that each take a while, so work remains after the kill.
    counting = Counting(reading="lines-with-endings")
    with Client(scheduler, timeout=60) as watcher, concurrent.futures.ThreadPoolExecutor(1) as pool:
        busy: list[str] = []

        def a_worker_is_counting() -> bool:
            busy[:] = [worker for worker, keys in watcher.processing().items() if keys]
            return bool(busy)

        counted = pool.submit(count_on_cluster, inputs, counting, scheduler, shard_bytes=10_000)
        wait_until(a_worker_is_counting, 120, "a worker counting a shard")
        victim = watcher.run(os.getpid, workers=[busy[0]])[busy[0]]
        os.kill(victim, signal.SIGKILL)
        assert not counted.done()  # the kill came while shards were left to count
        wait_until(lambda: busy[0] not in watcher.scheduler_info(n_workers=-1)["workers"], 60, "the loss")
        on_cluster = counted.result(timeout=300)
    alone = count_inputs(inputs, counting)
    assert _file_of(on_cluster, tmp_path / "cluster.parquet") == _file_of(alone, tmp_path / "alone.parquet")


@pytest.mark.parametrize(
    ("scheduler", "sentence"),
    [
        ("local:0", r"^'local:0': a local cluster is local:N, N workers of at least 1 \(local:2\)$"),
        ("local:two", r"^'local:two': a local cluster is local:N"),
        ("127.0.0.1:8786", r"^'127.0.0.1:8786' is not a scheduler: give a Dask scheduler's address"),
    ],
)
def test_a_scheduler_of_neither_form_is_one_sentence(scheduler, sentence):
    with pytest.raises(ValueError, match=sentence):
        count_on_cluster([CorpusInput("corpus.txt", size=1)], Counting(), scheduler)


def test_stdin_cannot_be_counted_on_a_cluster():
    with pytest.raises(ValueError, match=r"^stdin cannot be counted on a cluster .*save it to a file first$"):
        count_on_cluster([CorpusInput("-")], Counting(), "local:1")


def test_a_scheduler_nobody_answers_at_is_one_sentence():
    with socket.socket() as probe:  # a free port, closed again: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    with pytest.raises(
        ValueError, match=rf"^cannot reach the Dask scheduler at {address} within 1 s .*dask scheduler"
    ):
        count_on_cluster([CorpusInput("corpus.txt", size=1)], Counting(), address, connect_seconds=1)


def test_shards_added_as_arrow_columns_are_the_shards_added_as_dicts():
    """`_add_in_order` folds the shards' tables whenever those waiting hold as many rows as the
    total: parts of many sizes (empty ones, one word, many new words, all repeats) fold at
    different turns, and every way gives `add_word_counts`'s words, order, counts and figures."""
    chooser = random.Random(5)
    counting = Counting()
    for _ in range(30):
        parts = []
        for _ in range(chooser.randint(1, 8)):
            vocabulary = VOCABULARY[: chooser.choice([1, 5, 50, 3000])]
            words = {
                word: chooser.randint(1, 10**12)
                for word in chooser.sample(vocabulary, chooser.randint(0, min(40, len(vocabulary))))
            }
            figures = {name: chooser.randint(0, 100) for name in FIGURES}
            parts.append(WordCounts(words, figures, counting))
        added = _add_in_order([_unpacked(_packed(part)) for part in parts], counting)
        expected = add_word_counts(parts)
        assert list(added.words.items()) == list(expected.words.items())
        assert added.figures == expected.figures


def test_shards_are_few_and_large():
    mb = 1 << 20
    assert default_shard_bytes(1 << 30, 2) == 128 * mb  # 1 GB on two workers: 8 shards
    assert default_shard_bytes(100 << 30, 4) == 256 * mb  # at most 256 MB
    assert default_shard_bytes(10 * mb, 2) == 16 * mb  # at least 16 MB: a small corpus is one shard
