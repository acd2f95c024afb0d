"""A fresh visitor's lesson link (issue 18) in a real browser at 1280x800: `/?lesson=course-bpe`
trains the course's BPE, lands on Merge history at step 1 with the URL of that run and step, and the
first screen shows the player, the step's line and why its pair won."""

from __future__ import annotations

import pytest

from tests.browser.helpers import assert_no_errors, main, open_page, screenshot, title_of, wait_idle

pytestmark = pytest.mark.browser

FIRST_SCREEN = {"width": 1280, "height": 800}


def test_a_lesson_link_opens_merge_history_at_step_1_with_the_why_on_the_first_screen(fresh_server, page):
    page.set_viewport_size(
        FIRST_SCREEN
    )  # a laptop's first screen (the tab's size for the next test is reset)
    open_page(page, fresh_server, "/", "lesson=course-bpe")
    main(page).locator(".why").wait_for(timeout=60_000)
    wait_idle(page)
    assert title_of(page) == "Merge history"
    assert "step=1" in page.url and "run=" in page.url and "lesson=" not in page.url
    assert "Merge 1 of 19" in main(page).locator(".merge-summary").inner_text()
    assert main(page).get_by_text("Matches the course", exact=False).count() == 1
    for element in (
        page.get_by_role("button", name="Play", exact=True),
        main(page).locator(".merge-summary"),
        main(page).locator(".why"),
    ):
        box = element.bounding_box()
        assert box is not None and box["y"] + box["height"] <= FIRST_SCREEN["height"], box
    # The sentence saying the player is coming (AppTest checks it is drawn) is hidden: it came.
    assert page.locator(".player-placeholder").count() == 1
    assert not page.locator(".player-placeholder").is_visible()
    assert_no_errors(page, "the lesson link")
    screenshot(page, "lesson-course-bpe-first-screen")
