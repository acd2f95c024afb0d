"""The merge player in a real browser (Debian's Chromium through Playwright, `streamlit run app.py`):
playing to the last merge at the fastest and the slowest speed stops cleanly (no error element, no
exception in the server's log, Play enabled again), the step shown is the step of every panel while
playing, and a Merge history link with `step=K` opens step K in every panel on a fresh server.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import (
    PLAYER_SELECTOR,
    STEP_INPUT,
    assert_no_errors,
    main,
    open_page,
    open_sections,
    player_reading,
    screenshot,
    server_log_path,
    wait_idle,
)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect

# The course's BPE on its own sample: 15 merges, each with a competition worth reading.
LINK = "algorithm=bpe&flavor=course&vocab_size=45&sample=hf-course"


def step_of(page) -> int:
    return int(page.locator(STEP_INPUT).input_value())


def set_speed(page, key: str) -> str:
    """The speed select-slider moved with the keyboard, as a person without a mouse would: "Home"
    for the slowest speed, "End" for the fastest. Returns the speed's label."""
    speed = page.get_by_role("slider", name="Speed")
    speed.focus()
    page.keyboard.press(key)
    wait_idle(page)
    return speed.get_attribute("aria-valuetext")


def server_log(name: str) -> str:
    return server_log_path(name).read_text(errors="replace")


def shown_step_while_playing(page) -> tuple[int | None, int | None]:
    """(the slider's step, the merge line's merge number), read at one instant while playing."""
    step, line, playing = player_reading(page)
    merge = re.search(r"Merge ([\d,]+) of", line)
    if not playing:
        return None, None
    return step, (int(merge[1].replace(",", "")) if merge else 0 if "Before any merge" in line else None)


@pytest.mark.parametrize(("key", "speed"), [("End", "500 merges per tick"), ("Home", "2 s per merge")])
def test_playing_to_the_last_merge_stops_cleanly(server, page, key, speed):
    start = 11 if speed == "2 s per merge" else 0  # the slow speed plays the last merges only
    open_page(page, server, "/Merge_history", f"{LINK}&step={start}")
    steps = int(page.locator(STEP_INPUT).get_attribute("max"))
    assert step_of(page) == start < steps
    assert set_speed(page, key) == speed
    log_before = len(server_log("server-shared"))
    page.get_by_role("button", name="Play", exact=True).click()
    mismatches, samples = 0, 0
    play = page.get_by_role("button", name="Play", exact=True)
    for _ in range(600):  # at most 60 s
        page.wait_for_timeout(100)
        bar, line = shown_step_while_playing(page)
        if bar is not None and line is not None:
            samples += 1
            mismatches += bar != line
        if play.is_enabled():
            break
    expect(play).to_be_enabled(timeout=30_000)
    expect(page.get_by_role("button", name="Pause", exact=True)).to_be_disabled()
    wait_idle(page)
    assert step_of(page) == steps
    assert f"Merge {steps} of {steps}" in main(page).locator(".merge-summary").inner_text()
    assert mismatches == 0, f"the step and the merge line disagreed {mismatches} times in {samples}"
    if speed == "2 s per merge":  # how many readings fit in its 8 s depends on the machine's load
        assert samples > 0, "no reading of the step bar while playing"
    assert_no_errors(page, f"Merge history after playing at {speed}")
    new_log = server_log("server-shared")[log_before:]
    assert "Traceback" not in new_log and "Error" not in new_log, new_log[-2000:]
    screenshot(page, f"player-end-{speed}")


def panels_at(page, k: int) -> dict[str, str]:
    """What each panel says about step k, read from the page (its closed sections opened) once the
    server has drawn step k (the player shows it at once: its clock is in the browser)."""
    sentences = main(page).get_by_text(re.compile(rf"^Sample sentences after {k:,} merges?$"))
    expect(sentences).to_be_visible(timeout=60_000)
    wait_idle(page)
    open_sections(page)
    return {
        "slider": page.locator(STEP_INPUT).input_value(),
        "line": main(page).locator(".merge-summary").inner_text(),
        "why": main(page).locator(".why").inner_text(),
        "competition": main(page)
        .locator(".chart-title", has_text="The competition for merge")
        .first.text_content(),
        "tree": main(page).locator(".merge-tree").inner_text().split("\n")[0],
        "steps": main(page)
        .get_by_text(re.compile(r"^How a text is tokenized, step by step, after"))
        .inner_text(),
        "sentences": main(page).get_by_text(re.compile(r"^Sample sentences after")).inner_text(),
    }


def test_a_merge_history_link_opens_its_step_everywhere(server, fresh_server, elsewhere, page):
    open_page(page, server, "/Merge_history", LINK)  # trained by the link: at its first merge
    for _ in range(2):
        page.get_by_role("button", name="Next", exact=True).click()
        wait_idle(page)
    assert step_of(page) == 3
    assert "step=3" in page.url and "sample=hf-course" in page.url and "vocab_size=45" in page.url
    here = panels_at(page, 3)
    query = page.url.split("?", 1)[1]

    with elsewhere.open() as other:
        open_page(other, fresh_server, "/Merge_history", query)  # a fresh server: its first request
        there = panels_at(other, 3)
        assert_no_errors(other, "the link on a fresh server")
        screenshot(other, "player-link-step-3")
    assert there == here
    assert there["slider"] == "3" and "Merge 3 of" in there["line"]
    assert "merge 3:" in there["competition"] and "after 3 merges" in there["steps"]
    assert "merge 3" in there["tree"]


def panel_steps_while_playing(page) -> list[str] | None:
    """The step each panel under the player was drawn for (`data-panel-step`), read at one instant
    while playing; None when not playing."""
    return page.evaluate(
        """selector => {
             const root = document.querySelector(selector);
             if (!root || root.dataset.playing !== 'true') return null;
             const main = document.querySelector('[data-testid="stMain"]');
             return [...main.querySelectorAll('[data-panel-step]')].map(panel => panel.dataset.panelStep);
           }""",
        PLAYER_SELECTOR,
    )


def test_every_panel_shows_the_same_step_while_playing(server, page):
    # Issue 50: during Play, "Why this pair won" showed merge 381 while the table and bars below
    # still showed 361. The panels of one tick are drawn together, so no reading sees two steps.
    open_page(page, server, "/Merge_history", "algorithm=bpe&flavor=course&vocab_size=150&sample=scarlet")
    speed = page.get_by_role("slider", name="Speed")
    speed.focus()
    page.keyboard.press("Home")
    for _ in range(4):  # 2 s, 1 s, 0.5 s, 0.25 s per merge, then 5 merges per tick
        page.keyboard.press("ArrowRight")
    wait_idle(page)
    assert speed.get_attribute("aria-valuetext") == "5 merges per tick"
    play = page.get_by_role("button", name="Play", exact=True)
    play.click()
    readings, seen = [], set()
    for _ in range(1200):  # at most 120 s; 111 merges take 23 ticks
        page.wait_for_timeout(100)
        steps = panel_steps_while_playing(page)
        if steps is not None:
            readings.append(steps)
            seen.update(steps)
        if play.is_enabled():
            break
    expect(play).to_be_enabled(timeout=30_000)
    mixed = [steps for steps in readings if len(set(steps)) != 1]
    assert len(seen) > 1, "no two steps were read while playing"
    assert all(len(steps) == 5 for steps in readings), readings  # why, table, bars, words, sentences
    assert not mixed, f"{len(mixed)} of {len(readings)} readings saw panels at different steps: {mixed[:5]}"
    assert_no_errors(page, "Merge history after playing")
