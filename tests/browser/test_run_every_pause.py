"""The old player's pattern in its minimal form (tests/browser/apps/run_every_pause.py): a
`run_every` fragment whose timer Play adds and Pause removes by rerunning the page, the fragment
writing the URL and ending the play itself with `st.rerun(scope="app")` (variant e), drawing a
different tree playing and paused (shape 1).

It does not blank the page: about 660 Play/Pause cycles of every variant, some with both cores
kept busy, drew no error (issue 30's closing note). The old player did, on the real page: 2 of 100
pauses on a 2,000-merge run ("Cannot set a node at a delta path", "Bad delta path index"), so the
defect needs more than this pattern. This test keeps the evidence runnable: a few cycles of the
closest variant, with no page or console error and the counter on the screen after each Pause.
The player no longer has a timer at all (explorer.ui.history.player).
"""

from __future__ import annotations

import random

import pytest

from tests.browser.helpers import APP_SELECTOR, streamlit_server

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect

CYCLES = 4


def test_pausing_a_run_every_fragment_keeps_the_page(browser, page):
    errors: list[str] = []

    def on_page_error(error) -> None:
        errors.append(f"pageerror: {error}")

    def on_console(message) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("pageerror", on_page_error)
    page.on("console", on_console)
    try:
        _play_and_pause(page, errors)
    finally:  # the tab is reused (tests/browser/conftest.py)
        page.remove_listener("pageerror", on_page_error)
        page.remove_listener("console", on_console)


def _play_and_pause(page, errors: list[str]) -> None:
    rng = random.Random(30)
    with streamlit_server("server-run-every-pause", script="tests/browser/apps/run_every_pause.py") as url:
        page.goto(f"{url}/?variant=e&shape=1&end=40", wait_until="domcontentloaded")
        counter = page.locator(".st-key-counter")
        counter.wait_for(timeout=30_000)
        play, pause = page.locator(".st-key-play button"), page.locator(".st-key-pause button")
        for cycle in range(CYCLES):
            play.click()
            expect(pause).to_be_enabled()
            page.wait_for_timeout(rng.randint(50, 1500))  # a person's pause, not a wait for the app
            if pause.is_enabled():
                pause.click()
            expect(play).to_be_enabled()
            assert page.locator(APP_SELECTOR).inner_text().strip(), f"cycle {cycle}: a blank page"
            expect(counter).to_be_visible()
            assert not errors, f"cycle {cycle}: {errors}"
