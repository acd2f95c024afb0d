"""Pre-tokenizers and the byte-level map against the installed `tokenizers` library: pieces and
offsets, offsets through a normalizer, tokenizer.json entries, and the registry."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import pre_tokenizers as hf

from explorer.pipeline import normalizers
from explorer.pipeline import pre_tokenizers as ours
from explorer.pipeline.bytelevel import (
    BYTE_LEVEL_ALPHABET,
    BYTE_TO_UNICODE,
    UNICODE_TO_BYTE,
    bytes_to_symbols,
    symbols_to_bytes,
    text_to_symbols,
)
from explorer.pipeline.pre_tokenizers.patterns import class_items
from explorer.pipeline.pre_tokenizers.regex_tables import UNKNOWN_TO_LIBRARY_REGEX
from explorer.pipeline.pre_tokenizers.split_patterns import CL100K_PATTERN
from explorer.training.word_counts import split_lines
from tests.helpers import component_parity as parity
from tests.helpers.engines import count

COMPONENTS = [
    ("byte-level", ours.ByteLevel(), hf.ByteLevel(add_prefix_space=False)),
    ("byte-level-prefix", ours.ByteLevel(add_prefix_space=True), hf.ByteLevel(add_prefix_space=True)),
    (
        "byte-level-no-regex",
        ours.ByteLevel(use_regex=False),
        hf.ByteLevel(add_prefix_space=False, use_regex=False),
    ),
    (
        "byte-level-prefix-no-regex",
        ours.ByteLevel(add_prefix_space=True, use_regex=False),
        hf.ByteLevel(add_prefix_space=True, use_regex=False),
    ),
    ("bert", ours.BertPreTokenizer(), hf.BertPreTokenizer()),
    ("whitespace", ours.Whitespace(), hf.Whitespace()),
    ("whitespace-split", ours.WhitespaceSplit(), hf.WhitespaceSplit()),
    (
        "split-then-byte-level",
        ours.Sequence([ours.WhitespaceSplit(), ours.ByteLevel(add_prefix_space=True)]),
        hf.Sequence([hf.WhitespaceSplit(), hf.ByteLevel(add_prefix_space=True)]),
    ),
    ("metaspace", ours.Metaspace(), hf.Metaspace()),
    ("metaspace-first", ours.Metaspace(prepend_scheme="first"), hf.Metaspace(prepend_scheme="first")),
    ("metaspace-never", ours.Metaspace(prepend_scheme="never"), hf.Metaspace(prepend_scheme="never")),
    ("metaspace-no-split", ours.Metaspace(split=False), hf.Metaspace(split=False)),
    (
        "metaspace-underscore-never-no-split",
        ours.Metaspace("_", prepend_scheme="never", split=False),
        hf.Metaspace("_", prepend_scheme="never", split=False),
    ),
    (
        "split-then-metaspace-first",
        ours.Sequence([ours.WhitespaceSplit(), ours.Metaspace(prepend_scheme="first")]),
        hf.Sequence([hf.WhitespaceSplit(), hf.Metaspace(prepend_scheme="first")]),
    ),
    (
        "metaspace-then-bert",
        ours.Sequence([ours.Metaspace(), ours.BertPreTokenizer()]),
        hf.Sequence([hf.Metaspace(), hf.BertPreTokenizer()]),
    ),
    (
        "byte-level-then-bert",
        ours.Sequence([ours.ByteLevel(), ours.BertPreTokenizer()]),
        hf.Sequence([hf.ByteLevel(add_prefix_space=False), hf.BertPreTokenizer()]),
    ),
]

EXAMPLES = [
    "",
    " ",
    "Hello, world! It's 3.14 $100...",
    "it's IT'S we'll WE'LL they're I'm you'd we've don't",
    "  leading and trailing  \t\n",
    "a\r\nb\tc\x0bd\x1ce\x85f\u2028g\u3000h\xa0i",
    "Café naïve e\u0301",
    "x² ½ ① ٣",
    "中文字 日本語",
    "👨\u200d👩\u200d👧 family",
    "snake_case $+<=>^`|~ ¿¡ «»",
    "\x00\ufffd",
    "a\u166db a\U000111c9b a\u2e43b",  # punctuation in Unicode 8.0 only / added later
    "a\u0558b 1\U00010940",  # letters of Unicode 17.0, unknown to the library's regex engine
]

# Characters and contraction fragments that exercise the interesting paths, mixed into arbitrary
# Unicode.
FRAGMENTS = [
    *"aZ1 '\t\n\r!.,$_sStTdDmMlLrRvVeE\xa0\u2028\x1c\x85²é\u0301\u200d中٣½\u3000İ\x00",
    "'s",
    "'ll",
    "'ve",
    "'re",
    "  ",
    "\U0001f468",
    "\u0558",
    "\U00010940",
    "\u166d",
    "\u2e43",
    "\U000111c9",
    "▁",
    " ▁",
    "_",
]
texts = st.lists(st.one_of(st.characters(codec="utf-8"), st.sampled_from(FRAGMENTS)), max_size=20).map(
    "".join
)


def assert_matches_library(component: ours.PreTokenizer, library: hf.PreTokenizer, text: str) -> None:
    expected = library.pre_tokenize_str(text)
    assert component.pre_tokenize(text) == expected
    assert component.words(text) == [piece for piece, _ in expected]
    split = component.split(normalizers.Normalized.unchanged(text))
    assert [(piece.text, piece.original_span(0, len(piece.text))) for piece in split] == expected


test_examples_match_library, test_fuzz_matches_library = parity.parity_tests(
    COMPONENTS, EXAMPLES, texts, assert_matches_library
)


@parity.each_component(COMPONENTS)
@settings(max_examples=300, deadline=None)
@given(text=st.text(st.characters(max_codepoint=127), max_size=40))
def test_ascii_fast_path_matches_library(name, component, library, text):
    """ASCII-only text takes the standard `re` patterns with ASCII classes."""
    assert_matches_library(component, library, text)


def test_documented_pieces():
    text = "Hello, world! It's 3.14 $100..."
    assert ours.BertPreTokenizer().words(text) == "Hello , world ! It ' s 3 . 14 $ 100 . . .".split()
    assert ours.Whitespace().words(text) == "Hello , world ! It ' s 3 . 14 $ 100 ...".split()
    assert ours.WhitespaceSplit().words(text) == "Hello, world! It's 3.14 $100...".split()
    assert ours.ByteLevel().words(text) == "Hello , Ġworld ! ĠIt 's Ġ3 . 14 Ġ$ 100 ...".split()
    assert ours.ByteLevel().words("IT'S") == ["IT", "'", "S"]  # contractions are lowercase only
    assert ours.ByteLevel(add_prefix_space=True).pre_tokenize("Hi") == [("ĠHi", (0, 2))]
    assert ours.Whitespace().words("x²") == ["x", "²"]


@functools.cache
def assigned_code_points() -> tuple[str, ...]:
    """Every code point the `regex` module's Unicode assigns, except private use (unassigned and
    private-use characters are "other" for both the library and the `regex` module). Of the
    ~100,000 unified ideographs, all letters in every version, only one in 50 is kept, plus every
    one in the version table, to keep the run short."""
    unassigned = regex.compile(r"[\p{Cn}\p{Co}\p{Cs}]")
    ideograph = regex.compile(r"\p{Unified_Ideograph}")
    in_table = regex.compile(f"[{class_items(UNKNOWN_TO_LIBRARY_REGEX)}]")
    return tuple(
        char
        for char in map(chr, range(0x110000))
        if not unassigned.match(char)
        and (not ideograph.match(char) or ord(char) % 50 == 0 or in_table.match(char))
    )


# Per component, the neighbours that reveal a character's class: letter, number, other or space
# for ByteLevel; word character, other or space for Whitespace; punctuation or space otherwise.
CLASS_CONTEXTS = [
    ("byte-level", ours.ByteLevel(), hf.ByteLevel(add_prefix_space=False), "a{0}a1{0}1!{0}! {0}\n"),
    ("whitespace", ours.Whitespace(), hf.Whitespace(), "a{0}a!{0}!\n"),
    ("bert", ours.BertPreTokenizer(), hf.BertPreTokenizer(), "a{0}a\n"),
    ("whitespace-split", ours.WhitespaceSplit(), hf.WhitespaceSplit(), "a{0}a\n"),
]


@pytest.mark.parametrize(
    ("name", "component", "library", "context"), CLASS_CONTEXTS, ids=[name for name, *_ in CLASS_CONTEXTS]
)
def test_every_code_point_matches_library(name, component, library, context):
    """Checks the Unicode version tables: every assigned character in the context that would
    change the pieces if its class differed. Counting a corpus of these lines on both engines
    (explorer/training/word_counts.py, engine/src/words.rs) gives the library's pieces, counted in
    order of first appearance, and the figures Python's own string methods give."""
    chars = assigned_code_points()
    for start in range(0, len(chars), 20_000):
        text = "".join(context.format(char) for char in chars[start : start + 20_000])
        pieces = library.pre_tokenize_str(text)
        assert component.pre_tokenize(text) == pieces
        lines = split_lines(text)  # "\r\n" is a line break too: the context with "\r" ends with one
        counted, figures = count(text, (), name)
        per_line = Counter(piece for line in lines for piece, _ in library.pre_tokenize_str(line))
        assert list(counted.items()) == list(per_line.items())
        assert figures == {
            "lines": len(lines),
            "characters": sum(map(len, lines)),
            "utf8_bytes": sum(len(line.encode()) for line in lines),
            "words": sum(len(line.split()) for line in lines),
        }


