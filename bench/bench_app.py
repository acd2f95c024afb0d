"""The app's speed as a person feels it: a real `streamlit run app.py` and Debian's Chromium.

    .venv/bin/python bench/bench_app.py [--windows 5] [--moves 8] [--smoke]

On ../shared/data/tinyshakespeare.txt (skipped with a message when absent), in one browser tab:
  1. Train: upload the file (the upload widget, `set_input_files`), BPE, vocabulary 5,000, then the
     wall time from the click on Train until the summary metrics are visible. The "Time taken"
     metric (the trainer alone, server side) and the stop reason are printed next to it.
  2. Page switch: sidebar link to Merge history until its step slider is there and the script is idle.
  3. A step-slider move, three ways:
     - browser: a keydown listener and a MutationObserver in the page give the time from the
       ArrowRight key press to the merge line saying "Merge k of N" (the first thing that changes)
       and to the end of the fragment's run (charts included);
     - script run: the same observer records the app's `data-test-script-state` attribute
       (stApp: running / notRunning), so "running" -> "notRunning" after the key press is the
       fragment's server-side run as the browser is told of it (loopback: latency is negligible);
     - in-process: the fragment's Python work (merge line, corpus words, sample sentences, the two
       charts and their JSON) timed directly on a run trained in this process with the same
       settings, without Streamlit;
     - AppTest (server only, no browser): the same run put in an AppTest session, then the Merge
       history page run after each step change. AppTest runs the whole page (it never reruns a
       fragment alone), so this bounds the fragment's server-side time from above without the
       browser's share, which the browser-observed figure includes: with 2 cores the tab's main
       thread applies the new charts before it handles the "finished" message.
     Moves alternate right and left from the middle of the run; medians (and max) are printed.
  4. The player: Play for --windows seconds at 5, 20 and 100 merges per tick; achieved merges per
     second from the step shown (the step bar while playing; also as ticks per second; the timer
     is 0.3 s).
  5. Responsiveness while playing (20 merges per tick): animation frames per second the tab manages
     (and the
     share of time in long tasks) paused and playing; mouse clicks on the "Token" selectbox (at the
     element's position, no Playwright wait for a still element, clicked again after 3 s if nothing
     opened, as a person would) until its list is open; picking a token until the merge tree shows it
     (a whole-page rerun while the fragment ticks); whether the player still advances afterwards;
     Pause until Play is enabled again.
--smoke (what CI runs, so that the script cannot rot): the first 20,000 characters of the bundled
Shakespeare sample (explorer/data; ../shared is not needed), vocabulary 600, two slider moves, one
speed for one second, every step above once.
Browser figures depend on what else runs on the machine: the 1-minute load average before and after
is printed with them (compare runs made at a similar load only). This is a benchmark, not a test: it
prints figures and asserts nothing (a step that fails prints why and the figures it has). Every
server and browser it starts is stopped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.ui.history.player import SPEEDS, TICK_SECONDS  # noqa: E402
from tests.browser.helpers import (  # noqa: E402
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
SMOKE_CHARACTERS = 20_000
SMOKE_VOCAB_SIZE = 600  # about 340 merges (byte-level: 256 tokens to start)
STEP_SLIDER = 'input[type="range"][aria-label="Step (merges applied)"]'
PLAY_SPEEDS = ("5 merges per tick", "20 merges per tick", "100 merges per tick")
BUSY_SPEED = "20 merges per tick"  # the player's speed while responsiveness is measured
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


def median_max(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"{statistics.median(values):.0f} ms (max {max(values):.0f})"


def step_of(page) -> int:
    """The step shown: the step slider's value, or while playing the step bar's (the slider is
    not drawn then)."""
    return int(
        page.evaluate(
            """selector => document.querySelector('.step-bar')?.getAttribute('aria-valuenow')
                          ?? document.querySelector(selector).value""",
            STEP_SLIDER,
        )
    )


def set_slider(page, selector: str, index: int, home: bool = True) -> None:
    """Move a slider with the keyboard: Home, then `index` ArrowRight presses (one rerun each)."""
    page.locator(selector).focus()
    if home:
        page.keyboard.press("Home")
        wait_idle(page)
    for _ in range(index):
        page.keyboard.press("ArrowRight")
        wait_idle(page, settle_ms=150)


def play_enabled(page):
    """The Play button, once enabled (by role: the page holds a hidden twin of it, too)."""
    return page.get_by_role("button", name="Play", exact=True).and_(page.locator("button:enabled"))


def set_speed(page, label: str) -> None:
    """The speed select-slider moved with the keyboard to `label` (Home, then ArrowRight presses:
    each one reruns the page)."""
    speed = page.get_by_role("slider", name="Speed")
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


def train(page, base_url: str, corpus: Path, vocab_size: int, figures: dict) -> None:
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
    figures["train"] = time.perf_counter() - started
    metrics = dict(
        zip(
            page.locator('[data-testid="stMetricLabel"]').all_inner_texts(),
            page.locator('[data-testid="stMetricValue"]').all_inner_texts(),
        )
    )
    figures["train_metrics"] = {label.strip(): value.strip() for label, value in metrics.items()}
    figures["stop_reason"] = page.get_by_text("Stop reason:").first.inner_text().strip()
    wait_idle(page)
    screenshot(page, "bench-train")


def switch_to_merge_history(page, figures: dict) -> None:
    started = time.perf_counter()
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="Merge history").click()
    page.locator(STEP_SLIDER).wait_for(timeout=60_000)
    figures["switch_visible"] = time.perf_counter() - started
    wait_idle(page)
    figures["switch_idle"] = time.perf_counter() - started
    figures["steps"] = int(page.locator(STEP_SLIDER).get_attribute("max"))


# ---------------------------------------------------------------- 3 the step slider


def slider_moves(page, moves: int, figures: dict) -> None:
    page.evaluate(PROBE_JS)
    set_slider(page, STEP_SLIDER, 0)
    # Jump near the middle with PageUp presses (React Aria: a tenth of the range each), then time
    # single ArrowRight / ArrowLeft moves.
    for _ in range(5):
        page.keyboard.press("PageUp")
        wait_idle(page, settle_ms=150)
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
    from explorer.samples import SAMPLE_SENTENCES
    from explorer.train import train_corpus
    from explorer.ui.common.runs import Run, RunKey, corpus_digest
    from explorer.ui.common.settings import Settings
    from explorer.ui.history import merge_views

    # Called without a script run, Streamlit's caches warn "missing ScriptRunContext" on every call
    # (Streamlit sets each of its loggers' level itself, so a parent's level does not silence them).
    logging.disable(logging.WARNING)
    text = corpus.read_text(encoding="utf-8")
    settings = Settings(vocab_size=vocab_size)
    trace = train_corpus(text, settings.run_config())
    run = Run(
        key=RunKey(corpus_digest(text), settings),
        trace=trace,
        corpus_label=corpus.name,
        characters=len(text),
        sample_key=None,
    )
    sentences = list(SAMPLE_SENTENCES)
    timings = []
    middle = trace.steps // 2
    for k in [middle + i for i in range(-around, around + 1)]:
        started = time.perf_counter()
        merge_views.merge_summary_html(run, k)
        merge_views.words_at_step_html(run, k)
        merge_views.sentences_at_step_html(run, k, sentences)
        charts.merge_timeline(trace, k).to_json()
        charts.compression_curve(trace, k).to_json()
        timings.append((time.perf_counter() - started) * 1000)
    figures["move_python"] = timings[1:]  # the first call builds per-run caches (labels, top words)
    figures["move_python_first"] = timings[0]
    page_rerun_in_apptest(run, text, around, figures)


def page_rerun_in_apptest(run, text: str, around: int, figures: dict) -> None:
    """Server only, no browser: the Merge history page in AppTest with the same run in the session;
    each step change is a whole-page run there (AppTest does not rerun fragments alone), so this is
    an upper bound of the fragment's server-side time and the cost of a full-page rerun."""
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
    middle = run.trace.steps // 2
    for k in [middle + i for i in range(-around, around + 1)]:
        app.slider(key=state.Widget.STEP).set_value(k)
        started = time.perf_counter()
        app.run()
        timings.append((time.perf_counter() - started) * 1000)
    figures["apptest_rerun"] = timings


