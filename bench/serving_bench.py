"""Serving a class: the hosted demo's figures, measured with real browser sessions against a real
`streamlit run app.py` (Debian's Chromium through Playwright), each server with a run store of its
own in a temporary folder.

    .venv/bin/python bench/serving_bench.py cold              # first page load on a fresh server
    .venv/bin/python bench/serving_bench.py classroom         # a class opening one sample link
    .venv/bin/python bench/serving_bench.py distinct          # 8 visitors training 1 MB each at once
    .venv/bin/python bench/serving_bench.py latency [--moves 25]
    .venv/bin/python bench/serving_bench.py compare           # Compare's figures on a 4 MB corpus
    .venv/bin/python bench/serving_bench.py class [--sessions 30]  # a class on one link, the server's health
    .venv/bin/python bench/serving_bench.py all
    .venv/bin/python bench/serving_bench.py --smoke           # every case once, small (what CI runs)

- cold: a new server; the time from `goto` to the Train page's Train button, for the first visit
  and for a second one (the browser on the same 2 cores: an upper bound).
- classroom: N visitors open the same sample link at once (Shakespeare, BPE 5,000, on the Train
  page): each one's time to the summary, and how many runs were trained (rows of the run store: 1
  means one training for the whole class). Visitors are websocket sessions (bench/visitors.py:
  the server cannot tell them from browser tabs, but they draw nothing) for 16, 32 and 64 at once,
  then 16 real tabs of one Chromium, whose drawing on the same 2 cores is most of what they wait.
- distinct: 8 websocket visitors each paste a different 1 MB corpus and train it to 5,000 at once:
  the slowest and median time from the Train click to the summary.
- latency: one visitor (a browser tab) scrubs Merge history with the keyboard (ArrowRight, waiting
  for the merge line to change) on a trained run: median and maximum key-to-update time, first with
  nobody else on the server, then while a websocket visitor trains 1 MB to vocab 20,000.
- compare: the Compare page of a 4 MB corpus: the time from opening it to the figures' table, and
  the RSS of the server and of each worker before and after each visit.
- class: a teacher's link opened by --sessions (30) websocket visitors at once, on a fresh server
  with an empty store, for three links in turn: Train (tinyshakespeare, BPE 3,000, a run the store
  does not hold: one shared training), Merge history and Compare with six columns (the run the
  teacher trained and opened first). Meanwhile `/_stcore/health` is probed every 0.25 s (its
  slowest answer) and a visitor already on Merge history (a Chromium tab, a small run of its own)
  steps with ArrowRight (key -> merge line updated); each visitor's time to its page, and the
  server's peak RSS with its workers.
--smoke: every case (unless one is named) on one server shared by all (not a new one per case),
latency, compare and class in the tabs of one Chromium (a tab given back is the next one: the
app's scripts stay in its cache), with the course's sample at vocab 300 for the link, one page
load for cold, 2 websocket visitors and 1 tab where there are many, 20 KB corpora (5 KB for
latency's other visitor), one corpus for compare, 2 moves: it keeps the script working, its
figures mean little.
Server memory: the peak of the server's RSS plus its worker processes' (sampled every 0.25 s).

A benchmark: it prints figures (no pass/fail besides failures to finish).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load_test import MemorySampler, cpu_seconds, family, memory_mb, temporary_store  # noqa: E402

from explorer.drawing.token_html import escape_text  # noqa: E402
from tests.browser.helpers import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    SERVER_PROCESSES,
    VIEWPORT,
    Tabs,
    chromium,
    chromium_missing_reason,
    streamlit_server,
)

# A teacher's link, opened on a server that does not hold its run (a new server, an empty store):
# the link's sample is trained again, once for the whole class.
NOT_HERE = "run=" + "0" * 64
SAMPLE_LINK = f"algorithm=bpe&sample=shakespeare&vocab_size=5000&{NOT_HERE}"
STEP_INPUT = 'input[type="range"][aria-label="Step (merges applied)"]'
SMOKE_LINK = f"algorithm=bpe&sample=hf-course&vocab_size=300&{NOT_HERE}"
# --smoke: each case's arguments (--sessions and --moves are set too).
SMOKE = {
    "cold": {"loads_wanted": 1},
    "classroom": {"link": SMOKE_LINK, "counts": (2,)},
    "distinct": {"sessions": 2, "megabytes": 0.02, "vocab": 300},
    "latency": {"link": SMOKE_LINK, "other_megabytes": 0.005},
    "compare": {"megabytes": 0.02, "seeds": (4,)},
    "crowd": {"link": SMOKE_LINK, "timeout": 60.0},
}
CLASS_LINK = f"algorithm=bpe&sample=shakespeare&vocab_size=3000&{NOT_HERE}"
SIX_COLUMNS = "pretrained%3Allama3%2Cpretrained%3Aqwen%2C"  # before the page's own four
HEALTH_EVERY = 0.25


# ---------------------------------------------------------------- the server and its workers


class Server:
    """A server with a run store of its own (in a temporary folder, removed when it stops);
    `ready_seconds`: from its launch until it answered."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self) -> Server:
        begun = time.monotonic()
        with contextlib.ExitStack() as stack:
            environ = stack.enter_context(temporary_store())
            self.store = Path(environ["EXPLORER_STORE_PATH"])
            self.url = stack.enter_context(streamlit_server(self.name, environ=environ))
            self._stack = stack.pop_all()
        self.ready_seconds = time.monotonic() - begun
        self.pid = SERVER_PROCESSES[self.url].pid
        return self

    def __exit__(self, *exc) -> None:
        self._stack.__exit__(*exc)

    def stored_runs(self) -> int:
        with sqlite3.connect(self.store) as connection:
            return connection.execute(
                "SELECT count(*) FROM runs WHERE meta LIKE '%\"settings\"%'"
            ).fetchone()[0]