PIPELINES = [
    ("bert", normalizers.BertNormalizer(), ours.BertPreTokenizer()),
    ("nfkc-byte-level", normalizers.NFKC(), ours.ByteLevel(add_prefix_space=True)),
    (
        "nfd-strip-lowercase-whitespace",
        normalizers.build_normalizer(["nfd", "strip-accents", "lowercase"]),
        ours.Whitespace(),
    ),
    (
        "lowercase-split-byte-level",
        normalizers.Lowercase(),
        ours.Sequence([ours.WhitespaceSplit(), ours.ByteLevel()]),
    ),
]


@pytest.mark.parametrize(
    ("name", "normalizer", "pre_tokenizer"), PIPELINES, ids=[name for name, _, _ in PIPELINES]
)
@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_split_after_normalizer_gives_the_library_token_offsets(name, normalizer, pre_tokenizer, text):
    """With a WordLevel model that knows every piece, each token is one piece: its offsets are the
    piece's alignments mapped back through the normalizer."""
    pieces = pre_tokenizer.split(normalizer.normalize(text))
    vocab = {parity.UNK: 0} | {piece.text: index + 1 for index, piece in enumerate(pieces)}
    tokenizer = parity.library_tokenizer(
        parity.word_level(vocab), normalizer.to_hf_json(), pre_tokenizer.to_hf_json()
    )
    encoding = tokenizer.encode(text)
    assert encoding.tokens == [piece.text for piece in pieces]
    assert encoding.offsets == [piece.original_span(0, len(piece.text)) for piece in pieces]


