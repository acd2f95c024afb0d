"""Every bench/ script runs in its smoke mode (`python bench/X.py --smoke`: a tiny corpus it makes
itself, one repeat, every code path once) and exits 0 having printed its figures, so no benchmark
rots unnoticed. The scripts are found by glob: a new one without a smoke mode fails here.

Marked `slow`; those that start Chromium are marked `browser` too and skipped, with the reason,
without it. What is asserted is that a script ran, never how fast: a benchmark prints figures.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import ROOT
from tests.browser.helpers import chromium_missing_reason

BENCH = ROOT / "bench"
# Every script, with what it measures: a new script is added here (the test below says so).
SCRIPTS = {
    "bench_app.py": "the app as a person feels it, in Chromium",
    "bench_corpora.py": "training on prose, code and CJK at 1-20 MB against the library and rustbpe",
    "bench_compare_columns.py": "Compare's first view of each bundled tokenizer's column",
    "bench_encode_steps.py": "the step-by-step view next to a plain encode",
    "bench_encoders.py": "a corpus measurement against the encoder library it runs on, per column kind",
    "bench_live_compare.py": "Compare's live box: last key to six columns, and eight visitors typing",
    "bench_pretrained.py": "the bundled pretrained tokenizers: first encoding, memory, install size",
    "bench_train.py": "BPE and WordPiece training against the `tokenizers` library, same run",
    "bench_unigram.py": "Unigram training against the library and the course's loop",
    "bench_upload_stall.py": "the server's health while a large upload is read",
    "bench_workers.py": "the worker pool and the run store",
    "load_test.py": "many visitors training at once on one server",
    "serving_bench.py": "serving a class: the hosted demo's figures",
    "soak_test.py": "the server's memory over 100 distinct corpora",
    "ship_tasks.py": "(helper) worker tasks for bench_workers.py",
    "visitors.py": "(helper) websocket visitors for serving_bench.py",
}
# Helper modules imported by a bench script, not scripts themselves: run when that script runs.
HELPERS = {
    "ship_tasks.py": "worker tasks imported by bench_workers.py",
    "visitors.py": "websocket visitors imported by serving_bench.py",
}
# Scripts whose smoke run is known to fail, and why: each is a bug to fix, then to delete from here.
KNOWN_BROKEN: dict[str, str] = {
    "bench_app.py": "the Merge history player can blank the tab (Streamlit's frontend throws 'Cannot set "
    "a node at a delta path' when a tick of the player's run_every fragment races the Pause rerun); "
    "its smoke run failed both tries in two CI runs on 2026-11-26: skipped until the player is fixed",
}
# Scripts smoke-run by a test of their own, which checks more than the exit status.
OWN_TEST = {"bench_upload_stall.py": "tests/unit/test_bench_smoke.py checks its two rows"}
# Scripts that start `streamlit run app.py` and Chromium.
BROWSER = {"bench_app.py", "bench_live_compare.py", "load_test.py", "serving_bench.py", "soak_test.py"}
TIMEOUT_SECONDS = 300


def bench_scripts() -> list:
    return [
        pytest.param(
            path.name,
            marks=[pytest.mark.slow, *([pytest.mark.browser] if path.name in BROWSER else [])],
            id=path.stem,
        )
        for path in sorted(BENCH.glob("*.py"))
    ]


def test_every_bench_script_is_listed_with_what_it_measures():
    assert sorted(path.name for path in BENCH.glob("*.py")) == sorted(SCRIPTS)


@pytest.mark.parametrize("name", bench_scripts())
def test_bench_script_runs_in_smoke_mode_and_prints_figures(name, tmp_path):
    if name in HELPERS:
        pytest.skip(f"a helper module, not a script: {HELPERS[name]}")
    if name in OWN_TEST:
        pytest.skip(f"smoke-run by its own test: {OWN_TEST[name]}")
    if name in KNOWN_BROKEN:
        pytest.skip(f"known broken: {KNOWN_BROKEN[name]}")
    if name in BROWSER and chromium_missing_reason():
        pytest.skip(chromium_missing_reason())
    environ = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        HF_HUB_OFFLINE="1",
        EXPLORER_STORE_PATH=str(tmp_path / "runs.sqlite3"),
    )
    result = subprocess.run(
        [sys.executable, str(BENCH / name), "--smoke"],
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
