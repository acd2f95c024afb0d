"""Our HTML view (explorer/ui/common/html_view.js) in its own small app
(tests/browser/apps/html_view.py), as Streamlit's e2e suite pairs one small app with each test:
escaped text shows as text, a plain click on a link to a step reaches the server with no page
load, and a new keyed part leaves the parts already drawn in place (the same nodes). One server
for the file, one page load; no page or console error.
"""

from __future__ import annotations

import pytest

from tests.browser.helpers import Watch, streamlit_server, wait_idle

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect


@pytest.fixture(scope="module")
def app_url(browser):
    with streamlit_server("server-html-view", script="tests/browser/apps/html_view.py") as url:
        yield url


def test_a_step_link_is_followed_in_the_app_and_unchanged_parts_keep_their_nodes(page, app_url):
    with Watch().attached(page) as watch:
        page.goto(app_url, wait_until="domcontentloaded")
        parts = page.locator(".parts .part")
        expect(parts).to_have_count(2)
        wait_idle(page)
        expect(page.locator(".words")).to_have_text("<b>not bold</b>")
        page.evaluate(
            "() => { window.__sameLoad = true; window.__firstPart = document.querySelector('.part'); }"
        )

        page.locator("a.to-step").click()
        expect(page.locator(".st-key-followed")).to_have_text("Followed: step 3")

        page.get_by_role("button", name="Add a part").click()
        expect(parts).to_have_count(3)
        expect(parts.nth(2)).to_have_text("Part 2")
        assert page.evaluate("() => window.__sameLoad === true"), "the link loaded the page again"
        assert page.evaluate("() => window.__firstPart.isConnected"), "an unchanged part was drawn anew"
        assert watch.problems() == []
