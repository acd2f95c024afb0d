"""The Training history of a Unigram run in a real browser (Debian's Chromium through Playwright,
`streamlit run app.py`), driven as a learner of the course would: the course's Unigram on the
course's sample, played at the fastest round speed to the last round (it stops cleanly, the round
slider and the round sentence agree), scrubbed back to round 2, reloaded and opened in a fresh
browser context (the same round); a CJK word and a line of code typed in the lattice's word box and
in the Viterbi table's text box (a sentence or a drawn lattice, never a traceback). A library-flavor
run on a small pasted corpus opens Training history, Vocabulary (a score column) and Compare (a
Unigram column with tokens). Screenshots under artifacts/screenshots/training-history-*.png.
"""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import (
    assert_no_errors,
    error_texts,
    main,
    open_page,
    open_select,
    player_reading,
    screenshot,
    sidebar,
    title_of,
    wait_idle,
)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect

ROUND_INPUT = 'input[type="range"][aria-label="Round (0: the seeds)"]'
FASTEST = "0.5 s per round"
HEADINGS = re.compile(
    r"^(The pieces round \d+ removed|Round 0: nothing removed|Every corpus word after round|"
    r"The most frequent corpus words after round|Sample sentences after round|"
    r"The lattice of one word after round|How a text is tokenized after round)"
)
CJK_WORD = "東京"
CODE = "def f(x): return x"
# A small corpus of plain English (the library flavor needs a few repeated substrings to prune).
SMALL_CORPUS = "\n".join(
    [
        "the cat sat on the mat and the dog sat on the log",
        "a cat and a dog are friends in the garden of the house",
        "the house has a garden and the garden has a tree",
        "cats and dogs sleep in the sun near the tree in the garden",
    ]
    * 3
)


def choose(page, group: str, option: str | re.Pattern) -> None:
    """Click the option of a horizontal radio group by its label, as a learner would."""
    main(page).get_by_role("radiogroup", name=group).get_by_text(option, exact=True).click()
    wait_idle(page)


def set_vocabulary(page, size: int) -> None:
    number = page.get_by_role("spinbutton", name="Exact vocabulary size")
    number.fill(str(size))
    number.press("Enter")
    wait_idle(page)


def train_unigram(page) -> None:
    """Click Train and wait for the Unigram run's summary (its first metric is "Rounds")."""
    page.get_by_role("button", name="Train", exact=True).click()
    main(page).get_by_text("Watch the pieces being pruned").wait_for(timeout=120_000)
    wait_idle(page)


def round_of(page) -> int:
    return int(page.locator(ROUND_INPUT).input_value())


def rounds_in(page) -> int:
    return int(page.locator(ROUND_INPUT).get_attribute("max"))


def round_sentence(page) -> str:
    return main(page).locator(".round-summary").inner_text()


def sentence_round(page) -> int:
    """The round the round sentence talks about ("Round 3: 262 → 236 pieces; ...")."""
    found = re.match(r"Round (\d+):", round_sentence(page))
    assert found, round_sentence(page)
    return int(found[1])


def shown_round_while_playing(page) -> tuple[int | None, int | None]:
    """(the round bar's round, the round sentence's round), read at one instant while playing."""
    bar, line, playing = player_reading(page)
    found = re.match(r"Round (\d+):", line)
    if not playing:
        return None, None
    return bar, (int(found[1]) if found else None)


def panel_headings(page) -> list[str]:
    """Every heading that names its round, which must all follow the player."""
    texts = main(page).get_by_text(HEADINGS).all_inner_texts()
    return [text.split("\n")[0] for text in texts]


def assert_everything_at(page, r: int, where: str) -> None:
    """The player shows round r at once (its clock is in the browser); the panels follow once the
    server has drawn that round: waited for (the sentence about round r), then read."""
    assert round_of(page) == r, where
    expect(main(page).locator(".round-summary")).to_contain_text(f"Round {r}:", timeout=60_000)
    wait_idle(page)
    assert sentence_round(page) == r, where
    headings = panel_headings(page)
    assert headings, where
    for heading in headings:
        found = re.search(r"[Rr]ound (\d+)", heading)
        assert found and int(found[1]) == r, f"{where}: {heading!r} is not about round {r}"
    assert_no_errors(page, where)


