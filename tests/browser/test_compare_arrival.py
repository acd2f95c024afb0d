"""Compare's live columns however the page is reached (issue 32, item 3): arriving by the sidebar
right after training, opening a link that names eight columns on a server that has loaded none of
their vocabularies, and adding a column (which leaves the other columns' nodes as they were).

How fast the columns follow is measured by bench/bench_live_compare.py (its "arrived by the
sidebar" and "eight-column link" figures); these tests check what a person sees: the first keys,
typed while the page is still drawing, are not lost, and every column ends on the typed text."""

from __future__ import annotations

import pytest

from tests.browser.helpers import assert_no_errors, main, open_page, paste_corpus, sidebar, train, wait_idle

pytestmark = pytest.mark.browser

BOX = "Text to compare"
TYPED = "Tokenizers split words like zqxvbn"
EIGHT = "pretrained%3Allama3%2Cpretrained%3Aqwen%2Cpretrained%3Allama4%2Cpretrained%3Aqwen3.6%2C"
CORPUS = "\n".join(
    f"line {n}: the lowest newer widest tower was lower than the newest one" for n in range(400)
)

# Every `.compare-column` shows `n` characters and there are `columns` of them.
SHOWS_JS = """([n, columns]) => {
  const cells = [...document.querySelectorAll('.compare-column')];
  return cells.length === columns && cells.every(cell => Number(cell.dataset.characters) === n);
}"""


def type_from_scratch(page, text: str) -> None:
    """Empty the box and type `text` key by key, as soon as the box is there."""
    box = page.get_by_role("textbox", name=BOX, exact=True)
    box.wait_for(timeout=120_000)
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text, delay=40)


def test_arriving_by_the_sidebar_after_training_every_column_follows_the_first_keys(page, server):
    open_page(page, server, "/")
    paste_corpus(page, CORPUS)  # a corpus of its own: its figures are measured when Compare opens
    train(page)
    sidebar(page).get_by_role("link", name="Compare").click()
    type_from_scratch(page, TYPED)  # while the page is still drawing (and measuring)
    page.wait_for_function(SHOWS_JS, arg=[len(TYPED), 4], timeout=120_000, polling=50)
    assert page.get_by_role("textbox", name=BOX, exact=True).input_value() == TYPED  # no key lost
    wait_idle(page)
    assert_no_errors(page, "Compare, arrived by the sidebar")


def test_a_link_to_eight_columns_answers_the_first_keys_in_every_column(page, fresh_server):
    open_page(page, fresh_server, "/")
    train(page)
    sidebar(page).get_by_role("link", name="Compare").click()
    main(page).locator(".compare-column").nth(3).wait_for(timeout=120_000)
    wait_idle(page)
    link = page.url.replace("cols=", "cols=" + EIGHT)
    open_page(page, fresh_server, "/Compare", link.split("?", 1)[1])  # a new session on that link
    type_from_scratch(page, TYPED[:3])  # the first keys, while the new columns' vocabularies load
    page.wait_for_function(SHOWS_JS, arg=[3, 8], timeout=120_000, polling=50)
    page.keyboard.type(TYPED[3:], delay=40)
    page.wait_for_function(SHOWS_JS, arg=[len(TYPED), 8], timeout=120_000, polling=50)
    assert not main(page).locator(".column-loading").count()
    wait_idle(page)
    assert_no_errors(page, "Compare with eight columns")


def test_adding_a_column_leaves_the_other_columns_nodes_as_they_were(page, server):
    open_page(page, server, "/")
    train(page)
    sidebar(page).get_by_role("link", name="Compare").click()
    main(page).locator(".compare-column").nth(3).wait_for(timeout=120_000)
    wait_idle(page)
    page.evaluate("() => { window.__before = [...document.querySelectorAll('.compare-column')]; }")
    box = main(page).locator('[data-testid="stMultiSelect"]').first.locator("input")
    box.click()
    box.fill("llama 3")
    page.get_by_role("option").filter(has_text=" · Llama 3 · ").first.click()
    wait_idle(page)
    page.keyboard.press("Escape")
    page.wait_for_function(
        "() => document.querySelectorAll('.compare-column').length === 5", timeout=120_000, polling=100
    )
    wait_idle(page)
    kept = page.evaluate(
        "() => window.__before.map(el => el.isConnected"
        " && [...document.querySelectorAll('.compare-column')].includes(el))"
    )
    assert kept == [True] * 4, f"the four columns' nodes after adding one (True: the same node): {kept}"
