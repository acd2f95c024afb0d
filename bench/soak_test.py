"""Does the server's memory stop growing? One `streamlit run app.py` server, 100 distinct corpora
trained one after another through a real browser, the RSS of the server and its worker processes
after each (workers are recycled after `EXPLORER_TASKS_PER_WORKER` jobs, 20 by default).

    .venv/bin/python bench/soak_test.py [--corpora 100] [--sessions 4] [--words 3000] \\
        [--visit-every 10] [--timeout 1500] [--smoke]

The corpora are split over `--sessions` browser sessions used one after another (each a fresh
Playwright context, closed when its share is done), so both kinds of growth show: runs piling up
inside one session (bounded by the session's run cache and list of earlier runs) and sessions
piling up in the server. Every corpus is different (random words from its own seed, and its own
marker word), trained with the default settings; every `--visit-every`-th run is also opened on
Merge history, Vocabulary and Compare (which build the derived objects: charts, tables,
tokenizers, corpus measurements).

--smoke (what CI runs, so that the script cannot rot): one corpus of 300 words in one session, also
visiting Merge history (the loop's generic visit: one page is enough), within 180 s (too few to
say whether memory plateaus).

Printed: RSS every 10 corpora, the peak (VmHWM of /proc/PID/status), and whether it plateaued:
the highest RSS of the second half of the corpora against the highest of the first half after
warm-up (the first `--visit-every` corpora, which import and load everything once), and the
least-squares slope over the second half in MB per corpus. Loopback only; every wait is bounded
(--timeout for the whole run); the server and the browser are stopped however the run ends.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from load_test import SET_VALUE, corpus, family_rss_mb, marker, memory_mb, server_pid, temporary_store  # noqa: E402

from tests.browser.helpers import (  # noqa: E402
    VIEWPORT,
    chromium,
    chromium_missing_reason,
    open_page,
    streamlit_server,
    wait_idle,
)

PAGES = (("Merge history", "Step (merges applied)"), ("Vocabulary", "Grid view"), ("Compare", "Figures"))
ERROR_SELECTOR = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of y over x."""
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def train_one(page, index: int, run_number: int, words: int, deadline: float) -> None:
    """Paste corpus `index`, click Train, wait for the summary of this session's run `run_number`."""
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    area.evaluate(SET_VALUE, corpus(index, words))
    area.press("Control+Enter")
    wait_idle(page, timeout=max(1.0, deadline - time.monotonic()))
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text(f"Result of run #{run_number} ").wait_for(
        timeout=max(1.0, deadline - time.monotonic()) * 1000
    )
    wait_idle(page, timeout=max(1.0, deadline - time.monotonic()))
    errors = page.locator(ERROR_SELECTOR).all_inner_texts()
    if errors:
        raise AssertionError(f"corpus {index} ({marker(index)}): error element {errors[0][:200]!r}")


def visit_pages(page, deadline: float, pages: tuple[tuple[str, str], ...] = PAGES) -> None:
    sidebar = page.locator('[data-testid="stSidebar"]')
    for label, content in (*pages, ("Train", "Merges learned")):
        sidebar.get_by_role("link", name=label).click()
        page.get_by_text(content, exact=True).first.wait_for(
            timeout=max(1.0, deadline - time.monotonic()) * 1000
        )
        wait_idle(page, timeout=max(1.0, deadline - time.monotonic()))
        errors = page.locator(ERROR_SELECTOR).all_inner_texts()
        if errors:
            raise AssertionError(f"{label}: error element {errors[0][:200]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=4, help="browser sessions used one after another")
    parser.add_argument("--words", type=int, default=3_000, help="words per corpus (about 7 characters each)")
    parser.add_argument("--visit-every", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=1500.0, help="seconds for the whole run")
    parser.add_argument("--smoke", action="store_true", help="1 small corpus, one session (what CI runs)")
    args = parser.parse_args()
    pages = PAGES
    if args.smoke:
        args.corpora, args.sessions, args.words, args.visit_every, args.timeout = 1, 1, 300, 1, 180.0
        pages = PAGES[:1]  # the loop's generic visit: one page is enough
    reason = chromium_missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    deadline = time.monotonic() + args.timeout
    per_session = -(-args.corpora // args.sessions)
    series: list[tuple[int, float]] = []
    started = time.monotonic()
    with (
        temporary_store() as store,
        streamlit_server("soak-test", environ=store) as base_url,
        chromium() as browser,
    ):
        pid = server_pid(int(base_url.rsplit(":", 1)[1]))
        if pid is None:
            print("cannot find the server process")
            return 1
        print(
            f"server RSS at start: {memory_mb(pid)['VmRSS']:.0f} MB "
            f"(with its worker processes: {family_rss_mb(pid):.0f} MB)",
            flush=True,
        )
        index = 0
        for session in range(args.sessions):
            # --smoke: "reduce motion" on, as the tests' contexts (helpers.new_context); else the default
            motion = "reduce" if args.smoke else "no-preference"
            context = browser.new_context(viewport=VIEWPORT, reduced_motion=motion)
            context.set_default_timeout(60_000)
            try:
                page = context.new_page()
                open_page(page, base_url, "/")
                for run_number in range(1, per_session + 1):
                    if index >= args.corpora:
                        break
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"--timeout {args.timeout:.0f} s reached after {index} corpora")
                    train_one(page, index, run_number, args.words, deadline)
                    if (index + 1) % args.visit_every == 0:
                        visit_pages(page, deadline, pages)
                    series.append((index + 1, family_rss_mb(pid)))
                    if (index + 1) % 10 == 0:
                        print(
                            f"  {index + 1:4d} corpora (session {session + 1}): "
                            f"RSS (server + workers) {series[-1][1]:.0f} MB, "
                            f"{time.monotonic() - started:.0f} s",
                            flush=True,
                        )
                    index += 1
            finally:
                context.close()
        if not args.smoke:
            time.sleep(2)  # the closed sessions' memory let go (the smoke run's figures mean little)
        final = memory_mb(pid)
    warm = args.visit_every
    half = len(series) // 2
    first = [rss for number, rss in series[:half] if number > warm]
    second = [rss for _, rss in series[half:]]
    print(
        f"corpora trained: {len(series)} in {time.monotonic() - started:.0f} s "
        f"({args.sessions} sessions one after another, "
        f"~{len(corpus(0, args.words)) / 1024:.0f} KB each)"
    )
    print(
        f"server RSS: peak {final['VmHWM']:.0f} MB (VmHWM), {final['VmRSS']:.0f} MB at the end; "
        f"with its workers {series[-1][1]:.0f} MB after the last corpus"
    )
    if first and second:
        growth = slope(series[half:])
        plateaued = max(second) <= max(first) * 1.10 + 20 and growth < 1.0
        print(
            f"first half (after warm-up) max {max(first):.0f} MB, second half max {max(second):.0f} MB, "
            f"second-half slope {growth:+.2f} MB per corpus"
        )
        print("plateaued: " + ("yes" if plateaued else "NO (memory still growing)"))
        return 0 if plateaued else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
