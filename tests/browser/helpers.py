"""Real-browser helpers: the app's server on a free loopback port (launched as `tasks.py app`
launches it, `tasks.server_launch`), Debian's Chromium through Playwright, and the checks every
browser test repeats (no error element, no page or console error (`Watch`), wait for the script to
finish, screenshots under artifacts/screenshots/).

Used by the tests of tests/browser/ (their fixtures, in conftest.py, are built on these), and by
bench/ and docs/take_screenshots.py (as plain context managers). Playwright's own browsers are not
used: `playwright install` needs the network, Debian's /usr/bin/chromium does not. Without it
(or without the playwright package) the browser tests are skipped with a message saying how to
get it.

Every server runs in its own process group and is stopped (SIGTERM, then SIGKILL) however the
test ends; every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import tasks
from tests import ROOT

ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
STARTUP_SECONDS = 45.0
STOP_SECONDS = 10.0
IDLE_SECONDS = 60.0
VIEWPORT = {"width": 1280, "height": 800}  # a laptop's window
DEFAULT_TIMEOUT_MS = 30_000  # a locator's wait: a safety net, never the mechanism

# The step slider of Merge history. Its accessible name repeats the label (aria-labelledby names
# the input and its group), so an exact role-name match fails: select it by its aria-label.
STEP_INPUT = 'input[type="range"][aria-label="Step (merges applied)"]'
PLAYER_SELECTOR = ".player"  # the merge player's transport (explorer.ui.history.player)
ERROR_SELECTOR = '[data-testid="stException"], [data-testid="stAlertContentError"], .column-error'
APP_SELECTOR = '[data-testid="stApp"]'
FRIENDLY_STOP = "No tokenizer yet: train one on the Train page first"
PAGE_PATHS = {
    "Train": "/",
    "Merge history": "/Merge_history",
    "Vocabulary": "/Vocabulary",
    "Compare": "/Compare",
}


# ---------------------------------------------------------------- the server


def safe_file_name(name: str) -> str:
    """`name` with anything but letters, digits, `_`, `.` and `-` turned into `_` (test ids hold `/`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


def server_log_path(name: str) -> Path:
    """Where `streamlit_server(name)` writes the server's output (one file per pytest-xdist worker:
    two workers may each run a server of the same name)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return ARTIFACTS / f"{safe_file_name(name)}{f'-{worker}' if worker else ''}.log"


def free_port() -> int:
    """A TCP port free on the loopback interface right now (tasks.free_port, as the replicas get theirs)."""
    return tasks.free_port()


def _healthy(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/_stcore/health", timeout=2) as response:
            return response.read().strip() == b"ok"
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _stop(process: subprocess.Popen) -> None:
    """Stop the server's whole process group: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, STOP_SECONDS), (signal.SIGKILL, STOP_SECONDS)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


# base URL -> the server's process, for tests that look at its worker processes
SERVER_PROCESSES: dict[str, subprocess.Popen] = {}


@contextlib.contextmanager
def streamlit_server(
    name: str = "server",
    environ: dict[str, str] | None = None,
    script: str = "app.py",
) -> Iterator[str]:
    """Run the app's server on a free loopback port, launched as `tasks.py app` launches it
    (`tasks.server_launch`: the same command and settings, only the port and address added); yield
    its base URL once /_stcore/health answers, stop it on exit. Its output goes to
    artifacts/<name>.log (shown when it fails to start). `environ`: more environment variables for
    the app (EXPLORER_*), never Streamlit's options, which .streamlit/config.toml sets for every
    launch; `script`: another app than the product's (a minimal one of tests/browser/apps/)."""
    streamlit_options = sorted(key for key in environ or {} if key.startswith("STREAMLIT_"))
    if streamlit_options:
        raise ValueError(
            f"{', '.join(streamlit_options)}: a test or bench server is launched as `tasks.py app` "
            "launches it; Streamlit's options belong in .streamlit/config.toml"
        )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    log_path = server_log_path(name)
    place = ("--server.address", "127.0.0.1", "--server.port", str(port))
    command, env = tasks.server_launch(sys.executable, place, dict(os.environ, **(environ or {})), script)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + STARTUP_SECONDS
            while not _healthy(base_url):
                if process.poll() is not None or time.monotonic() > deadline:
                    output = log_path.read_text(errors="replace")[-3000:]
                    raise RuntimeError(
                        f"streamlit did not start on {base_url} (exit code {process.poll()}):\n{output}"
                    )
                time.sleep(0.2)
            SERVER_PROCESSES[base_url] = process
            yield base_url
        finally:
            SERVER_PROCESSES.pop(base_url, None)
            _stop(process)


# ---------------------------------------------------------------- the browser


def chromium_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return (
            f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium) "
            "to run the browser tests"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing: pip install -r requirements-dev.txt"
    return None


@contextlib.contextmanager
def chromium() -> Iterator:
    """Debian's Chromium, headless, through Playwright (a Browser; closed on exit)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_context(browser, **options):
    """A browser context for a test's visitor: the laptop's window (VIEWPORT), the locators' timeout,
    and the operating system's "reduce motion" setting on, as a visitor who chose it has it:
    Streamlit then draws each element in its final place at once rather than animating its entry,
    its transitions and its smooth scrolls, which Chromium otherwise paints frame after frame while
    a test waits (the same three Merge history visits: 15.8 -> 9.2 cpu-s). What the tests check is
    the drawn page, which both settings end on. `options` go to Playwright's new_context."""
    context = browser.new_context(**{"viewport": VIEWPORT, "reduced_motion": "reduce", **options})
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    return context


class Tabs:
    """The tabs of one browser context, kept for the next visitor: a tab a test is done with goes
    back to about:blank and the next `open()` takes it. Loading the app in it is a new session all
    the same (Streamlit's sessions live on a page load's websocket), at about half the CPU of a new
    tab, whose renderer process starts and compiles Streamlit's scripts again (Train: 2.6 against
    5.6 cpu-s; Compare: 1.6 against 3.8; machine-wide, on this 2-core machine).

    Whoever adds a listener to a tab removes it before giving the tab back; a tab given back while
    a test fails (`keep=False`) is closed instead, whatever state it was left in. Either way its
    origin's localStorage is cleared (Streamlit keeps there whether the sidebar was closed by hand)."""

    def __init__(self, context):
        self.context = context
        self._idle: list = []

    def take(self):
        """An idle tab (its timeouts and viewport back to the context's), or a new one."""
        while self._idle:
            tab = self._idle.pop()
            if not tab.is_closed():
                tab.set_default_timeout(DEFAULT_TIMEOUT_MS)
                if tab.viewport_size != VIEWPORT:
                    tab.set_viewport_size(VIEWPORT)
                return tab
        return self.context.new_page()

    def give_back(self, tab, keep: bool = True) -> None:
        if tab.is_closed():
            return
        try:  # what Streamlit remembers in the browser (the sidebar opened or closed by hand, its
            # width): the next test's visitor is a new one (a phone's page opens without the sidebar)
            if tab.url.startswith("http"):
                tab.evaluate("() => localStorage.clear()")
        except Exception:  # noqa: BLE001 - a page that cannot run a script is closed below
            keep = False
        if keep:
            try:
                tab.goto("about:blank")
            except Exception:  # noqa: BLE001 - a tab that cannot leave its page is not reused
                keep = False
        if keep:
            self._idle.append(tab)
        else:
            tab.close()

    @contextlib.contextmanager
    def open(self) -> Iterator:
        """A tab for the block, given back after it (closed when the block raised)."""
        tab = self.take()
        keep = False
        try:
            yield tab
            keep = True
        finally:
            self.give_back(tab, keep)


# ---------------------------------------------------------------- page helpers


PROBES = re.compile(r"/_stcore/(health|host-config)$")  # Streamlit's own, answered 404 under a page path


class Watch:
    """The tab's page errors and console errors, as they happen."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.failed: list[str] = []

    def _on_page_error(self, error) -> None:
        self.errors.append(f"pageerror: {error}")

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _on_response(self, response) -> None:
        if response.status >= 400 and not PROBES.search(urlsplit(response.url).path):
            self.failed.append(f"{response.status} {response.url}")

    @contextlib.contextmanager
    def attached(self, page):
        """Listen to the tab for the block (the tab is reused afterwards: tests/browser/conftest.py)."""
        listeners = {
            "pageerror": self._on_page_error,
            "console": self._on_console,
            "response": self._on_response,
        }
        for event, listener in listeners.items():
            page.on(event, listener)
        try:
            yield self
        finally:
            if not page.is_closed():
                for event, listener in listeners.items():
                    page.remove_listener(event, listener)

    def problems(self) -> list[str]:
        resources = [text for text in self.errors if text.startswith("Failed to load resource")]
        unexplained = [text for text in self.errors if text not in resources]
        # A console "Failed to load resource" is explained when every failed response was a probe.
        return unexplained + (self.failed if resources else [])


def player_reading(page) -> tuple[int | None, str, bool]:
    """The merge player read at one instant: the step its slider shows, the text of its step's line
    (`.merge-summary` or `.round-summary`), and whether it is playing."""
    step, line, playing = page.evaluate(
        """selector => {
             const root = document.querySelector(selector);
             return root ? [root.dataset.step ?? null, root.querySelector('.player-line').innerText,
                            root.dataset.playing === 'true'] : [null, '', false];
           }""",
        PLAYER_SELECTOR,
    )
    return (int(step) if step is not None else None), line, playing


def wait_idle(page, settle_ms: int = 250, timeout: float = IDLE_SECONDS) -> None:
    """Wait until the app's script (or fragment) run is over: the stApp element says `notRunning`
    twice in a row `settle_ms` apart (a rerun may start just after a click returns)."""
    deadline = time.monotonic() + timeout
    page.wait_for_timeout(settle_ms)
    calm = 0
    while calm < 2:
        if time.monotonic() > deadline:
            raise AssertionError(f"the app was still running after {timeout:.0f} s")
        state = page.locator(APP_SELECTOR).get_attribute("data-test-script-state", timeout=timeout * 1000)
        calm = calm + 1 if state == "notRunning" else 0
        page.wait_for_timeout(settle_ms)


# Resolves once the page has stopped moving after a resize: no CSS transition running (the
# sidebar slides) and the boxes of the sidebar, the main block, the data grids and the charts the
# same in three samples in a row (grids and charts redraw for the new width); with `collapsed`, the
# sidebar off the screen too. False after 30 s.
SETTLED_JS = """async (collapsed) => {
  const boxes = () => JSON.stringify([...document.querySelectorAll(
    '[data-testid="stSidebar"], [data-testid="stMainBlockContainer"], [data-testid="stDataFrame"], '
    + '.stPlotlyChart, [data-testid="stVegaLiteChart"]')].map((el) => {
      const r = el.getBoundingClientRect();
      return [r.x, r.y, r.width, r.height].map(Math.round);
    }));
  const sidebarOff = () => {
    const r = document.querySelector('[data-testid="stSidebar"]')?.getBoundingClientRect();
    return !r || r.width < 2 || r.right <= 1;
  };
  const until = performance.now() + 30000;
  let last = null, same = 0;
  while (performance.now() < until) {
    const sliding = document.getAnimations()
      .some((a) => a instanceof CSSTransition && a.playState === 'running');
    const now = boxes();
    same = !sliding && now === last && (!collapsed || sidebarOff()) ? same + 1 : 0;
    if (same >= 2) return true;
    last = now;
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
  }
  return false;
}"""


def settled(page, collapsed: bool) -> None:
    """Wait until the page has stopped moving after a resize (SETTLED_JS); if it never does, the
    checks that follow say what is wrong."""
    page.evaluate(SETTLED_JS, collapsed)


def open_page(page, base_url: str, path: str, query: str = "") -> None:
    """Go to a page by URL and wait for its frame (title and sidebar) and the end of its script run."""
    page.goto(base_url + path + (f"?{query}" if query else ""), wait_until="domcontentloaded")
    page.locator('[data-testid="stSidebar"]').get_by_text("Tokenizer Explorer").wait_for(timeout=30_000)
    wait_idle(page)


def error_texts(page) -> list[str]:
    """The text of every Streamlit exception and st.error box on the page."""
    return [text.strip()[:500] for text in page.locator(ERROR_SELECTOR).all_inner_texts()]


def assert_no_errors(page, where: str = "") -> None:
    errors = error_texts(page)
    assert not errors, f"error element on {where or page.url}: {errors}"


def screenshot(page, name: str, directory: Path = SCREENSHOTS) -> Path:
    """Save a viewport screenshot as <directory>/<name>.png (Streamlit scrolls its own container,
    so `full_page` would not show more: make the viewport taller instead)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{safe_file_name(name)}.png"
    page.mouse.move(VIEWPORT["width"] - 5, 5)  # no hover tooltip from the last click in the picture
    page.wait_for_timeout(200)
    page.screenshot(path=str(path))
    return path


def main(page):
    """The main area of the page (not the sidebar)."""
    return page.locator('[data-testid="stMain"]')


def open_sections(page, label: str | None = None) -> None:
    """Open the main area's closed sections (st.expander), or only those whose label holds
    `label`, and wait for the run their keyed state may start."""
    closed = main(page).locator('[data-testid="stExpander"] details:not([open]) > summary')
    if label is not None:
        # The summary's text starts with its chevron's icon name ("keyboard_arrow_right", no space
        # after it in the text content), so the label is looked for anywhere in it.
        closed = closed.filter(has_text=label)
    while closed.count():
        closed.first.click()
        wait_idle(page)


def sidebar(page):
    return page.locator('[data-testid="stSidebar"]')


def sidebar_shown(page) -> bool:
    """Whether the sidebar takes room on the screen (a collapsed one is 0 px wide, moved off to the left)."""
    box = sidebar(page).bounding_box()
    return box is not None and box["width"] >= 2 and box["x"] + box["width"] > 1


def paste_corpus(page, text: str) -> None:
    """Type a corpus into the text area and commit it (Control+Enter), as a person would."""
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    area.fill(text)
    area.press("Control+Enter")
    wait_idle(page)


def open_select(page, name: str) -> None:
    """Open the selectbox named `name` (its list of options shown). Scrolled into view first, then
    clicked: a click that has to scroll the page first opens the list, and the scroll event that
    follows closes it again (BaseWeb's select closes on a scroll; a person scrolls, then clicks)."""
    box = page.get_by_role("combobox", name=name)
    box.scroll_into_view_if_needed()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    box.click()


def in_view(locator) -> bool:
    """Whether the element's whole box is inside the viewport (Streamlit scrolls its own container:
    the box is where the person sees it)."""
    box = locator.bounding_box()
    size = locator.page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] + box["width"] <= size["width"]
    )


def train(page) -> None:
    """Click Train and wait for the run's summary."""
    page.get_by_role("button", name="Train", exact=True).click()
    main(page).get_by_text("Merges learned", exact=True).wait_for(timeout=60_000)
    wait_idle(page)


def title_of(page) -> str:
    return page.locator('[data-testid="stMainBlockContainer"] h1').first.inner_text(timeout=30_000).strip()


def slider_value(slider) -> int:
    return int(slider.get_attribute("aria-valuenow"))
