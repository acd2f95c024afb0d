"""Benchmarks still run: each bench script's smoke mode (a tiny input, one repeat) ends with status
0 and prints its table. Figures are not checked: a benchmark's figures are for people."""

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
