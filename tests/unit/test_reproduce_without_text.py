"""Reproduce in Python for a run without running text (explorer.views.reproduce_views): an uploaded
count file's program checks the file's SHA-256 and trains from its counts, a host's count file's
or text file's checks the size the server read; each printed program, run in a fresh interpreter,
writes our tokenizer.json (and the API's our trace), and refuses a file that is not the run's. The
library's code is not offered for counts (it trains from text only), nor Compare's program for
such a run's column (it trains the run from text)."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from explorer import tokenizer_from_trace, tokenizer_to_json, train_corpus
from explorer.checks import Limits
from explorer.compare import TokenizerColumn
from explorer.corpora.count_files import write_count_file
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.runs.run import Run, RunKey, make_run
from explorer.runs.settings import Settings
from explorer.samples import SAMPLES
from explorer.training.trainers import train_counted
from explorer.views import reproduce_views as views
from tests import ROOT

TEXT = SAMPLES["hf-course"].text * 3
SETTINGS = Settings(vocab_size=120, normalizers=("nfkc",), reading="lines-with-endings")


def run_program(code: str, folder: Path) -> subprocess.CompletedProcess:
    (folder / "program.py").write_text(code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "program.py"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def counted_run(folder: Path, origin_of) -> Run:
    """A run trained from a count file of TEXT written in `folder`, its origin from the file."""
    config = SETTINGS.run_config(Limits())
    counter = ChunkCounter(Counting.of(config))
    counter.add_text(TEXT)
    counts = counter.result()
    write_count_file(folder / "counts.parquet", counts)
    history = train_counted(counts.words, counts.figures, config)
    return make_run(
        history,
        key=RunKey("f" * 64, SETTINGS),
        corpus_label="counts.parquet",
        characters=0,
        perceived_characters=0,
        from_counts=True,
        origin=origin_of(),
    )


def assert_ours(folder: Path, run: Run, with_trace: bool = True) -> None:
    ours = tokenizer_to_json(tokenizer_from_trace(run.history), pretty=True)
    assert (folder / "tokenizer.json").read_text(encoding="utf-8") == ours
    if with_trace:
        written, expected = json.loads((folder / "trace.json").read_text()), json.loads(run.history.to_json())
        written.pop("seconds"), expected.pop("seconds")
        assert written == expected


def test_an_uploaded_count_files_program_checks_its_sha256_and_trains_our_tokenizer(tmp_path):
    def origin():
        data = (tmp_path / "counts.parquet").read_bytes()
        return {"count_file": {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}}

    run = counted_run(tmp_path, origin)
    assert views.styles(run) == ["api"]  # the library trains from text, not counts
    assert "checks the file's SHA-256" in views.corpus_note(run)
    done = run_program(views.program(run, "api"), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_ours(tmp_path, run)
    for cell in json.loads(views.notebook(run))["cells"]:
        ast.parse("".join(cell["source"])) if cell["cell_type"] == "code" else None

    (tmp_path / "tokenizer.json").unlink()
    with open(tmp_path / "counts.parquet", "ab") as changed:
        changed.write(b"\0")
    refused = run_program(views.program(run, "api"), tmp_path)
    assert refused.returncode == 1 and "This is not the run's count file: its SHA-256 is" in refused.stderr
    assert not (tmp_path / "tokenizer.json").exists()


def test_a_host_count_files_program_checks_its_size_and_trains_our_tokenizer(tmp_path):
    def origin():
        size = (tmp_path / "counts.parquet").stat().st_size
        return {"host_file": {"name": "counts.parquet", "size": size, "mtime_ns": 1}}

    run = counted_run(tmp_path, origin)
    assert "checks its size" in views.corpus_note(run)
    done = run_program(views.program(run, "api"), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert_ours(tmp_path, run)


def test_a_host_text_files_programs_check_its_size_and_train_our_tokenizer(tmp_path):
    (tmp_path / "corpus.txt").write_text(TEXT, encoding="utf-8")
    settings = Settings(vocab_size=120)  # the app reads a host's text file in lines
    history = train_corpus([str(tmp_path / "corpus.txt")], settings.run_config(Limits()))
    origin = {
        "host_file": {"name": "corpus.txt", "size": (tmp_path / "corpus.txt").stat().st_size, "mtime_ns": 1}
    }
    run = make_run(
        history,
        key=RunKey("e" * 64, settings),
        corpus_label="corpus.txt",
        characters=0,
        perceived_characters=0,
        sample_key="host:corpus.txt",
        from_counts=True,
        origin=origin,
    )
    assert views.styles(run) == ["library", "api"] and "checks its size" in views.corpus_note(run)
    for style in ("library", "api"):
        done = run_program(views.program(run, style), tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        assert_ours(tmp_path, run, with_trace=style == "api")


def test_compares_program_leaves_out_a_run_without_text_and_names_it(tmp_path):
    def origin():
        return {"count_file": {"sha256": "0" * 64, "size": 1}}

    run = counted_run(tmp_path, origin)
    run.store_key = "a" * 64
    column = TokenizerColumn(run.name, lambda text: [], key=run.column_key)
    assert views.compare_columns([column], [run], {}) == ([], [run.name])
