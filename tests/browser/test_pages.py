"""The app in a real browser (Debian's Chromium through Playwright, `streamlit run app.py` on a free
loopback port): what AppTest cannot see, i.e. the frontend, page links and URLs, the fragment player
with its timer, keyboard scrubbing, and what the browser does with hostile corpus text.

Skipped with a message when /usr/bin/chromium (or the playwright package) is missing. Screenshots
of every page visited go to artifacts/screenshots/ (gitignored), server logs to artifacts/.
Run alone with `pytest -m browser`; leave out with `-m "not browser"`.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from tests.browser.helpers import (
    FRIENDLY_STOP,
    PAGE_PATHS,
    STEP_INPUT,
    assert_no_errors,
    main,
    open_page,
    paste_corpus,
    player_reading,
    screenshot,
    sidebar,
    sidebar_shown,
    train,
    wait_idle,
)

pytestmark = pytest.mark.browser
expect = pytest.importorskip(
    "playwright.sync_api", reason="the playwright package is missing: pip install -r requirements-dev.txt"
).expect

# Enough distinct words for a few hundred merges (the player's speed starts at 1 merge per tick).
CORPUS = "\n".join(
    [
        "the lowest newer widest tower was lower than the newest one",
        "hugging face course: this chapter is about tokenization and tokenizers",
        "byte pair encoding merges the most frequent pair of symbols, step by step",
        "wordpiece scores a pair by its count over the counts of its parts",
        "every line is one training sequence; words are split before counting",
    ]
    * 3
)
XSS_LINES = [
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=2">',
    '<a href="javascript:window.__xss=3">x</a>',
    "**bold** $x$ :red[x]",
]
XSS_CORPUS = "\n".join(XSS_LINES * 20)
LITERALS = ("<script>", "onerror=", "javascript:", "**bold**", "$x$", ":red[x]")
CONTENT_MARKERS = {  # text each page shows once it has a run
    "Train": "Merges learned",
    "Merge history": "Step (merges applied)",
    "Vocabulary": "Grid view",
    "Compare": "Figures",
}


# ---------------------------------------------------------------- helpers


def go_by_sidebar(page, label: str) -> None:
    sidebar(page).get_by_role("link", name=label).click()
    page.wait_for_function(
        "title => document.querySelector('[data-testid=\"stMainBlockContainer\"] h1')"
        "?.innerText.trim() === title",
        arg=label,
        timeout=30_000,
        polling=100,  # a page's run takes seconds: not every frame
    )
    wait_idle(page)


def step_slider(page):
    return page.locator(STEP_INPUT)


def step_of(page) -> int:
    """The player's step: what its slider shows."""
    step, _, _ = player_reading(page)
    if step is None:
        raise AssertionError("the merge player is not on the page")
    return step


def wait_for_step(page, predicate, timeout_ms: int = 20_000) -> int:
    """Poll the step until `predicate(step)` holds (bounded); return the step."""
    waited = 0
    while waited <= timeout_ms:
        try:
            step = step_of(page)
        except AssertionError:  # between two runs of the step view
            step = None
        if step is not None and predicate(step):
            return step
        page.wait_for_timeout(200)
        waited += 200
    raise AssertionError(f"step slider stuck at {step_of(page)} after {timeout_ms / 1000:.0f} s")


def assert_frame(page, title: str) -> None:
    """The shared frame rendered: the sidebar with its four page links and the page's title
    (retried for a while: a rerun may be redrawing them)."""
    expect(sidebar(page).get_by_role("link")).to_have_text(
        [re.compile(rf"{label}$") for label in PAGE_PATHS], timeout=30_000
    )
    expect(page.locator('[data-testid="stMainBlockContainer"] h1').first).to_have_text(title, timeout=30_000)


def shows_content_or_friendly_stop(page, title: str) -> str:
    """'content' or 'stop' (the friendly "train first" message with its link to Train)."""
    content = main(page).get_by_text(CONTENT_MARKERS[title], exact=True)
    stop = main(page).get_by_text(FRIENDLY_STOP)
    (content.or_(stop)).first.wait_for(timeout=60_000)
    if stop.count():
        assert main(page).get_by_role("link", name="Train").count() == 1
        return "stop"
    return "content"


