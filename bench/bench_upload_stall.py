"""Does a large uploaded tokenizer stall the server? Compare's upload read in the server (as before
issue 20) and in a worker (now), side by side.

    .venv/bin/python bench/bench_upload_stall.py [--entries 500000] [--repeat 1] [--smoke]

For each way, a fresh process opens the app through Streamlit's AppTest (the page script runs in
that process, as in a server), trains the default sample, opens Compare and uploads a generated
BPE tokenizer.json (`--entries` tokens plus about as many merges; 250,000 + 250,000 is 12 MB, the
entry limit's size). Meanwhile a probe thread of the same process wakes every 50 ms, as the
server's event loop does to answer /_stcore/health or another visitor's step slider: how late it
wakes is how long they would wait. Printed per way: the upload's rerun, the probe's median and
largest lateness, and the process's resident memory (VmRSS) before and after.

"server" is the old path, `read_uploads` called in the page's process (patched in for the
measurement); "worker" is the app as it is (explorer.ui.upload_jobs). With the default limits a
file over 500,000 entries is refused before parsing: `--entries` above 250,000 raises
EXPLORER_UPLOAD_TOKENIZER_ENTRIES for the run so it is parsed at all. `--smoke`: a tiny file, one
repeat (tests/unit/test_bench_smoke.py runs it). Figures only; it asserts nothing. The probe is a
thread of the process, not an HTTP request: the stall it measures is the GIL held by the page.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import string
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBE_SECONDS = 0.05
WAYS = ("server", "worker")


def big_tokenizer_json(entries: int) -> bytes:
    """A valid BPE tokenizer.json: every token is a shorter token plus a letter (a merge)."""
    letters = string.ascii_lowercase
    vocab = {letter: index for index, letter in enumerate(letters)}
    merges, frontier = [], list(letters)
    while len(vocab) < entries:
        grown = []
        for parent in frontier:
            for letter in letters:
                if len(vocab) >= entries:
                    break
                vocab[parent + letter] = len(vocab)
                merges.append(f"{parent} {letter}")
                grown.append(parent + letter)
        frontier = grown
    model = {"type": "BPE", "unk_token": None, "vocab": vocab, "merges": merges}
    data = {"version": "1.0", "added_tokens": [], "pre_tokenizer": {"type": "Whitespace"}, "model": model}
    return json.dumps(data).encode()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1000
    return 0.0


class Probe:
    """A thread that sleeps PROBE_SECONDS again and again and records how late it wakes."""

    def __init__(self):
        self.lateness: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            started = time.perf_counter()
            time.sleep(PROBE_SECONDS)
            self.lateness.append(time.perf_counter() - started - PROBE_SECONDS)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def one(way: str, entries: int) -> dict:
    """In this process: train, open Compare, upload the file the `way` way; the figures."""
    from explorer.compare import read_uploads
    from explorer.ui import upload_jobs
    from explorer.ui.state import Widget as W
    from tests.app.helpers import COMPARE, compare_column_bodies, new_app, train

    if way == "server":
        upload_jobs.read_in_worker = lambda uploads, limits=None: read_uploads(uploads)
    data = big_tokenizer_json(entries)
    at = train(new_app())
    at.switch_page(COMPARE).run()
    before = rss_mb()
    with Probe() as probe:
        started = time.perf_counter()
        at.file_uploader(key=W.TOKENIZER_UPLOAD).upload("big-tokenizer.json", data, "application/json").run()
        seconds = time.perf_counter() - started
    shown = any("big-tokenizer.json (uploaded)" in name for name in compare_column_bodies(at))
    return {
        "way": way,
        "megabytes": len(data) / 1e6,
        "seconds": seconds,
        "median_ms": statistics.median(probe.lateness) * 1000,
        "max_ms": max(probe.lateness) * 1000,
        "rss_before": before,
        "rss_after": rss_mb(),
        "shown": shown,
        "errors": [element.value for element in at.error],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=250_000, help="tokens in the generated file")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="a tiny file, one repeat")
    parser.add_argument("--one", choices=WAYS, help=argparse.SUPPRESS)  # a child process's way
    args = parser.parse_args()
    if args.smoke:
        args.entries, args.repeat = 2_000, 1
    if args.one:
        print(json.dumps(one(args.one, args.entries)))
        return
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    if args.entries > 250_000:
        env["EXPLORER_UPLOAD_TOKENIZER_ENTRIES"] = str(3 * args.entries)
        env["EXPLORER_UPLOAD_TOKENIZER_MB"] = "1000"
    print(f"load average {os.getloadavg()[0]:.1f}; a probe every {PROBE_SECONDS * 1000:.0f} ms")
    print(f"{'way':8} {'file MB':>8} {'rerun s':>8} {'median ms':>10} {'max ms':>8} {'RSS MB':>16}  shown")
    for _ in range(args.repeat):
        for way in WAYS:
            command = [sys.executable, __file__, "--one", way, "--entries", str(args.entries)]
            output = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
            row = json.loads(output.stdout.strip().splitlines()[-1])
            print(
                f"{row['way']:8} {row['megabytes']:8.1f} {row['seconds']:8.2f} {row['median_ms']:10.1f} "
                f"{row['max_ms']:8.0f} {row['rss_before']:7.0f} -> {row['rss_after']:5.0f}  "
                f"{row['shown']} {' '.join(row['errors'])}"
            )


if __name__ == "__main__":
    main()