@parity.each_component(COMPONENTS)
def test_to_hf_json_is_what_the_library_writes(name, component, library):
    assert parity.library_json("pre_tokenizer", library) == component.to_hf_json()


@parity.each_component(COMPONENTS)
def test_library_loads_our_json_and_splits_the_same(name, component, library):
    loaded = parity.library_tokenizer(
        parity.word_level({parity.UNK: 0}), pre_tokenizer=component.to_hf_json()
    )
    for text in EXAMPLES:
        assert loaded.pre_tokenizer.pre_tokenize_str(text) == component.pre_tokenize(text)
    assert ours.pre_tokenizer_from_hf_json(component.to_hf_json()) == component


def test_unsupported_json_is_a_clear_error():
    with pytest.raises(
        ValueError, match=r"pre_tokenizer.type 'Punctuation' is not supported \(.*ByteLevel, Metaspace"
    ):
        ours.pre_tokenizer_from_hf_json({"type": "Punctuation"})
    # Split is read with a Regex pattern and behavior "Isolated" only.
    with pytest.raises(ValueError, match="Regex pattern"):
        ours.pre_tokenizer_from_hf_json({"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated"})
    with pytest.raises(ValueError, match="Isolated"):
        ours.pre_tokenizer_from_hf_json({"type": "Split", "pattern": {"Regex": " "}, "behavior": "Removed"})
    # A pattern the parity tests do not cover (here tiktoken's possessive spelling, which the
    # library's engine reads otherwise) is left to the library.
    with pytest.raises(ValueError, match="byte-level split patterns"):
        ours.pre_tokenizer_from_hf_json(
            {"type": "Split", "pattern": {"Regex": CL100K_PATTERN}, "behavior": "Isolated"}
        )


