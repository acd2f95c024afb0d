"""The first minute on the Train page, as a new visitor sees it on a laptop (1280 x 800) and on a
phone (390 x 844): the Train button is in view without scrolling, and after Train the result
appears where the click was, its title and the next step ("Watch the merges happen", to Merge
history) in view; the next step opens Merge history at the first merge, in the page and its link."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import (
    assert_no_errors,
    in_view,
    main,
    open_page,
    paste_corpus,
    screenshot,
    train,
    wait_idle,
)

pytestmark = pytest.mark.browser

CORPUS = "\n".join(["the lowest newer widest tower was lower than the newest one"] * 3)


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_train_button_and_then_the_result_are_in_view(server, page, width, height):
    page.set_viewport_size({"width": width, "height": height})
    open_page(page, server, "/")
    button = page.get_by_role("button", name="Train", exact=True)
    button.wait_for()
    assert in_view(button), f"the Train button is out of view at {width} x {height}"
    paste_corpus(page, CORPUS)
    train(page)  # the click scrolls back to the button, as a person would
    assert_no_errors(page, "Train")
    screenshot(page, f"first-minute-{width}")
    title = main(page).locator(".result-title")
    assert "Result of run" in title.inner_text()
    assert in_view(title), f"the result's title is out of view at {width} x {height}"
    next_step = main(page).get_by_role("link", name="Watch the merges happen")
    assert in_view(next_step), f"the next step is out of view at {width} x {height}"
    if width >= 1280:  # a laptop: each row of figures on one line (it wrapped 3 and 1)
        rows = main(page).locator('[data-testid="stHorizontalBlock"]:has([data-testid="stMetric"])')
        for row in rows.all():
            tops = {
                round(box["y"]) for box in (m.bounding_box() for m in row.locator(".stColumn").all()) if box
            }
            assert len(tops) == 1, f"a row of figures wraps onto {len(tops)} lines at {width} x {height}"
    next_step.click()
    line = main(page).locator(".merge-summary")
    line.wait_for(timeout=60_000)
    wait_idle(page)
    assert line.inner_text().startswith("Merge 1 of"), line.inner_text()
    assert re.search(r"[?&]step=1(&|$)", page.url), page.url