@contextlib.contextmanager
def server_for(shared: Server | None, name: str):
    """`shared` when given (--smoke: one server for every case), else a new server named `name`."""
    if shared is not None:
        yield shared
        return
    with Server(name) as server:
        yield server


class FirstVisits:
    """Tabs of one Chromium, each in a new context (an empty cache, no session: a first visit),
    closed with it after the block; `open()` as `helpers.Tabs.open()`."""

    def __init__(self, browser):
        self.browser = browser

    @contextlib.contextmanager
    def open(self):
        context = self.browser.new_context(viewport=VIEWPORT)
        try:
            yield context.new_page()
        finally:
            context.close()


@contextlib.contextmanager
def tabs_for(shared: Tabs | None):
    """`shared` when given (--smoke: the tabs of one context of one Chromium for the cases after
    `distinct`, each given back for the next: the app's scripts stay in its cache), else
    FirstVisits in a new Chromium."""
    if shared is not None:
        yield shared
        return
    with chromium() as browser:
        yield FirstVisits(browser)


@contextlib.contextmanager
def shared_tabs(smoke: bool):
    """--smoke: the tabs of one context of a new Chromium (helpers.Tabs), with "reduce motion" on
    as the tests' contexts have it (helpers.new_context: no entry animation painted frame by
    frame); else None."""
    if not smoke:
        yield None
        return
    with chromium() as browser:
        yield Tabs(browser.new_context(viewport=VIEWPORT, reduced_motion="reduce"))


