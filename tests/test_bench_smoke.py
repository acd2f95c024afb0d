"""Every bench/ script runs in its smoke mode (`python bench/X.py --smoke`: a tiny corpus it makes
itself, one repeat, every code path once) and exits 0 having printed its figures, so no benchmark
rots unnoticed. The scripts are found by glob: a new one without a smoke mode fails here. Some
are checked more closely (CHECKS: the rows they must print), and a script with a second mode runs
in that one too (MODES: the Unigram bench's licence prose, the growing-corpus bench's runs of ours
alone).

Marked `slow`; those that start Chromium are marked `browser` too and skipped, with the reason,
without it. What is asserted is that a script ran and printed its rows, never how fast: a
benchmark's figures are for people.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from explorer.training.engines import compiled
from tests import ROOT
from tests.browser.helpers import chromium_missing_reason

BENCH = ROOT / "bench"
# Every script, with what it measures: a new script is added here (the test below says so).
SCRIPTS = {
    "bench_app.py": "the app as a person feels it, in Chromium",
    "bench_corpora.py": "training on prose, code and CJK at 1-20 MB against the library and rustbpe",
    "bench_compare_columns.py": "Compare's first view of each bundled tokenizer's column",
    "bench_encode_steps.py": "the step-by-step view next to a plain encode",
    "bench_growth.py": "training on corpora growing to 10 GB against the library; counting on Dask",
    "bench_encoders.py": "a corpus measurement against the encoder library it runs on, per column kind",
    "bench_live_compare.py": "Compare's live box: last key to six columns, and eight visitors typing",
    "bench_memory_stages.py": "a CLI training's memory after each stage, per distinct word",
    "bench_pretrained.py": "the bundled pretrained tokenizers: first encoding, memory, install size",
    "bench_store.py": "the run store on PostgreSQL against SQLite: one run's put and get",
    "bench_train.py": "BPE and WordPiece training against the `tokenizers` library, same run",
    "bench_unigram.py": "Unigram training against the library and the course's loop",
    "bench_upload_stall.py": "the server's health while a large upload is read",
    "bench_upload_stages.py": "a 50 MB upload's CPU seconds per stage, from upload to parsed run",
    "bench_upload_memory.py": "the server's memory for a 50 MB upload, trained and summarized",
    "bench_workers.py": "the worker pool and the run store",
    "load_test.py": "many visitors training at once on one server",
    "replicas_bench.py": "two replicas behind nginx: a class on one link, a link opened on the other",
    "serving_bench.py": "serving a class: the hosted demo's figures",
    "soak_test.py": "the server's memory over 100 distinct corpora",
    "corpus_growth.py": "(helper) the growing corpus for bench_growth.py",
    "ship_tasks.py": "(helper) worker tasks for bench_workers.py",
    "visitors.py": "(helper) websocket visitors for serving_bench.py",
}
# Helper modules imported by a bench script, not scripts themselves: run when that script runs.
HELPERS = {"corpus_growth.py", "ship_tasks.py", "visitors.py"}


def _upload_stall_rows(stdout: str) -> None:
    """Its two rows, the server's and the worker's, each showing the uploaded column."""
    rows = [line.split() for line in stdout.splitlines() if line.startswith(("server ", "worker "))]
    assert [row[0] for row in rows] == ["server", "worker"], stdout
    assert all(row[-1] == "True" for row in rows), stdout


def _unigram_prose_row(stdout: str) -> None:
    """The 20 KB licence-prose rows, one per engine (8 cells, a ratio and two positive peaks), or
    why they skipped."""
    rows = [line for line in stdout.splitlines() if line.startswith("| 0.02 MB |")]
    assert rows or "skipped 0.02 MB" in stdout, stdout
    engines = []
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 8 and cells[4].endswith("x") and float(cells[5]) > 0 and float(cells[6]) > 0
        engines.append(cells[1])
    assert not rows or engines == (["rust"] if compiled() is not None else []) + ["python"], engines


def _growth_rows(stdout: str) -> None:
    """Our row and the library's, each with seconds and a peak, the same vocabulary and merges, the
    distinct words, and the counting rows measured or saying why they were skipped."""
    rows = {}
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| 1 MB in ") and len(cells) == 5:
            rows[cells[1]] = cells
    for tool in ("ours", "library"):
        assert float(rows[tool][2]) > 0 and float(rows[tool][3]) > 0, stdout
    assert rows["ours"][4].endswith("memory of the library"), stdout
    assert "our vocabulary and merges against the library's: equal (244 merges, 500 tokens)" in stdout, stdout
    assert re.search(r"^1 MB in .*: [\d,]+ distinct words \(pre-tokenized, in our trace\)$", stdout, re.M), (
        stdout
    )
    for tool in ("count", "count local:2"):
        assert tool not in rows or rows[tool][2].startswith("skipped: ") or float(rows[tool][2]) > 0, stdout


def _growth_ours_only(stdout: str) -> None:
    """--tools ours: our row alone, its ratio n/a, the distinct words and no comparison."""
    rows = [line for line in stdout.splitlines() if line.startswith("| 1 MB in ")]
    assert len(rows) == 1 and rows[0].split("|")[2].strip() == "ours" and rows[0].endswith("| n/a |"), stdout
    assert "distinct words" in stdout and "against the library's" not in stdout, stdout


def _sessions_kept_apart(stdout: str) -> None:
    """Two sessions at once, each with its 3 pages checked (Train, Merge history, Vocabulary: the
    smoke run skips Compare) and no other session's corpus seen."""
    rows = [line for line in stdout.splitlines() if line.strip().startswith("#")]
    assert len(rows) == 2 and all(row.endswith("3 pages checked, ok") for row in rows), stdout
    assert "isolation: every session saw only its own marker" in stdout, stdout