PHONE = {"width": 390, "height": 844}
PROBES = ("_stcore/health", "_stcore/host-config")


def answers_of_a_direct_open(page, server: str, path: str) -> list[tuple[int, str]]:
    """Open `path` by its URL; the (status, path) of every failed request and of Streamlit's
    connection probes while it loaded.

    The probes are Streamlit's frontend, not the app (streamlit/streamlit#7074, open; measured in
    1.67): before it opens its websocket, the frontend's connection manager
    (`connectToRunningServer` -> `pingServer` in static/js/index.*.js) tries each base URL the
    page's path could be served under, the full path first, then its parent (an app may sit under a
    path prefix behind a proxy). On `/Merge_history` it asks `/Merge_history/_stcore/health` and
    `/Merge_history/_stcore/host-config`, which answer 404, then `/_stcore/health` and
    `/_stcore/host-config`, which answer 200. Only a base URL set in `window.__streamlit` before
    Streamlit's script loads (by a page embedding the app) skips the guess; the app's scripts run
    too late to set it. `assert_phone_view` pins these requests down: any other failure, or a probe
    that no longer fails (Streamlit fixed it: then assert no 404 at all), fails it."""
    answers: list[tuple[int, str]] = []

    def on_response(response) -> None:
        if urlsplit(response.url).path.endswith(PROBES) or response.status >= 400:
            answers.append((response.status, urlsplit(response.url).path))

    page.on("response", on_response)
    try:
        open_page(page, server, path)
    finally:
        page.remove_listener("response", on_response)
    return answers


def assert_phone_view(page, label: str, path: str, answers: list[tuple[int, str]]) -> None:
    """A page opened by its URL on a phone: its title in view, the sidebar collapsed (it would
    cover the page), no failed request but the probes under the page's path, and the probes at the
    server's root answered (the page connected through them)."""
    box = main(page).locator("h1").first.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] and box["y"] < PHONE["height"]
    assert not sidebar_shown(page), f"{label}: the sidebar is open over the page on a phone"
    failed = sorted({answer for answer in answers if answer[0] >= 400})
    probed_under_page = [(404, f"{path}/{probe}") for probe in PROBES] if path != "/" else []
    assert failed == sorted(probed_under_page), f"{label}: failed requests {failed}"
    for probe in PROBES:
        assert (200, f"/{probe}") in answers, f"{label}: /{probe} answered {answers}"


# ---------------------------------------------------------------- 1. the whole tour