def wait_idle(page, settle_ms: int = 250, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    calm = 0
    while calm < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(settle_ms)
        state = page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state")
        calm = calm + 1 if state == "notRunning" else 0


# ---------------------------------------------------------------- cold start


def cold(loads_wanted: int = 2, shared: Server | None = None) -> None:
    with chromium() as browser, server_for(shared, "bench-cold") as server:
        loads = []
        for _ in range(loads_wanted):
            page = browser.new_context(viewport=VIEWPORT).new_page()
            begun = time.monotonic()
            page.goto(server.url + "/", wait_until="domcontentloaded")
            page.get_by_role("button", name="Train", exact=True).wait_for(timeout=60_000)
            loads.append(time.monotonic() - begun)
            page.context.close()
    second = f", second {loads[1]:.2f} s" if len(loads) > 1 else ""
    print(
        f"cold start: server answers {server.ready_seconds:.2f} s after launch; "
        f"first page load {loads[0]:.2f} s{second}"
    )


# ---------------------------------------------------------------- a class opening one link


async def _student(context, url: str, timeout: float) -> tuple[float, str, str]:
    page = await context.new_page()
    try:
        begun = time.monotonic()
        await page.goto(url, wait_until="domcontentloaded")
        await page.get_by_text("Merges learned", exact=True).wait_for()
        elapsed = time.monotonic() - begun
        taken = await page.locator('[data-testid="stMetric"]').filter(has_text="Time taken").inner_text()
        errors = await page.locator(
            '[data-testid="stException"], [data-testid="stAlertContentError"]'
        ).all_inner_texts()
        return elapsed, taken.split("\n")[-1], "; ".join(errors)
    except Exception as error:  # reported, not raised: one failure must not hide the others' figures
        return float("nan"), "", f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
    finally:
        await page.close()


def classroom(
    sessions: int,
    link: str = SAMPLE_LINK,
    counts: tuple[int, ...] = (16, 32, 64),
    timeout: float = 300.0,
    shared: Server | None = None,
) -> None:
    from playwright.async_api import async_playwright
    from visitors import visit

    async def tabs(url: str):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                # One tab per student (each tab is a Streamlit session of its own), in one browser
                # profile so that the tabs share its cache of Streamlit's scripts, as students'
                # browsers each have theirs after the first visit.
                context = await browser.new_context(viewport=VIEWPORT)
                context.set_default_timeout(timeout * 1000)
                return await asyncio.gather(*[_student(context, url, timeout) for _ in range(sessions)])
            finally:
                await browser.close()

    async def sockets(base_url: str, count: int):
        return await asyncio.gather(*[visit(base_url, link, "Merges learned", timeout) for _ in range(count)])

    servers = "each a new server with an empty store" if shared is None else "one server for all"
    print(f"classroom: visitors open /?{link} at once ({servers})")
    for count in counts:
        with server_for(shared, f"bench-classroom-{count}") as server, MemorySampler(server.pid) as memory:
            begun = time.monotonic()
            times = sorted(asyncio.run(sockets(server.url, count)))
            wall = time.monotonic() - begun
            print(
                f"  {count} websocket visitors: to the summary median {statistics.median(times):.1f} s, "
                f"slowest {times[-1]:.1f} s; runs trained {server.stored_runs()}; wall {wall:.1f} s; "
                f"server + workers peak RSS {memory.peak:.0f} MB"
            )
    with server_for(shared, "bench-classroom-tabs") as server, MemorySampler(server.pid) as memory:
        cpu_before = {pid: cpu_seconds(pid) for pid in family(server.pid)}
        begun = time.monotonic()
        results = asyncio.run(tabs(f"{server.url}/?{link}"))
        wall = time.monotonic() - begun
        server_cpu = cpu_seconds(server.pid) - cpu_before.get(server.pid, 0.0)
        workers_cpu = sum(cpu_seconds(pid) - cpu_before.get(pid, 0.0) for pid in family(server.pid)[1:])
        trained = server.stored_runs()
    times = sorted(result[0] for result in results)
    failures = [result[2] for result in results if result[2]]
    print(
        f"  {sessions} Chromium tabs: to the summary median {statistics.median(times):.1f} s, "
        f"slowest {times[-1]:.1f} s; runs trained {trained}; "
        f"summaries' 'Time taken' {sorted({result[1] for result in results})}"
    )
    print(
        f"    wall {wall:.1f} s; CPU: server {server_cpu:.1f} s, workers {workers_cpu:.1f} s, "
        "the tabs the rest of "
        f"{2 * wall:.0f} core-seconds; peak RSS {memory.peak:.0f} MB; failures: {failures or 'none'}"
    )


def distinct(
    sessions: int = 8, megabytes: float = 1.0, vocab: int = 5000, shared: Server | None = None
) -> None:
    from visitors import paste_and_train

    corpora = [_random_corpus(megabytes, seed=index) for index in range(sessions)]

    async def run(base_url: str):
        return await asyncio.gather(*[paste_and_train(base_url, text, vocab) for text in corpora])

    with server_for(shared, "bench-distinct") as server, MemorySampler(server.pid) as memory:
        begun = time.monotonic()
        times = sorted(asyncio.run(run(server.url)))
        wall = time.monotonic() - begun
        trained = server.stored_runs()
    print(
        f"distinct: {sessions} websocket visitors each paste a different {megabytes:g} MB corpus "
        f"and train it to {vocab:,} at once"
    )
    print(
        f"  Train click -> summary: median {statistics.median(times):.1f} s, slowest {times[-1]:.1f} s; "
        f"runs trained {trained}; "
        f"wall {wall:.1f} s; server + workers peak RSS {memory.peak:.0f} MB"
    )


# ---------------------------------------------------------------- an idle visitor's latency


def _random_corpus(megabytes: float, seed: int) -> str:
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(40_000)
    ]
    lines, size = [], 0
    while size < megabytes * 1_000_000:
        line = " ".join(rng.choice(vocabulary) for _ in range(14))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _letters_corpus(megabytes: float, seed: int) -> str:
    """Lines of random letters without spaces: each line one long pre-token, slow to train."""
    rng = random.Random(seed)
    return "\n".join(
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(100))
        for _ in range(int(megabytes * 10_000))
    )