def open_training_history(page) -> None:
    sidebar(page).get_by_role("link", name="Training history").click()  # named as the page is
    main(page).locator(".round-summary").wait_for(timeout=60_000)
    wait_idle(page)
    assert title_of(page) == "Training history"


def set_fastest_speed(page) -> str:
    speed = page.get_by_role("slider", name="Speed")
    speed.focus()
    page.keyboard.press("End")
    wait_idle(page)
    return speed.get_attribute("aria-valuetext")


def type_into(page, label: str, text: str) -> None:
    box = main(page).get_by_role("textbox", name=label, exact=True)
    box.fill(text)
    box.press("Enter")
    wait_idle(page)


def lattice_says(page) -> str:
    """The lattice panel's text: from its heading to the Viterbi panel's heading."""
    text = main(page).inner_text()
    start = text.index("The lattice of one word after round")
    return text[start : text.index("How a text is tokenized after round", start)]


def assert_viterbi_answers(page, text: str) -> None:
    """The Viterbi panel draws a table per pre-token, or (a round's model with no unknown piece,
    as the course's between rounds) says in one sentence which character it cannot encode; never
    an exception."""
    assert page.locator('[data-testid="stException"]').count() == 0, f"exception for {text!r}"
    assert "Traceback" not in main(page).inner_text()
    errors = error_texts(page)
    if errors:
        assert len(errors) == 1 and "is not in the vocabulary and the model has no unk piece" in errors[0], (
            errors
        )
        assert any(f"'{char}'" in errors[0] for char in text), errors
    else:
        assert main(page).locator(".viterbi-table").count() >= 1, f"no Viterbi table for {text!r}"


def test_the_course_unigram_played_scrubbed_reloaded_and_shared(server, elsewhere, page):
    open_page(page, server, "/")
    open_select(page, "Sample corpus")
    page.get_by_role("option", name=re.compile(r"^Hugging Face course")).click()
    wait_idle(page)
    choose(page, "Algorithm", "Unigram")
    choose(page, "Flavor", "Hugging Face course")
    set_vocabulary(page, 100)
    train_unigram(page)
    assert_no_errors(page, "Train after the Unigram run")
    screenshot(page, "training-history-train-summary")

    open_training_history(page)
    assert_everything_at(page, 0, "Training history at round 0")
    rounds = rounds_in(page)
    assert rounds >= 3
    screenshot(page, "training-history-round-0")

    assert set_fastest_speed(page) == FASTEST
    play = page.get_by_role("button", name="Play", exact=True)
    pause = page.get_by_role("button", name="Pause", exact=True)
    play.click()
    expect(pause).to_be_enabled()  # playing (Play stays enabled until the server answers the click)
    mismatches, samples = 0, 0
    for _ in range(20 * (rounds + 10)):  # 0.5 s per round, sampled every 100 ms
        page.wait_for_timeout(100)
        bar, line = shown_round_while_playing(page)
        if bar is not None and line is not None:
            samples += 1
            mismatches += bar != line
        if play.is_enabled():
            break
    expect(play).to_be_enabled(timeout=30_000)
    expect(pause).to_be_disabled()
    wait_idle(page)
    # How many readings fit in the playing depends on the machine's load; one is enough to compare.
    assert samples > 0, f"no reading of the round bar while playing {rounds} rounds"
    assert mismatches == 0, f"the round bar and the round sentence disagreed {mismatches} times in {samples}"
    assert_everything_at(page, rounds, "Training history after playing to the end")
    assert f"Round {rounds}:" in round_sentence(page)
    assert f"step={rounds}" in page.url
    screenshot(page, "training-history-last-round")

    slider = page.locator(ROUND_INPUT)
    slider.focus()
    page.keyboard.press("Home")
    wait_idle(page)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
        wait_idle(page)
    assert round_of(page) == 3
    page.get_by_role("button", name="Back", exact=True).click()
    wait_idle(page)
    assert_everything_at(page, 2, "Training history scrubbed to round 2")
    assert "step=2" in page.url
    here = {"sentence": round_sentence(page), "headings": panel_headings(page)}
    run = re.search(r"run=([^&]+)", page.url)
    assert run, page.url
    screenshot(page, "training-history-round-2")

    page.reload(wait_until="domcontentloaded")
    main(page).locator(".round-summary").wait_for(timeout=60_000)
    wait_idle(page)
    assert_everything_at(page, 2, "Training history reloaded")
    assert f"run={run[1]}" in page.url
    assert {"sentence": round_sentence(page), "headings": panel_headings(page)} == here

    with elsewhere.open() as other:
        open_page(other, server, "/Merge_history", page.url.split("?", 1)[1])
        assert title_of(other) == "Training history"
        assert_everything_at(other, 2, "the link in another browser")
        assert {"sentence": round_sentence(other), "headings": panel_headings(other)} == here
        screenshot(other, "training-history-link-round-2")

    for name, text in (("cjk", CJK_WORD), ("code", CODE)):
        type_into(page, "Word", text)
        assert page.locator('[data-testid="stException"]').count() == 0, f"exception for {text!r}"
        said = lattice_says(page)
        drawn = main(page).locator(".lattice-wrap")
        if name == "code":  # several pre-tokens: the first one's lattice, and a note saying so
            assert "The lattice is that of one pre-token" in said and "Best path:" in said, said
        elif drawn.count():  # a model with an unknown piece: the characters marked unknown
            assert drawn.locator(".lat-unk").count() > 0, said
        else:  # the course's model between rounds has none: one sentence says why
            missing = " or ".join(CJK_WORD)  # each character without a piece, named: "東 or 京"
            assert f"no piece for {missing}" in said and "cannot be segmented" in said, said
        type_into(page, "A word or a sentence to encode", text)
        assert_viterbi_answers(page, text)
        screenshot(page, f"training-history-typed-{name}")