def test_train_then_every_page_by_sidebar_and_by_url(server, page):
    open_page(page, server, "/")
    assert_frame(page, "Train")
    paste_corpus(page, CORPUS)
    assert "sample=" not in page.url  # a pasted corpus never goes into the link
    train(page)
    assert_no_errors(page, "Train after training")
    screenshot(page, "tour-1-train")

    go_by_sidebar(page, "Merge history")
    assert_frame(page, "Merge history")
    assert step_of(page) == 1  # a new run opens at its first merge
    steps = int(step_slider(page).get_attribute("max"))
    assert steps > 20

    page.get_by_role("button", name="Play", exact=True).click()
    playing_at = wait_for_step(page, lambda step: step >= 3)
    page.get_by_role("button", name="Pause", exact=True).click()
    page.get_by_role("button", name="Play", exact=True).and_(page.locator(":enabled")).wait_for()
    wait_idle(page, settle_ms=400)
    paused_at = step_of(page)
    assert 3 <= playing_at <= paused_at < steps
    page.wait_for_timeout(1200)  # several ticks' worth: a paused player does not move
    assert step_of(page) == paused_at
    assert main(page).get_by_text(f"Sample sentences after {paused_at:,} merges").count() == 1
    assert_no_errors(page, "Merge history after Play/Pause")

    slider = step_slider(page)
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    wait_idle(page, settle_ms=400)
    assert step_of(page) == paused_at + 5
    main(page).get_by_text(f"Sample sentences after {paused_at + 5:,} merges").wait_for()
    page.keyboard.press("ArrowLeft")
    wait_idle(page, settle_ms=400)
    main(page).get_by_text(f"Sample sentences after {paused_at + 4:,} merges").wait_for()
    page.keyboard.press("End")
    wait_idle(page, settle_ms=400)
    main(page).get_by_text(f"Sample sentences after {steps:,} merges").wait_for()
    merge_line = main(page).locator(".merge-summary").first.inner_text()
    assert re.search(rf"Merge {steps:,} of {steps:,}", merge_line), merge_line
    assert_no_errors(page, "Merge history after scrubbing")
    screenshot(page, "tour-2-merge_history")

    go_by_sidebar(page, "Vocabulary")
    assert_frame(page, "Vocabulary")
    main(page).get_by_text("Grid view", exact=True).wait_for()
    assert_no_errors(page, "Vocabulary")
    screenshot(page, "tour-3-vocabulary")

    go_by_sidebar(page, "Compare")
    assert_frame(page, "Compare")
    page.get_by_role("button", name=re.compile(r"Train the other algorithm")).click()
    main(page).get_by_text("Figures", exact=True).wait_for()
    wait_idle(page)
    assert main(page).get_by_text("WordPiece on the same corpus").count() == 1
    assert_no_errors(page, "Compare")
    screenshot(page, "tour-4-compare")

    go_by_sidebar(page, "Train")  # back home: the summary of the same run is still there
    main(page).get_by_text("Merges learned", exact=True).wait_for()
    assert page.get_by_role("textbox", name="Corpus", exact=True).input_value() == CORPUS
    assert_no_errors(page, "Train after the tour")

    # By URL, on a phone, as a student opens a class link: each goto is a new Streamlit session, and
    # a pasted corpus is never in a link, so the pages other than Train say "train first"
    # (politely) instead of showing the run; the title is in view, the sidebar collapsed, and no
    # request fails but Streamlit's own connection probes (`answers_of_a_direct_open`).
    page.set_viewport_size(PHONE)
    for title, path in PAGE_PATHS.items():
        answers = answers_of_a_direct_open(page, server, path)
        assert_frame(page, title)
        assert_phone_view(page, title, path, answers)
        if title == "Train":  # a new session starts from the default sample, untrained
            page.get_by_role("button", name="Train", exact=True).wait_for()
            assert page.get_by_role("textbox", name="Corpus", exact=True).input_value() != CORPUS
        else:
            assert shows_content_or_friendly_stop(page, title) == "stop"
        assert_no_errors(page, f"{path} by URL")
        screenshot(page, f"tour-5-by-url-{title}")

    # What the tabs of the session's context (tests/browser/conftest.py) carry from one test to the next
    # is Streamlit's own, its XSRF cookie and its theme: the app keeps nothing in the browser.
    assert {cookie["name"] for cookie in page.context.cookies()} <= {"_streamlit_xsrf"}
    kept = page.evaluate("() => [...Object.keys(localStorage), ...Object.keys(sessionStorage)]")
    assert all(key.startswith("stActiveTheme") for key in kept), kept


# ---------------------------------------------------------------- 2. deep links on a fresh server

DEEP_LINKS = [
    ("/Merge_history", "", "Merge history", "stop"),
    ("/Vocabulary", "", "Vocabulary", "stop"),
    ("/Compare", "", "Compare", "stop"),
    ("/", "algorithm=bpe&sample=hf-course", "Train", "form"),
    ("/Merge_history", "algorithm=wordpiece&sample=german&vocab_size=60", "Merge history", "content"),
]


@pytest.mark.parametrize(
    ("path", "query", "title", "expected"), DEEP_LINKS, ids=[f"{p}?{q}" for p, q, *_ in DEEP_LINKS]
)
def test_deep_link_is_the_first_request(fresh_server, page, path, query, title, expected):
    open_page(page, fresh_server, path, query)
    assert_frame(page, title)
    if expected == "form":  # the Train page's link without a run: the form, not trained yet
        page.get_by_role("button", name="Train", exact=True).wait_for(timeout=60_000)
        assert main(page).get_by_text(CONTENT_MARKERS[title], exact=True).count() == 0
    else:
        assert shows_content_or_friendly_stop(page, title) == expected
    wait_idle(page)
    assert_no_errors(page, f"{path}?{query}")
    if query and path == "/":  # the Train page's link without a run: the form, not trained yet
        assert "No tokenizer trained yet" in sidebar(page).inner_text()
        assert "sample=hf-course" in page.url and "run=" not in page.url
    elif query:  # a page that needs a run: the link's sample trained, the sidebar shows the run
        sample_label = {"hf-course": "Hugging Face course", "german": "German demo"}[
            re.search(r"sample=([\w-]+)", query)[1]
        ]
        assert sample_label in sidebar(page).locator(".run-card").inner_text()
        assert "sample=" in page.url
    screenshot(page, f"deep-link-{title}-{query.split('&')[1] if query else 'no-params'}")


