"""The app's speed as a person feels it: a real `streamlit run app.py` and Debian's Chromium.

    .venv/bin/python bench/bench_app.py [--windows 5] [--moves 8] [--pauses 20] [--visitors 8] [--smoke]

On ../shared/data/tinyshakespeare.txt (skipped with a message when absent), in one browser tab:
  1. Train: upload the file (the upload widget, `set_input_files`), BPE, vocabulary 5,000, then the
     wall time from the click on Train until the summary metrics are visible. The "Time taken"
     metric (the trainer alone, server side) and the stop reason are printed next to it.
  2. Page switch: sidebar link to Merge history until its player (`.player`, the transport of
     explorer.ui.history.player) is there and the script is idle.
  3. A step move, the player's range input moved with the keyboard, several ways:
     - browser: a keydown listener and a MutationObserver in the page give the time from the
       ArrowRight key press to the player's line saying "Merge k of N" (the browser shows the new
       step at once; the line is the server's drawing of it) and to the end of the fragment's run
       (charts included);
     - script run: the same observer records the app's `data-test-script-state` attribute
       (stApp: running / notRunning), so "running" -> "notRunning" after the key press is the
       fragment's server-side run as the browser is told of it (loopback: latency is negligible);
     - in-process: the fragment's Python work (merge line, corpus words, sample sentences, the two
       charts and their JSON) timed directly on a run trained in this process with the same
       settings, without Streamlit;
     - AppTest (server only, no browser): the same run put in an AppTest session, then the Merge
       history page run after each step change (an action `{seq, step, playing}` put in the
       session, as the browser sends it). AppTest runs the whole page (it never reruns a fragment
       alone), so this bounds the fragment's server-side time from above without the browser's
       share, which the browser-observed figure includes: with 2 cores the tab's main thread
       applies the new charts before it handles the "finished" message.
     Moves alternate right and left from the middle of the run; medians (and max) are printed.
  4. Playback: from step 0, Play for --windows seconds at 500 merges per tick (the fastest) and at
     20 (the default for long runs). A MutationObserver on `.player`'s `data-step` records every
     step the tab shows, with its time (while playing, a step is shown when the server has drawn
     it): drawings per second, merges per second, the longest gap between two drawn steps, and the
     time from the Play click to the first. A window ends early when the run's last merge is shown
     (the clock stops there): the figures are then over the time until it.
  5. Responsiveness while playing (20 merges per tick): animation frames per second the tab manages
     (and the share of time in long tasks) paused and playing; mouse clicks on the "Token"
     selectbox (at the element's position, no Playwright wait for a still element, clicked again
     after 3 s if nothing opened, as a person would) until its list is open; picking a token until
     the merge tree shows it (a whole-page rerun while the player plays); whether the player still
     advances afterwards.
  6. Pause: the same file trained again at vocabulary 8,000, Merge history at 500 merges per tick;
     --pauses times: from step 0, Play, wait a random 0.5-2 s (seeded: the seed is printed), click
     Pause. In-page instrumentation (a click listener, and a MutationObserver on `.player`'s
     `data-step` and on `.player-line`'s class, timestamps from performance.now()) gives
     (a) click -> step frozen: the time from the click to the last change of the step shown (0 when
     it never changes after the click), watched for at least 1.5 s after the click and 0.5 s after
     (b); (b) click -> drawn: the time from the click until `.player-line` loses `player-pending`
     (the server has drawn the paused step). Medians and max are printed, and how many times the
     paused step equals the URL's `step` and the line's "Merge k of N".
  7. First paint of the links a class opens: a course lesson (`/?lesson=course-bpe`, which lands on
     Merge history), the trained run's Merge history link at its step, and its Vocabulary link.
     Each in a new browser (a context: empty cache, no session, as a student's first visit),
     3 times in turn, then by --visitors (8) new browsers at once (all started before any is
     read). An init script records, in ms after the response's first byte, when the title, the
     step line, the player's buttons and the first table are first in the page and when the main
     area last changed (all drawn); and the JavaScript loaded before the player (the title
     without one) is shown. Medians (and max).
--smoke (what CI runs, so that the script cannot rot): the first 20,000 characters of the bundled
Shakespeare sample (explorer/data; ../shared is not needed), vocabulary 600 (about 340 merges),
two step moves, 1 s of playback at 20 merges per tick, one pause at 20 merges per tick (500 would
reach the end in one tick) on the same run (not trained again), the Merge history link's first
paint once (one new browser: the crowd's code is the same), every step above once.
Browser figures depend on what else runs on the machine: the 1-minute load average before and after
is printed with them (compare runs made at a similar load only). This is a benchmark, not a test: it
prints figures and asserts nothing (a step that fails prints why and the figures it has; a smoke run
that could not finish a step exits 1). Every server and browser it starts is stopped.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.ui.history.player import SPEEDS, TICK_SECONDS  # noqa: E402
from tests.browser.helpers import (  # noqa: E402
    PLAYER_SELECTOR,
    VIEWPORT,
    chromium,
    chromium_missing_reason,
    open_page,
    screenshot,
    streamlit_server,
    wait_idle,
)

CORPUS = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"
VOCAB_SIZE = 5000
PAUSE_VOCAB_SIZE = 8000
SMOKE_CHARACTERS = 20_000
SMOKE_VOCAB_SIZE = 600  # about 340 merges (byte-level: 256 tokens to start)
STEP_RANGE = f'{PLAYER_SELECTOR} input[type="range"]'  # aria-label "Step (merges applied)"
PLAY_SPEEDS = ("500 merges per tick", "20 merges per tick")
BUSY_SPEED = "20 merges per tick"  # the player's speed while responsiveness is measured
PAUSE_SPEED = "500 merges per tick"
PAUSE_WAIT_SECONDS = (0.5, 2.0)  # Play, then Pause after a random wait in this range
PAUSE_WATCH_MS = 1500  # after a Pause click, the step is watched at least this long
AFTER_DRAWN_MS = 500  # ... and at least this long after the paused step is drawn
PAUSE_SEED = 2026
COMMAND = ".venv/bin/python bench/bench_app.py"

# Installed once per page load: times (performance.now(), ms) of key presses, of the script-state
# changes of the app, and of the first moment the merge line names an awaited step.
PROBE_JS = """() => {
  const probe = window.__probe = {keys: [], states: [], seen: null, want: null};
  document.addEventListener('keydown', () => probe.keys.push(performance.now()), true);
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(
    () => probe.states.push([performance.now(), app.getAttribute('data-test-script-state')])
  ).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  new MutationObserver(() => {
    if (probe.want === null || probe.seen !== null) return;
    const line = document.querySelector('.merge-summary');
    if (line && line.innerText.startsWith(probe.want)) probe.seen = performance.now();
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""

# Armed before each playback window and each pause: on the player shown now, the times
# (performance.now(), ms) of clicks on its buttons (a capture listener on the document: it runs
# before the button's own), of every change of the step it shows (`data-step`), and of every
# change of its line's class (whether `player-pending` is on it). Arming again starts afresh (and
# follows a player drawn anew).
PLAYER_PROBE_JS = """() => {
  const probe = window.__playerProbe || (window.__playerProbe = {clicks: [], steps: [], lines: []});
  if (!probe.listening) {
    probe.listening = true;
    document.addEventListener('click', (event) => {
      const button = event.target.closest && event.target.closest('.player button');
      if (button) probe.clicks.push([performance.now(), button.textContent.trim()]);
    }, true);
  }
  if (probe.observer) probe.observer.disconnect();
  const root = document.querySelector('.player');
  const line = root.querySelector('.player-line');
  let shown = root.dataset.step;
  probe.clicks = [];
  probe.steps = [[performance.now(), Number(shown)]];
  probe.lines = [[performance.now(), line.classList.contains('player-pending')]];
  probe.observer = new MutationObserver((records) => {
    const now = performance.now();
    for (const record of records) {
      if (record.target === root && record.attributeName === 'data-step') {
        if (root.dataset.step !== shown) {
          shown = root.dataset.step;
          probe.steps.push([now, Number(shown)]);
        }
      } else if (record.target === line && record.attributeName === 'class') {
        probe.lines.push([now, line.classList.contains('player-pending')]);
      }
    }
  });
  probe.observer.observe(root, {attributes: true, subtree: true, attributeFilter: ['data-step', 'class']});
}"""

# Installed before a page's own scripts (an init script of a new browser context): the time, in ms
# after the response's first byte, at which each part of the first screen is first in the page
# (the player: its transport, drawn by its component), and the time of the last change in the
# page's main area (everything drawn).
FIRST_PAINT_JS = """(() => {
  const marks = window.__firstPaint = {last: 0};
  const parts = {title: 'h1', line: '.player-line', player: '.player button', why: '.why',
                 table: '[data-testid="stDataFrame"] canvas, .figures-table table'};
  const since = () => performance.now() - (performance.getEntriesByType('navigation')[0]?.responseStart ?? 0);
  new MutationObserver((records) => {
    const now = since();
    for (const [name, selector] of Object.entries(parts)) {
      if (!(name in marks) && document.querySelector(selector)) marks[name] = now;
    }
    if (records.some((r) => r.target.closest?.('[data-testid="stMain"]'))) marks.last = now;
  }).observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
})();"""
# The JavaScript (bytes as received, after decompression) the page loaded before `mark` (ms after
# its first byte): what a first screen costs the browser.
SCRIPT_BYTES_JS = """(mark) => {
  const start = performance.getEntriesByType('navigation')[0]?.responseStart ?? 0;
  return performance.getEntriesByType('resource')
    .filter((r) => r.initiatorType === 'script' || r.name.endsWith('.js'))
    .filter((r) => r.responseEnd - start <= mark)
    .reduce((sum, r) => sum + (r.decodedBodySize || 0), 0);
}"""
FIRST_PAINT_VISITS = 3  # a link opened in a new browser this many times in turn (idle)
FIRST_PAINT_VISITORS = 8  # ... then by this many new browsers at once

# What the armed probe has, and the page's clock now.
PLAYER_PROBE_READ_JS = """() => {
  const p = window.__playerProbe;
  return {now: performance.now(), clicks: p.clicks, steps: p.steps, lines: p.lines};
}"""


def median_max(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{statistics.median(values):.0f} ms (max {max(values):.0f})"


def player_state(page) -> dict:
    """The player read at one instant: the step it shows, whether it plays, whether its line waits
    for the server's drawing, the line's text, and the URL's `step`."""
    state = page.evaluate(
        """selector => {
             const root = document.querySelector(selector);
             const line = root.querySelector('.player-line');
             return {step: Number(root.dataset.step), playing: root.dataset.playing === 'true',
                     pending: line.classList.contains('player-pending'), line: line.innerText};
           }""",
        PLAYER_SELECTOR,
    )
    values = parse_qs(urlsplit(page.url).query).get("step")
    state["url_step"] = int(values[0]) if values else None
    return state


def step_of(page) -> int:
    """The step the player shows (`.player`'s `data-step`)."""
    return int(page.locator(PLAYER_SELECTOR).get_attribute("data-step"))


def line_step(line: str) -> int | None:
    """The step the player's line is about: "Merge 12 of ..." or, at step 0, "Before any merge"."""
    if "Before any merge" in line:
        return 0
    found = re.match(r"Merge ([\d,]+) of", line.strip())
    return int(found[1].replace(",", "")) if found else None


def wait_drawn(page, timeout_ms: int = 60_000) -> None:
    """Until the server has drawn the player's newest action (its line is not pending)."""
    page.wait_for_function(
        """selector => {
             const line = document.querySelector(selector + ' .player-line');
             return line && !line.classList.contains('player-pending');
           }""",
        arg=PLAYER_SELECTOR,
        timeout=timeout_ms,
    )


def pause_if_playing(page) -> None:
    """Click Pause while the player plays. Its clock may stop at the last merge between the reading
    and the click, which turns the button disabled (a smoke run on a loaded machine waited 30 s for
    it): not playing any more is paused too."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    button = page.get_by_role("button", name="Pause", exact=True)
    while player_state(page)["playing"]:
        try:
            button.click(timeout=2_000)
            return
        except PlaywrightTimeoutError:
            continue


def go_to_start(page) -> None:
    """The player paused at step 0 (its range input's Home key: one action), drawn, script idle."""
    pause_if_playing(page)
    page.locator(STEP_RANGE).focus()
    page.keyboard.press("Home")
    page.wait_for_function(
        "selector => document.querySelector(selector).dataset.step === '0'", arg=PLAYER_SELECTOR
    )
    wait_drawn(page)
    wait_idle(page)


def set_speed(page, label: str) -> None:
    """The speed select-slider moved with the keyboard to `label` (Home, then ArrowRight presses:
    each one reruns the player's fragment)."""
    speed = page.get_by_role("slider", name="Speed")
    if speed.get_attribute("aria-valuetext") == label:
        return
    speed.focus()
    page.keyboard.press("Home")
    wait_idle(page)
    for _ in range(len(SPEEDS)):
        if speed.get_attribute("aria-valuetext") == label:
            return
        page.keyboard.press("ArrowRight")
        wait_idle(page, settle_ms=150)
    raise RuntimeError(f"the Speed slider has no {label!r}: {speed.get_attribute('aria-valuetext')!r}")


# ---------------------------------------------------------------- 1-2 train, switch page


def train(page, base_url: str, corpus: Path, vocab_size: int, figures: dict, prefix: str = "") -> None:
    """Train from the Train page opened anew; figures under `prefix` + "train", ..."""
    open_page(page, base_url, "/")
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(corpus))
    page.get_by_text("Using the uploaded file").wait_for(timeout=60_000)
    wait_idle(page)
    number = page.get_by_role("spinbutton", name="Exact vocabulary size")
    number.fill(str(vocab_size))
    number.press("Enter")
    wait_idle(page)
    page.get_by_role("radio", name="BPE", exact=True).check()  # the default; said for clarity
    wait_idle(page)
    started = time.perf_counter()
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Merges learned", exact=True).wait_for(timeout=180_000)
    # The last metric of the summary drawn (the stop reason, before it, is a sentence).
    page.locator('[data-testid="stMetricLabel"]').filter(has_text="Distinct words").wait_for()
    figures[prefix + "train"] = time.perf_counter() - started
    metrics = dict(
        zip(
            page.locator('[data-testid="stMetricLabel"]').all_inner_texts(),
            page.locator('[data-testid="stMetricValue"]').all_inner_texts(),
        )
    )
    figures[prefix + "train_metrics"] = {label.strip(): value.strip() for label, value in metrics.items()}
    figures[prefix + "stop_reason"] = page.get_by_text("Stop reason:").first.inner_text().strip()
    wait_idle(page)
    screenshot(page, f"bench-{prefix}train")


def switch_to_merge_history(page, figures: dict, prefix: str = "") -> None:
    started = time.perf_counter()
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Merge history").click()
    page.locator(PLAYER_SELECTOR).wait_for(timeout=60_000)
    figures[prefix + "switch_visible"] = time.perf_counter() - started
    wait_idle(page)
    figures[prefix + "switch_idle"] = time.perf_counter() - started
    figures[prefix + "steps"] = int(page.locator(STEP_RANGE).get_attribute("max"))


# ---------------------------------------------------------------- 3 a step move


def step_moves(page, moves: int, figures: dict) -> None:
    page.evaluate(PROBE_JS)
    go_to_start(page)
    # Jump near the middle with PageUp presses (a native range input: a tenth of the range each; an
    # action each, the server draws the newest), then time single ArrowRight / ArrowLeft moves.
    for _ in range(5):
        page.keyboard.press("PageUp")
    wait_drawn(page)
    wait_idle(page)
    to_dom, to_done, script_runs = [], [], []
    for move in range(moves):
        step = step_of(page)
        key, target = ("ArrowRight", step + 1) if move % 2 == 0 else ("ArrowLeft", step - 1)
        page.evaluate(
            "want => { const p = window.__probe; p.keys = []; p.states = []; p.seen = null; p.want = want; }",
            f"Merge {target:,} of",
        )
        page.keyboard.press(key)
        page.wait_for_function("() => window.__probe.seen !== null", timeout=30_000)
        wait_idle(page, settle_ms=150)
        probe = page.evaluate("() => window.__probe")
        pressed = probe["keys"][0]
        to_dom.append(probe["seen"] - pressed)
        running = [t for t, state in probe["states"] if state == "running" and t >= pressed]
        if running:
            finished = [t for t, state in probe["states"] if state == "notRunning" and t > running[0]]
            if finished:
                script_runs.append(finished[0] - running[0])
                to_done.append(finished[0] - pressed)
    figures["move_dom"] = to_dom
    figures["move_done"] = to_done
    figures["move_script"] = script_runs
    figures["move_at"] = step_of(page)


def fragment_work_in_process(corpus: Path, vocab_size: int, around: int, figures: dict) -> None:
    """The fragment's Python work for one step, outside Streamlit, on the same corpus and settings,
    at the 2 * `around` + 1 steps around the middle of the run."""
    import logging

    from explorer.drawing import charts
    from explorer.drawing.wording import character_count
    from explorer.lessons.merge_step import MergeStep
    from explorer.runs.run import RunKey, corpus_digest, make_run
    from explorer.runs.settings import Settings
    from explorer.samples import SAMPLE_SENTENCES
    from explorer.train import train_corpus
    from explorer.views import merge_views

    # Called without a script run, Streamlit's caches warn "missing ScriptRunContext" on every call
    # (Streamlit sets each of its loggers' level itself, so a parent's level does not silence them).
    logging.disable(logging.WARNING)
    text = corpus.read_text(encoding="utf-8")
    settings = Settings(vocab_size=vocab_size)
    trace = train_corpus(text, settings.run_config())
    run = make_run(
        key=RunKey(corpus_digest(text), settings),
        history=trace,
        corpus_label=corpus.name,
        characters=len(text),
        perceived_characters=character_count(text),
        sample_key=None,
    )
    sentences = list(SAMPLE_SENTENCES)
    timings = []
    middle = trace.steps // 2
    for k in [middle + i for i in range(-around, around + 1)]:
        started = time.perf_counter()
        step = MergeStep(trace, k)
        merge_views.merge_summary_html(run, step)
        merge_views.words_at_step_html(run, step)
        merge_views.sentences_at_step_html(run, step, sentences)
        charts.merge_timeline(trace, k).to_json()
        charts.compression_curve(trace, k).to_json()
        timings.append((time.perf_counter() - started) * 1000)
    figures["move_python"] = timings[1:]  # the first call builds per-run caches (labels, top words)
    figures["move_python_first"] = timings[0]
    page_rerun_in_apptest(run, text, around, figures)


def page_rerun_in_apptest(run, text: str, around: int, figures: dict) -> None:
    """Server only, no browser: the Merge history page in AppTest with the same run in the session;
    each step change is the player's action as the browser sends it, and a whole-page run there
    (AppTest does not rerun fragments alone), so this is an upper bound of the fragment's
    server-side time and the cost of a full-page rerun."""
    from streamlit.testing.v1 import AppTest

    from explorer.ui.common import state

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.session_state[state.CURRENT_RUN] = run
    app.session_state[state.TRAINED_CORPUS] = (run.key.corpus_sha256, text)
    app.session_state[state.STEP] = 0
    app.session_state[state.PLAYING] = False
    app.run()
    app.switch_page("pages/1_Merge_history.py")
    started = time.perf_counter()
    app.run()
    figures["apptest_first"] = (time.perf_counter() - started) * 1000
    if app.exception:
        print(f"AppTest: the page raised {app.exception}")
        return
    timings = []
    middle = run.history.steps // 2
    for k in [middle + i for i in range(-around, around + 1)]:
        seq = int(app.session_state[state.PLAYER_ACK]) + 1 if state.PLAYER_ACK in app.session_state else 1
        app.session_state[state.Widget.PLAYER] = {"action": {"seq": seq, "step": k, "playing": False}}
        started = time.perf_counter()
        app.run()
        timings.append((time.perf_counter() - started) * 1000)
        if app.exception or app.session_state[state.STEP] != k:
            print(f"AppTest: the page did not go to step {k}: {app.exception or 'another step'}")
            return
    figures["apptest_rerun"] = timings


# ---------------------------------------------------------------- 4 playback


def playback(page, speed: str, seconds: float) -> dict:
    """From step 0, Play at `speed` for `seconds` (less when the last merge is shown first): every
    step drawn, from the in-page probe."""
    set_speed(page, speed)
    go_to_start(page)
    steps = int(page.locator(STEP_RANGE).get_attribute("max"))
    page.evaluate(PLAYER_PROBE_JS)
    page.get_by_role("button", name="Play", exact=True).click()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and step_of(page) < steps:
        page.wait_for_timeout(100)
    probe = page.evaluate(PLAYER_PROBE_READ_JS)
    pause_if_playing(page)
    wait_drawn(page)
    wait_idle(page)
    clicked = next(t for t, name in probe["clicks"] if name == "Play")
    drawn = [(t, step) for t, step in probe["steps"][1:] if t >= clicked]
    reached_end = bool(drawn) and drawn[-1][1] >= steps
    end = drawn[-1][0] if reached_end else min(probe["now"], clicked + seconds * 1000)
    drawn = [(t, step) for t, step in drawn if t <= end]
    window = (end - clicked) / 1000
    times = [t for t, _ in drawn]
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    return {
        "window": window,
        "drawings": len(drawn),
        "drawings_per_second": len(drawn) / window if window > 0 else float("nan"),
        "merges_per_second": drawn[-1][1] / window if drawn and window > 0 else 0.0,
        "longest_gap": max(gaps) if gaps else float("nan"),
        "first": times[0] - clicked if times else float("nan"),
        "reached_end": reached_end,
    }


# ---------------------------------------------------------------- 5 responsiveness while playing


FRAMES_JS = """async seconds => {
  let frames = 0, blocked = 0;
  const observer = new PerformanceObserver(list => list.getEntries().forEach(e => blocked += e.duration));
  observer.observe({type: 'longtask'});
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    await new Promise(resolve => requestAnimationFrame(resolve));
    frames++;
  }
  observer.disconnect();
  const elapsed = (performance.now() - start) / 1000;
  return [frames / elapsed, blocked / 10 / elapsed];
}"""


def frames(page, seconds: float) -> tuple[float, float]:
    """Animation frames per second the tab managed, and % of the time in long tasks (> 50 ms)."""
    return tuple(page.evaluate(FRAMES_JS, seconds))


def click_until(page, target, opened, attempts: int = 5, wait_ms: int = 3000) -> tuple[float, int]:
    """Click the middle of `target` with the mouse (no Playwright wait for a still element: what a
    person does) until `opened` is visible; (ms from the first click, clicks needed)."""
    target.scroll_into_view_if_needed()
    started = time.perf_counter()
    box = target.bounding_box()
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            if opened.is_visible():  # it opened just after the wait: the last click did it
                return (time.perf_counter() - started) * 1000, attempt - 1
            try:  # where it is now (an open list renames React Aria's "Open" button "Close")
                box = target.bounding_box(timeout=1_000) or box
            except Exception:
                pass
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        try:
            opened.wait_for(timeout=wait_ms)
            return (time.perf_counter() - started) * 1000, attempt
        except Exception:  # not open yet: click again, as a person would
            continue
    return float("nan"), attempts


def responsiveness(page, seconds: float, figures: dict) -> None:
    set_speed(page, BUSY_SPEED)
    go_to_start(page)
    closed = page.locator("details:not([open]) summary").filter(has_text="How a token was built")
    if closed.count():  # a section a learner opens (closed at first)
        closed.first.click()
    token = page.locator('[data-testid="stSelectbox"]').filter(has_text="Token")
    token.wait_for(timeout=30_000)
    token.scroll_into_view_if_needed()
    figures["frames_paused"] = frames(page, seconds)
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function(  # playing: a step after 0 drawn
        "selector => Number(document.querySelector(selector).dataset.step) > 0", arg=PLAYER_SELECTOR
    )
    figures["frames_playing"] = frames(page, seconds)

    tree_before = page.locator(".merge-tree").first.inner_text()
    options = page.get_by_role("option")
    # A React Aria combobox: its input does not open the list, its "Open" button does.
    figures["select_open"] = click_until(page, token.get_by_role("button", name="Open"), options.first)
    started = time.perf_counter()
    try:  # the first option is the first merge's token (the selectbox starts on the last one)
        box = options.first.bounding_box(timeout=5_000)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function(
            "before => document.querySelector('.merge-tree')?.innerText !== before",
            arg=tree_before,
            timeout=60_000,
        )
        figures["select_pick"] = (time.perf_counter() - started) * 1000
    except Exception as error:  # the list closed again before the pick: say so, carry on
        print(
            f"could not pick a token while playing (the list closed or never opened): {type(error).__name__}",
            flush=True,
        )
        page.keyboard.press("Escape")

    at = step_of(page)
    page.wait_for_timeout(int(seconds * 1000))
    figures["still_playing"] = step_of(page) - at
    pause_if_playing(page)  # a short run may have played to its end meanwhile
    wait_drawn(page)
    wait_idle(page)
    screenshot(page, "bench-merge_history")


# ---------------------------------------------------------------- 6 Pause


def one_pause(page, rng: random.Random) -> dict | None:
    """From step 0: Play, a random wait, Pause; what the probe saw (None when the run played to its
    end before the Pause click)."""
    go_to_start(page)
    page.evaluate(PLAYER_PROBE_JS)
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_timeout(int(rng.uniform(*PAUSE_WAIT_SECONDS) * 1000))
    pause = page.get_by_role("button", name="Pause", exact=True)
    if not pause.is_enabled():  # the clock stopped at the last merge
        return None
    pause.click()
    # Watched until PAUSE_WATCH_MS after the click and AFTER_DRAWN_MS after the paused step is drawn.
    page.wait_for_function(
        """([watch, after]) => {
             const p = window.__playerProbe, now = performance.now();
             const clicked = p.clicks.filter(([, name]) => name === 'Pause').map(([t]) => t)[0];
             if (clicked === undefined || now < clicked + watch) return false;
             const drawn = p.lines.find(([t, pending]) => t >= clicked && !pending);
             return drawn !== undefined && now >= drawn[0] + after;
           }""",
        arg=[PAUSE_WATCH_MS, AFTER_DRAWN_MS],
        timeout=120_000,
    )
    probe = page.evaluate(PLAYER_PROBE_READ_JS)
    shown = player_state(page)
    clicked = next(t for t, name in probe["clicks"] if name == "Pause")
    drawn = next(t for t, pending in probe["lines"] if t >= clicked and not pending)
    changes = [t for t, _ in probe["steps"][1:] if t >= clicked]
    return {
        "frozen": (changes[-1] - clicked) if changes else 0.0,
        "drawn": drawn - clicked,
        "moved_after_drawn": sum(1 for t in changes if t > drawn),
        "step": shown["step"],
        "playing": shown["playing"],
        "url_is_step": shown["url_step"] == shown["step"],
        "line_is_step": line_step(shown["line"]) == shown["step"],
    }


def pauses(page, count: int, speed: str, figures: dict) -> None:
    set_speed(page, speed)
    rng = random.Random(PAUSE_SEED)
    low, high = PAUSE_WAIT_SECONDS
    print(f"pauses: seed {PAUSE_SEED}, Pause after a wait of {low}-{high} s each time", flush=True)
    trials, ended = [], 0
    for _ in range(count):
        trial = one_pause(page, rng)
        if trial is None:
            ended += 1
        else:
            trials.append(trial)
    figures["pauses"] = trials
    figures["pauses_ended"] = ended
    figures["pause_speed"] = speed
    screenshot(page, "bench-merge_history-paused")


# ---------------------------------------------------------------- report


# ---------------------------------------------------------------- 7 first paint of a shared link


def first_paint_links(page, smoke: bool) -> dict[str, str]:
    """The links a class opens, from the run the tab shows at Merge history: a course lesson, that
    run's Merge history at its step, and its Vocabulary page (path and query); --smoke: the Merge
    history link alone."""
    query = urlsplit(page.url).query
    run = parse_qs(query)["run"][0]
    links = {
        "lesson link (/?lesson=course-bpe, to Merge history)": "/?lesson=course-bpe",
        "shared Merge history link": f"/Merge_history?{query}",
        "shared Vocabulary link": f"/Vocabulary?run={run}",
    }
    return {"shared Merge history link": links["shared Merge history link"]} if smoke else links


def open_fresh(browser, base_url: str, path: str):
    """A new browser (context: empty cache, no session) with the first-paint probe, at `path`
    (returns as soon as the response starts)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(FIRST_PAINT_JS)
    page = context.new_page()
    page.goto(base_url + path, wait_until="commit")
    return context, page


def read_first_paint(page, wants_player: bool) -> dict:
    """Once the page's script is idle: its marks (ms after the first byte), and the JavaScript it
    loaded before its player was shown (or, without a player, before its title)."""
    if wants_player:
        page.locator(f"{PLAYER_SELECTOR} button").first.wait_for(timeout=120_000)
    wait_idle(page, timeout=120)
    marks = page.evaluate("() => window.__firstPaint")
    until = marks.get("player" if wants_player else "title", marks["last"])
    marks["script_kb"] = page.evaluate(SCRIPT_BYTES_JS, until) / 1024
    return marks


def first_paint(
    browser, base_url: str, links: dict[str, str], visits: int, visitors: int, figures: dict
) -> None:
    """Each link opened in a new browser `visits` times in turn, then by `visitors` new browsers at
    once (every one started before any is read): figures["first_paint"][(label, n)] = marks."""
    results = figures.setdefault("first_paint", {})
    for label, path in links.items():
        wants_player = "Vocabulary" not in path
        for crowd in sorted({1, visitors}):  # --smoke: one new browser, once
            rounds = visits if crowd == 1 else 1
            for _ in range(rounds):
                opened = [open_fresh(browser, base_url, path) for _ in range(crowd)]
                for _context, page in opened:
                    results.setdefault((label, crowd), []).append(read_first_paint(page, wants_player))
                for context, _ in opened:
                    context.close()
        print(f"first paint: {label} done", flush=True)


def first_paint_rows(figures: dict) -> list[tuple[str, str, str]]:
    rows = []
    for (label, crowd), marks in figures.get("first_paint", {}).items():
        shown = [f"title {seconds(marks, 'title')}"]
        if any("player" in m for m in marks):
            shown += [f"step line {seconds(marks, 'line')}", f"player {seconds(marks, 'player')}"]
        if any("table" in m for m in marks):
            shown.append(f"first table {seconds(marks, 'table')}")
        shown.append(f"all drawn {seconds(marks, 'last')}")
        who = "1 new browser at a time" if crowd == 1 else f"{crowd} new browsers at once"
        script = statistics.median(m["script_kb"] for m in marks)
        rows.append(
            (
                f"{label}, {who}: after the first byte",
                "; ".join(shown),
                f"median (max) of {len(marks)}; {script:,.0f} KB of JavaScript before the "
                + ("player" if any("player" in m for m in marks) else "title"),
            )
        )
    return rows


def seconds(marks: list[dict], name: str) -> str:
    """The median (and max) of a mark over visits, in seconds."""
    values = [m[name] / 1000 for m in marks if name in m]
    if not values:
        return "never"
    return f"{statistics.median(values):.2f} s ({max(values):.2f})"


def training_rows(figures: dict, prefix: str, vocab_size: int, corpus: Path) -> list[tuple[str, str, str]]:
    metrics = figures.get(prefix + "train_metrics", {})
    return [
        (
            f"Train click -> summary visible (BPE {vocab_size:,}, {corpus.name})",
            f"{figures[prefix + 'train']:.2f} s" if prefix + "train" in figures else "n/a",
            "<= 3 s",
        ),
        ('  of which the trainer ("Time taken" metric)', metrics.get("Time taken", "n/a"), ""),
        ("  merges learned", metrics.get("Merges learned", "n/a"), figures.get(prefix + "stop_reason", "")),
    ]


def milliseconds(value: float) -> str:
    return f"{value:.0f} ms" if value == value else "n/a"  # NaN: nothing to measure


def playback_row(speed: str, figure: dict) -> tuple[str, str, str]:
    window = f"{figure['window']:.1f} s" + (", to the last merge" if figure["reached_end"] else "")
    return (
        f"Playback at {speed}: drawings/s, merges/s, longest gap between drawn steps",
        f"{figure['drawings_per_second']:.2f}/s, {figure['merges_per_second']:.0f} merges/s, "
        f"{milliseconds(figure['longest_gap'])}",
        f"{figure['drawings']} drawings in {window}; Play -> first drawn {milliseconds(figure['first'])}; "
        f"timer {1 / TICK_SECONDS:.2f} ticks/s",
    )


def pause_rows(figures: dict) -> list[tuple[str, str, str]]:
    trials = figures["pauses"]
    taken = len(trials)
    speed = figures["pause_speed"]
    ended = figures["pauses_ended"]
    ended_note = f"; {ended} more reached the last merge first" if ended else ""
    watch = f"watched {PAUSE_WATCH_MS} ms after the click, {AFTER_DRAWN_MS} ms after drawn"

    def count(key: str) -> int:  # the pauses where `key` is true (or above 0)
        return sum(1 for trial in trials if trial[key])

    return [
        (
            f"Pause click -> step frozen ({taken} pauses at {speed})",
            median_max([trial["frozen"] for trial in trials]),
            f"0: never moved after the click; {watch}{ended_note}",
        ),
        (
            f"Pause click -> paused step drawn ({taken} pauses at {speed})",
            median_max([trial["drawn"] for trial in trials]),
            "`.player-line` without `player-pending`",
        ),
        (
            "Paused step = URL's step / = the line's \"Merge k of N\"",
            f"{count('url_is_step')}/{taken} / {count('line_is_step')}/{taken}",
            f"step moved after drawn: {count('moved_after_drawn')}/{taken}; "
            f"still playing: {count('playing')}/{taken}",
        ),
    ]


def report(figures: dict, plan: Plan) -> None:
    rows = training_rows(figures, "", plan.vocab_size, plan.corpus)
    if "switch_idle" in figures:
        rows.append(
            (
                "Sidebar -> Merge history: player visible / script idle",
                f"{figures['switch_visible']:.2f} s / {figures['switch_idle']:.2f} s",
                "",
            )
        )
    if "move_dom" in figures:
        rows += [
            ("Step key press -> merge line updated (browser)", median_max(figures["move_dom"]), ""),
            ("Step key press -> fragment run finished (browser)", median_max(figures["move_done"]), ""),
            ("Step move: fragment script run (browser-observed)", median_max(figures["move_script"]), ""),
        ]
    if "move_python" in figures:
        rows.append(
            (
                "Step move: fragment's Python work in-process",
                median_max(figures["move_python"]),
                f"first call {figures['move_python_first']:.0f} ms",
            )
        )
    if "apptest_rerun" in figures:
        rows.append(
            (
                "Merge history whole-page run in AppTest, step changed (server only)",
                median_max(figures["apptest_rerun"]),
                f"first visit {figures['apptest_first']:.0f} ms",
            )
        )
    for speed, figure in figures.get("playback", {}).items():
        rows.append(playback_row(speed, figure))
    if "frames_playing" in figures:
        rows.append(
            (
                "Tab animation frames/s, paused / playing (long tasks % of time)",
                "{:.0f} / {:.0f} ({:.0f}% / {:.0f}%)".format(
                    figures["frames_paused"][0],
                    figures["frames_playing"][0],
                    figures["frames_paused"][1],
                    figures["frames_playing"][1],
                ),
                "headless, software rendering",
            )
        )
    if "select_open" in figures:
        open_ms, clicks = figures["select_open"]
        opened = (
            f"{open_ms:.0f} ms ({clicks} click(s))"
            if open_ms == open_ms
            else f"never opened ({clicks} clicks, 3 s apart)"
        )
        rows.append(("While playing: Token selectbox click -> list open", opened, "paused: at once"))
    if "select_pick" in figures:
        rows.append(
            ("While playing: pick a token -> merge tree redrawn", f"{figures['select_pick']:.0f} ms", "")
        )
    if "still_playing" in figures:
        rows.append(
            (
                f"While playing: merges advanced in {plan.frame_seconds:g} s after that",
                str(figures["still_playing"]),
                "> 0: still playing",
            )
        )
    rows += first_paint_rows(figures)
    if "pause_train" in figures:
        rows += training_rows(figures, "pause_", plan.pause_vocab_size, plan.corpus)
    if figures.get("pauses"):
        rows += pause_rows(figures)
    steps = figures.get("steps", "?")
    print()
    print(
        f"App figures ({steps} merges, {figures.get('pause_steps', steps)} for Pause; "
        f"{os.cpu_count()} CPUs, 1-minute load average "
        f"{figures['load_before']:.1f} before, {figures.get('load_after', float('nan')):.1f} after), "
        f"reproduce with `{plan.command}`:"
    )
    print()
    print("| figure | measured | note |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


@dataclass(frozen=True)
class Plan:
    """What one run measures: the full benchmark, or --smoke (every step once, small)."""

    corpus: Path
    vocab_size: int
    moves: int  # step moves timed
    windows: float  # seconds of play per speed
    speeds: tuple[str, ...]
    frame_seconds: float  # each frames-per-second window, and the wait after a pick while playing
    around: int  # in-process and AppTest: the 2 * around + 1 steps around the middle
    pause_vocab_size: int  # the run trained again for the Pause figure
    pauses: int
    pause_speed: str
    first_paint_visits: int  # each link opened in a new browser this many times in turn
    visitors: int  # ... then by this many new browsers at once
    command: str


def smoke_corpus(folder: Path) -> Path:
    """The first SMOKE_CHARACTERS of the bundled Shakespeare sample, as a file to upload."""
    from explorer.samples import SHAKESPEARE

    path = folder / "smoke_shakespeare.txt"
    path.write_text(SHAKESPEARE.text[:SMOKE_CHARACTERS], encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--windows", type=float, default=5.0, help="seconds of play per speed measured")
    parser.add_argument("--moves", type=int, default=8, help="step moves timed")
    parser.add_argument("--pauses", type=int, default=20, help="Play, wait, Pause: how many times")
    parser.add_argument(
        "--visitors", type=int, default=FIRST_PAINT_VISITORS, help="new browsers opening each link at once"
    )
    parser.add_argument("--smoke", action="store_true", help="every step once, small (what CI runs)")
    args = parser.parse_args()
    reason = chromium_missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    if not args.smoke and not CORPUS.exists():
        print(f"skipped: {CORPUS} is missing (--smoke needs no corpus)")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        if args.smoke:
            plan = Plan(
                corpus=smoke_corpus(Path(folder)),
                vocab_size=SMOKE_VOCAB_SIZE,
                moves=2,
                windows=1.0,
                speeds=(BUSY_SPEED,),
                frame_seconds=0.5,
                around=1,
                pause_vocab_size=SMOKE_VOCAB_SIZE,
                pauses=1,
                pause_speed=BUSY_SPEED,
                first_paint_visits=1,
                visitors=1,
                command=f"{COMMAND} --smoke",
            )
        else:
            plan = Plan(
                corpus=CORPUS,
                vocab_size=VOCAB_SIZE,
                moves=args.moves,
                windows=args.windows,
                speeds=PLAY_SPEEDS,
                frame_seconds=2.0,
                around=4,
                pause_vocab_size=PAUSE_VOCAB_SIZE,
                pauses=args.pauses,
                pause_speed=PAUSE_SPEED,
                first_paint_visits=FIRST_PAINT_VISITS,
                visitors=args.visitors,
                command=COMMAND
                if args.visitors == FIRST_PAINT_VISITORS
                else f"{COMMAND} --visitors {args.visitors}",
            )
        figures, error = measure_in_browser(plan)
        fragment_work_in_process(plan.corpus, plan.vocab_size, plan.around, figures)  # cores free again
    report(figures, plan)
    # Figures only; but a smoke run that could not finish a step has found the script broken.
    return 1 if args.smoke and error else 0


def screenshot_on_failure(page) -> str:
    """A screenshot of the tab where the browser part stopped (its path), or why there is none."""
    try:
        return str(screenshot(page, "bench-app-stopped"))
    except Exception as error:  # the tab may be gone: say so
        return f"none ({type(error).__name__})"


def measure_in_browser(plan: Plan) -> tuple[dict, str]:
    """Steps 1-6 in one tab: (the figures measured, why it stopped early or "")."""
    figures: dict = {"playback": {}, "load_before": os.getloadavg()[0]}
    error = ""
    try:
        # A store of its own: a run this corpus and these settings made before (an earlier bench
        # run's, in the default store) would be shown without training, and time nothing.
        with (
            tempfile.TemporaryDirectory() as store_folder,
            streamlit_server(
                "bench-server", environ={"EXPLORER_STORE_PATH": f"{store_folder}/runs.sqlite3"}
            ) as base_url,
            chromium() as browser,
        ):
            context = browser.new_context(viewport=VIEWPORT)
            context.set_default_timeout(30_000)
            page = context.new_page()
            page_errors: list[str] = []  # what the tab's own scripts threw: said when a step stops
            page.on("pageerror", lambda error: page_errors.append(str(error)))
            try:
                train(page, base_url, plan.corpus, plan.vocab_size, figures)
                print(f"train: {figures['train']:.2f} s", flush=True)
                switch_to_merge_history(page, figures)
                step_moves(page, plan.moves, figures)
                print(f"step move: {median_max(figures['move_dom'])}", flush=True)
                for speed in plan.speeds:
                    figures["playback"][speed] = playback(page, speed, plan.windows)
                    row = playback_row(speed, figures["playback"][speed])
                    print(f"playback: {' | '.join(row)}", flush=True)
                responsiveness(page, plan.frame_seconds, figures)
                if plan.pause_vocab_size != plan.vocab_size:  # the full run: another run for Pause
                    train(page, base_url, plan.corpus, plan.pause_vocab_size, figures, prefix="pause_")
                    switch_to_merge_history(page, figures, prefix="pause_")
                pauses(page, plan.pauses, plan.pause_speed, figures)
                for row in pause_rows(figures):
                    print(f"pause: {' | '.join(row)}", flush=True)
                links = first_paint_links(page, plan.first_paint_visits == 1)
                context.close()  # the class's browsers only, from here
                first_paint(browser, base_url, links, plan.first_paint_visits, plan.visitors, figures)
                for row in first_paint_rows(figures):
                    print(f"first paint: {' | '.join(row)}", flush=True)
            except Exception:
                print(f"the tab was at {page.url} (a screenshot: {screenshot_on_failure(page)})")
                print(f"errors thrown in the tab: {page_errors[-5:] or 'none'}")
                raise
            if page_errors:
                print(f"errors thrown in the tab: {page_errors[-5:]}")
    except Exception as failure:  # a benchmark reports what it has
        error = f"{type(failure).__name__}: {str(failure)[:800]}"
        print(f"browser part stopped early: {error}")
    figures["load_after"] = os.getloadavg()[0]
    return figures, error


if __name__ == "__main__":
    sys.exit(main())
