"""Compare's live text box through AppTest: text typed into the box (its state, as the browser sets
it) reaches every column, the counts, the figures and the page's link; a column that cannot encode
the text says so in its place while the others follow. The box itself in a browser (keystrokes,
throttling, the caret) is tested in tests/browser/."""

from __future__ import annotations

import json
import re
import threading
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import replace

import pytest

from explorer.compare.columns import sentences_from
from explorer.drawing.token_html import escape_text
from explorer.pretrained import encode
from explorer.session import compare_params
from explorer.train import tokenizer_from_trace
from explorer.ui.common.html_view import html_parts_view
from explorer.ui.compare import live_columns
from explorer.ui.compare import sections as compare
from tests.app.helpers import (
    COMPARE,
    column_errors,
    column_token_counts,
    compare_column_bodies,
    compare_text,
    component_data,
    joined,
    new_app,
    open_compare,
    query,
    run_of,
    sentence_figures,
    train,
    type_compare_text,
)

GPT = {"GPT-2": "gpt2", "GPT-4 (cl100k_base)": "cl100k_base", "GPT-4o (o200k_base)": "o200k_base"}
NEW_TEXT = "Tokenizers cut text into pieces.\n\nZweite Zeile: 42 Äpfel & <b>Birnen</b>"
BOOM = "boom"


@pytest.fixture
def compare_page():
    at = train(new_app())
    open_compare(at)
    assert not at.exception, at.exception
    return at


def sentence_ids(body: str) -> list[list[int]]:
    """The ids of a column's tokens, sentence by sentence (from the span titles)."""
    return [
        [int(i) for i in re.findall(r'title="id (\d+)&#58;', sentence)]
        for sentence in body.split('class="compare-sentence"')[1:]
    ]


def expected_ids(at, sentences: list[str]) -> dict[str, list[list[int]]]:
    """Each default column's ids for the sentences, from the tokenizers themselves."""
    run = run_of(at)
    ours = tokenizer_from_trace(run.history)
    expected = {
        escape_text(name): [[p.id for p in encode(key, s)] for s in sentences] for name, key in GPT.items()
    }
    expected[escape_text(run.name)] = [ours.encode(s, add_special_tokens=False).ids for s in sentences]
    return expected


def counts(at) -> list[dict]:
    (data,) = component_data(at, "explorer_token_counts")
    return data["rows"]


def assert_page_shows(at, text: str) -> None:
    """Every column, its count, the counts table, the figures and the link are those of `text`."""
    sentences = sentences_from(text)
    expected = expected_ids(at, sentences)
    columns = compare_column_bodies(at)
    assert set(columns) == set(expected)
    for name, body in columns.items():
        assert f'data-characters="{sum(map(len, sentences))}"' in body, name
        assert sentence_ids(body) == expected[name], name
    totals = [sum(map(len, ids)) for ids in expected.values()]
    assert sorted(column_token_counts(at)) == sorted(totals)
    rows = {escape_text(row["name"]): row for row in counts(at)}
    assert set(rows) == set(expected)
    for name, ids in expected.items():
        assert json.loads(rows[name]["ids"]) == (ids[0] if len(ids) == 1 else ids), name
        assert rows[name]["tokens"] == f"{sum(map(len, ids)):,}", name
    figures = sentence_figures(at)  # the figures on the sentences follow too
    assert figures["GPT-2"]["tokens"] == sum(map(len, expected["GPT-2"]))
    assert {escape_text(name) for name in figures} == set(expected)
    assert compare_text(at) == text


def test_typed_text_reaches_every_column_the_counts_the_figures_and_the_link(compare_page):
    at = compare_page
    assert compare_text(at) == compare_params.DEFAULT_TEXT and "text" not in query(at)
    before = compare_column_bodies(at)
    assert_page_shows(at, compare_params.DEFAULT_TEXT)

    type_compare_text(at, NEW_TEXT)
    assert_page_shows(at, NEW_TEXT)
    assert all(before[name] != body for name, body in compare_column_bodies(at).items())
    assert query(at)["text"] == NEW_TEXT
    bodies = " ".join(compare_column_bodies(at).values())
    assert "&lt;" in bodies and "<b>Birnen" not in bodies  # escaped like any text

    type_compare_text(at, "one more line, typed on")  # each change, not only the first
    assert_page_shows(at, "one more line, typed on")
    assert query(at)["text"] == "one more line, typed on"

    type_compare_text(at, compare_params.DEFAULT_TEXT)  # back to the sample: the link drops it
    assert_page_shows(at, compare_params.DEFAULT_TEXT)
    assert "text" not in query(at)


