"""Does a large uploaded tokenizer stall the server? Compare's upload read in the server (as before
issue 20) and in a worker (now), side by side.

    .venv/bin/python bench/bench_upload_stall.py [--entries 500000] [--repeat 1] [--smoke]
    .venv/bin/python bench/bench_upload_stall.py --real-server [--entries 250000]
    .venv/bin/python bench/bench_upload_stall.py --train-upload-memory [--visitors 3] [--corpus-mb 49]

`--real-server`: a real `streamlit run app.py` and Chromium: while one visitor uploads the file on
Compare, /_stcore/health is polled over HTTP every 50 ms and a second visitor presses ArrowRight on
Merge history's step slider (key press to merge line updated); both also measured before, idle.

`--train-upload-memory`: a real `streamlit run app.py` (the launch a host runs) and
Chromium: each visitor in turn uploads a generated Japanese corpus of `--corpus-mb` MB on the Train
page, waits for its note, clicks "Train on the first 4.0 MB" and waits for the run; then every tab
is closed, and once Streamlit's disconnected-session TTL (120 s) is over another visitor opens the
page and leaves (Streamlit drops disconnected sessions only when its store of them is next written:
when a visitor leaves). Printed: the server process's resident memory (VmRSS, the workers not
counted) before, after a first visitor who trains the default sample and leaves (no upload),
after each visitor, over the minute after the tabs closed (the app lets go of a
closed tab's upload 30 s after it left: explorer.ui.common.abandoned) and after the other visitor
left.

For each way, a fresh process opens the app through Streamlit's AppTest (the page script runs in
that process, as in a server), trains the default sample, opens Compare and uploads a generated
BPE tokenizer.json (`--entries` tokens plus about as many merges; 250,000 + 250,000 is 12 MB, the
entry limit's size). Meanwhile a probe thread of the same process wakes every 50 ms, as the
server's event loop does to answer /_stcore/health or another visitor's step slider: how late it
wakes is how long they would wait. Printed per way: the upload's rerun, the probe's median and
largest lateness, and the process's resident memory (VmRSS) before and after.

"server" is the old path, `read_uploads` called in the page's process (patched in for the
measurement); "worker" is the app as it is (explorer.session.upload_jobs). With the default limits a
file over 500,000 entries is refused before parsing: `--entries` above 250,000 raises
EXPLORER_UPLOAD_TOKENIZER_ENTRIES for the run so it is parsed at all. `--smoke` (what
tests/test_bench_smoke.py runs): a tiny file, one repeat, both ways in one fresh process, one after
the other, each in a new AppTest session (its memory figures mean little). Figures only; it asserts
nothing. The probe is a thread of the process, not an HTTP request: the stall it measures is the GIL
held by the page.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PROBE_SECONDS = 0.05
SESSION_TTL_SECONDS = 120  # Streamlit's server.disconnectedSessionTTL, which the launch leaves as it is
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
    from explorer.session import upload_jobs
    from explorer.ui.common.state import Widget as W
    from tests.app.helpers import COMPARE, compare_column_bodies, new_app, train

    def read_here(uploads, limits=None):  # the old path: the page's process reads the file
        return read_uploads(uploads)

    old_path = mock.patch.object(upload_jobs, "read_in_worker", read_here)
    with old_path if way == "server" else contextlib.nullcontext():
        data = big_tokenizer_json(entries)
        at = train(new_app())
        at.switch_page(COMPARE).run()
        before = rss_mb()
        with Probe() as probe:
            started = time.perf_counter()
            uploader = at.file_uploader(key=W.TOKENIZER_UPLOAD)
            uploader.upload("big-tokenizer.json", data, "application/json").run()
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


# ---------------------------------------------------------------- a real server, over HTTP

COURSE_LINK = "algorithm=bpe&flavor=course&vocab_size=45&sample=hf-course"
STEP_INPUT = 'input[type="range"][aria-label="Step (merges applied)"]'


class HealthProbe(threading.Thread):
    """GET /_stcore/health every PROBE_SECONDS; the seconds each answer took, while `recording`."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url = url + "/_stcore/health"
        self.seconds: list[float] = []
        self.recording = threading.Event()
        self.done = threading.Event()

    def run(self) -> None:
        import urllib.request

        while not self.done.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=30) as answer:
                    answer.read()
            except OSError:  # the server is stopping
                return
            if self.recording.is_set():
                self.seconds.append(time.perf_counter() - started)
            time.sleep(PROBE_SECONDS)


