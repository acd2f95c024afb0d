"""The link is the truth, walked at random: from a seeded list of actions (paste a corpus, pick a
sample, switch the algorithm, change the vocabulary size, train, step, add or remove a Compare
column, type a sentence, toggle special tokens, decode ids), after every action the current URL is
opened in another browser (a tab of a second context: a new session, nothing shared; see
tests/browser/conftest.py) and both pages must show the same thing: the title, the run card, the
Train form and summary, the step and its merge line, the Compare columns with their token counts,
sentences, switch and decoded text.

Each walk is a test of its own (pytest-xdist spreads them over its workers), ACTIONS actions long.
The walk explores: its seeds are new for every commit and printed in pytest's header
(tests/helpers/walk_seeds.py: EXPLORER_LINK_WALKS=N for a longer exploration by hand,
EXPLORER_LINK_WALK_SEED=S to replay one walk). Every disagreement of a walk is collected; its test
fails listing them with the seed and the actions that led there.
"""

from __future__ import annotations

import random
import re

import pytest

from tests.browser.helpers import (
    APP_SELECTOR,
    PAGE_PATHS,
    STEP_INPUT,
    assert_no_errors,
    main,
    open_page,
    open_select,
    screenshot,
    sidebar,
    title_of,
    wait_idle,
)
from tests.helpers.walk_seeds import walk_seeds

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ACTIONS = 8

CORPORA = [  # small and few, so that most trainings are reused from the store
    "low lower lowest newer newest wider widest\n" * 3 + "the cat sat on the mat\n",
    "tokenizers learn merges; merges make tokens\nzürich café naïve 東京 🙂\n" * 2,
    "def f(x):\n    return x + 1\n\nprint(f(41))\n" * 2,
]
SAMPLES = ["^Hugging Face course", "^German demo"]
COLUMNS = {"Llama 3": "Meta · Llama 3 ·", "Qwen": " · Qwen 3.5 / 3.6 ·", "GPT-2": "OpenAI · GPT-2 ·"}
SENTENCES = ["Hello <|endoftext|> world", "zürich 東京 🙂 naïve", "for i in range(10): print(i)"]
IDS = ["15496, 995", "[31373, 11, 995]", "12520"]


# ---------------------------------------------------------------- what a person sees


def _texts(locator) -> list[str]:
    return [text.strip() for text in locator.all_inner_texts()]


def _value(locator) -> str | None:
    """A text box's value, or None when the page does not show it (a page stopped early)."""
    return locator.input_value() if locator.count() else None


def view_of(page) -> dict:
    """What the page shows, as plain values (see the module docstring)."""
    title = title_of(page)
    cards = sidebar(page).locator(".run-card")
    view: dict = {"title": title, "run card": _texts(cards)}
    body = main(page)
    if title == "Train":
        view["algorithm"] = (
            body.get_by_role("radiogroup", name="Algorithm")
            .locator("input:checked")
            .evaluate_all("nodes => nodes.map(n => n.closest('label').innerText)")
        )
        view["vocabulary size"] = _value(page.get_by_role("spinbutton", name="Exact vocabulary size"))
        view["sample"] = body.locator('[data-testid="stSelectbox"]').first.inner_text().strip()
        # A pasted corpus not trained yet is in no link (links never hold a corpus): the text is
        # compared when the URL names a run (the store keeps its corpus) or a sample.
        if re.search(r"[?&](run|sample)=", page.url):
            view["corpus"] = _value(page.get_by_role("textbox", name="Corpus", exact=True))
        view["summary"] = _texts(body.locator('[data-testid="stMetricValue"]'))
    elif title in ("Merge history", "Training history"):
        step = page.locator(STEP_INPUT)
        view["step"] = step.input_value() if step.count() else None
        view["merge line"] = _texts(body.locator(".merge-summary"))
    elif title == "Compare":
        view["columns"] = body.locator(".compare-column").evaluate_all(
            "nodes => nodes.map(n => n.dataset.tokenizer)"
        )
        view["token counts"] = _texts(body.locator(".column-count b"))
        view["sentences"] = _value(page.get_by_role("textbox", name="Text to compare", exact=True))
        switch = page.get_by_role("switch", name="Treat special-token text as special tokens")
        view["special tokens"] = switch.is_checked() if switch.count() else None
        view["ids"] = _value(page.get_by_role("textbox", name="Token ids", exact=True))
        view["messages"] = _texts(body.locator('[data-testid="stAlert"]'))
        view["decoded"] = _texts(body.locator(".decoded"))
    return view