def _scrub(page, moves: int, while_running: threading.Thread | None = None) -> list[float]:
    """Key-to-update delays of `moves` ArrowRight presses (Home at the last step), or, with
    `while_running`, of the presses made while that thread runs, at most `moves`."""
    slider = page.locator(STEP_INPUT)
    slider.focus()
    delays = []
    for _ in range(moves):
        if while_running is not None and not while_running.is_alive():
            break
        before = page.locator(".merge-summary").inner_text()
        at_end = slider.evaluate("input => input.value === input.max")
        begun = time.monotonic()
        page.keyboard.press("Home" if at_end else "ArrowRight")  # at the last step: back to the first
        page.wait_for_function(
            "previous => (document.querySelector('.merge-summary')?.innerText || '') !== previous",
            arg=before,
            timeout=60_000,
        )
        delays.append((time.monotonic() - begun) * 1000)
        wait_idle(page, settle_ms=100)
    return delays


def _paste_and_train(page, url: str, text: str, vocab: int) -> None:
    page.goto(url + "/", wait_until="domcontentloaded")
    page.get_by_role("button", name="Train", exact=True).wait_for(timeout=60_000)
    page.get_by_role("combobox", name="Sample corpus").click()
    page.get_by_role("option", name="none: paste or upload your own").click()
    wait_idle(page)
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    area.evaluate(
        """(element, text) => {
             const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set;
             set.call(element, text);
             element.dispatchEvent(new Event('input', {bubbles: true}));
           }""",
        text,
    )
    area.press("Control+Enter")
    wait_idle(page)
    number = page.get_by_role("spinbutton", name="Exact vocabulary size")
    number.fill(str(vocab))
    number.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Train", exact=True).click()


