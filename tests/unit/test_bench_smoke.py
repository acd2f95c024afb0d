"""Benchmarks still run, checked more closely than tests/test_bench_smoke.py's exit status: the
upload-stall bench's two rows, and the Unigram bench's licence-prose case (--prose --smoke: 20 KB,
vocab 400, one run each), whose table row is printed or which says why it skipped. Figures are not
checked: a benchmark's figures are for people."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import ROOT

pytestmark = pytest.mark.slow


def test_the_upload_stall_bench_runs_in_its_smoke_mode():
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    done = subprocess.run(
        [sys.executable, "bench/bench_upload_stall.py", "--smoke"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith(("server ", "worker "))]
    assert [row[0] for row in rows] == ["server", "worker"]
    assert all(row[-1] == "True" for row in rows)  # the uploaded column is shown both ways


def test_the_unigram_prose_benchmark_runs_in_smoke_mode():
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_unigram.py"), "--prose", "--smoke"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| 0.02 MB |")]
    assert rows or "skipped 0.02 MB" in result.stdout, result.stdout
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 7 and cells[3].endswith("x") and float(cells[4]) > 0 and float(cells[5]) > 0
