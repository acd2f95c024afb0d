"""The live text box (explorer/ui/common/live_text.js) in its own small app
(tests/browser/apps/live_text.py: the box and what the server received), as Streamlit's e2e suite
pairs one small app with each test: what is typed reaches the server without Enter, a burst of
keys ends with the whole text received, and the note counts characters as people count them
(👍🏽 is one). One server for the file, one page load; no page or console error.
"""

from __future__ import annotations

import pytest

from tests.browser.helpers import Watch, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect


@pytest.fixture(scope="module")
def app_url(browser):
    with streamlit_server("server-live-text", script="tests/browser/apps/live_text.py") as url:
        yield url


def test_typed_text_reaches_the_server_without_enter_and_is_counted_as_people_count(page, app_url):
    with Watch().attached(page) as watch:
        page.goto(app_url, wait_until="domcontentloaded")
        received = page.locator(".st-key-echo")
        expect(received).to_have_text("Received: Hello")
        wait_idle(page)
        box = page.get_by_role("textbox", name="Text to echo")
        note = page.locator(".live-note")
        expect(note).to_have_text("5 characters")

        box.click()
        box.press("End")
        box.press_sequentially(", world 👍🏽", delay=20)  # a burst: one text in flight at a time
        expect(received).to_have_text("Received: Hello, world 👍🏽")
        expect(note).to_have_text("14 characters")  # the thumb and its skin tone: one character

        box.fill("x" * 41)  # over the box's live limit (40): sent when typing pauses
        expect(note).to_contain_text("over 40")
        expect(received).to_have_text("Received: " + "x" * 41)
        assert watch.problems() == []
