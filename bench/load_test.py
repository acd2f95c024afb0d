"""Many visitors at once: one `streamlit run app.py` server, N browser sessions training together.

    .venv/bin/python bench/load_test.py [--sessions 8] [--words 20000] [--vocab 2000] [--timeout 600]
        [--smoke]

Each session is its own Playwright context (its own cookies, its own Streamlit session) in one
headless Debian Chromium, all driven concurrently (async API). Each pastes a different corpus
holding a unique marker word (`qxalphaqx`, `qxbravoqx`, ...), clicks Train, waits for the
summary, then visits Merge history, Vocabulary (downloading the vocabulary CSV) and Compare.
Checked: every session finishes, none shows an error box, each sees its own marker and never
another session's (page HTML of every page, and the vocabulary CSV).
Printed: the slowest and median session (Train click to summary, and the whole visit), total
wall time and the server's CPU time (the browser runs on the same machine: on 2 cores its tabs take
much of it; trainings and measurements run in the server's worker processes), the server's peak
RSS (VmHWM of /proc/PID/status), its RSS before and after, and the peak of the server plus its
workers (sampled). The server has a run store of its own, in a temporary folder (removed at the
end). `--skip Compare` leaves a page out, to see what it costs. --smoke (what CI runs, so that the
script cannot rot, and the suite's check that sessions keep their corpora to themselves): 2
sessions of 600 words, vocab 300, Compare skipped (its visit is the loop's generic one; Merge history
and Vocabulary have checks of their own), within 180 s.

Corpora are pasted by setting the text area's value and committing it with Control+Enter (typing
100 KB key by key would measure Playwright, not the app). Loopback only; every wait is bounded and
the server and browser are stopped however the run ends. A benchmark: it prints figures, and
exits with status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import io
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, chromium_missing_reason, streamlit_server  # noqa: E402

MARKER_NAMES = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu"
).split()
ERROR_SELECTOR = '[data-testid="stException"], [data-testid="stAlertContentError"]'
PAGES = (("Merge history", "Step (merges applied)"), ("Vocabulary", "Grid view"), ("Compare", "Figures"))
SET_VALUE = """(element, text) => {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
    setter.call(element, text);
    element.dispatchEvent(new Event('input', {bubbles: true}));
}"""


def marker(index: int) -> str:
    """A word found in no other session's corpus (and no substring of another marker)."""
    name = MARKER_NAMES[index % len(MARKER_NAMES)] + (
        "" if index < len(MARKER_NAMES) else f"x{index // len(MARKER_NAMES)}x"
    )
    return f"qx{name}qx"


def corpus(index: int, words: int) -> str:
    """Random lower-case words with the session's marker as the most frequent word."""
    rng = random.Random(index)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(words // 4 + 1)
    ]
    mark = marker(index)
    chosen = [mark if position % 7 == 0 else rng.choice(vocabulary) for position in range(words)]
    return "\n".join(" ".join(chosen[start : start + 14]) for start in range(0, len(chosen), 14))


# ---------------------------------------------------------------- server memory


