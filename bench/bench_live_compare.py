"""Compare's live text box as a person feels it: a real `streamlit run app.py` and Debian's Chromium.

    .venv/bin/python bench/bench_live_compare.py [--repeat 20] [--visitors 8] [--smoke]

One tab trains the default run (the Train page's first sample), opens Compare with six columns (the
run, GPT-2, GPT-4, GPT-4o, Llama 3, Qwen) and measures, in the page (performance.now()), from the
input event of a text's last character until every column shows that text (each `.compare-column`
says how many characters it drew) and the counts table has a row per column:
  1. a 200-character sentence: the box holds its first 199 characters (filled, then idle), then
     the 200th is typed; median and max of --repeat sentences (each a different text);
  2. the same with a 2,000-character paragraph (one line: every column encodes it all again);
  3. --visitors visitors in sessions of their own (the same link), all typing a sentence at once,
     one key every 150 ms each: each visitor's median key-to-columns time over its keystrokes,
     against the same visitor typing alone before (the "idle" figure); a keystroke's time runs
     until the columns show its text or a later one. Measured twice:
     a. one visitor in Chromium, the others websocket visitors (bench/visitors.py `type_live`:
        what their browsers send and receive, on their own machines, as a class's would be): what
        the server does for eight typists, as the one browser feels it;
     b. every visitor a Chromium tab on this machine: the 2 cores then also draw eight pages.
The server's CPU time (user + system, from /proc) per keystroke is printed for 1 and 3.
First of all (0), however the page is reached: by the sidebar right after training a pasted corpus
(whose figures are then measured), by a reload, and by a new visitor's link naming eight columns
whose vocabularies this server has not loaded: the text typed key by key (one per 60 ms) as soon
as the box is there, from the first key until every column answers, and from the last key until
every column shows the whole text.
--smoke (what CI runs, so that the script cannot rot): arrivals by the sidebar and by a link (the
page's own four columns, not eight; not the reload), the link's four columns (not Llama 3 and
Qwen), one sentence of each length, 2 visitors, 5 keys each, every tab in one browser context (not
a new one each).
Figures depend on what else runs: the 1-minute load average is printed with them. A benchmark, not a
test: it prints figures and asserts nothing. Every server and browser it starts is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from load_test import cpu_seconds  # noqa: E402
from visitors import type_live  # noqa: E402

from tests.browser.helpers import (  # noqa: E402
    SERVER_PROCESSES,
    VIEWPORT,
    chromium,
    chromium_missing_reason,
    main,
    open_page,
    sidebar,
    streamlit_server,
    wait_idle,
)

BOX = "Text to compare"
EXTRA_COLUMNS = "pretrained%3Allama3%2Cpretrained%3Aqwen%2C"  # put first in the link's cols
KEY_INTERVAL_MS = 150
WORDS = (
    "the tokenizer merges frequent pairs of symbols into new tokens while byte level models never "
    "meet an unknown character and numbers like 12345 or dates 2026-11-26 split in many ways ünïcödé "
    "東京 café naïve résumé def encode(text): return [ids] ok"
).split()

# Installed once per page load: key press times, and for each awaited character count the first
# moment every column shows that many characters (or more) and the counts table has its rows.
PROBE_JS = """columns => {
  const probe = window.__probe = {keys: [], shown: {}, want: [], host: null};
  // Each key's input event (composed: it leaves the box's shadow root): Playwright types a character
  // that is not on the keyboard (ü, 東) without a keydown, never without an input event.
  document.addEventListener('input', () => probe.keys.push(performance.now()), true);
  const countsRows = () => {
    if (!probe.host || !probe.host.isConnected) {
      probe.host = [...document.querySelectorAll('div')]
        .find(el => el.shadowRoot && el.shadowRoot.querySelector('.counts')) || null;
    }
    return probe.host ? probe.host.shadowRoot.querySelectorAll('.counts tbody tr').length : 0;
  };
  const check = () => {
    if (probe.want.every(n => n in probe.shown)) return;
    const cells = document.querySelectorAll('.compare-column');
    if (cells.length !== columns) return;
    const counts = [...cells].map(cell => Number(cell.dataset.characters));
    const drawn = Math.min(...counts);
    if (Math.max(...counts) !== drawn || countsRows() !== columns) return;
    for (const n of probe.want) if (drawn >= n && !(n in probe.shown)) probe.shown[n] = performance.now();
  };
  new MutationObserver(check)
    .observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true});
  setInterval(check, 4);  // the counts table changes inside its shadow root, which no observer sees
}"""


def text_of(length: int, seed: int) -> str:
    """A sentence of exactly `length` characters, different for each seed, on one line."""
    words, i = [], seed
    while len(" ".join(words)) < length:
        words.append(WORDS[(i * 7 + 3) % len(WORDS)])
        i += 1
    return " ".join(words)[:length]


def load_average() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def tab_opener(browser, smoke: bool):
    """What opens a new tab: a new browser context each (a new visitor, an empty cache), or with
    --smoke a tab of one context for all (Chromium keeps the app's scripts: fewer CPU-seconds)."""
    if smoke:
        return browser.new_context(viewport=VIEWPORT).new_page
    return lambda: browser.new_page(viewport=VIEWPORT)


def open_compare(new_tab, url: str, columns: int):
    """A new tab on Compare at `url`, its `columns` drawn and the probe installed."""
    page = new_tab()
    page.goto(url)
    return probed(page, columns)


def probed(page, columns: int):
    """`page` (on Compare) once its text box and `columns` columns are drawn, the probe installed."""
    page.get_by_role("textbox", name=BOX).wait_for(timeout=120_000)
    wait_idle(page)
    main(page).locator(".compare-column").nth(columns - 1).wait_for(timeout=120_000)
    page.evaluate(PROBE_JS, columns)
    return page


def last_key_ms(page, prefix: str, last: str) -> float:
    """Fill the box with `prefix`, wait until every column shows it, type `last`: the time until
    every column shows the whole text."""
    box = page.get_by_role("textbox", name=BOX)
    page.evaluate("n => { window.__probe.shown = {}; window.__probe.want = [n]; }", len(prefix))
    box.fill(prefix)
    page.wait_for_function("n => n in window.__probe.shown", arg=len(prefix), timeout=60_000)
    wait_idle(page, settle_ms=100)
    box.press("End")
    n = len(prefix) + 1
    page.evaluate("n => { const p = window.__probe; p.shown = {}; p.want = [n]; p.keys = []; }", n)
    page.keyboard.type(last)
    page.wait_for_function("n => n in window.__probe.shown", arg=n, timeout=60_000)
    return page.evaluate("n => window.__probe.shown[n] - window.__probe.keys[0]", n)


def typing_latencies(pages, text: str) -> list[list[float]]:
    """Every page types `text` after what its box holds, one key every KEY_INTERVAL_MS (all pages
    in turn within each interval); each page's key-to-columns times."""
    starts = [len(page.get_by_role("textbox", name=BOX).input_value()) for page in pages]
    for page, start in zip(pages, starts):
        page.get_by_role("textbox", name=BOX).press("End")
        page.evaluate(
            "([s, k]) => { const p = window.__probe; p.keys = []; p.shown = {}; p.want = [];"
            " for (let i = 1; i <= k; i++) p.want.push(s + i); }",
            [start, len(text)],
        )
    begin = time.monotonic()
    for i, char in enumerate(text):
        for page in pages:
            page.keyboard.type(char)
        pause = begin + (i + 1) * KEY_INTERVAL_MS / 1000 - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    results = []
    for page, start in zip(pages, starts):
        last = start + len(text)
        page.wait_for_function("n => n in window.__probe.shown", arg=last, timeout=120_000)
        results.append(
            page.evaluate(
                """([s, k]) => { const p = window.__probe; const out = [];
                  for (let i = 1; i <= k; i++) {
                    const later = Object.entries(p.shown)
                      .filter(([n]) => Number(n) >= s + i).map(([, t]) => t);
                    out.push(Math.min(...later) - p.keys[i - 1]);
                  } return out; }""",
                [start, len(text)],
            )
        )
    return results


def emptied(page) -> None:
    """Empty the box and wait until no column is drawn (the page asks for a sentence)."""
    page.get_by_role("textbox", name=BOX).fill("")
    page.wait_for_function("() => document.querySelectorAll('.compare-column').length === 0", timeout=60_000)
    wait_idle(page)


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms, max {max(values):.0f} ms (n={len(values)})"


# In a tab: the time (performance.now()) of each key's input event, the first moment every column
# shows the same non-empty text (the first keys answered), and the first moment every column shows
# `n` characters (the whole text).
ARRIVAL_PROBE_JS = """n => {
  const probe = window.__arrival = {n, keys: [], typed: [], first: null, whole: null};
  document.addEventListener('input', (event) => {
    probe.keys.push(performance.now());
    probe.typed.push((event.composedPath()[0].value ?? "").length);  // the box is in a shadow root
  }, true);
  const check = () => {
    if (!probe.keys.length) return;
    const shown = [...document.querySelectorAll('.compare-column')].map(c => Number(c.dataset.characters));
    if (!shown.length || document.querySelector('.column-loading')) return;
    const answered = shown[0] > 0 && probe.typed.includes(shown[0]) && shown.every(x => x === shown[0]);
    if (probe.first === null && answered) probe.first = performance.now();
    if (probe.whole === null && shown.every(x => x === probe.n)) probe.whole = performance.now();
  };
  new MutationObserver(check).observe(document.body, {childList: true, subtree: true, attributes: true});
}"""
ARRIVAL_TEXT = "Tokenizers split words like zqxvbn"
ARRIVAL_CORPUS = "\n".join(
    f"line {n}: the lowest newer widest tower was lower than the newest one" for n in range(400)
)
EIGHT_COLUMNS = "pretrained%3Allama3%2Cpretrained%3Aqwen%2Cpretrained%3Allama4%2Cpretrained%3Aqwen3.6%2C"


def type_on_arrival(page, label: str, number: int) -> None:
    """Type ARRIVAL_TEXT and `number` "!" key by key (one per 60 ms) as soon as the box is there (a
    text the link does not hold yet); print the first key -> every column shows a text typed, and
    the last key -> every column shows the whole text."""
    text = f"{ARRIVAL_TEXT} {'!' * number}"  # its own length: the probe compares lengths
    box = page.get_by_role("textbox", name=BOX)
    box.wait_for(timeout=120_000)
    page.evaluate(ARRIVAL_PROBE_JS, len(text))
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text, delay=60)
    page.wait_for_function("() => window.__arrival.whole !== null", timeout=120_000, polling=50)
    probe = page.evaluate("() => window.__arrival")
    columns = page.locator(".compare-column").count()
    print(
        f"{label} ({columns} columns): first key -> every column answered "
        f"{probe['first'] - probe['keys'][1]:.0f} ms; last key -> every column shows the text "
        f"{probe['whole'] - probe['keys'][-1]:.0f} ms (keys every 60 ms)",
        flush=True,
    )
    wait_idle(page)