# ---------------------------------------------------------------- 4-5 the player


def play_rate(page, speed: str, seconds: float) -> tuple[float, float]:
    """Merges per second achieved at `speed`, from the step shown, over about `seconds`; and ticks
    per second."""
    set_speed(page, speed)
    set_slider(page, STEP_SLIDER, 0)
    page.get_by_role("button", name="Play", exact=True).click()
    deadline = time.monotonic() + 20
    while step_of(page) == 0 and time.monotonic() < deadline:  # the first tick
        page.wait_for_timeout(50)
    first_step, first_time = step_of(page), time.perf_counter()
    page.wait_for_timeout(int(seconds * 1000))
    last_step, last_time = step_of(page), time.perf_counter()
    page.get_by_role("button", name="Pause", exact=True).click()
    play_enabled(page).wait_for(timeout=30_000)
    wait_idle(page)
    rate = (last_step - first_step) / (last_time - first_time)
    return rate, rate / SPEEDS[speed][1]


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
    for attempt in range(1, attempts + 1):
        box = target.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        try:
            opened.wait_for(timeout=wait_ms)
            return (time.perf_counter() - started) * 1000, attempt
        except Exception:  # not open yet: click again, as a person would
            continue
    return float("nan"), attempts


def responsiveness(page, seconds: float, figures: dict) -> None:
    set_speed(page, BUSY_SPEED)
    set_slider(page, STEP_SLIDER, 0)
    closed = page.locator("details:not([open]) summary").filter(has_text="How a token was built")
    if closed.count():  # a section a learner opens (closed at first)
        closed.first.click()
    token = page.locator('[data-testid="stSelectbox"]').filter(has_text="Token")
    token.wait_for(timeout=30_000)
    token.scroll_into_view_if_needed()
    figures["frames_paused"] = frames(page, seconds)
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_timeout(1000)
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

    pause = page.get_by_role("button", name="Pause", exact=True)
    figures["pause"] = click_until(page, pause, play_enabled(page), wait_ms=10_000)
    wait_idle(page)
    screenshot(page, "bench-merge_history")


