"""Byte-honest token display and escaped HTML."""

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.drawing.token_html import (
    byte_level_symbols_to_bytes,
    escape_text,
    grapheme_groups,
    group_pieces_by_shared_clusters,
    legend_html,
    pieces_html,
    readable_token,
    token_spans_html,
)
from explorer.pipeline.bytelevel import bytes_to_symbols
from explorer.pretrained import PRETRAINED, encode_pretrained
from explorer.tokens import UNKNOWN, Piece

XSS_AND_MARKUP = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "**bold**",
    "$x$",
    ":red[x]",
    "`code` _em_ ~~del~~ [link](http://x) # h",
    "a\n\nb",
    "&#60;script&#62; &amp; # heading",
]

text_without_surrogates = st.text(alphabet=st.characters(blacklist_categories=["Cs"]))


def piece(id: int, token_bytes: bytes, start: int, end: int) -> Piece:
    """A byte-level token as a tokenizer gives it (its value spelled in GPT-2's byte symbols)."""
    return Piece(id, bytes_to_symbols(token_bytes), start, end, token_bytes)


class TagCollector(HTMLParser):
    """Collects tag names, attribute names and the text content of some HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.text = [], set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes.update(name for name, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


def parse(markup):
    collector = TagCollector()
    collector.feed(markup)
    collector.close()
    return collector


def test_readable_tokens_show_white_space_and_stray_bytes():
    assert readable_token(" café\n\t".encode()) == "·café↵→"
    assert readable_token(b"\xe2\x82") == "<0xE2><0x82>"
    assert readable_token(b"\x82\xac!") == "<0x82><0xAC>!"
    assert readable_token(b"\x00\x1b\x7f") == "<0x00><0x1B><0x7F>"
    assert readable_token("\u2028".encode()) == "<0xE2><0x80><0xA8>"
    assert readable_token("\ufffd".encode()) == "\ufffd"  # a real U+FFFD stays
    assert readable_token(b"\xc0\xaf") == "<0xC0><0xAF>"  # overlong form is not a character
    assert readable_token("🙂".encode()[:3] + b"x") == "<0xF0><0x9F><0x99>x"


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=24))
def test_readable_token_never_invents_replacement_characters(data):
    assert ("\ufffd" in readable_token(data)) == (b"\xef\xbf\xbd" in data)


@settings(max_examples=60, deadline=None)
@given(text=text_without_surrogates, name=st.sampled_from(list(PRETRAINED)))
def test_pretrained_pieces_are_byte_honest(text, name):
    pieces = encode_pretrained(name, text)
    assert b"".join(piece.token_bytes for piece in pieces) == text.encode("utf-8")
    if "\ufffd" not in text:
        assert not any("\ufffd" in readable_token(piece.token_bytes) for piece in pieces)


@settings(max_examples=60, deadline=None)
@given(text_without_surrogates)
def test_html_shows_every_token_and_only_our_markup(text):
    pieces = encode_pretrained("o200k_base", text)
    markup = token_spans_html(text, pieces)
    parsed = parse(markup)
    assert set(parsed.tags) <= {"div", "span", "br", "wbr"}
    assert parsed.attributes <= {"class", "title", "style"}
    assert parsed.tags.count("span") >= len(pieces)
    assert "\n" not in markup and "\r" not in markup


@pytest.mark.parametrize("text", XSS_AND_MARKUP)
def test_user_text_is_escaped(text):
    markup = token_spans_html(text, encode_pretrained("gpt2", text))
    parsed = parse(markup)
    assert set(parsed.tags) <= {"div", "span", "br", "wbr"}
    assert parsed.attributes <= {"class", "title", "style"}
    for dangerous in ("<script", "<img", "<svg", "**", "$x$", ":red[", "`", "~~", "]("):
        assert dangerous not in markup
    shown = "".join(parsed.text).replace("·", " ").replace("↵", "\n")
    assert shown == text


@settings(max_examples=200, deadline=None)
@given(text_without_surrogates)
def test_escaped_text_reads_back_literally(text):
    escaped = escape_text(text)
    assert "<" not in escaped and ">" not in escaped
    assert "".join(parse(escaped).text) == text


def test_escape_text_leaves_no_markup_characters():
    escaped = escape_text("<a href='x'>*_`$[]:#|</a>")
    assert not set("<>'\"*_`$[]:#|") & set(escaped.replace("&#", "").replace(";", ""))
    assert parse(escaped).text == ["<a href='x'>*_`$[]:#|</a>"]


@pytest.mark.parametrize("text", XSS_AND_MARKUP)
def test_pieces_without_a_text_show_their_bytes_escaped_and_the_new_one_outlined(text):
    tokens = [piece(index, token.encode("utf-8"), 0, 0) for index, token in enumerate(text.split(" "))]
    markup = pieces_html(tokens, show_ids=True, new={len(tokens) - 1})
    parsed = parse(markup)
    assert set(parsed.tags) == {"span"} and parsed.attributes == {"class", "title", "style"}
    for dangerous in ("<script", "<img", "<svg", "**", "$x$", ":red[", "`", "~~", "]("):
        assert dangerous not in markup
    shown = [
        readable_token(token.token_bytes) + str(token.id) for token in tokens
    ]  # each id written after it
    assert "".join(parsed.text) == "".join(shown)
    assert markup.count('class="tok mono-tok tok-new"') == 1 and markup.count("(just merged)") == 1


def test_tokens_splitting_one_character_are_grouped():
    text = "a🙂"  # cut the emoji's 4 bytes between two tokens
    pieces = [
        piece(1, b"a", 0, 1),
        piece(2, "🙂".encode()[:2], 1, 2),
        piece(3, "🙂".encode()[2:], 1, 2),
    ]
    assert group_pieces_by_shared_clusters(text, pieces) == [[0], [1, 2]]
    markup = token_spans_html(text, pieces)
    assert 'title="2 tokens form one character&#58; 🙂"' in markup
    assert markup.count('class="tok-group"') == 1
    assert "&lt;0xF0&gt;&lt;0x9F&gt;" in markup
    # A group wider than its line wraps between its tokens only: one break chance between the two,
    # none between the last and its "=🙂" label.
    assert markup.count("<wbr>") == 1 and '</span><span class="tok-group-label">' in markup


def test_combining_accent_in_its_own_token_is_grouped():
    text = "e\u0301x"
    pieces = [piece(1, b"e", 0, 1), piece(2, "\u0301".encode(), 1, 2), piece(3, b"x", 2, 3)]
    assert group_pieces_by_shared_clusters(text, pieces) == [[0, 1], [2]]


def test_the_prepended_metaspace_mark_forms_no_group_with_the_first_character():
    # Metaspace puts "▁" before the first word; the library (and ours) gives it the span (0, 1) of
    # the word's first character, which it shares without holding any of it.
    text = "Ab"
    pieces = [Piece(1, "▁", 0, 1), Piece(0, "<unk>", 0, 1, b"<unk>", UNKNOWN), Piece(2, "b", 1, 2)]
    assert group_pieces_by_shared_clusters(text, pieces) == [[0], [1], [2]]
    assert "tok-group" not in token_spans_html(text, pieces)
    # Byte-fallback pieces of one character after it still form their group, without the "▁".
    text = "東x"
    bytes_of_east = [Piece(3 + i, f"<0x{b:02X}>", 0, 1, bytes([b])) for i, b in enumerate("東".encode())]
    pieces = [Piece(1, "▁", 0, 1), *bytes_of_east, Piece(9, "x", 1, 2)]
    assert group_pieces_by_shared_clusters(text, pieces) == [[0], [1, 2, 3], [4]]
    markup = token_spans_html(text, pieces)
    assert markup.count('class="tok-group"') == 1 and 'title="3 tokens form one character&#58; 東"' in markup
    # A "▁" that holds a space of the text is an ordinary token.
    text = "a b"
    pieces = [Piece(1, "a", 0, 1), Piece(2, "▁", 1, 2), Piece(3, "b", 2, 3)]
    assert group_pieces_by_shared_clusters(text, pieces) == [[0], [1], [2]]


def test_grapheme_groups_keep_each_visible_character_whole():
    text = "e\u0301🇩🇪👩\u200d👧\r\nx"
    assert grapheme_groups(text) == [(0, 2), (2, 4), (4, 7), (7, 9), (9, 10)]


def test_byte_level_symbols_to_bytes():
    assert byte_level_symbols_to_bytes("Ġthe") == b" the"
    assert byte_level_symbols_to_bytes("ĊĉĀ") == b"\n\t\x00"
    with pytest.raises(ValueError):
        byte_level_symbols_to_bytes("☃")


def test_legend_explains_every_marker():
    text = "".join(parse(legend_html()).text)
    for marker in ("Ġ", "##", "▁", "·", "↵", "→", "<0xE2>"):
        assert marker in text