def arrivals(new_tab, base: str, smoke: bool) -> None:
    """However Compare is reached (issue 32, item 3), on a server that has not loaded the eight
    columns' vocabularies yet: by the sidebar right after training a pasted corpus of its own (its
    figures are measured as the page opens), by a reload, and by a link naming eight columns."""
    page = new_tab()
    open_page(page, base, "/")
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    area.fill(ARRIVAL_CORPUS)
    area.press("Control+Enter")
    wait_idle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    main(page).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
    wait_idle(page)
    sidebar(page).get_by_role("link", name="Compare").click()
    type_on_arrival(page, "arrived by the sidebar after training", 1)
    if not smoke:  # --smoke: the sidebar and the eight columns (the reload is the sidebar's page again)
        page.reload()
        type_on_arrival(page, "after a reload", 2)
    # --smoke: the link's own four columns (loaded already: the step runs, its figure means little)
    link = page.url if smoke else page.url.replace("cols=", "cols=" + EIGHT_COLUMNS)
    page.close()
    page = new_tab()
    page.goto(link)
    type_on_arrival(
        page, "a new visitor on the link" if smoke else "a new visitor on a link to eight columns", 3
    )
    page.close()


def main_bench(repeat: int, visitors: int, keys: int, smoke: bool = False) -> None:
    extra_columns = "" if smoke else EXTRA_COLUMNS
    with streamlit_server("bench-live-compare") as base, chromium() as browser:
        pid = SERVER_PROCESSES[base].pid
        print(f"load average before: {load_average()}")
        new_tab = tab_opener(browser, smoke)
        arrivals(new_tab, base, smoke)  # first: the eight columns' vocabularies are not loaded yet
        page = new_tab()
        open_page(page, base, "/")
        page.get_by_role("button", name="Train", exact=True).click()
        main(page).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        wait_idle(page)
        sidebar(page).get_by_role("link", name="Compare").click()
        page.get_by_role("textbox", name=BOX).wait_for(timeout=120_000)
        wait_idle(page)
        url = page.url.replace("cols=", "cols=" + extra_columns)
        columns = len(parse_qs(urlsplit(url).query)["cols"][0].split(","))
        if url == page.url:  # --smoke: the link's own columns, in this tab
            page = probed(page, columns)
        else:  # a new tab on the link with more columns
            page.close()
            page = open_compare(new_tab, url, columns)
        print(f"{columns} columns: {url.split('cols=')[1].split('&')[0]}")
        print(f"load average before: {load_average()}")

        for length in (200, 2_000):
            times, cpu = [], 0.0
            for seed in range(repeat):
                text = text_of(length, seed)
                before = cpu_seconds(pid)
                times.append(last_key_ms(page, text[:-1], text[-1]))
                cpu += cpu_seconds(pid) - before
            print(
                f"last key of a {length:,}-character sentence to all {columns} columns: {summary(times)}; "
                f"server CPU per fill + key {1000 * cpu / repeat:.0f} ms"
            )

        sentence = text_of(keys, 99)
        emptied(page)
        before = cpu_seconds(pid)
        idle = typing_latencies([page], sentence)[0]
        cpu_per_key = (cpu_seconds(pid) - before) / len(sentence)
        print(
            f"one visitor typing {len(sentence)} keys, one per {KEY_INTERVAL_MS} ms: {summary(idle)}; "
            f"server CPU per keystroke {1000 * cpu_per_key:.0f} ms"
        )
        base_url, query = url.split("/Compare?", 1)
        typists: list[list[float]] = []

        opened = [threading.Event() for _ in range(visitors - 1)]

        async def others_typing() -> None:
            typists.extend(
                await asyncio.gather(
                    *(
                        type_live(
                            base_url,
                            "Compare",
                            query,
                            BOX,
                            sentence,
                            KEY_INTERVAL_MS / 1000,
                            on_open=event.set,
                        )
                        for event in opened
                    )
                )
            )

        emptied(page)
        thread = threading.Thread(target=asyncio.run, args=(others_typing(),))
        before = cpu_seconds(pid)
        thread.start()
        for event in opened:  # their sessions open and draw the page first
            event.wait(timeout=120)
        with_typists = typing_latencies([page], sentence)[0]
        thread.join(timeout=300)
        cpu_per_key = (cpu_seconds(pid) - before) / (len(sentence) * visitors)
        server_medians = ", ".join(f"{1000 * statistics.median(one):.0f}" for one in typists)
        print(
            f"{visitors} visitors typing at once, {visitors - 1} of them websocket visitors: the browser's "
            f"{summary(with_typists)} = "
            f"{statistics.median(with_typists) / statistics.median(idle):.2f}x "
            f"the idle median; the others' send-to-drawn medians {server_medians} ms; "
            f"server CPU per keystroke {1000 * cpu_per_key:.0f} ms"
        )

        others = [open_compare(new_tab, url, columns) for _ in range(visitors - 1)]
        pages = [page, *others]
        for one in pages:
            emptied(one)
        before = cpu_seconds(pid)
        busy = typing_latencies(pages, sentence)
        cpu_per_key = (cpu_seconds(pid) - before) / (len(sentence) * len(pages))
        medians = [statistics.median(one) for one in busy]
        listed = ", ".join(f"{m:.0f}" for m in medians)
        print(
            f"{len(pages)} visitors typing at once, all in Chromium on this machine: "
            f"their medians {listed} ms; "
            f"worst {max(medians):.0f} ms = {max(medians) / statistics.median(idle):.2f}x the idle median; "
            f"server CPU per keystroke {1000 * cpu_per_key:.0f} ms"
        )
        print(f"load average after: {load_average()}")


def main_cli() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--visitors", type=int, default=8)
    parser.add_argument("--keys", type=int, default=40, help="keys each visitor types in part 3")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    reason = chromium_missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    if args.smoke:
        args.repeat, args.visitors, args.keys = 1, 2, 5
    main_bench(args.repeat, args.visitors, args.keys, smoke=args.smoke)
    return 0


if __name__ == "__main__":
    sys.exit(main_cli())