def _store_rows(stdout: str) -> None:
    """Both backends' put and get rows and PostgreSQL's added cost (or why PostgreSQL is missing)."""
    names = [" ".join(line.split()[:2]) for line in stdout.splitlines()]
    assert {"sqlite put", "sqlite get"} <= set(names), stdout
    added = {"postgres put", "postgres get", "postgres adds"} <= set(names)
    assert added or "postgres: not installed" in stdout, stdout


def _app_player_rows(stdout: str) -> None:
    """The player's rows: a playback row, and the three Pause rows (click -> step frozen and -> drawn,
    each a median and max in ms, over at least one pause; then how many paused steps equal the URL's
    step and the line's, out of those pauses)."""
    table = [line for line in stdout.splitlines() if line.startswith("| ")]
    assert any(re.match(r"\| Playback at .* \| [\d.]+/s, \d+ merges/s, ", line) for line in table), stdout
    for figure in ("step frozen", "paused step drawn"):
        pattern = rf"\| Pause click -> {figure} \([1-9]\d* pauses at .*\) \| \d+ ms \(max \d+\) \|"
        assert any(re.match(pattern, line) for line in table), stdout
    pattern = r"\| Paused step = URL's step / = the line's \"Merge k of N\" \| \d+/[1-9]\d* / \d+/[1-9]\d* \|"
    assert any(re.match(pattern, line) for line in table), stdout


# (script, extra arguments) -> what its output must hold besides figures
CHECKS = {
    ("bench_app.py", ()): _app_player_rows,
    ("load_test.py", ()): _sessions_kept_apart,
    ("bench_upload_stall.py", ()): _upload_stall_rows,
    ("bench_store.py", ()): _store_rows,
    ("bench_growth.py", ()): _growth_rows,
    ("bench_growth.py", ("--tools", "ours")): _growth_ours_only,
    ("bench_unigram.py", ("--prose",)): _unigram_prose_row,
}
# Scripts with a second mode worth its own smoke run: script -> its extra arguments.
MODES = {"bench_unigram.py": ("--prose",), "bench_growth.py": ("--tools", "ours")}
# Scripts that start `streamlit run app.py` and Chromium.
BROWSER = {
    "bench_app.py",
    "bench_live_compare.py",
    "load_test.py",
    "replicas_bench.py",
    "serving_bench.py",
    "soak_test.py",
}
TIMEOUT_SECONDS = 300


def bench_scripts() -> list:
    runs = []
    for path in sorted(BENCH.glob("*.py")):
        if path.name in HELPERS:  # imported by a script, run with it: nothing of its own to run
            continue
        marks = [pytest.mark.slow, *([pytest.mark.browser] if path.name in BROWSER else [])]
        runs.append(pytest.param(path.name, (), marks=marks, id=path.stem))
        if path.name in MODES:
            extra = MODES[path.name]
            runs.append(pytest.param(path.name, extra, marks=marks, id=path.stem + "".join(extra)))
    return runs


def test_every_bench_script_is_listed_with_what_it_measures():
    assert sorted(path.name for path in BENCH.glob("*.py")) == sorted(SCRIPTS)


@pytest.mark.parametrize(("name", "extra"), bench_scripts())
def test_bench_script_runs_in_smoke_mode_and_prints_figures(name, extra, tmp_path):
    if name in BROWSER and chromium_missing_reason():
        pytest.skip(chromium_missing_reason())
    environ = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        HF_HUB_OFFLINE="1",
        EXPLORER_STORE_PATH=str(tmp_path / "runs.sqlite3"),
    )
    result = subprocess.run(
        [sys.executable, str(BENCH / name), *extra, "--smoke"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    output = f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"
    assert result.returncode == 0, output
    assert result.stdout.strip(), output
    assert not result.stdout.startswith("skipped"), output  # a smoke run needs no corpus from ../shared
    check = CHECKS.get((name, extra))
    if check:
        check(result.stdout)
