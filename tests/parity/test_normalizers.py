"""Normalizers against the installed `tokenizers` library: normalized text, alignments (and the
token offsets they give), tokenizer.json entries, and the registry."""

from __future__ import annotations

import unicodedata

import pytest
import regex
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import normalizers as hf

from explorer.pipeline import normalizers as ours
from explorer.pipeline.normalizers import Normalized
from tests.helpers import component_parity as parity

# (name, ours, library), one per component and BertNormalizer option that changes behaviour.
COMPONENTS = [
    ("nfd", ours.NFD(), hf.NFD()),
    ("nfkc", ours.NFKC(), hf.NFKC()),
    ("lowercase", ours.Lowercase(), hf.Lowercase()),
    ("strip-accents", ours.StripAccents(), hf.StripAccents()),
    ("bert", ours.BertNormalizer(), hf.BertNormalizer()),
    (
        "bert-cased-stripped",
        ours.BertNormalizer(strip_accents=True, lowercase=False),
        hf.BertNormalizer(strip_accents=True, lowercase=False),
    ),
    (
        "bert-lowercase-only",
        ours.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False),
        hf.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False),
    ),
    (
        "nfd-strip-lowercase",
        ours.Sequence([ours.NFD(), ours.StripAccents(), ours.Lowercase()]),
        hf.Sequence([hf.NFD(), hf.StripAccents(), hf.Lowercase()]),
    ),
    (
        "nfkc-bert",
        ours.Sequence([ours.NFKC(), ours.BertNormalizer()]),
        hf.Sequence([hf.NFKC(), hf.BertNormalizer()]),
    ),
]

EXAMPLES = [
    "",
    "Café",
    "ﬁ ﬃ",
    "İstanbul",
    "ΟΔΟΣ Σ ΣΑΣ",
    "中文字 and 日本語",
    "👨\u200d👩\u200d👧 family",
    "e\u0301\u0323 a\u0308\u0301 \u01d6\u0323",  # canonical reordering across characters
    "\u0344 \u0f73\u0f72 \u0345",  # multi-piece decompositions of non-starters
    "\u1100\u1161\u11a8 가각",  # Hangul jamo composition
    "\U00011935\U00011930",  # composes in Unicode 13+, not in the library's Unicode 9.0
    "a\u1abf a\u0903 a\u20dd",  # a Unicode 14 mark, a spacing mark, an enclosing mark
    "\x00a\ufffdb\x01c\u200d\u200b\xad",
    "a\r\nb\tc\x0bd\x0ce\x85f\u2028g\u3000h\xa0i",
    "x² ½ ①",
    "Hello, world! It's 3.14 $100...",
    "I'M it's THEY'LL we'Ve",
    "ǅ ǈ ß ﬀ",
]

# Characters that exercise the interesting paths, mixed into arbitrary Unicode.
INTERESTING = [
    *"aeAEΣΟİıﬁé中\t\n\r\x00\ufffd \xa0\u3000",
    *"\u0301\u0323\u0308\u0304\u0334\u0345\u0344\u0f71\u0f72\u0f73\u3099\u309a\u304b\u200d",
    *"\u1100\u1161\u11a8\uac00\u01d6\u1e69\u0cbf\u0cd5\u1abf\u0903\u20dd",
    "\U00011935",
    "\U00011930",
    "\U0001f468",
]
texts = st.text(alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(INTERESTING)), max_size=16)


def library_normalized(normalizer: hf.Normalizer, text: str) -> Normalized:
    """The library's normalized text and alignments: normalize, cut the result into one-character
    pieces and ask each piece for its offsets in the original text."""
    pre_tokenized = tokenizers.PreTokenizedString(text)
    pre_tokenized.normalize(lambda normalized: normalizer.normalize(normalized))
    pre_tokenized.split(
        lambda _, normalized: [normalized.slice((i, i + 1)) for i in range(len(normalized.normalized))]
    )
    splits = pre_tokenized.get_splits(offset_referential="original", offset_type="char")
    return Normalized("".join(piece for piece, _, _ in splits), tuple(offsets for _, offsets, _ in splits))


def assert_matches_library(component: ours.Normalizer, library: hf.Normalizer, text: str) -> None:
    expected = library_normalized(library, text)
    assert expected.text == library.normalize_str(text)
    assert component.normalize(text) == expected
    assert component.normalize_str(text) == expected.text


test_examples_match_library, test_fuzz_matches_library = parity.parity_tests(
    COMPONENTS, EXAMPLES, texts, assert_matches_library
)


def test_documented_semantics():
    assert ours.NFD().normalize_str("Café") == "Cafe\u0301"
    assert ours.Lowercase().normalize_str("ΟΔΟΣ") == "οδοσ"  # no final sigma
    assert ours.Lowercase().normalize("İ") == Normalized("i\u0307", ((0, 1), (0, 1)))
    assert ours.StripAccents().normalize_str("Café") == "Café"  # no decomposition of its own
    assert ours.StripAccents().normalize_str("Cafe\u0301") == "Cafe"
    assert ours.BertNormalizer().normalize_str("Café\x00\tİ中") == "cafe i 中 "
    assert ours.BertNormalizer().normalize("a中").alignments == ((0, 1), (1, 2), (1, 2), (1, 2))
    # Reordering is whole-string and alignments follow positions, as in the library.
    assert ours.NFD().normalize("e\u0301\u0323") == Normalized("e\u0323\u0301", ((0, 1), (1, 2), (2, 3)))


