"""The Vocabulary page's audit in a real browser: a stepping stone's link opens the Merge history
page at the step whose merge made it, with the same run and no error, within the app (no page
load); the tables' token text shows as text."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import STEP_INPUT, assert_no_errors, open_page, sidebar, train, wait_idle

pytestmark = pytest.mark.browser
pytest.importorskip("playwright.sync_api", reason="the playwright package is missing")


def test_a_stepping_stone_opens_merge_history_at_its_step(server, page):
    open_page(page, server, "/", "algorithm=bpe&sample=scarlet")
    train(page)
    sidebar(page).get_by_role("link", name="Vocabulary").click()
    page.get_by_text("Stepping stones", exact=True).first.wait_for(timeout=60_000)
    wait_idle(page)
    assert_no_errors(page, "Vocabulary with its audit")
    run = re.search(r"[?&]run=([0-9a-f]+)", page.url)
    assert run is not None
    first = page.locator(".audit-stones tbody tr").first
    token = first.locator("th code").inner_text()
    step = int(first.locator("td").first.inner_text().replace(",", ""))
    page.evaluate("window.__sameDocument = true")  # gone if the click loads a new page
    first.locator("th a").click()
    page.wait_for_url(re.compile(r"/Merge_history\?"))
    page.locator(STEP_INPUT).wait_for(timeout=60_000)
    wait_idle(page)
    assert_no_errors(page, "Merge history from the audit")
    assert f"run={run[1]}" in page.url and re.search(rf"[?&]step={step}(&|$)", page.url)
    assert int(page.locator(STEP_INPUT).input_value()) == step
    summary = page.locator(".merge-summary").first.inner_text()
    assert f"Merge {step} of" in summary and token.replace("·", "") in summary.replace("·", "")
    assert page.evaluate("window.__sameDocument === true"), (
        "the link loaded a new page, not a move within the app"
    )