# ---------------------------------------------------------------- report


def report(figures: dict, seconds: float, corpus: Path, vocab_size: int, command: str) -> None:
    metrics = figures.get("train_metrics", {})
    rows = [
        (
            f"Train click -> summary visible (BPE {vocab_size:,}, {corpus.name})",
            f"{figures['train']:.2f} s" if "train" in figures else "n/a",
            "<= 3 s",
        ),
        ('  of which the trainer ("Time taken" metric)', metrics.get("Time taken", "n/a"), ""),
        ("  merges learned", metrics.get("Merges learned", "n/a"), figures.get("stop_reason", "")),
    ]
    if "switch_idle" in figures:
        rows.append(
            (
                "Sidebar -> Merge history: slider visible / script idle",
                f"{figures['switch_visible']:.2f} s / {figures['switch_idle']:.2f} s",
                "",
            )
        )
    if "move_dom" in figures:
        rows += [
            ("Step slider key press -> merge line updated (browser)", median_max(figures["move_dom"]), ""),
            (
                "Step slider key press -> fragment run finished (browser)",
                median_max(figures["move_done"]),
                "",
            ),
            ("Step slider: fragment script run (browser-observed)", median_max(figures["move_script"]), ""),
        ]
    if "move_python" in figures:
        rows.append(
            (
                "Step slider: fragment's Python work in-process",
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
    for speed, (rate, ticks) in figures.get("rates", {}).items():
        rows.append(
            (
                f"Player at {speed}: merges/s (ticks/s)",
                f"{rate:.1f} ({ticks:.2f})",
                f"timer {1 / TICK_SECONDS:.2f} ticks/s",
            )
        )
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
                f"While playing: merges advanced in {seconds:g} s after that",
                str(figures["still_playing"]),
                "> 0: still playing",
            )
        )
    if "pause" in figures:
        pause_ms, clicks = figures["pause"]
        rows.append(
            ("While playing: Pause click -> Play enabled", f"{pause_ms:.0f} ms ({clicks} click(s))", "")
        )
    print()
    print(
        f"App figures ({figures.get('steps', '?')} merges; {os.cpu_count()} CPUs, 1-minute load average "
        f"{figures['load_before']:.1f} before, {figures.get('load_after', float('nan')):.1f} after), "
        f"reproduce with `{command}`:"
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
    moves: int  # step-slider moves timed
    windows: float  # seconds of play per speed
    speeds: tuple[str, ...]
    frame_seconds: float  # each frames-per-second window, and the wait after a pick while playing
    around: int  # in-process and AppTest: the 2 * around + 1 steps around the middle
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
    parser.add_argument("--moves", type=int, default=8, help="step-slider moves timed")
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
                smoke_corpus(Path(folder)),
                SMOKE_VOCAB_SIZE,
                2,
                1.0,
                (BUSY_SPEED,),
                0.5,
                1,
                f"{COMMAND} --smoke",
            )
        else:
            plan = Plan(CORPUS, VOCAB_SIZE, args.moves, args.windows, PLAY_SPEEDS, 2.0, 4, COMMAND)
        figures, error = measure_in_browser(plan)
        if error and args.smoke:
            # Now and then the tab loses its page during the player part: Streamlit's frontend
            # throws "Cannot set a node at a delta path" and draws nothing more (a tick of the
            # player's run_every fragment racing the Pause rerun; streamlit/streamlit#15084 is the
            # same error). A smoke run tries once more before calling the script broken, and says so.
            print("smoke: the browser part once more, on a new server and browser")
            figures, error = measure_in_browser(plan)
        fragment_work_in_process(plan.corpus, plan.vocab_size, plan.around, figures)  # cores free again
    report(figures, plan.frame_seconds, plan.corpus, plan.vocab_size, plan.command)
    # Figures only; but a smoke run that could not finish a step has found the script broken.
    return 1 if args.smoke and error else 0


