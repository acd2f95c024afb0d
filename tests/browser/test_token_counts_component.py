"""Compare's counts at a glance (explorer/ui/compare/token_counts.js) in its own small app
(tests/browser/apps/token_counts.py), as Streamlit's e2e suite pairs one small app with each test:
one row per tokenizer with its counts and its difference to the first, Copy ids puts the row's ids
on the clipboard, and a Copy button that had the keyboard's focus has it again once the rows are
drawn anew. One server for the file, one page load; no page or console error.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.helpers import Watch, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect


@pytest.fixture(scope="module")
def app_url(browser):
    with streamlit_server("server-token-counts", script="tests/browser/apps/token_counts.py") as url:
        yield url


def test_the_rows_copy_their_ids_and_keep_the_keyboards_place_when_redrawn(page, app_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    with Watch().attached(page) as watch:
        page.goto(app_url, wait_until="domcontentloaded")
        second = page.locator('.counts tr[data-tokenizer="second"]')
        expect(second.locator("td.tokens")).to_have_text("4")
        wait_idle(page)
        expect(page.locator('.counts tr[data-tokenizer="first"] td.tokens')).to_have_text("3")

        copy_ids = second.get_by_role("button", name="Copy ids")
        copy_ids.focus()
        page.keyboard.press("Enter")
        expect(second.locator(".copied")).to_have_text("ids copied")
        assert json.loads(page.evaluate("() => navigator.clipboard.readText()")) == [0, 1, 2, 3]

        # A rerun that does not take the focus away (a click from a script, as a fragment's is).
        page.evaluate("() => document.querySelector('.st-key-more button').click()")
        expect(second.locator("td.tokens")).to_have_text("5")
        expect(copy_ids).to_be_focused()
        assert watch.problems() == []