def _step_delay(page) -> float:
    """One ArrowRight on the step slider to the merge line updated, in seconds."""
    before = page.locator(".merge-summary").inner_text()
    started = time.perf_counter()
    slider = page.locator(STEP_INPUT)
    at_end = int(slider.input_value()) >= int(slider.get_attribute("max") or 0)
    page.keyboard.press("Home" if at_end else "ArrowRight")
    page.wait_for_function(
        "previous => (document.querySelector('.merge-summary')?.innerText || '') !== previous",
        arg=before,
        timeout=60_000,
    )
    return time.perf_counter() - started


def real_server(entries: int) -> None:
    """A real `streamlit run app.py`: visitor A uploads the generated tokenizer.json on Compare in
    Chromium while /_stcore/health is polled over HTTP and visitor B moves Merge history's step
    slider; the same figures with nothing uploading first."""
    from tests.browser.helpers import chromium, streamlit_server, wait_idle

    with (
        tempfile.TemporaryDirectory(prefix="upload-stall-") as folder,
        chromium() as browser,
        streamlit_server("bench-upload-stall") as url,
    ):
        upload = Path(folder) / "big-tokenizer.json"
        upload.write_bytes(big_tokenizer_json(entries))
        size = upload.stat().st_size / 1e6
        scrubber = browser.new_context().new_page()
        scrubber.goto(f"{url}/Merge_history?{COURSE_LINK}", wait_until="domcontentloaded")
        scrubber.locator(STEP_INPUT).wait_for(timeout=120_000)
        wait_idle(scrubber)
        uploader = browser.new_context().new_page()
        uploader.goto(f"{url}/Compare?{COURSE_LINK}", wait_until="domcontentloaded")
        uploader.get_by_text("Upload a tokenizer").first.wait_for(timeout=120_000)
        wait_idle(uploader)
        uploader.get_by_text("Upload a tokenizer").first.click()
        probe = HealthProbe(url)
        probe.start()
        scrubber.locator(STEP_INPUT).focus()
        probe.recording.set()
        idle_steps = [_step_delay(scrubber) for _ in range(8)]
        probe.recording.clear()
        idle_health, probe.seconds = probe.seconds, []
        column = uploader.locator('.compare-column[data-tokenizer*="big-tokenizer.json"]')
        started = time.perf_counter()
        probe.recording.set()
        uploader.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
        busy_steps = []
        while column.count() == 0 and time.perf_counter() - started < 120:
            scrubber.locator(STEP_INPUT).focus()
            busy_steps.append(_step_delay(scrubber))
        shown_after = time.perf_counter() - started
        column_shown = column.count() > 0
        probe.recording.clear()
        probe.done.set()
        busy_health = probe.seconds

    def figures(values: list[float]) -> str:
        if not values:
            return "none"
        median, largest = statistics.median(values) * 1000, max(values) * 1000
        return f"median {median:.0f} ms, max {largest:.0f} ms ({len(values)})"

    print(f"a real server: {size:.1f} MB tokenizer.json ({entries:,} tokens) uploaded on Compare in Chromium")
    shown = f"{shown_after:.1f} s" if column_shown else f"not within {shown_after:.0f} s"
    print(f"  upload to its column shown: {shown}")
    print(f"  /_stcore/health   idle: {figures(idle_health)}; during the upload: {figures(busy_health)}")
    print(
        f"  another visitor's step slider (key to merge line)   idle: {figures(idle_steps)}; during: "
        f"{figures(busy_steps)}"
    )


def japanese_corpus(megabytes: float) -> bytes:
    """Whole lines of Japanese prose with a number each, at most `megabytes` MB of UTF-8."""
    line = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。{0}\n"
    count = int(megabytes * 1e6 / len(line.format(0).encode()))
    data = "".join(line.format(index) for index in range(count)).encode()[: int(megabytes * 1e6)]
    return data[: data.rfind(b"\n") + 1]


def server_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1000
    return 0.0


