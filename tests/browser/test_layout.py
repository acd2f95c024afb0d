"""Tests that look: every page on a phone (390 x 844) and at 800, 1280 and 1920 px wide, with a
corpus and sentences holding multi-byte characters, emoji, CJK and code, measured in the browser
(tests/browser/layout.js):

- no request leaves 127.0.0.1 (fonts, tab icon, anything);
- no element's visible box reaches past the right edge of the viewport, unless it sits in a
  horizontally scrollable container;
- no two token boxes overlap (a byte group takes its own room): every token and group against
  every other, in the columns, the diff and the step-by-step tables (fed a text of every script);
- no button is scrolled out of a box that scrolls sideways (Compare's Copy buttons on a phone);
- no text is cut: no clipping element is narrower than its text, no chart title runs past its chart;
- the boundary diff on Compare draws two aligned rows (each top cell above its bottom cell);
- on the phone, the sidebar is collapsed (it would cover the page).

One browser tab for the module, on the session's server: a small byte-level BPE run is trained once, then each
page is visited at each width by resizing the tab, Compare and Merge history with every section
open (a closed one draws nothing); the last test trains a Unigram run and looks at
its Training history. Screenshots of every page at every width, in viewport-high slices down the
page, go to artifacts/screenshots/layout/ as JPEG (gitignored).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.helpers import (
    APP_SELECTOR,
    SCREENSHOTS,
    assert_no_errors,
    main,
    open_page,
    settled,
    sidebar,
    sidebar_shown,
    train,
    wait_idle,
)

pytestmark = pytest.mark.browser

# (width, height): a phone, a small laptop window, a laptop, a desktop.
VIEWPORTS = ((390, 844), (800, 1000), (1280, 1000), (1920, 1000))
DESKTOP = {"width": 1280, "height": 1000}
# Streamlit's "auto" sidebar (explorer.ui.common.frame.page) is collapsed up to 768 px and follows a resize.
SIDEBAR_OPEN_FROM = 800
MAX_SLICES = 8
SLICE_QUALITY = 80  # the slices are JPEG (shoot_slices)
LAYOUT_JS = (Path(__file__).parent / "layout.js").read_text()
SHOTS = SCREENSHOTS / "layout"
LOCAL_HOSTS = {"127.0.0.1"}
# Under 50 distinct words, so that Merge history also prints the course's tables.
CORPUS = "\n".join(
    [
        "der Bär schläft, das Mädchen lächelt 🙂",
        "東京の天気 我喜欢学习 🚀 👩‍💻",
        "안녕하세요 서울의 날씨 👍🏽",
        "def f(x): return x[0] + 1",
    ]
    * 5
)
# For the step-by-step panels: one pre-token of each kind of script, a few steps each.
STEPS_TEXT = "Der Bär schläft; 東京の天気 안녕하세요 👍🏽 def f(x): return x[0]"
SENTENCES = "\n".join(
    [
        "Der Bär schläft; 東京の天気は晴れ 🙂🚀 안녕하세요 👍🏽",
        "def tokenize(text: str) -> list[int]: return [ord(c) for c in text]",
    ]
)


@pytest.fixture(scope="module")
def tab(tabs, server):
    """One tab for the module, its requests to other hosts recorded in `tab.foreign_requests`."""
    page = tabs.take()
    page.set_viewport_size(DESKTOP)
    page.set_default_timeout(60_000)
    page.foreign_requests = []

    def on_request(request) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL_HOSTS:
            page.foreign_requests.append(f"{page.url} -> {request.url}")

    page.on("request", on_request)
    try:
        open_page(page, server, "/")
        page.evaluate("() => localStorage.clear()")  # a new visitor: no sidebar state remembered
        open_page(page, server, "/")
        area = page.get_by_role("textbox", name="Corpus", exact=True)
        area.fill(CORPUS)
        area.press("Control+Enter")
        wait_idle(page)
        train(page)
        yield page
    finally:
        page.remove_listener("request", on_request)
        tabs.give_back(page)


def go(page, label: str, title: str | None = None) -> None:
    """Open a page by its sidebar link and wait for its title (`title`, when not the link's label)."""
    page.set_viewport_size(DESKTOP)
    # As a person's pointer leaves the button it clicked: a help tooltip that opened under it after
    # the page redrew (a fresh-clone CI run: a stTooltipContent over the sidebar's link for 60 s).
    page.mouse.move(DESKTOP["width"] - 5, 5)
    sidebar(page).get_by_role("link", name=label).click()
    page.wait_for_function(
        "title => [...document.querySelectorAll('[data-testid=\"stMainBlockContainer\"] h1')]"
        ".some(h => h.innerText.trim() === title)",
        arg=title or label,
        timeout=60_000,
        polling=100,  # a page's run takes seconds: not every frame
    )
    wait_idle(page)


# Scroll the element to `top` and resolve once three frames have been drawn after it.
SCROLLED_JS = """async (el, top) => {
  el.scrollTop = top;
  for (let frame = 0; frame < 3; frame++) await new Promise((drawn) => requestAnimationFrame(drawn));
}"""


def shoot_slices(page, name: str) -> None:
    """The page from top to bottom, one viewport-high screenshot per slice (Streamlit scrolls its
    own container, so a full-page screenshot would show the first screen only). JPEG: these
    pictures are for a person's eye (`helpers.screenshot`'s PNGs are the ones docs/ keeps), and on
    a page dense with coloured tokens Chromium encodes a 1920 px JPEG for about a third of a PNG's
    CPU. Each slice is taken once the scroll has been drawn (three animation frames: the scroll
    event, the redraw it schedules, its paint), not after a fixed interval."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in [*SHOTS.glob(f"{name}-*.png"), *SHOTS.glob(f"{name}-*.jpg")]:
        old.unlink()
    scroller = main(page)
    height = scroller.evaluate("el => el.scrollHeight")
    step = page.viewport_size["height"]
    for index in range(min(MAX_SLICES, -(-height // step))):
        scroller.evaluate(SCROLLED_JS, index * step)
        page.screenshot(path=str(SHOTS / f"{name}-{index + 1}.jpg"), type="jpeg", quality=SLICE_QUALITY)
    scroller.evaluate("el => { el.scrollTop = 0; }")


# Every Plotly chart in the page has drawn its figure (Plotly's code loads when the first is shown).
CHARTS_MOUNTED_JS = (
    "() => [...document.querySelectorAll('.stPlotlyChart')].every((c) => c.querySelector('.main-svg'))"
)


def open_every_section(page) -> None:
    """Open every closed section of the page (an expander: a click on its label), as a visitor who
    reads it all: a closed section draws nothing until it is open (explorer.ui.common.frame.section),
    and an open one may hold more. Before each click, the charts an opened section drew are mounted
    and the page has stopped moving (a chart that mounts late pushes the next label down, from under
    a click aimed at it). A section that a rerun drew anew as the click came (the one clicked is no
    longer in the page) is found closed again and clicked again."""
    closed = main(page).locator("details:not([open]) > summary")
    for _ in range(30):
        page.wait_for_function(CHARTS_MOUNTED_JS, timeout=60_000, polling=100)
        settled(page, collapsed=False)
        if not closed.count():
            return
        details = closed.first.locator("xpath=..").element_handle()
        closed.first.click()
        try:
            page.wait_for_function(
                "details => details.open || !details.isConnected", arg=details, timeout=30_000
            )
        except PlaywrightTimeoutError:
            label = details.evaluate("details => details.querySelector('summary').innerText")
            state = page.locator(APP_SELECTOR).get_attribute("data-test-script-state")
            raise AssertionError(
                f"the section {label!r} stayed closed 30 s after a click (script {state})"
            ) from None
        wait_idle(page)
    raise AssertionError(f"still {closed.count()} closed sections after opening 30")


def look_at_every_width(page, name: str) -> None:
    """Resize to each viewport, measure, screenshot; fail with every problem of every width."""
    found = {}
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        wait_idle(page)
        settled(page, collapsed=width < SIDEBAR_OPEN_FROM)
        assert_no_errors(page, f"{name} at {width} px")
        problems = {kind: items for kind, items in page.evaluate(LAYOUT_JS).items() if items}
        if width < SIDEBAR_OPEN_FROM and sidebar_shown(page):
            problems["sidebar"] = ["open over the page"]
        if problems:
            found[width] = problems
        shoot_slices(page, f"{name}-{width}")
    if page.foreign_requests:
        found["requests that left 127.0.0.1"] = sorted(set(page.foreign_requests))[:10]
    assert not found, f"{name}:\n{json.dumps(found, indent=1, ensure_ascii=False)}"


def test_train_page_fits_every_width(tab):
    main(tab).get_by_text("Merges learned", exact=True).wait_for()
    look_at_every_width(tab, "train")


def pick_tokenizer(page, typed: str, label: str) -> None:
    """Add a column in Compare's picker by searching it: one chip more."""
    box = main(page).locator('[data-testid="stMultiSelect"]').first.locator("input")
    box.click()
    box.fill(typed)
    page.get_by_role("option").filter(has_text=f" · {label} · ").click()
    wait_idle(page)
    page.keyboard.press("Escape")


def encode_steps_of(page, text: str, first_pre_token: str) -> None:
    """Type `text` into the step-by-step panel's box, wait for its steps (the first pre-token's
    title is `first_pre_token`, as the panel shows it) and unfold every pre-token's table (plain
    HTML <details>: opening one runs no script, so they are opened at once rather than clicked)."""
    box = page.get_by_role("textbox", name="A word or a sentence to encode", exact=True)
    box.fill(text)
    box.press("Tab")
    wait_idle(page)
    page.wait_for_function(
        "first => document.querySelector('.encode-steps summary b')?.innerText === first", arg=first_pre_token
    )
    page.evaluate(
        "() => document.querySelectorAll('.encode-steps details').forEach((d) => { d.open = true; })"
    )


def test_compare_page_fits_every_width_and_its_diff_has_two_rows(tab):
    go(tab, "Compare")
    # Five chips: on a phone, more than Streamlit's multiselect shows without scrolling its box.
    pick_tokenizer(tab, "mistral v0.1", "Mistral 7B v0.1 (SentencePiece v1)")
    assert main(tab).locator(".stMultiSelect [data-tag]").count() == 5
    box = tab.get_by_role("textbox", name="Text to compare", exact=True)  # the live box
    box.fill(SENTENCES)
    box.press("Tab")  # leaving the box: the whole page follows the text (the figures too)
    wait_idle(tab)
    main(tab).locator(".boundary-diff").first.wait_for()
    assert main(tab).locator(".boundary-diff").count() == len(SENTENCES.splitlines())
    open_every_section(tab)
    encode_steps_of(tab, STEPS_TEXT, "Der")
    main(tab).locator(".js-plotly-plot").nth(2).wait_for(timeout=60_000)  # the three charts
    look_at_every_width(tab, "compare")


def test_merge_history_page_fits_every_width(tab):
    go(tab, "Merge history")
    main(tab).get_by_text("Step (merges applied)", exact=True).wait_for()
    open_every_section(tab)
    look_at_every_width(tab, "merge_history")


def test_vocabulary_page_fits_every_width(tab):
    go(tab, "Vocabulary")
    main(tab).get_by_text("Grid view", exact=True).wait_for()
    # The five downloads on one line at 1280 px (in columns, the fifth wrapped off the grid).
    downloads = main(tab).locator('[data-testid="stDownloadButton"]')
    tops = {round(box["y"]) for box in (one.bounding_box() for one in downloads.all()) if box}
    assert downloads.count() == 5 and len(tops) == 1, f"{downloads.count()} downloads on {len(tops)} lines"
    look_at_every_width(tab, "vocabulary")


def test_unigram_training_history_fits_every_width(tab):
    go(tab, "Train")
    main(tab).get_by_role("radiogroup", name="Algorithm").get_by_text("Unigram", exact=True).click()
    wait_idle(tab)
    tab.get_by_role("button", name="Train", exact=True).click()
    main(tab).get_by_text("Rounds", exact=True).wait_for(timeout=60_000)
    wait_idle(tab)
    go(tab, "Training history")  # the sidebar names the page as its title does
    look_at_every_width(tab, "training_history")


def test_the_course_wordpiece_lesson_fits_every_width(tab, server):
    # The course's tables and the step-by-step panel of a likelihood-scored run (its scores and
    # count columns are the widest), every section open.
    tab.set_viewport_size(DESKTOP)
    open_page(tab, server, "/Merge_history", "lesson=course-wordpiece")
    main(tab).locator(".why").wait_for(timeout=60_000)
    wait_idle(tab)
    open_every_section(tab)
    look_at_every_width(tab, "course_wordpiece")