def screenshot_on_failure(page) -> str:
    """A screenshot of the tab where the browser part stopped (its path), or why there is none."""
    try:
        return str(screenshot(page, "bench-app-stopped"))
    except Exception as error:  # the tab may be gone: say so
        return f"none ({type(error).__name__})"


def measure_in_browser(plan: Plan) -> tuple[dict, str]:
    """Steps 1-5 in one tab: (the figures measured, why it stopped early or "")."""
    figures: dict = {"rates": {}, "load_before": os.getloadavg()[0]}
    error = ""
    try:
        with streamlit_server("bench-server") as base_url, chromium() as browser:
            context = browser.new_context(viewport=VIEWPORT)
            context.set_default_timeout(30_000)
            page = context.new_page()
            page_errors: list[str] = []  # what the tab's own scripts threw: said when a step stops
            page.on("pageerror", lambda error: page_errors.append(str(error)))
            try:
                train(page, base_url, plan.corpus, plan.vocab_size, figures)
                print(f"train: {figures['train']:.2f} s", flush=True)
                switch_to_merge_history(page, figures)
                slider_moves(page, plan.moves, figures)
                print(f"slider: {median_max(figures['move_dom'])}", flush=True)
                for speed in plan.speeds:
                    figures["rates"][speed] = play_rate(page, speed, plan.windows)
                    print(f"{speed}: {figures['rates'][speed][0]:.1f} merges/s", flush=True)
                responsiveness(page, plan.frame_seconds, figures)
            except Exception:
                print(f"the tab was at {page.url} (a screenshot: {screenshot_on_failure(page)})")
                print(f"errors thrown in the tab: {page_errors[-5:] or 'none'}")
                raise
            context.close()
    except Exception as failure:  # a benchmark reports what it has
        error = f"{type(failure).__name__}: {str(failure)[:800]}"
        print(f"browser part stopped early: {error}")
    figures["load_after"] = os.getloadavg()[0]
    return figures, error


if __name__ == "__main__":
    sys.exit(main())
