"""The Training history page of a Unigram run through AppTest: the Merge history page retitled
for a Unigram run, and at every round r each panel shows round r's values, read back from the
run's trace (the round's sentence, the removed pieces, the figures' marks, the outlined changes,
the lattice); corpus text and the typed word stay literal.

The run is trained here (explorer.train.train_corpus) and put in the session as the current
run, which is quicker than the Train page (tests/app/test_unigram_pages.py trains one there).
Expectations come from the trace and from explorer.lessons.rounds's own definitions (tested in
tests/unit/test_unigram_history.py).
"""

from __future__ import annotations

import html
import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.drawing.token_html import escape_text
from explorer.drawing.wording import character_count
from explorer.lessons import lattice as lattice_view
from explorer.lessons import rounds as history
from explorer.run_config import RunConfig
from explorer.runs.run import Run, RunKey, corpus_digest, make_run
from explorer.runs.settings import Settings
from explorer.train import train_corpus
from explorer.training.unigram import UnigramConfig
from explorer.ui.common import encode_panel
from explorer.ui.common.state import CURRENT_RUN
from explorer.ui.common.state import Widget as W
from tests.app.helpers import APP, MERGES, html_bodies, player, player_act, plotly_specs, texts
from tests.reference.course_corpus import COURSE_CORPUS

CORPUS = "\n".join(COURSE_CORPUS)
HOSTILE = "<script>alert(1)</script> **bold** $x$ :red[x] <b>b</b>\n" * 3 + CORPUS


def unigram_run(text: str, **settings) -> Run:
    trace = train_corpus(text, RunConfig(UnigramConfig(**settings), (), "metaspace"))
    return make_run(
        trace,
        key=RunKey(corpus_digest(text), Settings()),
        corpus_label="test corpus",
        characters=len(text),
        perceived_characters=character_count(text),
    )


def page(run: Run) -> AppTest:
    """The Merge history page with `run` current, as a visitor opens it."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[CURRENT_RUN] = run
    at.switch_page(MERGES)
    at.run()
    assert not at.exception, at.exception
    return at


def go_to(at: AppTest, r: int) -> None:
    assert player_act(at, r)["step"] == r


def body_with(at: AppTest, css_class: str) -> str:
    found = [body for body in html_bodies(at) if f'class="{css_class}"' in body]
    assert len(found) == 1, f"{len(found)} elements of class {css_class}"
    return found[0]


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


@pytest.fixture(scope="module")
def course_page():
    run = unigram_run(CORPUS, flavor="course", vocab_size=60)
    return page(run), run.history


def test_the_page_is_the_training_history_of_a_unigram_run(course_page):
    at, trace = course_page
    assert [title.value for title in at.title] == ["Training history"]
    assert player(at)["steps"] == len(trace.rounds)
    assert player(at)["label"] == "Round (0: the seeds)"


def test_every_round_scrubbed_shows_that_round(course_page):
    at, trace = course_page
    for r in range(len(trace.rounds) + 1):
        go_to(at, r)
        # The round's sentence, with the course's loss after the last round.
        final = history.course_loss(trace, r) if r == len(trace.rounds) else None
        assert text_of(body_with(at, "round-summary")) == history.round_sentence(trace, r, final)
        # The removed pieces, in removal order, with their loss increases.
        if r:
            table = at.dataframe[0].value
            removals = trace.removed_at(r)
            assert list(table["piece"]) == [history.readable(trace, removal.piece) for removal in removals]
            assert list(table["loss increase"]) == [removal.value for removal in removals]
            assert history.cutoff_sentence(trace, r) in [text_of(body) for body in html_bodies(at)]
        else:
            assert not at.dataframe
        # The figures mark round r.
        sizes, losses = plotly_specs(at)
        assert sizes["data"][1]["x"] == [r] and sizes["data"][1]["y"] == [trace.sizes()[r]]
        assert losses["data"][1]["x"] == [r]
        # Every word after round r, what the round changed outlined.
        words = body_with(at, "top-words")
        expected = sum(len(history.word_pieces(trace, word, r)[1]) for word in trace.words)
        assert words.count("tok-new") == expected
        assert len(re.findall(r'class="word-card"', words)) == len(trace.words)
        # The lattice of the default word, its best path highlighted.
        word = "▁" + history.default_lattice_word(trace)
        lattice = trace.lattice(word, r)
        assert body_with(at, "lattice-wrap").count("lat-best") == len(lattice.best_path)
        assert lattice_view.best_path_sentence(trace, lattice) in [text_of(body) for body in html_bodies(at)]
        # The step-by-step panel encodes with the pieces alive after round r: its tokens are round r's.
        expected_tokens = [
            token for word in encode_panel.DEFAULT_TEXT.split() for token in trace.segment("▁" + word, r)
        ]
        table = body_with(at, "viterbi-word")
        assert all(escape_text(token) in table for token in expected_tokens)


def test_the_round_buttons_step_one_round(course_page):
    at, trace = course_page
    go_to(at, 2)
    player_act(at, 3)  # Next
    assert player(at)["step"] == 3
    assert text_of(body_with(at, "round-summary")).startswith("Round 3:")
    player_act(at, 2)  # Back
    assert text_of(body_with(at, "round-summary")).startswith("Round 2:")


def test_a_library_run_shows_each_rounds_reasons_and_em_losses():
    text = "\n".join(f"{line} {line[::-1]} {index}" for index, line in enumerate(COURSE_CORPUS * 8))
    run = unigram_run(text, vocab_size=60)
    trace = run.history
    at = page(run)
    for r in range(1, len(trace.rounds) + 1):
        go_to(at, r)
        removals = trace.removed_at(r)
        if removals:
            table = at.dataframe[0].value
            assert list(table["why"]) == [row.why for row in history.removed_rows(trace, r)]
        if trace.rounds[r - 1].losses:  # the final assembly runs no EM
            assert plotly_specs(at)[1]["data"][1]["y"] == trace.rounds[r - 1].losses
    assert [row.kind for row in trace.rounds][-1] == "final"


def test_corpus_text_and_the_typed_word_stay_literal():
    run = unigram_run(HOSTILE, vocab_size=60)
    at = page(run)
    at.text_input(key=W.LATTICE_WORD).set_value("<img src=x onerror=alert(1)> **x**").run()
    assert not at.exception, at.exception
    for r in range(len(run.history.rounds) + 1):
        go_to(at, r)
        for body in html_bodies(at):
            assert "<script" not in body and "<img" not in body and "<b>b" not in body
    lattice = body_with(at, "lattice-wrap")
    characters = re.search(r"<tr>(.*?)</tr>", lattice).group(1)  # the word's characters, one cell each
    assert text_of(characters) == "▁<img" and escape_text("<") in characters
    assert "The lattice is that of one pre-token: the first of 4, ▁<img." in texts(at, "caption")
