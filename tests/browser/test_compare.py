"""The Compare page in a real browser: every bundled tokenizer draws its spans (ids on hover), the
boundary diff and the charts (in sections opened by a click) render, nothing is an error; the page
is saved under artifacts/screenshots/ (the README's screenshot is made by docs/take_screenshots.py: a test run
never changes a committed file).

Uses the server and Chromium fixtures of tests/browser/conftest.py; skipped like the other browser
tests when /usr/bin/chromium is missing. Run alone with `pytest -m browser tests/browser/test_compare.py`.
"""

from __future__ import annotations

import pytest

from explorer.pretrained import PRETRAINED
from tests.browser.helpers import (
    assert_no_errors,
    main,
    open_page,
    screenshot,
    sidebar,
    title_of,
    train,
    wait_idle,
)

pytestmark = pytest.mark.browser

GPT2_MOUSE_EN_FIRST_TOKENS = ["id 32: A", "id 10211: ·mouse", "id 1444: ·called"]


def column(page, name: str):
    return main(page).locator(f'.compare-column[data-tokenizer="{name}"]')


def test_compare_shows_every_bundled_tokenizer(server, page):
    open_page(page, server, "/")
    train(page)

    sidebar(page).get_by_role("link", name="Compare").click()
    main(page).get_by_text("Figures", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    assert title_of(page) == "Compare"
    page.get_by_role("button", name="Train the other algorithm (WordPiece)").click()
    main(page).get_by_text("WordPiece on the same corpus").wait_for(timeout=60_000)
    wait_idle(page)
    assert_no_errors(page, "Compare")

    for info in PRETRAINED.values():
        spans = column(page, info.label).locator(".tok")
        assert spans.count() > 20, f"{info.label}: {spans.count()} token spans"
    titles = column(page, "GPT-2").locator(".tok").evaluate_all("spans => spans.map(s => s.title)")
    assert titles[:3] == GPT2_MOUSE_EN_FIRST_TOKENS  # the ids show on hover, tokens byte-honest
    assert main(page).locator(".compare-column").count() == 2 + len(PRETRAINED)  # BPE, WordPiece, GPT x3

    assert main(page).locator(".boundary-diff").count() == 2  # one per sample sentence
    assert main(page).locator(".boundary-diff .cut-only").count() > 0  # BPE 1000 and GPT-2 differ
    # the bar chart, the curve, and the run's merges against GPT-2's: in sections opened by a click
    assert main(page).locator(".js-plotly-plot").count() == 0
    for label in (
        "The figures as bars",
        "As the vocabulary grows",
        "Your merges vs a pretrained tokenizer's",
    ):
        main(page).get_by_text(label, exact=True).click()
        wait_idle(page)
    main(page).locator(".js-plotly-plot").nth(2).wait_for(timeout=60_000)
    assert main(page).locator(".js-plotly-plot").count() == 3
    assert_no_errors(page, "Compare, its sections open")

    page.set_viewport_size({"width": 1400, "height": 2400})
    wait_idle(page)
    screenshot(page, "compare")