def latency(
    moves: int,
    link: str = SAMPLE_LINK,
    other_megabytes: float = 1.0,
    shared: Server | None = None,
    tabs: Tabs | None = None,
) -> None:
    from visitors import paste_and_train

    with (
        tabs_for(tabs) as opener,
        opener.open() as visitor,
        server_for(shared, "bench-latency") as server,
        MemorySampler(server.pid) as memory,
    ):
        visitor.goto(f"{server.url}/Merge_history?{link}", wait_until="domcontentloaded")
        visitor.locator(STEP_INPUT).wait_for(timeout=120_000)
        wait_idle(visitor)
        idle = _scrub(visitor, moves)
        training: dict[str, float] = {}
        clicked = threading.Event()

        def train_other() -> None:
            text = _letters_corpus(other_megabytes, seed=3)
            training["seconds"] = asyncio.run(paste_and_train(server.url, text, 20_000, on_click=clicked.set))

        other = threading.Thread(target=train_other)
        other.start()
        clicked.wait(timeout=120)  # its corpus pasted and Train clicked
        busy = _scrub(visitor, 10 * moves, while_running=other)
        other.join()
    print("latency: key press -> merge line updated")
    print(
        f"  idle server ({len(idle)} moves): median {statistics.median(idle):.0f} ms, max {max(idle):.0f} ms"
    )
    busy_figures = (
        f"median {statistics.median(busy):.0f} ms, max {max(busy):.0f} ms, "
        f"ratio of medians {statistics.median(busy) / statistics.median(idle):.2f}x"
        if busy
        else "no move (it was over first)"
    )
    print(
        f"  while a websocket visitor trains {other_megabytes:g} MB (lines of random letters) to vocab "
        f"20,000 in a worker ({training['seconds']:.1f} s from its click; {len(busy)} moves during it): "
        + busy_figures
    )
    print(f"  server + workers peak RSS {memory.peak:.0f} MB")


# ---------------------------------------------------------------- a class on one link


class Health:
    """`/_stcore/health` asked every HEALTH_EVERY seconds in a thread (the next one as soon as a
    slow one answers): the slowest answer, in seconds (an unanswered probe counts its 60 s)."""

    def __init__(self, base_url: str):
        self.url, self.times = base_url + "/_stcore/health", []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import urllib.request

        while not self._stop.is_set():
            begun = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=60) as answer:
                    answer.read()
            except OSError:
                pass
            took = time.monotonic() - begun
            self.times.append(took)
            self._stop.wait(max(0.0, HEALTH_EVERY - took))

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(65)


def _arrive(
    results: list, base_url: str, page: str, query: str, wanted: str, sessions: int, timeout: float
) -> None:
    """`sessions` websocket visitors open `page` with `query` at once; each one's seconds (or its
    exception)."""
    from visitors import visit

    async def all_of_them():
        return await asyncio.gather(
            *[visit(base_url, query, wanted, timeout, page_name=page) for _ in range(sessions)],
            return_exceptions=True,
        )

    results.extend(asyncio.run(all_of_them()))


def _teacher_opens(teacher, base_url: str, link: str, path: str, query: str, wanted: str) -> tuple[str, str]:
    """The teacher's tab trains `link`'s run and opens `path` with it (Compare: with six columns):
    the visitors' query and the text their page must hold."""
    teacher.goto(f"{base_url}/?{link}", wait_until="domcontentloaded")
    teacher.get_by_text("Merges learned", exact=True).wait_for(timeout=300_000)
    wait_idle(teacher)
    run = dict(part.split("=", 1) for part in teacher.url.split("?", 1)[1].split("&"))["run"]
    query = query.format(run=run)
    teacher.goto(f"{base_url}/{path}?{query}", wait_until="domcontentloaded")
    if path == "Compare":  # the page's link names its four columns: two more before them
        teacher.locator(".compare-column").nth(3).wait_for(timeout=120_000)
        wait_idle(teacher)
        query = teacher.url.split("?", 1)[1].replace("cols=", "cols=" + SIX_COLUMNS)
        teacher.goto(f"{base_url}/{path}?{query}", wait_until="domcontentloaded")
        teacher.locator(".compare-column").nth(5).wait_for(timeout=120_000)
        last = teacher.locator(".compare-column").nth(5).get_attribute("data-tokenizer")
        # as it travels: in the JSON of the columns' view, its quotes escaped
        wanted = f'class=\\"compare-column\\" data-tokenizer=\\"{escape_text(last or "")}\\"'
    wait_idle(teacher)
    return query, wanted


