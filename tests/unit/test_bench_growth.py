"""bench/bench_growth.py and its corpus (bench/corpus_growth.py): the same files for a seed whatever
the corpus's size, cached, lines of 5-30 tokens that end with "\\n", a vocabulary that keeps
growing with the text (cycled text would not); a run past its time limit killed with the processes
it started, and how a run failed said in one sentence rather than raised; the vocabulary and
merges compared."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from tests import ROOT


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    spec.loader.exec_module(module)
    sys.path[:] = path  # bench_growth puts bench/ first, for its own imports
    return module


@pytest.fixture(scope="module")
def growth():
    sys.modules["corpus_growth"] = load("corpus_growth")  # its jobs pickle write_file by module name
    yield sys.modules["corpus_growth"]
    del sys.modules["corpus_growth"]


@pytest.fixture(scope="module")
def bench():
    return load("bench_growth")


def test_a_seed_gives_the_same_files_whatever_the_size_and_a_rerun_writes_nothing(growth, tmp_path):
    whole = growth.corpus_files(tmp_path / "a", 300_000, 100_000, seed=3)
    shorter = growth.corpus_files(tmp_path / "b", 250_000, 100_000, seed=3, jobs=2)
    assert [path.read_bytes() for path in whole[:2]] == [path.read_bytes() for path in shorter[:2]]
    cut = shorter[2].read_bytes()
    assert 40_000 < len(cut) <= 50_000 and whole[2].read_bytes().startswith(cut) and cut.endswith(b"\n")
    assert all(90_000 < path.stat().st_size <= 100_000 for path in whole)
    assert (
        growth.corpus_files(tmp_path / "c", 100_000, 100_000, seed=4)[0].read_bytes() != whole[0].read_bytes()
    )

    whole[0].write_bytes(b"kept\n")  # the cache is the file's name: a rerun reads what is there
    assert growth.corpus_files(tmp_path / "a", 300_000, 100_000, seed=3) == whole
    assert whole[0].read_bytes() == b"kept\n"
    assert not list((tmp_path / "a").glob("*.partial"))


def test_lines_hold_5_to_30_tokens_and_end_with_a_line_break(growth, tmp_path):
    [path] = growth.corpus_files(tmp_path, 200_000, 200_000, seed=0)
    data = path.read_bytes()
    assert b"\r" not in data and data.endswith(b"\n")
    lines = data.decode("utf-8").split("\n")[:-1]
    assert all(
        5 <= len(line.split(" ")) <= 30 for line in lines
    )  # one space between tokens, none at the ends
    assert all(not line[0].isalpha() or line[0].isupper() for line in lines)
    assert any("é" in line for line in lines) and any(line.endswith(".") for line in lines)
    assert any(token.isdigit() for line in lines for token in line.split())


def test_the_vocabulary_keeps_growing_with_the_text(growth, tmp_path):
    paths = growth.corpus_files(tmp_path, 2_000_000, 500_000, seed=0)
    distinct, seen = [], set()
    for path in paths:
        seen.update(path.read_text(encoding="utf-8").split())
        distinct.append(len(seen))
    # Heaps' law with exponent about 1/1.5: x1.26 per file added to 2, x1.21 to 3, x1.17 to 4
    assert all(later > 1.1 * earlier for earlier, later in zip(distinct, distinct[1:])), distinct


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_run_past_its_time_limit_is_killed_with_the_processes_it_started(bench):
    # The grandchild holds the pipe of stdout open, so measure returns when it ends: killed with its
    # group after the 1 s limit, or (without the group kill) by its own alarm after 60 s.
    grandchild = "import signal; signal.alarm(60); signal.pause()"
    waits = "import signal, subprocess, sys; "
    waits += f"subprocess.Popen([sys.executable, '-c', {grandchild!r}]); signal.pause()"
    measured = bench.measure(python(waits), timeout=1)
    assert measured.timed_out and measured.seconds < 60
    assert bench.failure(measured, 1).startswith("did not finish in 1 s (peak ")


def test_how_a_run_failed_is_one_sentence(bench):
    killed = bench.measure(python("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"), timeout=60)
    assert re.fullmatch(
        r"out of memory \(killed by signal 9\) at \d+\.\d GB after \d+ s", bench.failure(killed, 60)
    )
    aborted = bench.measure(python("import os; os.abort()"))
    assert re.fullmatch(
        r"killed by signal 6 \(SIGABRT\) at \d+\.\d GB after \d+ s: ", bench.failure(aborted, None)
    )
    exited = bench.measure(python("import sys; sys.exit('memory allocation of 476 GiB failed')"))
    assert re.fullmatch(
        r"exited with status 1 at \d+\.\d GB after \d+ s: memory allocation of 476 GiB failed",
        bench.failure(exited, None),
    )
    finished = bench.measure(python("print('done')"), timeout=60)
    assert bench.failure(finished, 60) is None and finished.output == "done\n" and finished.peak_mb > 0


def test_the_vocabularies_and_merges_are_compared(bench, tmp_path):
    def tokenizer(name: str, merges: list, vocab: dict) -> Path:
        path = tmp_path / name
        path.write_text(json.dumps({"model": {"vocab": vocab, "merges": merges}}), encoding="utf-8")
        return path

    vocab = {"a": 0, "b": 1, "ab": 2, "abb": 3}
    library = tokenizer("library.json", [["a", "b"], ["ab", "b"]], vocab)
    assert bench.same_result(tokenizer("ours.json", ["a b", "ab b"], vocab), library) == (
        "equal (2 merges, 4 tokens)"
    )
    assert bench.same_result(tokenizer("ours.json", [["a", "b"], ["b", "b"]], vocab), library) == (
        "differ at merge 2 (ours 'b b', the library's 'ab b')"
    )
    assert bench.same_result(tokenizer("ours.json", [["a", "b"]], vocab), library) == (
        "differ: 1 merges against the library's 2"
    )
    assert bench.same_result(
        tokenizer("ours.json", [["a", "b"], ["ab", "b"]], {**vocab, "abb": 4}), library
    ) == ("same 2 merges, vocabularies differ")
