"""The Compare page's model picker in a real browser: search the multiselect by name, pick six
columns (the current run, GPT-2, Llama 3, Qwen 3.6, DeepSeek V4, Mistral v3) and see each drawn
with its token count and its header; saved as artifacts/screenshots/compare_models.png.

Uses the server and Chromium fixtures of tests/browser/conftest.py. Run alone with
`pytest -m browser tests/browser/test_compare_models.py`.
"""

from __future__ import annotations

import pytest

from explorer.pretrained import BUNDLED
from tests.browser.helpers import assert_no_errors, main, open_page, screenshot, sidebar, train, wait_idle

pytestmark = pytest.mark.browser

SEARCHES = {  # what is typed in the picker's search box -> the column it adds
    "Llama 3": "Llama 3",
    "qwen 3.5": "Qwen 3.5 / 3.6",
    "DeepSeek": "DeepSeek V4",
    "mistral v0.3": "Mistral 7B v0.3 (SentencePiece v3)",
}


def test_pick_six_columns_by_searching_the_picker(server, page):
    open_page(page, server, "/")
    train(page)
    sidebar(page).get_by_role("link", name="Compare").click()
    main(page).get_by_text("Figures", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    picker = main(page).locator('[data-testid="stMultiSelect"]').first
    box = picker.locator("input")

    box.click()
    for _ in range(2):  # untick GPT-4o and GPT-4, the last two chips (the run and GPT-2 stay)
        box.press("Backspace")
        wait_idle(page)
    for typed, label in SEARCHES.items():
        box.click()
        box.fill(typed)
        options = page.get_by_role("option")
        found = options.filter(has_text=f" · {label} · ")  # family first, then name, then size
        found.wait_for()
        assert options.count() < 1 + len(BUNDLED)  # the search narrowed the list (it is fuzzy)
        found.click()
        wait_idle(page)
    page.keyboard.press("Escape")
    main(page).locator(".compare-column").nth(5).wait_for(timeout=60_000)
    wait_idle(page)
    assert_no_errors(page, "Compare")

    columns = main(page).locator(".compare-column")
    assert columns.count() == 6
    names = columns.evaluate_all("nodes => nodes.map(n => n.dataset.tokenizer)")
    assert names[1:] == ["GPT-2", *SEARCHES.values()]
    for index in range(6):
        assert columns.nth(index).locator(".tok").count() > 20, names[index]
    counts = main(page).locator(".column-count b").all_inner_texts()  # each column's "Tokens" count
    assert len(counts) == 6 and all(int(count.replace(",", "")) > 20 for count in counts)
    heads = " ".join(main(page).locator(".column-head").all_inner_texts())
    assert "128,256 ids" in heads and "trained here: run 1" in heads and "special tokens off" in heads

    page.set_viewport_size({"width": 1400, "height": 1800})
    wait_idle(page)
    screenshot(page, "compare_models")
