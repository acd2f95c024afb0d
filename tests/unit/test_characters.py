"""Characters counted as people count them (issue 32, item 4): one user-perceived character per
grapheme cluster (a ZWJ family, a skin tone, a flag, conjoining Hangul jamo, a letter and its
combining accent), line breaks not counted; the Compare counts use that number, and the boundary
diff never cuts a cluster into two stretches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.compare.columns import sentences_from
from explorer.compare.counts import count_rows
from explorer.compare.diff import boundary_diff, diff_summary
from explorer.compare.html import boundary_diff_html
from explorer.drawing.stylesheet import STYLESHEET
from explorer.drawing.wording import character_count
from explorer.tokens import Piece

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: 5 code points, 18 UTF-8 bytes
THUMB = "\U0001f44d\U0001f3fd"  # 👍🏽: thumbs up + a skin tone
FLAG = "\U0001f1eb\U0001f1f7"  # 🇫🇷: two regional indicators
HAN = "\u1112\u1161\u11ab"  # 한 as conjoining jamo ᄒ + ᅡ + ᆫ
ACUTE_E = "e\u0301"  # é as e + a combining acute accent
CLUSTERS = [FAMILY, THUMB, FLAG, HAN, ACUTE_E]


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_a_grapheme_cluster_is_one_character(cluster):
    assert len(cluster) > 1
    assert character_count(cluster) == 1
    assert character_count(f"a{cluster}b {cluster}") == 5


def test_the_mixed_sample_of_the_issue_counts_as_read():
    assert character_count("🙂👍🏽") == 2  # JavaScript's .length said 6, code points 3
    assert character_count("".join(CLUSTERS)) == len(CLUSTERS)


@pytest.mark.parametrize("text", ["a\nb", "a\r\nb", "a\rb", "a\u2028b", "\na\n\nb\n", "a\x1cb"])
def test_line_breaks_are_not_counted(text):
    assert character_count(text) == 2
    assert character_count(text.replace("a", THUMB)) == 2  # the same without the ASCII shortcut


@given(st.lists(st.text(st.characters(exclude_categories=["Cs"]), min_size=1), max_size=5))
def test_the_box_and_the_columns_count_the_same_characters(lines):
    """The box counts the whole text, the columns its sentences: the same number (lines of white
    space only are no sentence, and none here)."""
    text = "\n".join(lines)
    sentences = sentences_from(text)
    if any(line.strip() == "" and line for line in text.splitlines()):
        return  # a line of spaces: the box counts its spaces, the columns drop it
    (row,) = count_rows(["x"], [None], sentences)
    assert row.characters == character_count(text)


def test_compare_counts_characters_per_token_in_graphemes():
    sentence = f"ok {THUMB}"
    pieces = [Piece(1, "ok", 0, 2), Piece(2, " ", 2, 3), Piece(3, "👍", 3, 4), Piece(4, "🏽", 4, 5)]
    (row,) = count_rows(["x"], [[pieces]], [sentence])
    assert row.characters == 4 and row.characters_per_token == 1.0


def code_point_pieces(text: str) -> list[Piece]:
    return [Piece(index, char, index, index + 1) for index, char in enumerate(text)]


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_the_boundary_diff_keeps_a_cluster_whole(cluster):
    """Tokenizer A cuts the cluster at every code point, B keeps it in one token: one stretch,
    which A's tokens share (split), never a loose skin tone or accent."""
    text = f"x{cluster}y"
    one_token = [
        Piece(0, "x", 0, 1),
        Piece(1, cluster, 1, 1 + len(cluster)),
        Piece(2, "y", len(text) - 1, len(text)),
    ]
    segments = boundary_diff(text, code_point_pieces(text), one_token)
    assert [segment.text for segment in segments] == ["x", cluster, "y"]
    middle = segments[1]
    assert middle.a_splits_character and not middle.b_splits_character and middle.differs
    assert len(middle.a_tokens) == len(cluster)
    assert diff_summary(segments).both == 2  # before and after the cluster; none inside it
    html = boundary_diff_html(segments, "A", "B")
    assert html.count('class="diff-seg') == 3 and "split-char" in html


def test_a_group_of_tokens_sharing_a_character_is_one_box_that_wraps_only_between_its_tokens():
    """The dashed group (its tokens and its "=녕" label) is one box, no wider than its line: it goes
    to the next line whole, and wraps inside, between its tokens, only when wider than a line (the
    browser tests in tests/browser/test_layout.py measure it)."""
    rule = STYLESHEET.split(".tok-group{", 1)[1].split("}", 1)[0]
    assert "display:inline-block" in rule and "max-width:100%" in rule
    assert ".tok-group .tok{white-space:nowrap;}" in STYLESHEET