def settled_view(page, tries: int = 40) -> dict:
    """The view once the page has finished drawing: the sidebar's last widget is there (every page
    ends with it), the app is idle, and two readings 300 ms apart agree (a page may rerun once
    more when a worker's measurement arrives)."""
    sidebar(page).get_by_text("Show token ids", exact=True).wait_for(timeout=60_000)
    state = page.locator(APP_SELECTOR)
    view = None
    for _ in range(tries):
        if state.get_attribute("data-test-script-state") == "notRunning":
            again = view_of(page)
            if again == view:
                return view
            view = again
        page.wait_for_timeout(300)
    return view_of(page)


# ---------------------------------------------------------------- the actions


def go(page, title: str) -> None:
    if title_of(page) != title:
        sidebar(page).get_by_role("link", name=title).click()
        wait_idle(page)
        page.locator('[data-testid="stMainBlockContainer"] h1').first.wait_for()
        wait_idle(page)


def history_title(page) -> str:
    """The history page's name, as the sidebar's link gives it: it follows the run's kind."""
    sidebar(page).get_by_role("link", name=re.compile("(Merge|Training) history")).wait_for()
    return next(
        title
        for title in ("Merge history", "Training history")
        if sidebar(page).get_by_role("link", name=title).count()
    )


def has_run(page) -> bool:
    return sidebar(page).locator(".run-card").count() > 0


def paste_corpus(page, rng) -> str:
    go(page, "Train")
    open_select(page, "Sample corpus")
    page.get_by_role("option", name=re.compile("^none")).click()
    wait_idle(page)
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    text = rng.choice(CORPORA)
    area.fill(text)
    area.press("Control+Enter")
    wait_idle(page)
    return "paste corpus"


def pick_sample(page, rng) -> str:
    go(page, "Train")
    name = rng.choice(SAMPLES)
    open_select(page, "Sample corpus")
    page.get_by_role("option", name=re.compile(name)).click()
    wait_idle(page)
    return f"sample {name[1:]}"


def switch_algorithm(page, rng) -> str:
    go(page, "Train")
    name = rng.choice(["BPE", "WordPiece"])
    main(page).get_by_role("radiogroup", name="Algorithm").get_by_text(name, exact=True).click()
    wait_idle(page)
    return f"algorithm {name}"


def change_vocab_size(page, rng) -> str:
    go(page, "Train")
    size = rng.choice([40, 60, 90, 120])
    number = page.get_by_role("spinbutton", name="Exact vocabulary size")
    number.fill(str(size))
    number.press("Enter")
    wait_idle(page)
    return f"vocabulary {size}"


def train(page, rng) -> str:
    go(page, "Train")
    button = page.get_by_role("button", name="Train", exact=True)
    if button.is_enabled():
        button.click()
        wait_idle(page, timeout=120)
    return "train"


def step(page, rng) -> str:
    if not has_run(page):
        return train(page, rng)
    go(page, history_title(page))
    forward = page.get_by_role("button", name="Next", exact=True)
    for _ in range(rng.randint(1, 3)):
        if forward.count() and forward.is_enabled():
            forward.click()
            wait_idle(page)
    return "step"


