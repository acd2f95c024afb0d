"""Character classes in the library's Unicode versions: `unicodedata`'s categories corrected by the
measured tables (tables.py), as code point sets and compiled regular expressions.

Follows what the `tokenizers` library (0.23.3) tests character by character: marks for
StripAccents (tokenizers/src/normalizers/strip.rs, Unicode 9.0), non-spacing marks and controls
for BertNormalizer (normalizers/bert.rs, Unicode 8.0), the characters its normalization tables do
not know (Unicode 9.0), white space (Rust's char::is_whitespace) and CJK ideographs. Scanning
`unicodedata` takes a moment, so each class is built on first use and cached.

What it does not do: change text (the components do), or correct categories other than these.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from itertools import chain

from explorer.pipeline.normalizers.unicode_tables import (
    ASSIGNED_PLANES,
    CJK_IDEOGRAPHS,
    CONTROLS_AFTER_UNICODE_8,
    LOWERCASE_NEWER_THAN_PYTHON,
    MARKS_AFTER_UNICODE_9,
    MARKS_ONLY_IN_UNICODE_9,
    NONSPACING_MARKS_AFTER_UNICODE_8,
    NONSPACING_MARKS_ONLY_IN_UNICODE_8,
    PRIVATE_USE_PLANES,
    UNKNOWN_TO_UNICODE_9_NORMALIZATION,
    WHITE_SPACE_CLASS,
    CodePointRange,
)


def _code_points(ranges: Iterable[CodePointRange]) -> frozenset[int]:
    return frozenset(code_point for first, last in ranges for code_point in range(first, last + 1))


def _class_body(code_points: Iterable[int]) -> str:
    """A regular-expression character class body matching exactly these code points."""
    parts: list[str] = []
    ordered = sorted(code_points)
    index = 0
    while index < len(ordered):
        first = last = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == last + 1:
            index += 1
            last = ordered[index]
        parts.append(
            re.escape(chr(first)) if first == last else f"{re.escape(chr(first))}-{re.escape(chr(last))}"
        )
        index += 1
    return "".join(parts)


def _char_class_regex(code_points: Iterable[int]) -> re.Pattern[str]:
    body = _class_body(code_points)
    return re.compile(f"[{body}]" if body else r"[^\s\S]")


@cache
def unknown_to_unicode_9() -> frozenset[int]:
    return _code_points(UNKNOWN_TO_UNICODE_9_NORMALIZATION)


@cache
def unicodedata_would_differ_regex() -> re.Pattern[str]:
    """Characters on which unicodedata.normalize may disagree with the library: the unknown ones,
    and the second half of a canonical pair that composes, in unicodedata only, to an unknown
    character (U+11935 U+11930 -> U+11938 DIVES AKURU VOWEL SIGN O)."""
    unknown = unknown_to_unicode_9()
    risky = set(unknown)
    for code_point in unknown:
        decomposition = unicodedata.decomposition(chr(code_point)).split()
        if len(decomposition) == 2 and not decomposition[0].startswith("<"):
            risky.add(int(decomposition[1], 16))
    return _char_class_regex(risky)


@cache
def _categories() -> dict[str, frozenset[int]]:
    """unicodedata's general categories of interest, scanned once: M (any mark), Mn, and the
    controls BertNormalizer removes (Cc, Cf, Co)."""
    marks, nonspacing, controls = set(), set(), set()
    for code_point in chain.from_iterable(ASSIGNED_PLANES):
        category = unicodedata.category(chr(code_point))
        if category[0] == "M":
            marks.add(code_point)
            if category == "Mn":
                nonspacing.add(code_point)
        elif category in ("Cc", "Cf", "Co"):
            controls.add(code_point)
    controls |= _code_points(PRIVATE_USE_PLANES)
    return {"M": frozenset(marks), "Mn": frozenset(nonspacing), "C": frozenset(controls)}


@cache
def unicode_9_marks_regex() -> re.Pattern[str]:
    """Every Unicode 9.0 mark (Mn, Mc, Me): what StripAccents removes."""
    marks = _categories()["M"] - _code_points(MARKS_AFTER_UNICODE_9)
    return _char_class_regex(marks | _code_points(MARKS_ONLY_IN_UNICODE_9))


@cache
def unicode_8_nonspacing_marks_regex() -> re.Pattern[str]:
    """Every Unicode 8.0 non-spacing mark (Mn): what BertNormalizer's strip_accents removes."""
    marks = _categories()["Mn"] - _code_points(NONSPACING_MARKS_AFTER_UNICODE_8)
    return _char_class_regex(marks | _code_points(NONSPACING_MARKS_ONLY_IN_UNICODE_8))


@cache
def bert_removed_regex() -> re.Pattern[str]:
    """What clean_text drops: NUL, U+FFFD and Unicode 8.0 Cc/Cf/Co except tab, newline, return."""
    controls = _categories()["C"] - _code_points(CONTROLS_AFTER_UNICODE_8)
    return _char_class_regex((controls | {0x0000, 0xFFFD}) - {ord("\t"), ord("\n"), ord("\r")})


WHITE_SPACE_REGEX = re.compile(f"[{WHITE_SPACE_CLASS}]")
CJK_REGEX = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in CJK_IDEOGRAPHS) + "]")
LOWERCASE_NEWER_REGEX = _char_class_regex(LOWERCASE_NEWER_THAN_PYTHON)