def crowd(
    sessions: int,
    link: str = CLASS_LINK,
    timeout: float = 300.0,
    shared: Server | None = None,
    tabs: Tabs | None = None,
) -> None:
    """A class on one link (the `class` case): Train, then Merge history, then Compare with six
    columns, each on a new server (with --smoke: the shared one)."""
    cases = (
        ("Train", "", link, "Merges learned"),
        # Merge history: the run that draws the player at the link's step (its panels follow the
        # player's first action, which a websocket visitor does not send: the watcher's keys do)
        (
            "Merge history",
            "Merge_history",
            link.replace(NOT_HERE, "run={run}") + "&step=1",
            "player-placeholder",
        ),
        ("Compare, six columns", "Compare", link.replace(NOT_HERE, "run={run}"), "{last}"),
    )
    print(
        f"class: {sessions} websocket visitors open one link at once; /_stcore/health probed every "
        f"{HEALTH_EVERY} s; a Chromium tab on Merge history steps meanwhile"
    )
    with contextlib.ExitStack() as kept:
        page = None  # the watcher, on a run of its own: a new one per case, or (--smoke) one for all
        for label, path, query, wanted in cases:
            with (
                tabs_for(tabs) as opener,
                server_for(shared, f"bench-class-{path or 'train'}") as server,
                MemorySampler(server.pid) as memory,
                contextlib.ExitStack() as case,
            ):
                if page is None or tabs is None:
                    page = (kept if tabs is not None else case).enter_context(opener.open())
                    page.goto(f"{server.url}/Merge_history?{SMOKE_LINK}", wait_until="domcontentloaded")
                    page.locator(STEP_INPUT).wait_for(timeout=120_000)
                    wait_idle(page)
                _class_case(opener, page, server, memory, sessions, timeout, link, label, path, query, wanted)


def _class_case(opener, page, server, memory, sessions, timeout, link, label, path, query, wanted) -> None:
    """One link of the `class` case: the teacher opens it first (but Train's), then `sessions`
    websocket visitors at once while the watcher `page` (on Merge history) steps."""
    if path:  # the teacher trains the run and opens the link first
        with opener.open() as teacher:
            query, wanted = _teacher_opens(teacher, server.url, link, path, query, wanted)
    results: list = []
    visitors = threading.Thread(
        target=_arrive, args=(results, server.url, path, query, wanted, sessions, timeout)
    )
    with Health(server.url) as health:
        began = time.monotonic()
        visitors.start()
        steps = _scrub(page, 10_000, while_running=visitors)
        visitors.join()
        wall = time.monotonic() - began
    trained = server.stored_runs()
    times = sorted(result for result in results if isinstance(result, float))
    failures = [
        f"{type(result).__name__}: {result}"[:200] for result in results if not isinstance(result, float)
    ]
    seen = f"median {statistics.median(times):.1f} s, slowest {times[-1]:.1f} s" if times else "none"
    keys = (
        f"median {statistics.median(steps):.0f} ms, max {max(steps):.0f} ms ({len(steps)} keys)"
        if steps
        else "no key"
    )
    print(
        f"  {label}: each visitor's page {seen} (wall {wall:.1f} s); runs trained {trained}; "
        f"health slowest {max(health.times):.2f} s of {len(health.times)} probes; "
        f"the watcher's step keys {keys}; server + workers peak RSS {memory.peak:.0f} MB; "
        f"failures: {failures[:3] or 'none'}"
    )


# ---------------------------------------------------------------- Compare on a big corpus