def server_pid(port: int) -> int | None:
    """The pid of the `streamlit run` process serving `port` (found by its command line)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in b" ".join(command) and str(port).encode() in command:
            return int(proc.name)
    return None


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (peak RSS) of a process, in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values


def family(pid: int) -> list[int]:
    """The server and its worker processes (its children)."""
    pids = [pid]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                pids.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return pids


def family_rss_mb(pid: int) -> float:
    """RSS of the server plus its worker processes, in MB (a process that just ended counts 0)."""
    total = 0.0
    for member in family(pid):
        try:
            total += memory_mb(member)["VmRSS"]
        except (OSError, KeyError):
            continue
    return total


@contextlib.contextmanager
def temporary_store() -> Iterator[dict[str, str]]:
    """A run store of its own for a benchmark's server, as its environment: in a temporary folder
    removed on exit (nothing of a developer's reused or left). Exit it after the server stops."""
    with tempfile.TemporaryDirectory(prefix="bench-store-") as folder:
        yield {"EXPLORER_STORE_PATH": str(Path(folder) / "runs.sqlite3")}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class MemorySampler:
    """Samples a process's RSS every `interval` seconds in a thread, until stopped."""

    def __init__(self, pid: int, interval: float = 0.25):
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        started = time.monotonic()
        while not self._stop.wait(self.interval):
            self.samples.append((time.monotonic() - started, family_rss_mb(self.pid)))

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    @property
    def peak(self) -> float:
        return max((rss for _, rss in self.samples), default=0.0)


# ---------------------------------------------------------------- one session


@dataclass
class SessionResult:
    index: int
    marker: str
    train_seconds: float = 0.0
    total_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    pages_checked: int = 0


async def wait_idle(page, timeout: float, settle_ms: int = 250) -> None:
    """The app's script run is over: `notRunning` twice in a row `settle_ms` apart (bounded)."""
    deadline = time.monotonic() + timeout
    calm = 0
    await page.wait_for_timeout(settle_ms)
    while calm < 2:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the app was still running after {timeout:.0f} s")
        state = await page.locator('[data-testid="stApp"]').get_attribute(
            "data-test-script-state", timeout=timeout * 1000
        )
        calm = calm + 1 if state == "notRunning" else 0
        await page.wait_for_timeout(settle_ms)


async def check_page(page, result: SessionResult, markers: list[str], where: str) -> str:
    """No error box; no other session's marker in the page: neither in its HTML nor in its text
    (token spans sit side by side, so a word split into tokens reads whole in the text).
    Returns the page's text."""
    errors = await page.locator(ERROR_SELECTOR).all_inner_texts()
    if errors:
        result.problems.append(f"{where}: error element {errors[0][:200]!r}")
    html = await page.content()
    text = await page.locator('[data-testid="stApp"]').inner_text()
    leaked = [other for other in markers if other != result.marker and (other in html or other in text)]
    if leaked:
        result.problems.append(f"{where}: shows another session's marker {leaked}")
    result.pages_checked += 1
    return text


async def trained_characters(page) -> str:
    """The Train summary's "Corpus characters" figure, as shown."""
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="Corpus characters")
    return (await metric.inner_text()).split("\n")[-1].strip()


class StartGate:
    """Opens when every session is ready to click Train (or after `fallback` seconds), so that
    the trainings really overlap."""

    def __init__(self, sessions: int, fallback: float):
        self.sessions, self.fallback = sessions, fallback
        self.ready = 0
        self.event = asyncio.Event()

    async def wait(self) -> None:
        self.ready += 1
        if self.ready >= self.sessions:
            self.event.set()
        try:
            await asyncio.wait_for(self.event.wait(), timeout=self.fallback)
        except asyncio.TimeoutError:
            self.event.set()


async def one_session(
    browser,
    base_url: str,
    index: int,
    markers: list[str],
    words: int,
    vocab: int,
    timeout: float,
    start_gate: StartGate,
    pages: tuple[tuple[str, str], ...] = PAGES,
) -> SessionResult:
    result = SessionResult(index, markers[index])
    context = await browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(timeout * 1000)
    started = time.monotonic()
    try:
        page = await context.new_page()
        await page.goto(base_url + "/", wait_until="domcontentloaded")
        await page.locator('[data-testid="stSidebar"]').get_by_text("Tokenizer Explorer").wait_for()
        await wait_idle(page, timeout)
        area = page.get_by_role("textbox", name="Corpus", exact=True)
        await area.evaluate(SET_VALUE, corpus(index, words))
        await area.press("Control+Enter")
        await wait_idle(page, timeout)
        number = page.get_by_role("spinbutton", name="Exact vocabulary size")
        await number.fill(str(vocab))
        await number.press("Enter")
        await wait_idle(page, timeout)
        await start_gate.wait()  # every session clicks Train at (nearly) the same moment
        clicked = time.monotonic()
        await page.get_by_role("button", name="Train", exact=True).click()
        await page.get_by_text("Merges learned", exact=True).wait_for(timeout=timeout * 1000)
        result.train_seconds = time.monotonic() - clicked
        await wait_idle(page, timeout)
        await check_page(page, result, markers, "Train")
        characters = await trained_characters(page)
        pasted = corpus(index, words)  # ASCII: a character per code point, line breaks not counted
        if characters != f"{len(pasted) - pasted.count(chr(10)):,}":
            result.problems.append(
                f"Train: the summary says {characters} corpus characters, the paste had "
                f"{len(pasted) - pasted.count(chr(10)):,} (URL {page.url})"
            )
        for label, content in pages:
            await page.locator('[data-testid="stSidebar"]').get_by_role("link", name=label).click()
            await page.get_by_text(content, exact=True).first.wait_for(timeout=timeout * 1000)
            await wait_idle(page, timeout)
            text = await check_page(page, result, markers, label)
            if label == "Merge history" and result.marker not in text:
                result.problems.append("Merge history: the session's own marker is not among the top words")
            if label == "Vocabulary":
                async with page.expect_download(timeout=timeout * 1000) as download_info:
                    await page.get_by_role("button", name="Table (CSV)").click()
                download = await download_info.value
                table = Path(await download.path()).read_text(encoding="utf-8")
                readable = {row["readable"] for row in csv.DictReader(io.StringIO(table))}
                if not any(result.marker in token for token in readable):
                    result.problems.append("Vocabulary CSV: the session's own marker is not a token")
                leaked = [
                    other
                    for other in markers
                    if other != result.marker and any(other in token for token in readable)
                ]
                if leaked:
                    result.problems.append(f"Vocabulary CSV: holds another session's marker {leaked}")
    except Exception as error:  # a timeout or a crash is this session's failure, reported
        result.problems.append(f"{type(error).__name__}: {str(error).splitlines()[0][:300]}")
    finally:
        result.total_seconds = time.monotonic() - started
        await context.close()
    return result


