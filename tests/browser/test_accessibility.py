"""Accessibility (issue 32, item 6): every page passes axe-core (bundled by `axe-playwright-python`,
no download at run time) with no serious or critical violation, on a phone (390 x 844) and a
laptop (1280 x 800); and the player, Compare's live box and Copy ids work by keyboard alone, each
focused control showing a visible focus indicator.

- axe: one tab for the module, on the session's server: the course's BPE lesson link trains a run
  once, then each page is opened by its sidebar link (the same session, so the same run; on the
  phone the sidebar is closed again, as a visitor does), its sections opened, and scanned at each
  size. No rule and no element is left out: Streamlit's own markup passes with the app's theme
  colours (.streamlit/config.toml).
- the player: Tab to Play, Enter (it plays; the focus is on Pause), Space (paused; the focus back on
  Play), Tab to the step slider and ArrowRight, Tab to Next and Enter, Shift+Tab to Back and Space:
  each step's line is drawn.
- Compare: Tab to the live box, Ctrl+A and type (every column follows), Tab to the first row's Copy
  ids (the page reruns as the box loses the focus: the button keeps it) and Enter: the row says
  "ids copied" and the clipboard holds the ids.
- each control reached shows an outline or a box-shadow it does not have unfocused.
Screenshots of the focus rings: artifacts/screenshots/keyboard-*.png.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.helpers import (
    PLAYER_SELECTOR,
    assert_no_errors,
    main,
    open_page,
    open_sections,
    player_reading,
    screenshot,
    sidebar,
    sidebar_shown,
    wait_idle,
)

pytestmark = pytest.mark.browser
axe_playwright = pytest.importorskip(
    "axe_playwright_python.sync_playwright",
    reason="the axe-playwright-python package is missing: pip install -r requirements-dev.txt",
)

SIZES = ((390, 844), (1280, 800))
PAGES = {  # sidebar link -> text the page shows once drawn with a run
    "Train": "Merges learned",
    "Merge history": "Step (merges applied)",
    "Vocabulary": "Grid view",
    "Compare": "Figures",
}
BLOCKING = {"serious", "critical"}
SIDEBAR_OPEN_JS = (
    "() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right > 1"
)
# The sidebar lies wholly in the window and has stopped sliding (no CSS transition running).
SIDEBAR_IN_VIEW_JS = """() => {
  const r = document.querySelector('[data-testid="stSidebar"]').getBoundingClientRect();
  const sliding = document.getAnimations()
    .some((a) => a instanceof CSSTransition && a.playState === 'running');
  return r.width > 1 && r.left >= 0 && !sliding;
}"""
SIDEBAR_CLOSED_JS = """() => {
  const r = document.querySelector('[data-testid="stSidebar"]').getBoundingClientRect();
  const sliding = document.getAnimations()
    .some((a) => a instanceof CSSTransition && a.playState === 'running');
  return (r.width < 2 || r.right <= 1) && !sliding;
}"""
PHONE_UP_TO = 768  # Streamlit's sidebar lies over the page up to this width


@pytest.fixture(scope="module")
def tab(tabs, server):
    """One tab for the module, with the course's BPE lesson trained (it lands on Merge history)."""
    page = tabs.take()
    page.set_default_timeout(60_000)
    try:
        open_page(page, server, "/", "lesson=course-bpe")
        main(page).locator(".why").wait_for(timeout=60_000)
        wait_idle(page)
        yield page
    finally:
        tabs.give_back(page)


def go(page, label: str) -> None:
    """Open a page by its sidebar link (opening the sidebar first on a phone, and closing it after,
    as a visitor does to read the page it lies over) and wait for the page's run."""
    expand = page.locator('[data-testid="stExpandSidebarButton"]')
    if expand.is_visible():
        expand.click()
        page.wait_for_function(SIDEBAR_IN_VIEW_JS, timeout=30_000)  # slid in all the way, not moving
    sidebar(page).get_by_role("link", name=label).click()
    main(page).get_by_text(PAGES[label], exact=True).first.wait_for(timeout=60_000)
    wait_idle(page)
    if page.viewport_size["width"] < PHONE_UP_TO and sidebar_shown(page):
        page.locator('[data-testid="stSidebarCollapseButton"] button').click()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().right <= 1"
        )


def violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now (every rule, Streamlit's
    own markup included: none is left out)."""
    results = axe_playwright.Axe().run(page, options={"resultTypes": ["violations"]}).response
    return [violation for violation in results["violations"] if violation.get("impact") in BLOCKING]


def report(found: list[dict]) -> str:
    lines = []
    for violation in found:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:4]:
            lines.append(f"    {json.dumps(node['target'])}  {node.get('failureSummary', '')[:300]!r}")
        if len(violation["nodes"]) > 4:
            lines.append(f"    ... {len(violation['nodes']) - 4} more")
    return "\n".join(lines)


@pytest.mark.parametrize("label", list(PAGES))
def test_page_has_no_serious_axe_violation(tab, label):
    problems = {}
    for index, (width, height) in enumerate(SIZES):
        tab.set_viewport_size({"width": width, "height": height})
        if index == 0:  # opened once (on the phone), then the same page scanned at each size
            # Streamlit's "auto" sidebar closes as the window narrows: wait for that before opening it
            # (opened first, it was closed again under the click on its link).
            tab.wait_for_function(SIDEBAR_CLOSED_JS, timeout=30_000)
            go(tab, label)
            open_sections(tab)  # a closed section draws nothing: open, everything the page has is scanned
        elif width >= PHONE_UP_TO and not sidebar_shown(tab):  # closed by hand on the phone: open it
            tab.locator('[data-testid="stExpandSidebarButton"]').click()
            tab.wait_for_function(SIDEBAR_OPEN_JS)
        wait_idle(tab)
        assert_no_errors(tab, f"{label} at {width} px")
        found = violations(tab)
        if found:
            problems[f"{label} at {width} x {height}"] = report(found)
    assert not problems, "\n\n".join(f"{where}:\n{text}" for where, text in problems.items())


# ---------------------------------------------------------------- by keyboard alone

# The element with the keyboard's focus, inside the shadow roots of v2 components too.
FOCUSED_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}"""
# How an element's focus indicator is drawn now: its outline (when drawn) and box-shadow.
RING_JS = """el => {
  const s = getComputedStyle(el);
  const outline = s.outlineStyle === 'none' || parseFloat(s.outlineWidth) === 0
    ? 'none' : `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`;
  return `outline ${outline}; box-shadow ${s.boxShadow}`;
}"""
DESCRIBE_JS = """el => el ? `<${el.tagName.toLowerCase()} class="${el.className}" `
  + `aria-label="${el.getAttribute('aria-label') || ''}">`
  + (el.innerText || '').trim().slice(0, 30) : 'nothing'"""
MAX_PRESSES = 80  # Tab presses to reach a control from where the focus is


def tab_to(page, selector: str, key: str = "Tab"):
    """Press `key` (Tab or Shift+Tab) until the focused element matches `selector`; its handle."""
    passed = []
    for _ in range(MAX_PRESSES):
        page.keyboard.press(key)
        handle = page.evaluate_handle(FOCUSED_JS)
        if handle.evaluate("(el, selector) => !!el && el.matches(selector)", selector):
            return handle
        passed.append(handle.evaluate(DESCRIBE_JS))
    raise AssertionError(f"{selector} not reached in {MAX_PRESSES} presses of {key}; passed: {passed[-12:]}")


def focused_is(page, selector: str) -> bool:
    return page.evaluate_handle(FOCUSED_JS).evaluate("(el, s) => !!el && el.matches(s)", selector)


def assert_focus_visible(handle, unfocused: str, what: str) -> None:
    """The focused control draws an outline or a box-shadow, unlike its unfocused self."""
    ring = handle.evaluate(RING_JS)
    assert ring != "outline none; box-shadow none" and ring != unfocused, (
        f"{what} shows no focus indicator: focused {ring!r}, unfocused {unfocused!r}"
    )


def ring_of(page, selector: str) -> str:
    """The focus indicator of the first element matching `selector` (through shadow roots), unfocused."""
    element = page.locator(selector).first
    assert not focused_is(page, selector)
    return element.evaluate(RING_JS)


def wait_for_step(page, step: int) -> None:
    """The player shows `step`, and its line is the drawing of that step (not dimmed, pending)."""
    page.wait_for_function(
        """([selector, step]) => {
             const root = document.querySelector(selector);
             const line = root && root.querySelector('.player-line');
             return !!line && root.dataset.step === String(step) && !line.classList.contains('player-pending')
               && line.innerText.includes(`Merge ${step} of`);
           }""",
        arg=[PLAYER_SELECTOR, step],
        polling=100,  # the server's drawing of a step: not every frame
    )