def test_registry():
    assert set(ours.PRE_TOKENIZERS) == {
        "byte-level",
        "bert",
        "whitespace",
        "whitespace-split",
        "metaspace",
    } | {f"byte-level-{pattern}" for pattern in ("cl100k", "o200k", "llama3")}
    assert all(ours.is_byte_level(name) for name in ours.BYTE_LEVEL_PRE_TOKENIZERS.values())
    assert not any(ours.is_byte_level(name) for name in ("bert", "whitespace", "metaspace", None))
    assert ours.build_pre_tokenizer("metaspace") == ours.Metaspace("▁", "always", split=True)
    assert ours.build_pre_tokenizer("byte-level") == ours.ByteLevel(add_prefix_space=False)
    assert ours.build_pre_tokenizer("bert") == ours.BertPreTokenizer()
    assert ours.build_pre_tokenizer("whitespace") == ours.Whitespace()
    assert ours.build_pre_tokenizer("whitespace-split") == ours.WhitespaceSplit()


def test_unknown_registry_name_lists_the_valid_ones():
    valid = "byte-level, bert, whitespace, whitespace-split, metaspace"
    with pytest.raises(ValueError, match=f"unknown pre-tokenizer 'punctuation'.*{valid}"):
        ours.build_pre_tokenizer("punctuation")


# ----- the byte-level map -----


def test_byte_level_alphabet_is_the_library_alphabet():
    assert len(BYTE_LEVEL_ALPHABET) == 256
    assert list(BYTE_LEVEL_ALPHABET) == sorted(hf.ByteLevel.alphabet())
    assert list(BYTE_LEVEL_ALPHABET) == sorted(BYTE_LEVEL_ALPHABET)


def test_gpt2_symbols():
    assert [BYTE_TO_UNICODE[byte] for byte in b" \n\t\r\x00\xad!~"] == [
        "Ġ",
        "Ċ",
        "ĉ",
        "č",
        "Ā",
        "Ń",
        "!",
        "~",
    ]
    assert UNICODE_TO_BYTE["Ġ"] == 0x20
    assert bytes_to_symbols("é".encode()) == "Ã©"


def test_every_byte_round_trips():
    every_byte = bytes(range(256))
    assert symbols_to_bytes(bytes_to_symbols(every_byte)) == every_byte


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_text_to_symbols_maps_the_utf8_bytes(text):
    assert text_to_symbols(text) == bytes_to_symbols(text.encode("utf-8"))
    assert symbols_to_bytes(text_to_symbols(text)).decode("utf-8") == text


@pytest.mark.parametrize("not_symbols", ["a b", "a\nb", "€"])
def test_symbols_to_bytes_rejects_non_symbols(not_symbols):
    with pytest.raises(ValueError, match="is not a byte-level symbol"):
        symbols_to_bytes(not_symbols)