def test_an_empty_box_asks_for_a_sentence_and_the_link_keeps_it_empty(compare_page):
    at = type_compare_text(compare_page, "  \n")
    assert not compare_column_bodies(at) and not component_data(at, "explorer_token_counts")
    assert "Type a sentence above." in joined(at, "info")
    assert query(at)["text"] == "  \n"
    elsewhere = new_app(query(at), COMPARE)
    assert compare_text(elsewhere) == "  \n" and not compare_column_bodies(elsewhere)


def failing_on(word: str, key: str, held: threading.Event | None = None):
    """`sections.with_memo` with column `key` failing on any text that holds `word`, as an uploaded
    pipeline may fail on some text; with `held`, encoding it instead, once `held` is set."""
    memo = compare.with_memo

    def with_memo(columns):
        def failing(encode):
            def encode_or_fail(text: str):
                if word in text:
                    if held is not None:
                        assert held.wait(timeout=120), "the test never let the slow column go"
                        return encode(text)
                    raise ValueError(f"no way to encode {word!r}")
                return encode(text)

            return encode_or_fail

        return [
            replace(column, encode=failing(column.encode)) if column.key == key else column
            for column in memo(columns)
        ]

    return with_memo


def test_a_slow_column_says_it_is_still_encoding_while_the_others_are_drawn(compare_page, monkeypatch):
    # Events, not intervals: GPT-2 encodes once the first drawing is made, and the page's first
    # wait ends when every other column is encoded (however loaded the machine).
    held = threading.Event()
    monkeypatch.setattr(compare, "with_memo", failing_on(BOOM, "pretrained:gpt2", held))

    def all_but_one(futures, timeout):
        pending = set(futures)
        while len(pending) > 1:
            _, pending = wait(pending, timeout=120, return_when=FIRST_COMPLETED)
        return set(futures) - pending, pending

    monkeypatch.setattr(live_columns, "wait", all_but_one)
    drawn: list[str] = []

    def recording_view(parts: list[tuple[str, str]], class_name: str, key: str) -> None:
        drawn.append("".join(html for _, html in parts))
        html_parts_view(parts, class_name, key)
        held.set()

    monkeypatch.setattr(live_columns, "html_parts_view", recording_view)
    text = f"a {BOOM} here"
    at = compare_page
    type_compare_text(at, text)
    first = drawn[0]
    cells = first.split('<div class="live-column">')[1:]
    waiting = [cell for cell in cells if "Still encoding …" in cell]
    assert len(waiting) == 1 and "<b>GPT-2</b>" in waiting[0] and 'class="compare-column"' not in waiting[0]
    assert sum('class="compare-column"' in cell for cell in cells) == 3  # the others did not wait
    assert_page_shows(at, text)  # and then GPT-2 too, and the counts
    assert "Still encoding" not in drawn[-1] and not at.error


def test_a_column_that_cannot_encode_the_typed_text_says_so_and_the_others_follow(compare_page, monkeypatch):
    monkeypatch.setattr(compare, "with_memo", failing_on(BOOM, "pretrained:gpt2"))
    at = compare_page
    at.run()
    assert not at.error and len(compare_column_bodies(at)) == 4  # it encodes the sample

    text = f"a {BOOM} here\nand a line without it"
    type_compare_text(at, text)
    assert column_errors(at) == [f"This tokenizer cannot encode this text: no way to encode '{BOOM}'"]
    columns = compare_column_bodies(at)
    assert "GPT-2" not in columns and len(columns) == 3
    expected = expected_ids(at, sentences_from(text))
    assert all(sentence_ids(body) == expected[name] for name, body in columns.items())
    rows = {row["name"]: row for row in counts(at)}
    assert rows["GPT-2"]["tokens"] == "cannot encode"
    assert rows["GPT-2"]["ids"] == rows["GPT-2"]["token_strings"] == rows["GPT-2"]["difference"] == ""
    assert all(row["ids"] for name, row in rows.items() if name != "GPT-2")
    assert "Cannot compare on" in joined(at, "error")  # the boundary diff's second row is GPT-2
    assert query(at)["text"] == text

    type_compare_text(at, "and then without it")  # the column comes back
    assert not at.error and len(compare_column_bodies(at)) == 4
    assert_page_shows(at, "and then without it")