def wait_for_playing(page, playing: bool) -> None:
    page.wait_for_function(
        "([selector, playing]) => document.querySelector(selector)?.dataset.playing === playing",
        arg=[PLAYER_SELECTOR, str(playing).lower()],
    )


def test_the_player_works_by_keyboard_with_visible_focus(server, page):
    open_page(page, server, "/Merge_history", "lesson=course-bpe")
    main(page).locator(".why").wait_for(timeout=60_000)
    wait_idle(page)
    rings = {name: ring_of(page, f"button.player-{name}") for name in ("play", "pause", "back", "next")}
    rings["range"] = ring_of(page, "input.player-range")

    play = tab_to(page, "button.player-play")
    assert_focus_visible(play, rings["play"], "Play")
    page.keyboard.press("Enter")
    wait_for_playing(page, True)
    # Play is disabled while playing: the focus is on Pause, the next thing to press
    assert focused_is(page, "button.player-pause"), page.evaluate_handle(FOCUSED_JS).evaluate(DESCRIBE_JS)
    assert_focus_visible(page.evaluate_handle(FOCUSED_JS), rings["pause"], "Pause")
    page.keyboard.press("Space")
    wait_for_playing(page, False)
    wait_idle(page)
    step = player_reading(page)[0]
    assert step is not None and step < 18, step  # two steps forward to go (the lesson has 19 merges)
    assert focused_is(page, "button.player-play")  # and back on Play once paused

    slider = tab_to(page, "input.player-range")
    assert_focus_visible(slider, rings["range"], "the step slider")
    page.keyboard.press("ArrowRight")
    wait_for_step(page, step + 1)
    assert_no_errors(page, "Merge history after the slider's arrow key")

    forward = tab_to(page, "button.player-next")
    assert_focus_visible(forward, rings["next"], "Next")
    page.keyboard.press("Enter")
    wait_for_step(page, step + 2)

    back = tab_to(page, "button.player-back", key="Shift+Tab")
    assert_focus_visible(back, rings["back"], "Back")
    page.keyboard.press("Space")
    wait_for_step(page, step + 1)
    wait_idle(page)
    assert_no_errors(page, "Merge history by keyboard")
    screenshot(page, "keyboard-player-back-focused")


TYPED = "hello keyboard"
COLUMNS = 4  # the run, GPT-2, GPT-4, GPT-4o
BOX = 'textarea[aria-label="Text to compare"]'  # the live box (Compare has a second one, lower)


def test_the_live_box_and_copy_ids_work_by_keyboard_with_visible_focus(server, page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        open_page(page, server, "/Compare", "lesson=course-bpe")
        main(page).locator(".compare-column").nth(COLUMNS - 1).wait_for(timeout=60_000)
        wait_idle(page)
        box_ring = ring_of(page, BOX)

        box = tab_to(page, BOX)
        assert_focus_visible(box, box_ring, "the live text box")
        screenshot(page, "keyboard-live-box-focused")
        page.keyboard.press("Control+A")
        page.keyboard.type(TYPED)
        page.wait_for_function(  # every column follows, without Enter
            """([n, columns]) => {
                 const cells = [...document.querySelectorAll('.compare-column')];
                 return cells.length === columns
                   && cells.every(cell => Number(cell.dataset.characters) === n);
               }""",
            arg=[len(TYPED), COLUMNS],
            polling=100,
        )

        copy_ring = ring_of(page, 'button[data-copy="Copy ids"]')
        tab_to(page, 'button[data-copy="Copy ids"]')
        wait_idle(page)  # leaving the box reruns the page: the counts are drawn anew, the focus kept
        copy = page.evaluate_handle(FOCUSED_JS)
        assert copy.evaluate("el => !!el && el.dataset.copy === 'Copy ids'"), copy.evaluate(DESCRIBE_JS)
        assert_focus_visible(copy, copy_ring, "Copy ids")
        screenshot(page, "keyboard-copy-ids-focused")
        page.evaluate("() => navigator.clipboard.writeText('')")
        page.keyboard.press("Enter")
        row = page.locator(".counts tbody tr").first
        row.get_by_text("ids copied").wait_for()
        ids = json.loads(page.locator(".counts table").get_attribute("data-copied"))
        assert ids and all(isinstance(token_id, int) for token_id in ids), ids
        assert json.loads(page.evaluate("() => navigator.clipboard.readText()")) == ids
        assert_no_errors(page, "Compare by keyboard")
    finally:
        page.context.clear_permissions()
