"""The pool's real jobs (explorer.work.tasks): training and measuring give exactly what the
in-process functions give, progress and stop are wired to the reporter and the budget, a finished
run can be stored by the worker, and bad input is one sentence. Most tests call the tasks in this
process with a fake reporter; one trains and one stops a training through a real pool."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.checks import Limits, corpus_prefix, sample_lines
from explorer.compare import measure_corpus, pretrained_column, tokenizer_column
from explorer.pipeline.tokenizer_json import tokenizer_from_json, tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.runstore import SQLiteRunStore, stopped_key_seed, stopped_run_key
from explorer.samples import MULTILINGUAL, STUDY_IN_SCARLET
from explorer.train import tokenizer_from_trace, trace_from_json, train_corpus
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.word_counts import split_lines
from explorer.work import DONE, RUNNING, WorkerPool, tasks
from explorer.work.tasks import NO_WORDS, measure_task, train_task

CORPUS = (STUDY_IN_SCARLET.text + "\n" + MULTILINGUAL.text + "\n") * 3
CONFIG = TrainerConfig(vocab_size=400, special_tokens=("<|endoftext|>",))
SETTINGS = RunConfig(CONFIG, ("nfkc",), "byte-level").to_dict()
LIMITS = dataclasses.asdict(Limits())


class FakeReporter:
    """Records reports; says stop after `stop_after` checks (never when None)."""

    def __init__(self, stop_after: int | None = None):
        self.reports: list[dict] = []
        self.checks = 0
        self.stop_after = stop_after
        self.cancelled = False

    def report(self, **progress) -> None:
        self.reports.append(progress)

    def should_stop(self) -> bool:
        self.checks += 1
        if self.stop_after is not None and self.checks > self.stop_after:
            self.cancelled = True
        return self.cancelled


def without_seconds(trace: MergeHistory) -> dict:
    data = trace.to_dict()
    data.pop("seconds")
    return data


def test_training_in_a_task_gives_the_same_trace_as_training_here():
    reporter = FakeReporter()
    result = train_task(reporter, CORPUS, SETTINGS, LIMITS)
    expected = train_corpus(CORPUS, RunConfig(CONFIG, ("nfkc",), "byte-level"))
    assert without_seconds(trace_from_json(result["trace_json"])) == without_seconds(expected)
    assert (result["steps"], result["stop_reason"], result["stopped_by"]) == (
        expected.steps,
        "vocab_size",
        None,
    )
    assert reporter.reports[0] == {"phase": "counting"}
    training = reporter.reports[1:]
    assert training and all(report["phase"] == "training" for report in training)
    assert training[-1]["step"] == expected.steps and training[-1]["planned"] >= expected.steps


def test_a_task_counting_in_two_processes_gives_the_same_trace(monkeypatch):
    from explorer.training import word_counts

    monkeypatch.setattr(word_counts, "PARALLEL_CHARACTERS", 1_000)  # the corpus is counted in parts
    one = train_task(FakeReporter(), CORPUS, SETTINGS, LIMITS)
    two = train_task(FakeReporter(), CORPUS, SETTINGS, LIMITS, None, 2)
    assert without_seconds(trace_from_json(two["trace_json"])) == without_seconds(
        trace_from_json(one["trace_json"])
    )


def test_a_pool_counts_in_the_cores_its_workers_leave(monkeypatch):
    from explorer.work import pool as pool_module

    monkeypatch.setattr(pool_module, "_cpu_count", lambda: 4)
    assert [WorkerPool(size=size).counting_jobs for size in (1, 2, 3, 4, 8)] == [4, 2, 1, 1, 1]


def test_the_stop_button_ends_training_with_the_merges_so_far_stored_under_a_key_of_its_own(tmp_path):
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=b"s" * 32)
    reporter = FakeReporter(stop_after=1)
    seed = stopped_key_seed(store.secret, "k" * 64)
    spec = {**store.location(), "key": "k" * 64, "stopped_seed": seed, "meta": {}, "keep_corpus": True}
    result = train_task(reporter, CORPUS, SETTINGS, LIMITS, spec)
    assert result["stop_reason"] == "stopped" and result["stopped_by"] == "the Stop button"
    assert 0 < result["steps"] < 400 - 257
    assert store.get("k" * 64) is None  # never under the shared key: it is not the whole run
    assert result["stored_key"] == stopped_run_key(seed, result["steps"]) and result["trace_json"] is None
    entry = store.get(result["stored_key"])
    assert entry.corpus.decode("utf-8") == CORPUS and entry.meta["stopped_by"] == "the Stop button"
    assert trace_from_json(entry.payload.decode("utf-8")).steps == result["steps"]
    # Without a seed (a store spec of an older server) a stopped run comes back whole, unstored.
    reporter = FakeReporter(stop_after=1)
    result = train_task(reporter, CORPUS, SETTINGS, LIMITS, {**store.location(), "key": "k" * 64, "meta": {}})
    assert result["stored_key"] is None and trace_from_json(result["trace_json"]).steps == result["steps"]


def test_the_trace_json_is_built_once_and_handed_over_as_the_bytes_the_store_keeps(tmp_path, monkeypatch):
    built = []
    to_json = MergeHistory.to_json
    monkeypatch.setattr(MergeHistory, "to_json", lambda self: built.append(1) or to_json(self))
    result = train_task(FakeReporter(), CORPUS, SETTINGS, LIMITS)
    assert isinstance(result["trace_json"], bytes) and built == [1]
    assert trace_from_json(result["trace_json"]).to_json().encode("utf-8") == result["trace_json"]
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=b"s" * 32)
    spec = {**store.location(), "key": "b" * 64, "meta": {}, "keep_corpus": False}
    built.clear()
    stored = train_task(FakeReporter(), CORPUS, SETTINGS, LIMITS, spec)
    assert stored["stored_key"] == "b" * 64 and built == [1]
    assert without_seconds(trace_from_json(store.get("b" * 64).payload)) == without_seconds(
        trace_from_json(result["trace_json"])
    )


def test_the_step_limit_of_the_budget_applies():
    limits = {**LIMITS, "max_steps": 10}
    result = train_task(FakeReporter(), CORPUS, SETTINGS, limits)
    assert result["steps"] == 10 and result["stopped_by"] == "the limit of 10 merges"


def test_a_finished_run_is_stored_by_the_worker_and_only_its_key_returned(tmp_path):
    store = SQLiteRunStore(tmp_path / "runs.sqlite3", secret=b"s" * 32)
    key = "e" * 64
    spec = {**store.location(), "key": key, "meta": {"label": "Study in Scarlet"}, "keep_corpus": True}
    result = train_task(FakeReporter(), CORPUS, SETTINGS, LIMITS, spec)
    assert result["stored_key"] == key and result["trace_json"] is None
    entry = store.get(key)
    assert entry.corpus.decode("utf-8") == CORPUS
    assert entry.meta["label"] == "Study in Scarlet" and entry.meta["steps"] == result["steps"]
    expected = train_corpus(CORPUS, RunConfig(CONFIG, ("nfkc",), "byte-level"))
    assert without_seconds(trace_from_json(entry.payload.decode("utf-8"))) == without_seconds(expected)
    train_task(FakeReporter(), CORPUS, SETTINGS, LIMITS, {**spec, "key": "f" * 64, "keep_corpus": False})
    assert store.get("f" * 64).corpus is None  # a built-in sample need not be stored again


def test_bad_training_input_is_one_sentence():
    with pytest.raises(ValueError, match="^The corpus has no words"):
        train_task(FakeReporter(), "\n\n\n", RunConfig(CONFIG, (), "whitespace").to_dict(), LIMITS)
    assert NO_WORDS.endswith(".")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        train_task(FakeReporter(), CORPUS, {**SETTINGS, "algorithm": "bogus"}, LIMITS)
    with pytest.raises(ValueError, match="unknown training setting 'colour'"):
        train_task(FakeReporter(), CORPUS, {**SETTINGS, "colour": "blue"}, LIMITS)


@pytest.fixture(scope="module")
def trained_json() -> str:
    return tokenizer_to_json(tokenizer_from_trace(train_corpus(CORPUS, RunConfig(CONFIG, (), "byte-level"))))


@pytest.mark.parametrize(
    "sample, sampled",
    [
        ({"kind": "whole"}, lambda text: text),
        ({"kind": "first", "max_bytes": 2_000}, lambda text: corpus_prefix(text, 2_000)),
        ({"kind": "lines", "max_bytes": 3_000, "seed": 4}, lambda text: sample_lines(text, 3_000, 4)),
    ],
)
def test_measuring_in_a_task_gives_what_measure_corpus_gives(trained_json, sample, sampled, monkeypatch):
    monkeypatch.setattr(tasks, "MEASURE_CHUNK", 7)  # many chunks: their sums must equal one pass
    column = tokenizer_column(tokenizer_from_json(trained_json), "ours", exported=trained_json)
    lines = split_lines(sampled(CORPUS))
    expected = measure_corpus(column, lines).metrics
    reporter = FakeReporter()
    result = measure_task(reporter, CORPUS, {"name": "ours", "tokenizer_json": trained_json}, sample)
    assert result["metrics"] == dataclasses.asdict(expected)
    assert (
        result["complete"] and result["lines"] == len(lines) and result["characters"] == expected.characters
    )
    assert reporter.reports[-1] == {"lines_done": 7 * ((len(lines) - 1) // 7), "lines": len(lines)}


def test_measuring_a_pretrained_tokenizer_gives_the_in_process_figures():
    lines = split_lines(CORPUS)
    expected = measure_corpus(pretrained_column("gpt2"), lines).metrics
    result = measure_task(FakeReporter(), CORPUS, {"pretrained": "gpt2"}, {"kind": "whole"})
    assert result["metrics"] == dataclasses.asdict(expected)


def test_a_stopped_measurement_says_it_is_incomplete(trained_json):
    result = measure_task(
        FakeReporter(stop_after=0), CORPUS, {"tokenizer_json": trained_json}, {"kind": "whole"}
    )
    assert result["complete"] is False and result["lines"] == 0


def test_bad_measuring_input_is_one_sentence(trained_json):
    with pytest.raises(ValueError, match="unknown sample kind 'some'"):
        measure_task(FakeReporter(), CORPUS, {"tokenizer_json": trained_json}, {"kind": "some"})
    with pytest.raises(ValueError, match="unknown pretrained tokenizer 'gpt5'"):
        measure_task(FakeReporter(), CORPUS, {"pretrained": "gpt5"}, {"kind": "whole"})
    with pytest.raises(ValueError, match="^tokenizer.json: "):
        measure_task(FakeReporter(), CORPUS, {"tokenizer_json": "{"}, {"kind": "whole"})


def test_training_through_the_pool_and_stopping_it():
    # Generous grace: this checks that the trainer sees the cancel and returns its merges, not how
    # fast a worker gets CPU on a shared test machine.
    pool = WorkerPool(size=1, preload=("explorer.work.tasks",), cancel_grace=30, niceness=0)
    try:
        small = pool.submit("small", train_task, CORPUS, SETTINGS, LIMITS)
        assert small.wait(60) and small.state == DONE, small.error
        expected = train_corpus(CORPUS, RunConfig(CONFIG, ("nfkc",), "byte-level"))
        assert without_seconds(trace_from_json(small.result["trace_json"])) == without_seconds(expected)
        letters = random.Random(0)  # 60,000 made-up words: far more merges to learn than we wait for
        words = [
            "".join(letters.choices("abcdefghijklmnopqrstuvwxyz", k=letters.randint(4, 12)))
            for _ in range(60_000)
        ]
        big_settings = RunConfig(TrainerConfig(vocab_size=50_000), (), "whitespace").to_dict()
        big = pool.submit("big", train_task, " ".join(words), big_settings, LIMITS)
        while big.state != RUNNING or big.progress.get("phase") != "training":
            assert not big.wait(0.01), f"the big run ended before it could be stopped: {big.state}"
        big.cancel()
        assert big.wait(60) and big.state == DONE, big.error
        assert big.result["stop_reason"] == "stopped" and big.result["stopped_by"] == "the Stop button"
    finally:
        pool.shutdown()


def test_a_worker_warmed_up_for_measuring_imports_no_pandas():
    """pandas is a quarter second and 40 MB of every worker; measuring needs the figures only."""
    code = (
        "import sys; from explorer.work import tasks; tasks.warm_up('measuring'); "
        "print('explorer.compare' in sys.modules, 'pandas' in sys.modules)"
    )
    output = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert output.stdout.strip() == "True False"


def test_a_warmed_up_worker_measures_without_reading_the_vocabulary_again(monkeypatch):
    from explorer.compare import encoders
    from explorer.pretrained import tiktoken_backend

    tiktoken_backend.load_encoding.cache_clear()
    encoders._byte_lengths.cache_clear()
    tasks.warm_up("gpt2")
    monkeypatch.setattr(tiktoken_backend, "mergeable_ranks", lambda name: pytest.fail(f"{name} read again"))
    result = measure_task(FakeReporter(), CORPUS, {"pretrained": "gpt2"}, {"kind": "whole"})
    assert result["complete"] and result["metrics"]["tokens"] > 0
    assert set(tasks.WARM_UP_STEPS) == {"measuring", "gpt2", "cl100k_base", "o200k_base"}
    with pytest.raises(ValueError, match="unknown warm-up step 'llama3'"):
        tasks.warm_up("llama3")  # the other bundled tokenizers load when their column is first shown


def test_a_count_file_trains_in_a_task_as_its_text_and_a_mismatched_one_is_one_sentence(tmp_path):
    from explorer.corpora.count_files import write_count_file
    from explorer.corpora.counter import ChunkCounter
    from explorer.corpora.counting import Counting

    run = RunConfig.from_dict(SETTINGS)
    counter = ChunkCounter(Counting.of(run))
    counter.add_text(CORPUS)
    write_count_file(tmp_path / "counts.parquet", counter.result())
    data = (tmp_path / "counts.parquet").read_bytes()
    result = train_task(FakeReporter(), {"count_file": data, "name": "counts.parquet"}, SETTINGS, LIMITS)
    assert without_seconds(trace_from_json(result["trace_json"])) == without_seconds(
        train_corpus(CORPUS, run)
    )
    other = RunConfig(CONFIG, (), "byte-level").to_dict()  # no normalizer: not the file's settings
    with pytest.raises(
        ValueError, match=r"^The count file 'counts.parquet' was made with nfkc, .*not this run's"
    ):
        train_task(FakeReporter(), {"count_file": data, "name": "counts.parquet"}, other, LIMITS)
    with pytest.raises(
        ValueError, match=r"^'counts.parquet' is not a count file: it is not a Parquet file\.$"
    ):
        train_task(FakeReporter(), {"count_file": b"not parquet", "name": "counts.parquet"}, SETTINGS, LIMITS)