def test_original_span_converts_like_the_library():
    normalized = ours.NFKC().normalize("ﬁx")
    assert normalized.text == "fix"
    assert normalized.original_span(0, 2) == (0, 1)
    assert normalized.original_span(1, 3) == (0, 2)


def every_code_point(separator: str) -> str:
    return "".join(
        chr(code_point) + separator for code_point in range(0x110000) if not 0xD800 <= code_point < 0xE000
    )


@parity.each_component(COMPONENTS)
def test_every_code_point_matches_library(name, component, library):
    """Checks the Unicode version tables: each code point alone on a line (a line break never
    interacts with its neighbours)."""
    text = every_code_point("\n")
    assert component.normalize_str(text) == library.normalize_str(text)


def code_points_with_effects() -> str:
    """Every assigned code point a normalizer may act on: decomposing, combining, case-changing,
    mark, control/format, space, CJK. (Planes 0-3 and 14 hold every assigned non-private one.)"""
    chars = (chr(code_point) for code_point in (*range(0x40000), *range(0xE0000, 0xF0000)))
    return "".join(
        char
        for char in chars
        if not 0xD800 <= ord(char) < 0xE000
        and (
            unicodedata.decomposition(char)
            or unicodedata.combining(char)
            or char.lower() != char
            or unicodedata.category(char) in ("Mn", "Mc", "Me", "Cc", "Cf", "Zs", "Zl", "Zp")
            or 0x4E00 <= ord(char) < 0x4E10
        )
    )


@parity.each_component(COMPONENTS[:5])
def test_alignments_of_every_affected_code_point(name, component, library):
    affected = code_points_with_effects()
    for start in range(0, len(affected), 2000):
        # 'a' before each character gives marks a base to reorder or compose with.
        text = "".join(f"a{char} " for char in affected[start : start + 2000])
        assert component.normalize(text) == library_normalized(library, text)


def tokenizer_with(normalizer_json: dict | None, vocab: dict[str, int]) -> tokenizers.Tokenizer:
    return parity.library_tokenizer(parity.word_level(vocab), normalizer_json, {"type": "WhitespaceSplit"})


@parity.each_component(COMPONENTS)
@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_alignments_give_the_library_token_offsets(name, component, library, text):
    """Normalizer + WhitespaceSplit + a WordLevel model knowing every piece: each token is one
    whitespace-separated piece of the normalized text, so its offsets are the alignments'."""
    normalized = component.normalize(text)
    # \S is "not Unicode White_Space" in the regex module: WhitespaceSplit's pieces.
    pieces = [(match.group(), match.span()) for match in regex.finditer(r"\S+", normalized.text)]
    vocab = {parity.UNK: 0} | {piece: index + 1 for index, (piece, _) in enumerate(pieces)}
    encoding = tokenizer_with(component.to_hf_json(), vocab).encode(text)
    assert encoding.tokens == [piece for piece, _ in pieces]
    assert encoding.offsets == [normalized.original_span(start, end) for _, (start, end) in pieces]


@parity.each_component(COMPONENTS)
def test_to_hf_json_is_what_the_library_writes(name, component, library):
    assert parity.library_json("normalizer", library) == component.to_hf_json()


@parity.each_component(COMPONENTS)
def test_library_loads_our_json_and_normalizes_the_same(name, component, library):
    loaded = tokenizer_with(component.to_hf_json(), {parity.UNK: 0})
    for text in EXAMPLES:
        assert loaded.normalizer.normalize_str(text) == component.normalize_str(text)
    assert ours.normalizer_from_hf_json(component.to_hf_json()) == component


def test_identity_is_a_null_normalizer():
    identity = ours.build_normalizer([])
    assert isinstance(identity, ours.Identity)
    assert identity.normalize("Ab ") == Normalized.unchanged("Ab ")
    assert identity.to_hf_json() is None
    assert tokenizer_with(identity.to_hf_json(), {parity.UNK: 0}).normalizer is None
    assert ours.normalizer_from_hf_json(None) == identity
    assert ours.Sequence([identity, ours.NFD()]).to_hf_json() == {
        "type": "Sequence",
        "normalizers": [{"type": "NFD"}],
    }


def test_bert_json_keeps_all_four_fields():
    assert ours.BertNormalizer(strip_accents=False, lowercase=False).to_hf_json() == {
        "type": "BertNormalizer",
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": False,
        "lowercase": False,
    }


def test_unsupported_json_is_a_clear_error():
    with pytest.raises(ValueError, match=r"normalizer.type 'Nmt' is not supported \(.*NFD"):
        ours.normalizer_from_hf_json({"type": "Nmt"})


def test_registry():
    assert set(ours.NORMALIZERS) == {"nfd", "nfkc", "lowercase", "strip-accents", "bert"}
    assert ours.build_normalizer(["nfd"]) == ours.NFD()
    assert ours.build_normalizer(["bert"]) == ours.BertNormalizer()
    assert ours.build_normalizer(["nfd", "strip-accents", "lowercase"]) == ours.Sequence(
        [ours.NFD(), ours.StripAccents(), ours.Lowercase()]
    )
    assert ours.build_normalizer(["nfd", "strip-accents"]).normalize_str("Café") == "Cafe"


def test_unknown_registry_name_lists_the_valid_ones():
    with pytest.raises(
        ValueError, match="unknown normalizer 'nfc'.*nfd, nfkc, lowercase, strip-accents, bert"
    ):
        ours.build_normalizer(["nfd", "nfc"])