def close_picker(page) -> None:
    """Close the picker's list (while it is open the rest of the page is hidden from roles)."""
    page.keyboard.press("Escape")
    page.locator('[data-testid="stMainBlockContainer"] h1').first.click()
    wait_idle(page)


def compare_column(page, rng) -> str:
    if not has_run(page):
        return train(page, rng)
    go(page, "Compare")
    picker = main(page).locator('[data-testid="stMultiSelect"]').first
    box = picker.locator("input")
    box.click()
    if rng.random() < 0.4:
        box.press("Backspace")
        wait_idle(page)
        close_picker(page)
        return "remove a column"
    typed, option = rng.choice(list(COLUMNS.items()))
    box.fill(typed)
    found = page.get_by_role("option").filter(has_text=option)
    if found.count():
        found.first.click()
        wait_idle(page)
    close_picker(page)
    return f"add column {typed}"


def type_sentence(page, rng) -> str:
    if not has_run(page):
        return train(page, rng)
    go(page, "Compare")
    box = page.get_by_role("textbox", name="Text to compare", exact=True)  # the live box
    box.fill(rng.choice(SENTENCES))
    box.press("Tab")  # leaving the box: the whole page (and so the link) follows the text
    wait_idle(page)
    return "type a sentence"


def toggle_special(page, rng) -> str:
    if not has_run(page):
        return train(page, rng)
    go(page, "Compare")
    main(page).get_by_text("Treat special-token text as special tokens", exact=True).click()
    wait_idle(page)
    return "toggle special tokens"


def decode_ids(page, rng) -> str:
    if not has_run(page):
        return train(page, rng)
    go(page, "Compare")
    area = page.get_by_role("textbox", name="Token ids", exact=True)
    area.fill(rng.choice(IDS))
    area.press("Control+Enter")
    wait_idle(page)
    return "decode ids"


ACTION_LIST = [
    paste_corpus,
    pick_sample,
    switch_algorithm,
    change_vocab_size,
    train,
    step,
    compare_column,
    type_sentence,
    toggle_special,
    decode_ids,
]


# ---------------------------------------------------------------- the walk


def path_of(page) -> str:
    title = title_of(page)
    return PAGE_PATHS["Merge history" if title == "Training history" else title]


@pytest.mark.parametrize("seed", walk_seeds(), ids=lambda seed: f"seed={seed}")
def test_every_link_shows_what_its_page_shows(server, page, elsewhere, seed):
    disagreements: list[str] = []
    checked = 0
    rng = random.Random(seed)
    done: list[str] = []
    open_page(page, server, "/")
    for _ in range(ACTIONS):
        action = rng.choice(ACTION_LIST)
        try:
            done.append(action(page, rng))
        except Exception as error:  # the walk's steps so far, then the error itself (its cause)
            screenshot(page, f"link-walk-{seed}-{len(done)}-failed-{action.__name__}")
            raise AssertionError(f"walk {seed}: {action.__name__} failed after {done}") from error
        assert_no_errors(page, f"walk {seed} after {done}")
        seen = settled_view(page)
        query = page.url.split("?", 1)[1] if "?" in page.url else ""
        with elsewhere.open() as other:  # another browser (tests/browser/conftest.py): a session of its own
            try:
                open_page(other, server, path_of(page), query)
                if seen.get("step") is not None:
                    other.locator(STEP_INPUT).wait_for(timeout=60_000)
                there = settled_view(other)
            except Exception as error:
                screenshot(other, f"link-walk-{seed}-{len(done)}-failed-link")
                raise AssertionError(
                    f"walk {seed}: the link {path_of(page)}?{query} did not open after {done}: {error}"
                ) from None
        checked += 1
        if there != seen:
            differing = {k: (seen[k], there.get(k)) for k in seen if seen[k] != there.get(k)}
            disagreements.append(f"walk {seed} after {done}: {differing}")
            screenshot(page, f"link-walk-{seed}-{len(done)}-page")
    assert checked == ACTIONS
    assert not disagreements, "\n".join(disagreements)