def compare(
    megabytes: float = 3.9,
    seeds: tuple[int, ...] = (4, 5),
    shared: Server | None = None,
    tabs: Tabs | None = None,
) -> None:
    """Compare's figures for corpora of `megabytes` (one per seed) in turn: the first visit of a fresh
    server (it and its workers load the GPT vocabularies then), and a second corpus once they are
    loaded."""
    timings, memory = [], []
    with tabs_for(tabs) as opener, opener.open() as page, server_for(shared, "bench-compare") as server:
        for seed in seeds:
            _paste_and_train(page, server.url, _random_corpus(megabytes, seed=seed), 2_000)
            page.get_by_text("Merges learned", exact=True).wait_for(timeout=300_000)
            wait_idle(page)
            memory.append(("before", processes_mb(server.pid)))
            begun = time.monotonic()
            page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Compare").click()
            page.get_by_text("On the training corpus", exact=False).first.wait_for(timeout=120_000)
            # The corpus figures: the page's one data grid (the figures on the text are HTML).
            page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=300_000)
            timings.append(time.monotonic() - begun)
            memory.append(("after", processes_mb(server.pid)))
            note = page.get_by_text("On the training corpus", exact=False).first.inner_text()
    print(
        f"compare: a {megabytes:g} MB corpus, 4 tokenizers (this run, GPT-2, GPT-4, GPT-4o): "
        "Compare opened -> figures table"
    )
    afterwards = (
        f"; another {megabytes:g} MB corpus afterwards: {timings[1]:.1f} s" if len(timings) > 1 else ""
    )
    print(f"  first visit of a fresh server: {timings[0]:.1f} s{afterwards}")
    print(f"  {note.strip()}")
    for (when, (server_mb, workers_mb)), visit in zip(memory, ("first", "first", "second", "second")):
        workers = ", ".join(f"{mb:.0f}" for mb in workers_mb)
        print(f"  RSS {when} the {visit} visit: server {server_mb:.0f} MB, workers {workers} MB")


def processes_mb(pid: int) -> tuple[float, list[float]]:
    """RSS of the server and of each of its worker processes, in MB."""
    server, *workers = (memory_mb(member).get("VmRSS", 0.0) for member in family(pid))
    return server, workers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "what", nargs="?", choices=["cold", "classroom", "distinct", "latency", "compare", "class", "all"]
    )
    parser.add_argument("--sessions", type=int, default=None, help="16 (classroom's tabs), 30 (class)")
    parser.add_argument("--moves", type=int, default=25)
    parser.add_argument("--smoke", action="store_true", help="every case once, small (what CI runs)")
    args = parser.parse_args()
    if args.what is None and not args.smoke:
        parser.error("say which case to run (or all), or --smoke")
    small = SMOKE if args.smoke else {}
    if args.smoke:
        args.sessions, args.moves = 1, 2
    args.what = args.what or "all"
    args.sessions_for_class = args.sessions or 30
    args.sessions = args.sessions or 16
    reason = chromium_missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before")
    # --smoke: one server for every case; else each case starts its own (shared is None).
    with Server("bench-smoke") if args.smoke else contextlib.nullcontext() as shared:
        if args.what in ("cold", "all"):
            cold(**small.get("cold", {}), shared=shared)
        if args.what in ("classroom", "all"):
            classroom(args.sessions, **small.get("classroom", {}), shared=shared)
        if args.what in ("distinct", "all"):
            distinct(**small.get("distinct", {}), shared=shared)
        # --smoke: from here, one Chromium and its tabs for every case (opened after the cases that
        # run asyncio in this thread: Playwright's sync API keeps an event loop of its own)
        with shared_tabs(args.smoke) as tabs:
            if args.what in ("latency", "all"):
                latency(args.moves, **small.get("latency", {}), shared=shared, tabs=tabs)
            if args.what in ("compare", "all"):
                compare(**small.get("compare", {}), shared=shared, tabs=tabs)
            if args.what in ("class", "all"):
                sessions = 2 if args.smoke else args.sessions_for_class
                crowd(sessions, **small.get("crowd", {}), shared=shared, tabs=tabs)
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
