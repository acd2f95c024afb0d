"""The "Copy link" box (explorer/ui/common/copy_link.js) in its own small app
(tests/browser/apps/copy_link.py), as Streamlit's e2e suite pairs one small app with each test: the
box shows the URL the browser shows, follows it when the page rewrites it without a rerun, and Copy
puts that URL on the clipboard. One server for the file, one page load; no page or console error.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import Watch, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect


@pytest.fixture(scope="module")
def app_url(browser):
    with streamlit_server("server-copy-link", script="tests/browser/apps/copy_link.py") as url:
        yield url


def test_the_box_shows_and_copies_the_url_the_browser_shows(page, app_url):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
    with Watch().attached(page) as watch:
        page.goto(app_url, wait_until="domcontentloaded")
        expect(page).to_have_url(re.compile(r"[?&]sample=demo"))
        wait_idle(page)
        page.get_by_role("button", name="Copy link").click()
        shown = page.locator(".copy-link-url")
        expect(shown).to_have_text(page.url)

        page.evaluate("() => history.replaceState(history.state, '', location.href + '&step=7')")
        expect(shown).to_have_text(re.compile(r"[?&]sample=demo&step=7$"))  # a fragment's rewrite
        page.get_by_role("button", name="Copy", exact=True).click()
        expect(page.locator(".copy-link-status")).to_have_text("Copied")
        assert page.evaluate("() => navigator.clipboard.readText()") == page.url
        assert watch.problems() == []