# ---------------------------------------------------------------- 3. hostile corpus text


def assert_nothing_ran(page, where: str) -> None:
    assert page.dialogs == [], f"{where}: a dialog opened: {page.dialogs}"
    assert page.evaluate("typeof window.__xss") == "undefined", f"{where}: corpus script ran"
    injected = page.evaluate(
        """() => ({
            img: document.querySelectorAll('img[src="x"], img[onerror]').length,
            script: [...document.querySelectorAll('script')]
                .filter(s => s.textContent.includes('__xss')).length,
            javascript_href: document.querySelectorAll('a[href^="javascript:"]').length,
            handlers: [...document.querySelectorAll('*')].filter(e => e.getAttribute('onerror')).length,
            katex: document.querySelectorAll('[data-testid="stMain"] .katex').length,
        })"""
    )
    assert injected == {"img": 0, "script": 0, "javascript_href": 0, "handlers": 0, "katex": 0}, (
        f"{where}: {injected}"
    )


def visible_text(page) -> str:
    return page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').innerText")


def test_corpus_markup_is_shown_never_run(server, page):
    open_page(page, server, "/")
    paste_corpus(page, XSS_CORPUS)
    train(page)
    assert_no_errors(page, "Train")
    assert_nothing_ran(page, "Train")

    go_by_sidebar(page, "Compare")  # its sentences are also the Merge history's sample sentences
    sentences = page.get_by_role("textbox", name="Text to compare", exact=True)  # the live box
    sentences.fill("\n".join(XSS_LINES))
    sentences.press("Tab")  # leaving the box: the whole page follows the text
    wait_idle(page)
    assert sentences.input_value() == "\n".join(XSS_LINES)
    text = visible_text(page)
    for literal in LITERALS:
        assert literal in text, f"{literal!r} not shown literally on Compare"
    assert main(page).locator("strong", has_text=re.compile(r"^bold$")).count() == 0
    assert_no_errors(page, "Compare")
    assert_nothing_ran(page, "Compare")
    screenshot(page, "xss-1-compare")

    go_by_sidebar(page, "Merge history")
    step_slider(page).focus()
    page.keyboard.press("End")  # every merge applied
    wait_idle(page, settle_ms=400)
    words = main(page).locator(".top-words").inner_text()
    for word in ("script", "onerror", "javascript", "<", "**", "$"):  # corpus words, as token spans
        assert word in words, f"{word!r} missing from the corpus words: {words[:500]}"
    sentences_shown = main(page).locator(".step-sentences").inner_text()
    for literal in LITERALS:
        assert literal in sentences_shown, f"{literal!r} not shown literally on Merge history"
    assert_no_errors(page, "Merge history")
    assert_nothing_ran(page, "Merge history")
    screenshot(page, "xss-2-merge_history")

    go_by_sidebar(page, "Vocabulary")
    page.get_by_role("textbox", name="Search tokens", exact=True).fill("script")
    page.keyboard.press("Enter")
    wait_idle(page)
    main(page).get_by_text(re.compile(r"^[1-9]\d* of [\d,]+ tokens$")).wait_for()  # the search found it
    assert_no_errors(page, "Vocabulary")
    assert_nothing_ran(page, "Vocabulary")
    screenshot(page, "xss-3-vocabulary")

    go_by_sidebar(page, "Train")
    assert page.get_by_role("textbox", name="Corpus", exact=True).input_value() == XSS_CORPUS
    assert_no_errors(page, "Train again")
    assert_nothing_ran(page, "Train again")
