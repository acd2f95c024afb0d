"""The step player's transport (explorer/ui/history/player.js) in its own small app
(tests/browser/apps/player_transport.py: steps that only say their number), as Streamlit's e2e
suite pairs one small app with each test: Next, Back and the slider move the step and the line, the
panel and the URL follow; Play plays to the last step and stops there; after Pause the server holds
the step the browser shows. One server for the file, one page load per test; no page or console
error throughout. The real page's player is tests/browser/test_player.py and test_player_actions.py.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import PLAYER_SELECTOR, Watch, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect


@pytest.fixture(scope="module")
def app_url(browser):
    with streamlit_server("server-player-transport", script="tests/browser/apps/player_transport.py") as url:
        yield url


def open_app(page, app_url: str) -> int:
    """Open the app at step 0; the number of steps after it (the slider's last value)."""
    page.goto(app_url, wait_until="domcontentloaded")
    expect(page.locator(".st-key-panel")).to_have_text("Panel at step 0")
    wait_idle(page)
    slider = page.locator(f"{PLAYER_SELECTOR} input[type=range]")
    expect(slider).to_have_attribute("max", re.compile(r"^\d+$"))  # the component's script has run
    return int(slider.get_attribute("max"))


def button(page, name: str):
    return page.locator(PLAYER_SELECTOR).get_by_role("button", name=name, exact=True)


def expect_step(page, k: int) -> None:
    """Step k is what the slider, the line, the panel and the URL say."""
    expect(page.locator(f"{PLAYER_SELECTOR} input[type=range]")).to_have_value(str(k))
    expect(page.locator(".line-step")).to_have_text(f"Line at step {k}")
    expect(page.locator(".st-key-panel")).to_have_text(f"Panel at step {k}")
    expect(page).to_have_url(re.compile(rf"[?&]step={k}(&|$)"))


def test_next_back_and_the_slider_move_the_step_and_everything_follows(page, app_url):
    with Watch().attached(page) as watch:
        steps = open_app(page, app_url)
        expect(button(page, "Back")).to_be_disabled()
        button(page, "Next").click()
        expect_step(page, 1)
        button(page, "Next").click()
        expect_step(page, 2)
        button(page, "Back").click()
        expect_step(page, 1)
        page.locator(f"{PLAYER_SELECTOR} input[type=range]").focus()
        page.keyboard.press("End")
        expect_step(page, steps)
        expect(button(page, "Next")).to_be_disabled()
        assert watch.problems() == []


def test_play_stops_at_the_last_step_and_pause_holds_the_step_shown(page, app_url):
    with Watch().attached(page) as watch:
        steps = open_app(page, app_url)
        button(page, "Play").click()
        expect(button(page, "Pause")).to_be_enabled()
        expect(page.locator(".st-key-panel")).to_have_text(f"Panel at step {steps}")
        expect(button(page, "Play")).to_be_enabled()  # the end stopped the clock
        expect(button(page, "Pause")).to_be_disabled()
        expect_step(page, steps)

        button(page, "Play").click()  # from the last step: from the first again
        page.wait_for_function(f"document.querySelector('{PLAYER_SELECTOR}').dataset.step >= 2")
        button(page, "Pause").click()
        expect(button(page, "Play")).to_be_enabled()
        wait_idle(page)
        paused = int(page.locator(f"{PLAYER_SELECTOR} input[type=range]").input_value())
        expect_step(page, paused)
        if paused < steps:  # a clock still running would have moved on by more than one step
            button(page, "Next").click()
            expect_step(page, paused + 1)
        assert watch.problems() == []
