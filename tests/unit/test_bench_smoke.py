"""The Unigram benchmark's licence-prose case runs end to end (bench/bench_unigram.py --prose
--smoke: 20 KB, vocab 400, one run each): its table row is printed, or it says why it skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
