"""The merge player under hundreds of seeded random actions in a real browser (Debian's Chromium
through Playwright, `streamlit run app.py`), as a teacher and a class use it: Play, Pause, a speed
change, Next, Back, slider keys, a pause to read, a reload, the link opened in another browser.
On a BPE, a WordPiece and a Unigram run; after every action:

- no `pageerror` and no console error (Streamlit's own probes of `<page>/_stcore/...`, which
  answer 404 when a page is opened by its path, excepted);
- the app, the player and its step's line are on the screen (a blank page fails here);
- the URL's `step` is the step the player shows, at that instant.

And after every pause (the page idle): the line is about the step shown, and that step stays.

The actions are drawn from a seed, printed first (`player actions seed: S`), so a failure can be
replayed: EXPLORER_PLAYER_SEED=S. The seed is the link walk's first seed (new for every commit,
tests/helpers/walk_seeds.py), so the actions explored grow commit by commit; EXPLORER_PLAYER_ACTIONS=N
sets the number of drawn actions over the three runs (default ACTIONS_DEFAULT, which fits the
suite's budget). Every run then ends with a Pause, a reload and the link opened in another browser
(`LAST`), the rarest draws, whatever was drawn before.
"""

from __future__ import annotations

import os
import random
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser.helpers import (
    APP_SELECTOR,
    PLAYER_SELECTOR,
    Watch,
    main,
    open_page,
    player_reading,
    screenshot,
    wait_idle,
)
from tests.helpers.walk_seeds import first_seed

pytestmark = [pytest.mark.browser, pytest.mark.slow]
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect

ACTIONS_DEFAULT = 45  # 15 a run: about a minute of the suite's 2 cores (the seed is new each commit)
LAST = ("pause", "reload", "link in another browser")  # after the drawn ones, in every run
RUNS = {
    "bpe": "algorithm=bpe&flavor=library&vocab_size=330&sample=scarlet",
    "wordpiece": "algorithm=wordpiece&flavor=course&vocab_size=70&sample=hf-course",
    "unigram": "algorithm=unigram&flavor=course&vocab_size=60&sample=hf-course",
}
# Action -> weight: mostly what a person does most (play, pause, step, scrub, read).
ACTIONS = {
    "play": 6,
    "pause": 6,
    "next": 4,
    "back": 4,
    "slider key": 5,
    "speed": 3,
    "read": 3,
    "reload": 1,
    "link in another browser": 1,
}
SLIDER_KEYS = ["ArrowRight", "ArrowLeft", "PageUp", "PageDown", "Home", "End"]
SPEED_KEYS = ["ArrowRight", "ArrowLeft", "Home", "End"]


def seed() -> int:
    return int(os.environ.get("EXPLORER_PLAYER_SEED") or first_seed())


def actions_per_run() -> int:
    return -(-int(os.environ.get("EXPLORER_PLAYER_ACTIONS", str(ACTIONS_DEFAULT))) // len(RUNS))


def url_step(page) -> int | None:
    values = parse_qs(urlsplit(page.url).query).get("step")
    return int(values[0]) if values else None


def line_step(line: str) -> int | None:
    """The step the line is about: "Merge 12 of ...", "Before any merge", "Round 3: ...", "Round 0"."""
    if "Before any merge" in line:
        return 0
    found = re.match(r"(?:Merge|Round) ([\d,]+)", line.strip())
    return int(found[1].replace(",", "")) if found else None


def check(page, watch: Watch, where: str) -> int:
    """What must hold at any instant; returns the step shown."""
    assert not watch.problems(), f"{where}: {watch.problems()[:5]}"
    assert page.locator(APP_SELECTOR).is_visible(), f"{where}: the app is not on the screen"
    player = page.locator(PLAYER_SELECTOR)
    player.wait_for(timeout=30_000)  # a reload draws it again
    step, line, _ = player_reading(page)
    assert step is not None and line.strip(), f"{where}: no step or no line in the player ({line!r})"
    assert url_step(page) == step, f"{where}: the URL says step={url_step(page)}, the player shows {step}"
    return step


def check_paused(page, watch: Watch, where: str) -> None:
    """After a pause, once the page is idle: the line is about the step shown, which stays."""
    wait_idle(page)
    step = check(page, watch, where)
    _, line, playing = player_reading(page)
    if playing:
        return  # Play was pressed last: nothing to hold still
    assert line_step(line) == step, f"{where}: the player shows step {step}, its line says {line[:80]!r}"
    page.wait_for_timeout(700)  # two ticks of the fast speeds: a paused player does not move
    assert player_reading(page)[0] == step, f"{where}: the paused step moved"


def act(page, elsewhere, rng: random.Random, action: str, watch: Watch) -> None:
    if action in ("play", "pause", "next", "back"):
        # A person's click, where the button is: on a disabled one (Pause once the run has played
        # to its end) it does nothing. No wait for "enabled", which may never come.
        page.get_by_role("button", name=action.capitalize(), exact=True).click(force=True)
    elif action == "slider key":
        page.locator(f"{PLAYER_SELECTOR} input[type=range]").focus()
        page.keyboard.press(rng.choice(SLIDER_KEYS))
    elif action == "speed":
        page.get_by_role("slider", name="Speed").focus()
        page.keyboard.press(rng.choice(SPEED_KEYS))
    elif action == "read":
        page.wait_for_timeout(rng.choice([300, 1000, 2000]))
    elif action == "reload":
        page.reload(wait_until="domcontentloaded")
        page.locator(PLAYER_SELECTOR).wait_for(timeout=60_000)
    elif action == "link in another browser":
        step = player_reading(page)[0]
        link = page.url
        other_watch = Watch()
        with elsewhere.open() as other, other_watch.attached(other):
            other.goto(link, wait_until="domcontentloaded")
            other.locator(PLAYER_SELECTOR).wait_for(timeout=60_000)
            wait_idle(other)
            shown = check(other, other_watch, "the link in another browser")
            assert shown == step, f"the link was copied at step {step}; it opens step {shown}"


@pytest.mark.parametrize("kind", list(RUNS))
def test_the_player_holds_under_random_actions(server, elsewhere, page, kind):
    rng = random.Random(f"{seed()}-{kind}")
    print(f"player actions seed: {seed()} ({kind}; replay with EXPLORER_PLAYER_SEED={seed()})")
    with Watch().attached(page) as watch:
        _play_the_actions(page, server, elsewhere, rng, kind, watch)
    screenshot(page, f"player-actions-{kind}")


def _play_the_actions(page, server, elsewhere, rng: random.Random, kind: str, watch: Watch) -> None:
    open_page(page, server, "/Merge_history", f"{RUNS[kind]}&step=0")
    expect(main(page).locator(PLAYER_SELECTOR)).to_be_visible()
    check(page, watch, f"{kind}: opened")
    names, weights = list(ACTIONS), list(ACTIONS.values())
    done: list[str] = []
    for index in range(actions_per_run()):
        action = rng.choices(names, weights)[0]
        done.append(action)
        where = f"{kind}, action {index} ({action}; seed {seed()}; last: {done[-6:]})"
        act(page, elsewhere, rng, action, watch)
        page.wait_for_timeout(rng.choice([0, 50, 150, 400]))
        check(page, watch, where)
        if action == "pause":
            check_paused(page, watch, where)
    for action in LAST:  # the rarest actions, a reload and a link, once in every run whatever was drawn
        where = f"{kind}, at the end: {action} (seed {seed()}; last: {done[-6:]})"
        act(page, elsewhere, rng, action, watch)
        check(page, watch, where)
    check_paused(page, watch, f"{kind}: at the end")