def train_upload_memory(visitors: int, corpus_mb: float) -> None:
    """See the module docstring (`--train-upload-memory`)."""
    from tests.browser.helpers import SERVER_PROCESSES, chromium, streamlit_server, wait_idle

    with (
        tempfile.TemporaryDirectory(prefix="train-upload-") as folder,
        chromium() as browser,
        streamlit_server("bench-train-upload") as url,
    ):
        pid = SERVER_PROCESSES[url].pid
        upload = Path(folder) / "neko.txt"
        upload.write_bytes(japanese_corpus(corpus_mb))
        size = upload.stat().st_size / 1e6
        print(
            f"a real server: {visitors} visitors upload {size:.1f} MB of Japanese on the Train page in turn"
        )
        print(f"  server RSS at start: {server_rss_mb(pid):.0f} MB")
        # What the server holds without any upload: the pages' modules imported, a sample trained.
        context = browser.new_context()
        page = context.new_page()
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_role("button", name="Train", exact=True).click()
        page.get_by_text("Merges learned").first.wait_for(timeout=600_000)
        wait_idle(page)
        context.close()
        print(
            f"  server RSS after a visitor trained the default sample and left: {server_rss_mb(pid):.0f} MB"
        )
        contexts = []
        for visitor in range(visitors):
            context = browser.new_context()
            contexts.append(context)
            page = context.new_page()
            page.goto(url, wait_until="domcontentloaded")
            page.get_by_text("Or upload a .txt file").first.wait_for(timeout=120_000)
            wait_idle(page)
            started = time.perf_counter()
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
            page.get_by_text("Using the uploaded file").wait_for(timeout=600_000)
            wait_idle(page, timeout=600)
            noted = time.perf_counter() - started
            started = time.perf_counter()
            page.get_by_role("button", name="Train on the first 4.0 MB").click()
            page.get_by_text("Merges learned").first.wait_for(timeout=600_000)
            trained = time.perf_counter() - started
            print(
                f"  visitor {visitor + 1}: upload to note {noted:.1f} s, click to result {trained:.1f} s; "
                f"server RSS {server_rss_mb(pid):.0f} MB"
            )
        for context in contexts:
            context.close()
        closed = time.monotonic()
        readings = []
        for seconds in (5, 15, 30, 45, 60):
            time.sleep(max(0.0, closed + seconds - time.monotonic()))
            readings.append(f"{seconds} s: {server_rss_mb(pid):.0f} MB")
        print(f"  server RSS after every tab closed: {'; '.join(readings)}")
        # Streamlit drops a disconnected session once its TTL is over, but only when its store of
        # disconnected sessions is next written: when another visitor leaves.
        time.sleep(max(0.0, closed + SESSION_TTL_SECONDS + 5 - time.monotonic()))
        context = browser.new_context()
        page = context.new_page()
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_text("Or upload a .txt file").first.wait_for(timeout=120_000)
        wait_idle(page)
        context.close()
        left = time.monotonic()
        readings = []
        for seconds in (5, 15, 30):
            time.sleep(max(0.0, left + seconds - time.monotonic()))
            readings.append(f"{seconds} s: {server_rss_mb(pid):.0f} MB")
        print(f"  server RSS after another visitor came and left: {'; '.join(readings)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=250_000, help="tokens in the generated file")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="a tiny file, one repeat")
    parser.add_argument("--one", nargs="+", choices=WAYS, help=argparse.SUPPRESS)  # a child process's ways
    parser.add_argument(
        "--real-server",
        action="store_true",
        help="a real server over HTTP: /_stcore/health and another visitor's step slider during an upload",
    )
    parser.add_argument(
        "--train-upload-memory",
        action="store_true",
        help="a real server: its memory after corpus uploads on the Train page and after the tabs closed",
    )
    parser.add_argument("--visitors", type=int, default=3, help="--train-upload-memory: visitors in turn")
    parser.add_argument("--corpus-mb", type=float, default=49, help="--train-upload-memory: the file's size")
    args = parser.parse_args()
    if args.train_upload_memory:
        train_upload_memory(args.visitors, args.corpus_mb)
        return
    if args.real_server:
        real_server(args.entries)
        return
    if args.smoke:
        args.entries, args.repeat = 2_000, 1
    if args.one:
        for way in args.one:
            print(json.dumps(one(way, args.entries)), flush=True)
        return
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    if args.entries > 250_000:
        env["EXPLORER_UPLOAD_TOKENIZER_ENTRIES"] = str(3 * args.entries)
        env["EXPLORER_UPLOAD_TOKENIZER_MB"] = "1000"
    print(f"load average {os.getloadavg()[0]:.1f}; a probe every {PROBE_SECONDS * 1000:.0f} ms")
    print(f"{'way':8} {'file MB':>8} {'rerun s':>8} {'median ms':>10} {'max ms':>8} {'RSS MB':>16}  shown")
    children = [WAYS] if args.smoke else [(way,) for way in WAYS]  # the ways each fresh process runs
    for _ in range(args.repeat):
        for ways in children:
            command = [sys.executable, __file__, "--one", *ways, "--entries", str(args.entries)]
            output = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
            for line in output.stdout.strip().splitlines()[-len(ways) :]:
                row = json.loads(line)
                print(
                    f"{row['way']:8} {row['megabytes']:8.1f} {row['seconds']:8.2f} {row['median_ms']:10.1f} "
                    f"{row['max_ms']:8.0f} {row['rss_before']:7.0f} -> {row['rss_after']:5.0f}  "
                    f"{row['shown']} {' '.join(row['errors'])}"
                )


if __name__ == "__main__":
    main()
