"""A large upload's way through the app, stage by stage: the CPU seconds each stage of the upload ->
worker -> train -> trace -> store -> page path costs, for the time budget of the worker
(EXPLORER_MAX_SECONDS, docs/serving.md).

    .venv/bin/python bench/bench_upload_stages.py [--mb 50] [--vocab 32000] [--smoke]

The corpus is generated Zipf text whose vocabulary keeps growing (exponent 1.15 over words spelled
in 24 letters, 12 words a line: 50 MB holds 2.1 million distinct words), the hardest ordinary
upload. Byte-level BPE, library flavor, on the engine of EXPLORER_ENGINE (the compiled one by
default). The server's stages run here as the Train page runs them (the file decoded, checked,
digested, pickled to a worker); the worker's task (`explorer.work.tasks.train_task`, storing the
run in a SQLite store of its own) runs in this process too, with the time limit lifted, so that
its stages can be timed apart (`time.process_time`: CPU seconds, Rust threads included, which a
loaded machine inflates far less than wall time); then the server's read of the stored run and its
parse. Prints one row per stage, the trace's and the stored entry's sizes and this process's peak
resident memory (the corpus and its copies included). `--smoke` (what tests/test_bench_smoke.py
runs): 0.05 MB to 400 tokens. Figures only; it asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pickle
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import explorer.train as train_module  # noqa: E402
from explorer.checks import Limits, check_corpus  # noqa: E402
from explorer.runs.run import corpus_digest  # noqa: E402
from explorer.runs.settings import Settings  # noqa: E402
from explorer.runstore import store as store_module  # noqa: E402
from explorer.runstore.sqlite import SQLiteRunStore  # noqa: E402
from explorer.training.bpe import trainer as trainer_module  # noqa: E402
from explorer.training.bpe.merge_history import MergeHistory  # noqa: E402
from explorer.work import tasks  # noqa: E402

LETTERS = np.array(list("abcdefghijklmnoprstuvwyz"))


def zipf_corpus(megabytes: float, seed: int = 51) -> str:
    """Whole lines of Zipf-drawn words, about `megabytes` MB (the first app measurements' corpus)."""
    rng = np.random.default_rng(seed)
    lines, size, spelled = [], 0, {}
    while size < megabytes * 1_000_000:
        words = []
        for rank in rng.zipf(1.15, 200_000).tolist():
            word = spelled.get(rank)
            if word is None:
                number, letters = rank, []
                while True:
                    letters.append(LETTERS[number % 24])
                    number //= 24
                    if number == 0:
                        break
                word = spelled[rank] = "".join(letters)
            words.append(word)
        for first in range(0, len(words), 12):
            line = " ".join(words[first : first + 12]) + "\n"
            lines.append(line)
            size += len(line)
    text = "".join(lines)[: int(megabytes * 1_000_000)]
    return text[: text.rfind("\n") + 1]


class Reporter:
    cancelled = False

    def report(self, **progress) -> None:
        pass

    def should_stop(self) -> bool:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--vocab", type=int, default=32_000)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    megabytes, vocab = (0.05, 400) if args.smoke else (args.mb, args.vocab)
    seconds: dict[str, float] = {}

    def timed(name, function):
        def wrapper(*positional, **named):
            started = time.process_time()
            try:
                return function(*positional, **named)
            finally:
                seconds[name] = seconds.get(name, 0.0) + time.process_time() - started

        return wrapper

    def stage(name, function):
        started = time.process_time()
        result = function()
        seconds[name] = time.process_time() - started
        return result

    data = zipf_corpus(megabytes).encode("utf-8")
    # The worker's stages, timed where the task calls them.
    train_module.count_corpus = timed("worker: count the words", train_module.count_corpus)
    trainer_module._initial_vocabulary = timed(
        "worker: initial vocabulary", trainer_module._initial_vocabulary
    )
    trainer_module.symbol_arrays = timed("worker: words as symbol arrays", trainer_module.symbol_arrays)
    trainer_module.merge_compiled = timed(
        "worker: merges and the trace's columns", trainer_module.merge_compiled
    )
    MergeHistory.to_json = timed("worker: the trace's JSON", MergeHistory.to_json)
    store_module.pack = timed("worker: compression for the store", store_module.pack)

    text = stage("server: the upload decoded", lambda: data.decode("utf-8"))
    limits = Limits.from_env().for_engine(os.environ.get("EXPLORER_ENGINE", "rust"))
    limits = dataclasses.replace(limits, max_seconds=10**6)  # timed apart, never stopped
    stage("server: the corpus checked", lambda: check_corpus(text, limits))
    stage("server: its sha256 (once)", lambda: corpus_digest(text))
    stage(
        "server -> worker: the text pickled",
        lambda: pickle.loads(pickle.dumps(text, pickle.HIGHEST_PROTOCOL)),
    )
    settings = Settings(vocab_size=vocab, pre_tokenizer="byte-level").run_config(limits).to_dict()
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteRunStore(Path(folder) / "runs.sqlite3", max_bytes=10**10, secret=b"s" * 32)
        spec = {**store.location(), "key": "k" * 64, "meta": {}, "keep_corpus": False}
        result = stage(
            "worker: its task in all",
            lambda: tasks.train_task(Reporter(), text, settings, dataclasses.asdict(limits), spec),
        )
        entry = stage("server: the stored run read", lambda: store.get("k" * 64))
        assert entry is not None
        stage("server: the trace parsed", lambda: train_module.trace_from_json(entry.payload))
        stored = store.stored_bytes()
    merges = f"{result['steps']:,} merges ({result['stop_reason']})"
    print(f"{megabytes:g} MB of Zipf text, byte-level BPE {vocab:,}: {merges}")
    print("| stage | CPU seconds |")
    print("|---|---|")
    for name, value in seconds.items():
        print(f"| {name} | {value:.2f} |")
    print(f"trace JSON {len(entry.payload) / 1e6:.1f} MB, stored {stored / 1e6:.1f} MB")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of this process {peak:.0f} MB")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