async def run_sessions(
    base_url: str,
    sessions: int,
    words: int,
    vocab: int,
    timeout: float,
    pages: tuple[tuple[str, str], ...] = PAGES,
) -> list[SessionResult]:
    """Drive `sessions` browser sessions against `base_url` at once; their results, in order.
    `pages`: (sidebar label, text it shows) of the pages each session visits after training."""
    from playwright.async_api import async_playwright

    markers = [marker(index) for index in range(sessions)]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            gate = StartGate(sessions, fallback=timeout / 3)
            tasks = [
                one_session(browser, base_url, index, markers, words, vocab, timeout, gate, pages)
                for index in range(sessions)
            ]
            return await asyncio.wait_for(asyncio.gather(*tasks), timeout=timeout)
        finally:
            await browser.close()


# ---------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument(
        "--words", type=int, default=20_000, help="words per corpus (about 7 characters each)"
    )
    parser.add_argument("--vocab", type=int, default=2_000)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds for the whole run")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=[label for label, _ in PAGES],
        help="a page not to visit (to see what it costs); repeatable",
    )
    parser.add_argument("--smoke", action="store_true", help="2 small sessions (what CI runs)")
    args = parser.parse_args()
    if args.smoke:
        args.sessions, args.words, args.vocab, args.timeout = 2, 600, 300, 180.0
        args.skip.append("Compare")
    pages = tuple(page for page in PAGES if page[0] not in args.skip)
    reason = chromium_missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    with temporary_store() as store, streamlit_server("load-test", environ=store) as base_url:
        port = int(base_url.rsplit(":", 1)[1])
        pid = server_pid(port)
        if pid is None:
            print("cannot find the server process")
            return 1
        before = memory_mb(pid)["VmRSS"]
        cpu_before = cpu_seconds(pid)
        started = time.monotonic()
        with MemorySampler(pid) as sampler:
            results = asyncio.run(
                run_sessions(base_url, args.sessions, args.words, args.vocab, args.timeout, pages)
            )
        wall = time.monotonic() - started
        after = memory_mb(pid)
        server_cpu = cpu_seconds(pid) - cpu_before
    failures = [result for result in results if result.problems]
    trains = [result.train_seconds for result in results if not result.problems]
    totals = [result.total_seconds for result in results if not result.problems]
    print(
        f"sessions: {len(results)} at once, {args.words:,} words each "
        f"(~{len(corpus(0, args.words)) / 1024:.0f} KB), vocab {args.vocab:,}; "
        f"pages: Train, {', '.join(label for label, _ in pages) or 'no other'}"
    )
    for result in results:
        status = "ok" if not result.problems else "FAILED: " + "; ".join(result.problems)
        print(
            f"  #{result.index} {result.marker}: train {result.train_seconds:5.1f} s, "
            f"visit {result.total_seconds:5.1f} s, {result.pages_checked} pages checked, {status}"
        )
    if trains:
        print(
            f"Train click -> summary: slowest {max(trains):.1f} s, median {statistics.median(trains):.1f} s"
        )
        print(
            f"whole visit (open, paste, train, {len(pages)} more pages): slowest {max(totals):.1f} s, "
            f"median {statistics.median(totals):.1f} s"
        )
    print(
        f"wall time: {wall:.1f} s; server CPU {server_cpu:.1f} s ({server_cpu / wall:.0%} of one core; "
        "the browser's tabs use the rest)"
    )
    print(
        f"server RSS: {before:.0f} MB before, server peak {after['VmHWM']:.0f} MB (VmHWM), "
        f"{after['VmRSS']:.0f} MB after; "
        f"server + worker processes peak {sampler.peak:.0f} MB"
    )
    print(
        "isolation: "
        + ("every session saw only its own marker" if not failures else f"{len(failures)} session(s) failed")
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