def test_a_library_unigram_opens_every_page(server, page):
    open_page(page, server, "/")
    open_select(page, "Sample corpus")
    page.get_by_role("option", name=re.compile("^none")).click()
    wait_idle(page)
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    area.fill(SMALL_CORPUS)
    area.press("Control+Enter")
    wait_idle(page)
    choose(page, "Algorithm", "Unigram")
    choose(page, "Flavor", re.compile(r"^tokenizers library$"))  # "`tokenizers`" drawn as code
    set_vocabulary(page, 60)
    train_unigram(page)
    assert_no_errors(page, "Train after the library Unigram run")

    open_training_history(page)
    assert_everything_at(page, 0, "Training history of the library run")
    page.locator(ROUND_INPUT).focus()
    page.keyboard.press("End")
    wait_idle(page)
    assert_everything_at(page, rounds_in(page), "the library run's last round")
    screenshot(page, "training-history-library-last-round")

    sidebar(page).get_by_role("link", name="Vocabulary").click()
    main(page).locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
    wait_idle(page)
    assert title_of(page) == "Vocabulary"
    assert_no_errors(page, "Vocabulary of the library Unigram run")
    # The table is drawn on a canvas: its columns are read from the "Sort by" choices, and the
    # table sorted by score (the highest first) as a learner would.
    page.get_by_role("combobox", name="Sort by").click()
    page.get_by_role("option", name="score", exact=True).click()
    wait_idle(page)
    page.get_by_text("Descending", exact=True).click()
    wait_idle(page)
    assert_no_errors(page, "Vocabulary sorted by score")
    screenshot(page, "training-history-library-vocabulary")

    sidebar(page).get_by_role("link", name="Compare").click()
    main(page).get_by_text("Figures", exact=True).wait_for(timeout=60_000)
    wait_idle(page)
    assert title_of(page) == "Compare"
    assert_no_errors(page, "Compare with the library Unigram run")
    column = main(page).locator('.compare-column[data-tokenizer*="Unigram"]').first
    assert column.locator(".tok").count() > 5, column.inner_text()
    screenshot(page, "training-history-library-compare")
