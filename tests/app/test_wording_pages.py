"""Every page's sentences with counts 0, 1 and 2 (issue 32, item 7): a run of 0, 1 and 2 merges (BPE;
WordPiece's of 1) and Unigram runs that prune and that prune nothing trained from the Train page, then each
page drawn, and everything it says read back (titles, Markdown, captions, messages, metrics,
section labels, buttons, the player's line and every piece of HTML): no "1 merges", "1 tokens",
"after 1 merges", no "by at most 0" or "Cut-off: 0"."""

from __future__ import annotations

import html
import re

import pytest

from explorer.ui.common.state import Widget as W
from tests.app.helpers import (
    COMPARE,
    MERGES,
    TRAIN,
    VOCABULARY,
    html_bodies,
    new_app,
    open_compare,
    open_sections,
    train,
)
from tests.unit.test_wording import ONE_WITH_A_PLURAL

BARE_ZERO = re.compile(r"by at most 0\b|Cut-off: 0\b")
# Tags that end a line of text (the rest are inside a sentence: "<b>1</b> merges" is one).
BLOCK_TAG = re.compile(r"</?(?:div|p|br|tr|td|th|li|ul|ol|table|thead|tbody|figure|figcaption|h\d)\b[^>]*>")
INLINE_TAG = re.compile(r"<[^>]+>")
CORPORA = {0: "a a", 1: "ab ab", 2: "abc abc"}  # a corpus whose runs learn 0, 1 and 2 merges


def page_text(at) -> str:
    """Everything the page says, as text."""
    parts: list[str] = []
    for kind in (
        "title",
        "header",
        "subheader",
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "success",
    ):
        parts += [str(element.value) for element in at.get(kind)]
    parts += [f"{metric.label}: {metric.value}" for metric in at.metric]
    parts += [element.label for element in at.expander]
    parts += [element.label for element in at.button]
    parts += [html.unescape(INLINE_TAG.sub("", BLOCK_TAG.sub("\n", body))) for body in html_bodies(at)]
    return "\n".join(re.sub(r"[ \t]+", " ", part) for part in parts)


def assert_counts_read_right(at, where: str) -> None:
    assert not at.exception, at.exception
    text = page_text(at)
    for pattern in (ONE_WITH_A_PLURAL, BARE_ZERO):
        found = pattern.search(text)
        assert found is None, f"{where}: {text[max(0, found.start() - 80) : found.end() + 40]!r}"


@pytest.mark.parametrize(
    ("algorithm", "merges"), [("bpe", 0), ("bpe", 1), ("bpe", 2), ("wordpiece", 1)]
)  # WordPiece's sentences are BPE's but for its scores: its run of 1 merge is the one that differs
def test_every_page_counts_a_runs_merges_right(algorithm, merges):
    at = new_app()
    at.text_area(key=W.CORPUS).set_value(CORPORA[merges]).run()
    at.radio(key=W.ALGORITHM).set_value(algorithm).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(100).run()  # more than these corpora can learn
    train(at)
    assert_counts_read_right(at, f"Train, {algorithm}, {merges} merges")
    for page in (MERGES, VOCABULARY, COMPARE, TRAIN):
        at.switch_page(page).run()
        if page == MERGES:
            open_sections(at)
        assert_counts_read_right(at, f"{page}, {algorithm}, {merges} merges")


@pytest.mark.parametrize("vocab_size", [3, 100])
def test_every_page_counts_a_unigram_runs_rounds_right(vocab_size):
    at = new_app()
    at.text_area(key=W.CORPUS).set_value("abc abc ab b").run()
    at.radio(key=W.ALGORITHM).set_value("unigram").run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(vocab_size).run()
    train(at)
    assert_counts_read_right(at, f"Train, unigram {vocab_size}")
    for page in (MERGES, VOCABULARY, COMPARE):
        at.switch_page(page).run()
        if page == MERGES:
            open_sections(at)
        assert_counts_read_right(at, f"{page}, unigram {vocab_size}")


def test_compares_corpus_note_counts_characters_as_the_train_page_does():
    at = new_app()
    at.text_area(key=W.CORPUS).set_value("👍🏽 🇫🇷 e\u0301\nab ab").run()  # 14 code points
    train(at)
    open_compare(at)
    assert "the whole corpus: 2 lines, 10 characters" in page_text(at)
