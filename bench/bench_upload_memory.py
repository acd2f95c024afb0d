"""The server's memory for a large upload: an AppTest session (the server's side of a visitor, in
this process; training in the pool's worker processes) uploads generated Zipf text, trains it and
shows its summary; this process's resident memory after each step, and its peak.

    .venv/bin/python bench/bench_upload_memory.py [--mb 50] [--vocab 32000] [--smoke]

The corpus is bench_upload_stages.py's (its vocabulary keeps growing: 50 MB holds 2.1 million
distinct words). The run store is a fresh SQLite file and the worker's time limit is lifted, so
that the whole run is trained and parsed. Each row is VmRSS after the step and VmHWM during it
(reset before each step through /proc/self/clear_refs); the last line is the highest of those
after the corpus was made, the figure docs/serving.md gives against the server's budget. The process's own
baseline is in it too: Streamlit, the pages' imports and the Compare columns warmed in a thread.
`--smoke` (what tests/test_bench_smoke.py runs): 0.05 MB to 400 tokens.

What it does not do: time anything (bench_upload_stages.py does), or measure the workers.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _memory() -> tuple[int, int]:
    """(VmRSS, VmHWM) of this process in MB; the peak is reset for the next step."""
    figures = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                figures[name] = int(value.split()[0]) // 1024
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # VmHWM back to the current RSS
    except OSError:
        pass
    return figures["VmRSS"], figures["VmHWM"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--vocab", type=int, default=32_000)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    megabytes, vocab = (0.05, 400) if args.smoke else (args.mb, args.vocab)
    folder = tempfile.mkdtemp(prefix="bench-upload-memory-")
    os.environ.update(EXPLORER_STORE_PATH=str(Path(folder) / "runs.sqlite3"), EXPLORER_MAX_SECONDS="1000000")
    from bench_upload_stages import zipf_corpus

    from explorer.ui.common.state import Widget as W
    from tests.app.helpers import joined, metrics, new_app, run_of, settle

    data = zipf_corpus(megabytes).encode("utf-8")
    rows = [("the corpus generated (bytes, here)", *_memory())]
    at = new_app()
    rows.append(("the Train page opened", *_memory()))
    at.file_uploader(key=W.UPLOAD).upload("corpus.txt", data, "text/plain").run()
    del data
    rows.append(("the upload read (decoded, checked)", *_memory()))
    at.number_input(key=W.VOCAB_NUMBER).set_value(vocab).run()
    at.button(key=W.TRAIN).click().run()
    settle(at, 100_000)
    rows.append(("trained, its run read back, summary shown", *_memory()))
    at.run()
    rows.append(("the page drawn again", *_memory()))
    run = run_of(at)
    errors = joined(at, "error")
    if run is None or errors:
        raise SystemExit(f"no run: {errors}")
    print(f"{megabytes:g} MB of Zipf text, byte-level BPE {vocab:,}: {metrics(at)['Merges learned']} merges,")
    print(f"{run.distinct_words:,} distinct words")
    print("| step | resident after (MB) | peak during (MB) |")
    print("|---|---|---|")
    for name, resident, peak in rows:
        print(f"| {name} | {resident} | {peak} |")
    # The session's peak: the steps after the corpus was made (making it peaks at 11x its size).
    print(f"peak resident memory of the session {max(peak for _, _, peak in rows[1:])} MB")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
