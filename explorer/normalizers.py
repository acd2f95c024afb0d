"""Normalizers, the first pipeline stage, behaving exactly like the `tokenizers` library's.

Each component rewrites text and records, for every output character, the span of the ORIGINAL
text it comes from (`Normalized.alignments`). The bookkeeping is the library's own
(`NormalizedString::transform`): a component emits its output as `(char, change)` pairs, where
change 0 replaces the next input character, 1 inserts a character (it inherits the alignment of
the character before it) and -n replaces the next character and drops the n after it. So token
offsets mapped back through `Normalized.original_span` agree with `Tokenizer.encode(...).offsets`.

Components: NFD, NFKC, Lowercase, StripAccents, BertNormalizer, Sequence, and Identity (what an
empty `build_normalizer([])` returns). `normalize(text)` tracks alignments; `normalize_str(text)`
gives the same text without them, on a fast path for whole corpora.

Semantics matched (measured with tokenizers 0.23.3):
- NFD / NFKC work on the whole string (canonical reordering and composition cross character
  boundaries, `e + U+0301 + U+0323` -> `e + U+0323 + U+0301`); alignments follow positions, not
  characters, as in the library's `unicode-normalization-alignments` crate.
- Lowercase maps each character on its own: no final sigma (`ΟΔΟΣ` -> `οδοσ`), `İ` -> `i + U+0307`.
- StripAccents drops every Mark (Mn, Mc and Me) and does no decomposition itself (`Café` stays).
- BertNormalizer: clean_text drops NUL, U+FFFD and Cc/Cf/Co characters except tab, newline and
  carriage return, then maps white space to ' '; handle_chinese_chars surrounds CJK ideographs
  with spaces; strip_accents (None means "same as lowercase") does NFD then drops Mn only; then
  lowercase.

Unicode versions: the library mixes several, so Python's `unicodedata` (14.0 on Python 3.11) is
corrected with small tables measured against the library character by character (they list
characters up to Unicode 17.0, so a newer Python's unicodedata is corrected too):
- NFD, NFKC and StripAccents use Unicode 9.0 tables: characters assigned later that have a
  decomposition or a combining class are plain starters there, later marks are not marks.
- BertNormalizer's control and non-spacing-mark tests use Unicode 8.0 categories.
- Lowercasing uses Rust's standard library, newer than Python 3.11: a few later characters have
  lowercase mappings Python does not know yet.

Does not: NFC, NFKD, Replace, Prepend, Strip, Nmt, Precompiled or ByteLevel normalizers; lone
surrogates (the library cannot receive them from Python).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass
from functools import cache
from itertools import chain

Alignment = tuple[int, int]
Change = tuple[str, int]  # (output character, change) as in NormalizedString::transform
CodePointRange = tuple[int, int]  # inclusive (first, last)


@dataclass(frozen=True)
class Normalized:
    """Normalized text plus, for each of its characters, the original (start, end) it comes from."""

    text: str
    alignments: tuple[Alignment, ...]

    @classmethod
    def unchanged(cls, text: str) -> Normalized:
        return cls(text, tuple((index, index + 1) for index in range(len(text))))

    def original_span(self, start: int, end: int) -> Alignment:
        """The original span of normalized characters [start, end), as the library converts
        token offsets: first character's start to last character's end."""
        if start >= end:
            return (start, end)  # the library returns an empty range untouched
        return (self.alignments[start][0], self.alignments[end - 1][1])


def _apply_changes(current: Normalized, changes: Iterable[Change], initial_offset: int = 0) -> Normalized:
    """The library's NormalizedString::transform, in character units: `initial_offset` input
    characters are dropped first, then each change consumes input characters."""
    old = current.alignments
    position = initial_offset  # index of the next input character to be replaced
    chars: list[str] = []
    alignments: list[Alignment] = []
    for char, change in changes:
        chars.append(char)
        if change > 0:
            # An inserted character shares the alignment of the input character before it.
            alignments.append(old[position - 1] if position >= 1 else (0, 0))
        else:
            alignments.append(old[position])
            position += 1 - change
    return Normalized("".join(chars), tuple(alignments))


def _filter_changes(text: str, keep: Callable[[str], bool]) -> tuple[list[Change], int]:
    """The library's NormalizedString::filter: each kept character absorbs the removed ones after
    it (change -n); removed characters at the very start become the initial offset."""
    changes: list[Change] = []
    removed = 0
    removed_at_start = 0
    last_kept: str | None = None
    for char in text:
        if keep(char):
            if last_kept is None:
                removed_at_start = removed
            else:
                changes.append((last_kept, -removed))
            last_kept = char
            removed = 0
        else:
            removed += 1
    if last_kept is not None:
        changes.append((last_kept, -removed))
    return changes, removed_at_start


# --------------------------------------------------------------------------------------------
# Unicode tables: Python's unicodedata, corrected to the versions the library was built with.
# Ranges are inclusive (first, last) code points, measured against tokenizers 0.23.3 one code
# point at a time (and up to Unicode 17 through the `regex` module, so a newer Python still
# matches). tests/test_normalizers.py re-checks every code point.
# --------------------------------------------------------------------------------------------

# Assigned after Unicode 9.0 with a decomposition or a non-zero combining class: the library's
# normalization tables do not know them, so they neither decompose, reorder nor compose.
_UNKNOWN_TO_UNICODE_9_NORMALIZATION: tuple[CodePointRange, ...] = (
    (0x0558, 0x0558),
    (0x058B, 0x058C),
    (0x05C8, 0x05C9),
    (0x07FD, 0x07FD),
    (0x0897, 0x089F),
    (0x08CA, 0x08D3),
    (0x09FE, 0x09FE),
    (0x0C3C, 0x0C3C),
    (0x0D3B, 0x0D3C),
    (0x0EBA, 0x0EBA),
    (0x1715, 0x1715),
    (0x1ABF, 0x1AF0),
    (0x1DF6, 0x1DFA),
    (0x209D, 0x209F),
    (0x32FF, 0x32FF),
    (0xA7F1, 0xA7F4),
    (0xA82C, 0xA82C),
    (0xAB69, 0xAB69),
    (0x105C9, 0x105C9),
    (0x105E4, 0x105E4),
    (0x10781, 0x10785),
    (0x10787, 0x107B0),
    (0x107B2, 0x107BF),
    (0x10D24, 0x10D27),
    (0x10D69, 0x10D6D),
    (0x10EAB, 0x10EAC),
    (0x10ECB, 0x10ECF),
    (0x10EF0, 0x10EFB),
    (0x10EFD, 0x10EFF),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x1133B, 0x1133B),
    (0x11383, 0x11383),
    (0x11385, 0x11385),
    (0x1138E, 0x1138E),
    (0x11391, 0x11391),
    (0x113C5, 0x113C5),
    (0x113C7, 0x113C8),
    (0x113CE, 0x113D0),
    (0x1145E, 0x1145E),
    (0x11839, 0x1183A),
    (0x11938, 0x11938),
    (0x1193D, 0x1193E),
    (0x11943, 0x11943),
    (0x119E0, 0x119E0),
    (0x11A34, 0x11A34),
    (0x11A47, 0x11A47),
    (0x11A99, 0x11A99),
    (0x11D42, 0x11D42),
    (0x11D44, 0x11D45),
    (0x11D97, 0x11D97),
    (0x11F41, 0x11F42),
    (0x16121, 0x16128),
    (0x1612F, 0x1612F),
    (0x16D68, 0x16D6A),
    (0x16FF0, 0x16FF1),
    (0x1B123, 0x1B126),
    (0x1CCD6, 0x1CCF9),
    (0x1D127, 0x1D128),
    (0x1D250, 0x1D252),
    (0x1D25B, 0x1D25C),
    (0x1D25F, 0x1D25F),
    (0x1D280, 0x1D281),
    (0x1D6A6, 0x1D6A6),
    (0x1DF95, 0x1DF95),
    (0x1DFCD, 0x1DFFF),
    (0x1E030, 0x1E06D),
    (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1E4EC, 0x1E4EF),
    (0x1E5EE, 0x1E5EF),
    (0x1E6E3, 0x1E6E3),
    (0x1E6E6, 0x1E6E6),
    (0x1E6EE, 0x1E6EF),
    (0x1E6F5, 0x1E6F5),
    (0x1F16C, 0x1F16C),
    (0x1FBF0, 0x1FBF9),
)

# Marks (Mn/Mc/Me) assigned after Unicode 9.0: the library's StripAccents keeps them.
_MARKS_AFTER_UNICODE_9: tuple[CodePointRange, ...] = (
    (0x05C8, 0x05C9),
    (0x07FD, 0x07FD),
    (0x0897, 0x089F),
    (0x08CA, 0x08D3),
    (0x09FE, 0x09FE),
    (0x0AFA, 0x0AFF),
    (0x0B53, 0x0B55),
    (0x0C04, 0x0C04),
    (0x0C3C, 0x0C3C),
    (0x0CF3, 0x0CF3),
    (0x0D00, 0x0D00),
    (0x0D3B, 0x0D3C),
    (0x0D81, 0x0D81),
    (0x0EBA, 0x0EBA),
    (0x0ECE, 0x0ECE),
    (0x1715, 0x1715),
    (0x180F, 0x180F),
    (0x1ABF, 0x1AF0),
    (0x1CF7, 0x1CF7),
    (0x1DF6, 0x1DFA),
    (0xA82C, 0xA82C),
    (0xA8FF, 0xA8FF),
    (0x10D24, 0x10D27),
    (0x10D69, 0x10D6D),
    (0x10EAB, 0x10EAC),
    (0x10ECB, 0x10ECF),
    (0x10EF0, 0x10EFF),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x11073, 0x11074),
    (0x110C2, 0x110C2),
    (0x11145, 0x11146),
    (0x111C9, 0x111C9),
    (0x111CE, 0x111CF),
    (0x11241, 0x11241),
    (0x1133B, 0x1133B),
    (0x113B8, 0x113C0),
    (0x113C2, 0x113C2),
    (0x113C5, 0x113C5),
    (0x113C7, 0x113CA),
    (0x113CC, 0x113D0),
    (0x113D2, 0x113D2),
    (0x113E1, 0x113E2),
    (0x1145E, 0x1145E),
    (0x1182C, 0x1183A),
    (0x11930, 0x11935),
    (0x11937, 0x11938),
    (0x1193B, 0x1193E),
    (0x11940, 0x11940),
    (0x11942, 0x11943),
    (0x119D1, 0x119D7),
    (0x119DA, 0x119E0),
    (0x119E4, 0x119E4),
    (0x11A01, 0x11A0A),
    (0x11A33, 0x11A39),
    (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47),
    (0x11A51, 0x11A5B),
    (0x11A8A, 0x11A99),
    (0x11B60, 0x11B67),
    (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47),
    (0x11D8A, 0x11D8E),
    (0x11D90, 0x11D91),
    (0x11D93, 0x11D97),
    (0x11DF0, 0x11DF0),
    (0x11EF3, 0x11EF6),
    (0x11F00, 0x11F01),
    (0x11F03, 0x11F03),
    (0x11F34, 0x11F3A),
    (0x11F3E, 0x11F42),
    (0x11F5A, 0x11F5A),
    (0x13440, 0x13440),
    (0x13447, 0x13455),
    (0x1611E, 0x1612F),
    (0x16F4F, 0x16F4F),
    (0x16F7F, 0x16F87),
    (0x16FE4, 0x16FE4),
    (0x16FF0, 0x16FF1),
    (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46),
    (0x1D127, 0x1D128),
    (0x1D250, 0x1D252),
    (0x1D25B, 0x1D25C),
    (0x1D25F, 0x1D25F),
    (0x1D280, 0x1D281),
    (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1E4EC, 0x1E4EF),
    (0x1E5EE, 0x1E5EF),
    (0x1E6E3, 0x1E6E3),
    (0x1E6E6, 0x1E6E6),
    (0x1E6EE, 0x1E6EF),
    (0x1E6F5, 0x1E6F5),
)
# Characters the library's StripAccents removes although unicodedata says they are not marks.
_MARKS_ONLY_IN_UNICODE_9: tuple[CodePointRange, ...] = ((0x1CF2, 0x1CF3),)

# Non-spacing marks (Mn) assigned after Unicode 8.0: BertNormalizer's accent stripping keeps them.
_NONSPACING_MARKS_AFTER_UNICODE_8: tuple[CodePointRange, ...] = (
    (0x05C8, 0x05C9),
    (0x07FD, 0x07FD),
    (0x0897, 0x089F),
    (0x08CA, 0x08E1),
    (0x09FE, 0x09FE),
    (0x0AFA, 0x0AFF),
    (0x0B53, 0x0B55),
    (0x0C04, 0x0C04),
    (0x0C3C, 0x0C3C),
    (0x0D00, 0x0D00),
    (0x0D3B, 0x0D3C),
    (0x0D81, 0x0D81),
    (0x0EBA, 0x0EBA),
    (0x0ECE, 0x0ECE),
    (0x180F, 0x180F),
    (0x1885, 0x1886),
    (0x1ABF, 0x1AF0),
    (0x1DF6, 0x1DFB),
    (0xA82C, 0xA82C),
    (0xA8C5, 0xA8C5),
    (0xA8FF, 0xA8FF),
    (0xA9BD, 0xA9BD),
    (0x10D24, 0x10D27),
    (0x10D69, 0x10D6D),
    (0x10EAB, 0x10EAC),
    (0x10ECB, 0x10ECF),
    (0x10EF0, 0x10EFF),
    (0x10F46, 0x10F50),
    (0x10F82, 0x10F85),
    (0x11070, 0x11070),
    (0x11073, 0x11074),
    (0x110C2, 0x110C2),
    (0x111C9, 0x111C9),
    (0x111CF, 0x111CF),
    (0x1123E, 0x1123E),
    (0x11241, 0x11241),
    (0x1133B, 0x1133B),
    (0x113BB, 0x113C0),
    (0x113CE, 0x113CE),
    (0x113D0, 0x113D0),
    (0x113D2, 0x113D2),
    (0x113E1, 0x113E2),
    (0x11438, 0x1143F),
    (0x11442, 0x11444),
    (0x11446, 0x11446),
    (0x1145E, 0x1145E),
    (0x1182F, 0x11837),
    (0x11839, 0x1183A),
    (0x1193B, 0x1193C),
    (0x1193E, 0x1193E),
    (0x11943, 0x11943),
    (0x119D4, 0x119D7),
    (0x119DA, 0x119DB),
    (0x119E0, 0x119E0),
    (0x11A01, 0x11A0A),
    (0x11A33, 0x11A38),
    (0x11A3B, 0x11A3E),
    (0x11A47, 0x11A47),
    (0x11A51, 0x11A56),
    (0x11A59, 0x11A5B),
    (0x11A8A, 0x11A96),
    (0x11A98, 0x11A99),
    (0x11B60, 0x11B60),
    (0x11B62, 0x11B64),
    (0x11B66, 0x11B66),
    (0x11C30, 0x11C36),
    (0x11C38, 0x11C3D),
    (0x11C3F, 0x11C3F),
    (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0),
    (0x11CB2, 0x11CB3),
    (0x11CB5, 0x11CB6),
    (0x11D31, 0x11D36),
    (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D),
    (0x11D3F, 0x11D45),
    (0x11D47, 0x11D47),
    (0x11D90, 0x11D91),
    (0x11D95, 0x11D95),
    (0x11D97, 0x11D97),
    (0x11DF0, 0x11DF0),
    (0x11EF3, 0x11EF4),
    (0x11F00, 0x11F01),
    (0x11F36, 0x11F3A),
    (0x11F40, 0x11F40),
    (0x11F42, 0x11F42),
    (0x11F5A, 0x11F5A),
    (0x13440, 0x13440),
    (0x13447, 0x13455),
    (0x1611E, 0x16129),
    (0x1612D, 0x1612F),
    (0x16F4F, 0x16F4F),
    (0x16FE4, 0x16FE4),
    (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46),
    (0x1D127, 0x1D128),
    (0x1D25B, 0x1D25C),
    (0x1E000, 0x1E006),
    (0x1E008, 0x1E018),
    (0x1E01B, 0x1E021),
    (0x1E023, 0x1E024),
    (0x1E026, 0x1E02A),
    (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136),
    (0x1E2AE, 0x1E2AE),
    (0x1E2EC, 0x1E2EF),
    (0x1E4EC, 0x1E4EF),
    (0x1E5EE, 0x1E5EF),
    (0x1E6E3, 0x1E6E3),
    (0x1E6E6, 0x1E6E6),
    (0x1E6EE, 0x1E6EF),
    (0x1E6F5, 0x1E6F5),
    (0x1E944, 0x1E94A),
)
# Characters that were Mn in Unicode 8.0 but have another category in unicodedata.
_NONSPACING_MARKS_ONLY_IN_UNICODE_8: tuple[CodePointRange, ...] = ((0x1734, 0x1734),)

# Cc/Cf/Co characters assigned after Unicode 8.0: BertNormalizer's clean_text keeps them.
_CONTROLS_AFTER_UNICODE_8: tuple[CodePointRange, ...] = (
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
)

# Lowercase mappings of Rust's standard library that unicodedata does not have yet.
_LOWERCASE_NEWER_THAN_PYTHON: dict[int, str] = {
    code_point: chr(code_point + shift if target is None else target)
    for first, last, shift, target in (
        (0x1C89, 0x1C89, 1, None),
        (0xA7CB, 0xA7CB, 0, 0x0264),
        (0xA7CC, 0xA7CC, 1, None),
        (0xA7CE, 0xA7CE, 1, None),
        (0xA7D2, 0xA7D2, 1, None),
        (0xA7D4, 0xA7D4, 1, None),
        (0xA7DA, 0xA7DA, 1, None),
        (0xA7DC, 0xA7DC, 0, 0x019B),
        (0x10D50, 0x10D65, 0x20, None),
        (0x16EA0, 0x16EB8, 0x1B, None),
    )
    for code_point in range(first, last + 1)
}

# CJK ideograph blocks, as BertNormalizer's `is_chinese_char` lists them.
_CJK_IDEOGRAPHS: tuple[CodePointRange, ...] = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0x2F800, 0x2FA1F),
)

# Rust's char::is_whitespace (Unicode White_Space), as a character class body.
_WHITE_SPACE_CLASS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

# Every assigned character lives in planes 0-3 and 14, or in the private-use planes 15-16.
_ASSIGNED_PLANES = (range(0x00000, 0x40000), range(0xE0000, 0xF0000))
_PRIVATE_USE_PLANES: tuple[CodePointRange, ...] = ((0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))


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
def _unknown_to_unicode_9() -> frozenset[int]:
    return _code_points(_UNKNOWN_TO_UNICODE_9_NORMALIZATION)


@cache
def _unicodedata_would_differ_regex() -> re.Pattern[str]:
    """Characters on which unicodedata.normalize may disagree with the library: the unknown ones,
    and the second half of a canonical pair that composes, in unicodedata only, to an unknown
    character (U+11935 U+11930 -> U+11938 DIVES AKURU VOWEL SIGN O)."""
    unknown = _unknown_to_unicode_9()
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
    for code_point in chain.from_iterable(_ASSIGNED_PLANES):
        category = unicodedata.category(chr(code_point))
        if category[0] == "M":
            marks.add(code_point)
            if category == "Mn":
                nonspacing.add(code_point)
        elif category in ("Cc", "Cf", "Co"):
            controls.add(code_point)
    controls |= _code_points(_PRIVATE_USE_PLANES)
    return {"M": frozenset(marks), "Mn": frozenset(nonspacing), "C": frozenset(controls)}


@cache
def _unicode_9_marks() -> frozenset[int]:
    marks = _categories()["M"] - _code_points(_MARKS_AFTER_UNICODE_9)
    return marks | _code_points(_MARKS_ONLY_IN_UNICODE_9)


@cache
def _unicode_9_marks_regex() -> re.Pattern[str]:
    return _char_class_regex(_unicode_9_marks())


@cache
def _unicode_8_nonspacing_marks() -> frozenset[int]:
    marks = _categories()["Mn"] - _code_points(_NONSPACING_MARKS_AFTER_UNICODE_8)
    return marks | _code_points(_NONSPACING_MARKS_ONLY_IN_UNICODE_8)


@cache
def _unicode_8_nonspacing_marks_regex() -> re.Pattern[str]:
    return _char_class_regex(_unicode_8_nonspacing_marks())


@cache
def _bert_removed() -> frozenset[int]:
    """What clean_text drops: NUL, U+FFFD and Unicode 8.0 Cc/Cf/Co except tab, newline, return."""
    controls = _categories()["C"] - _code_points(_CONTROLS_AFTER_UNICODE_8)
    return (controls | {0x0000, 0xFFFD}) - {ord("\t"), ord("\n"), ord("\r")}


@cache
def _bert_removed_regex() -> re.Pattern[str]:
    return _char_class_regex(_bert_removed())


_WHITE_SPACE_REGEX = re.compile(f"[{_WHITE_SPACE_CLASS}]")
_CJK_REGEX = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in _CJK_IDEOGRAPHS) + "]")
_LOWERCASE_NEWER_REGEX = _char_class_regex(_LOWERCASE_NEWER_THAN_PYTHON)


# --------------------------------------------------------------------------------------------
# Unicode normalization with the library's change stream (crate unicode-normalization-alignments)
# --------------------------------------------------------------------------------------------


def _combining_class(char: str) -> int:
    return 0 if ord(char) in _unknown_to_unicode_9() else unicodedata.combining(char)


@cache
def _decomposition(char: str, compatibility: bool) -> str:
    """Full (recursive) decomposition of one character; unicodedata keeps it in table order."""
    if ord(char) in _unknown_to_unicode_9():
        return char
    return unicodedata.normalize("NFKD" if compatibility else "NFD", char)


def _decompose(text: str, compatibility: bool) -> list[Change]:
    """Decompose every character (first piece change 0, the others inserted with change 1), then
    stable-sort each run of non-starters by combining class, changes travelling with their
    characters."""
    stream: list[Change] = []
    for char in text:
        pieces = _decomposition(char, compatibility)
        stream.append((pieces[0], 0))
        stream.extend((piece, 1) for piece in pieces[1:])
    index = 0
    while index < len(stream):
        if _combining_class(stream[index][0]) == 0:
            index += 1
            continue
        run_end = index
        while run_end < len(stream) and _combining_class(stream[run_end][0]) != 0:
            run_end += 1
        if run_end - index > 1:
            stream[index:run_end] = sorted(stream[index:run_end], key=lambda item: _combining_class(item[0]))
        index = run_end
    return stream


_HANGUL_S_BASE, _HANGUL_L_BASE, _HANGUL_V_BASE, _HANGUL_T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_HANGUL_L_COUNT, _HANGUL_V_COUNT, _HANGUL_T_COUNT = 19, 21, 28
_HANGUL_S_COUNT = _HANGUL_L_COUNT * _HANGUL_V_COUNT * _HANGUL_T_COUNT


@cache
def _composition_pairs() -> dict[tuple[str, str], str]:
    """(first, second) -> primary composite. unicodedata has no exclusion list, so a canonical
    pair counts only when NFC really recomposes it."""
    pairs: dict[tuple[str, str], str] = {}
    unknown = _unknown_to_unicode_9()
    for code_point in range(0x20000):
        decomposition = unicodedata.decomposition(chr(code_point))
        if not decomposition or decomposition.startswith("<") or code_point in unknown:
            continue
        parts = decomposition.split()
        if len(parts) != 2:
            continue
        first, second = chr(int(parts[0], 16)), chr(int(parts[1], 16))
        if unicodedata.normalize("NFC", first + second) == chr(code_point):
            pairs[(first, second)] = chr(code_point)
    return pairs


def _compose(first: str, second: str) -> str | None:
    lead, follow = ord(first), ord(second)
    if 0 <= lead - _HANGUL_L_BASE < _HANGUL_L_COUNT and 0 <= follow - _HANGUL_V_BASE < _HANGUL_V_COUNT:
        syllable = (lead - _HANGUL_L_BASE) * _HANGUL_V_COUNT + (follow - _HANGUL_V_BASE)
        return chr(_HANGUL_S_BASE + syllable * _HANGUL_T_COUNT)
    syllable = lead - _HANGUL_S_BASE
    is_lv_syllable = 0 <= syllable < _HANGUL_S_COUNT and syllable % _HANGUL_T_COUNT == 0
    if is_lv_syllable and 0 < follow - _HANGUL_T_BASE < _HANGUL_T_COUNT:
        return chr(lead + follow - _HANGUL_T_BASE)
    return _composition_pairs().get((first, second))


def _recompose(decomposed: list[Change]) -> list[Change]:
    """The crate's Recompositions iterator: canonical composition where a composite absorbs the
    change of what it absorbs (composee change + absorbed change - 1)."""
    output: list[Change] = []
    blocked: list[Change] = []  # characters after the composee that did not compose with it
    composee: Change | None = None
    last_class: int | None = None  # combining class of the last blocked character
    for char, change in decomposed:
        char_class = _combining_class(char)
        if composee is None:
            if char_class != 0:
                output.append((char, change))
            else:
                composee = (char, change)
            continue
        if last_class is not None and last_class >= char_class:
            # `char` is blocked from the composee.
            if char_class == 0:
                output.append(composee)
                output.extend(blocked)
                blocked.clear()
                composee, last_class = (char, change), None
            else:
                blocked.append((char, change))
                last_class = char_class
            continue
        composite = _compose(composee[0], char)
        if composite is not None:
            composee = (composite, composee[1] + change - 1)
        elif last_class is None and char_class == 0:
            output.append(composee)
            composee = (char, change)
        else:
            blocked.append((char, change))
            last_class = char_class
    if composee is not None:
        output.append(composee)
    output.extend(blocked)
    return output


def _normalize_str(form: str, text: str, exact: Callable[[str], str]) -> str:
    """unicodedata.normalize where it agrees with the library, `exact` (slow) where it may not.
    Space and line feed are starters that neither reorder nor compose with anything, so
    normalization never acts across them: only the runs between them that hold a risky character
    need the exact path."""
    if text.isascii():
        return text  # ASCII is NFD, NFKC and free of risky characters
    risky = _unicodedata_would_differ_regex()
    pieces: list[str] = []
    done = 0
    while (match := risky.search(text, done)) is not None:
        run_start = max(text.rfind(" ", done, match.start()), text.rfind("\n", done, match.start())) + 1
        run_start = max(run_start, done)
        run_ends = [
            index for index in (text.find(" ", match.end()), text.find("\n", match.end())) if index != -1
        ]
        run_end = min(run_ends, default=len(text))
        pieces.append(unicodedata.normalize(form, text[done:run_start]))
        pieces.append(exact(text[run_start:run_end]))
        done = run_end
    pieces.append(unicodedata.normalize(form, text[done:]))
    return "".join(pieces)


def _lowercase_str(text: str) -> str:
    """Lowercase character by character, as Rust's char::to_lowercase. str.lower() differs only
    in giving a final sigma 'ς', so 'Σ' is lowered on its own."""
    if "Σ" in text:
        lowered = "σ".join(part.lower() for part in text.split("Σ"))
    else:
        lowered = text.lower()
    if not lowered.isascii() and _LOWERCASE_NEWER_REGEX.search(lowered):
        lowered = lowered.translate(_LOWERCASE_NEWER_THAN_PYTHON)
    return lowered


def _lowercase_char(char: str) -> str:
    return _LOWERCASE_NEWER_THAN_PYTHON.get(ord(char)) or char.lower()


def _lowercase(normalized: Normalized) -> Normalized:
    text = normalized.text
    lowered = _lowercase_str(text)
    if lowered == text:
        return normalized
    if len(lowered) == len(text):
        # One character for one: alignments are unchanged.
        return Normalized(lowered, normalized.alignments)
    changes: list[Change] = []
    for char in text:
        pieces = _lowercase_char(char)
        changes.append((pieces[0], 0))
        changes.extend((piece, 1) for piece in pieces[1:])
    return _apply_changes(normalized, changes)


def _remove_chars(normalized: Normalized, removed: re.Pattern[str]) -> Normalized:
    """The library's filter, for characters matched by `removed`."""
    if removed.search(normalized.text) is None:
        return normalized
    changes, removed_at_start = _filter_changes(normalized.text, lambda char: removed.match(char) is None)
    return _apply_changes(normalized, changes, removed_at_start)


# --------------------------------------------------------------------------------------------
# Components
# --------------------------------------------------------------------------------------------


class Normalizer:
    """One pipeline stage. Subclasses implement `transform` and `to_hf_json`, and override
    `normalize_str` with a fast path when they have one."""

    def normalize(self, text: str) -> Normalized:
        return self.transform(Normalized.unchanged(text))

    def transform(self, normalized: Normalized) -> Normalized:
        """Normalize already-normalized text, composing alignments (used by Sequence)."""
        raise NotImplementedError

    def normalize_str(self, text: str) -> str:
        """The text of `normalize(text)`, without tracking alignments."""
        return self.normalize(text).text

    def to_hf_json(self) -> dict:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_hf_json() == self.to_hf_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_hf_json()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_hf_json()})"


class Identity(Normalizer):
    """No normalization. The library has no such component: tokenizer.json says
    `"normalizer": null`, so `to_hf_json()` is None."""

    def transform(self, normalized: Normalized) -> Normalized:
        return normalized

    def normalize_str(self, text: str) -> str:
        return text

    def to_hf_json(self) -> None:  # type: ignore[override]
        return None


class NFD(Normalizer):
    """Canonical decomposition (Unicode 9.0 tables, like the library)."""

    def transform(self, normalized: Normalized) -> Normalized:
        if normalized.text.isascii():
            return normalized
        return _apply_changes(normalized, _decompose(normalized.text, compatibility=False))

    def normalize_str(self, text: str) -> str:
        return _normalize_str("NFD", text, lambda line: self.normalize(line).text)

    def to_hf_json(self) -> dict:
        return {"type": "NFD"}


class NFKC(Normalizer):
    """Compatibility decomposition then canonical composition (Unicode 9.0 tables)."""

    def transform(self, normalized: Normalized) -> Normalized:
        if normalized.text.isascii():
            return normalized
        return _apply_changes(normalized, _recompose(_decompose(normalized.text, compatibility=True)))

    def normalize_str(self, text: str) -> str:
        return _normalize_str("NFKC", text, lambda line: self.normalize(line).text)

    def to_hf_json(self) -> dict:
        return {"type": "NFKC"}


class Lowercase(Normalizer):
    """Per-character lowercase: no final sigma, 'İ' -> 'i' + U+0307."""

    def transform(self, normalized: Normalized) -> Normalized:
        return _lowercase(normalized)

    def normalize_str(self, text: str) -> str:
        return _lowercase_str(text)

    def to_hf_json(self) -> dict:
        return {"type": "Lowercase"}


class StripAccents(Normalizer):
    """Removes every Unicode 9.0 mark (Mn, Mc, Me). It does not decompose: put NFD first."""

    def transform(self, normalized: Normalized) -> Normalized:
        if normalized.text.isascii():
            return normalized
        return _remove_chars(normalized, _unicode_9_marks_regex())

    def normalize_str(self, text: str) -> str:
        return text if text.isascii() else _unicode_9_marks_regex().sub("", text)

    def to_hf_json(self) -> dict:
        return {"type": "StripAccents"}


class BertNormalizer(Normalizer):
    """BERT's text cleanup, in the library's order: clean text, space out CJK ideographs, strip
    accents (NFD then drop Mn), lowercase. `strip_accents=None` follows `lowercase`."""

    def __init__(
        self,
        clean_text: bool = True,
        handle_chinese_chars: bool = True,
        strip_accents: bool | None = None,
        lowercase: bool = True,
    ) -> None:
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase

    @property
    def strips_accents(self) -> bool:
        return self.lowercase if self.strip_accents is None else self.strip_accents

    def transform(self, normalized: Normalized) -> Normalized:
        if self.clean_text:
            normalized = _remove_chars(normalized, _bert_removed_regex())
            # One character for one: alignments are unchanged.
            normalized = Normalized(_WHITE_SPACE_REGEX.sub(" ", normalized.text), normalized.alignments)
        if self.handle_chinese_chars and _CJK_REGEX.search(normalized.text):
            changes: list[Change] = []
            for char in normalized.text:
                if _CJK_REGEX.match(char):
                    changes += [(" ", 0), (char, 1), (" ", 1)]
                else:
                    changes.append((char, 0))
            normalized = _apply_changes(normalized, changes)
        if self.strips_accents and not normalized.text.isascii():
            normalized = NFD().transform(normalized)
            normalized = _remove_chars(normalized, _unicode_8_nonspacing_marks_regex())
        if self.lowercase:
            normalized = _lowercase(normalized)
        return normalized

    def normalize_str(self, text: str) -> str:
        if self.clean_text:
            text = _WHITE_SPACE_REGEX.sub(" ", _bert_removed_regex().sub("", text))
        if self.handle_chinese_chars:
            text = _CJK_REGEX.sub(r" \g<0> ", text)
        if self.strips_accents and not text.isascii():
            text = _unicode_8_nonspacing_marks_regex().sub("", NFD().normalize_str(text))
        if self.lowercase:
            text = _lowercase_str(text)
        return text

    def to_hf_json(self) -> dict:
        return {
            "type": "BertNormalizer",
            "clean_text": self.clean_text,
            "handle_chinese_chars": self.handle_chinese_chars,
            "strip_accents": self.strip_accents,
            "lowercase": self.lowercase,
        }


class Sequence(Normalizer):
    """Applies normalizers in order; alignments compose through all of them."""

    def __init__(self, normalizers: SequenceOf[Normalizer]) -> None:
        self.normalizers = tuple(normalizers)

    def transform(self, normalized: Normalized) -> Normalized:
        for normalizer in self.normalizers:
            normalized = normalizer.transform(normalized)
        return normalized

    def normalize_str(self, text: str) -> str:
        for normalizer in self.normalizers:
            text = normalizer.normalize_str(text)
        return text

    def to_hf_json(self) -> dict:
        # An Identity inside a Sequence has no JSON form of its own: it is simply left out.
        parts = [normalizer.to_hf_json() for normalizer in self.normalizers]
        return {"type": "Sequence", "normalizers": [part for part in parts if part is not None]}


def normalizer_from_hf_json(config: dict | None) -> Normalizer:
    """The component for a tokenizer.json `normalizer` entry (None means no normalizer)."""
    if config is None:
        return Identity()
    kind = config.get("type")
    if kind == "Sequence":
        return Sequence([normalizer_from_hf_json(item) for item in config["normalizers"]])
    if kind == "BertNormalizer":
        return BertNormalizer(
            clean_text=config.get("clean_text", True),
            handle_chinese_chars=config.get("handle_chinese_chars", True),
            strip_accents=config.get("strip_accents"),
            lowercase=config.get("lowercase", True),
        )
    simple = {"NFD": NFD, "NFKC": NFKC, "Lowercase": Lowercase, "StripAccents": StripAccents}
    if kind in simple:
        return simple[kind]()
    supported = ", ".join([*simple, "BertNormalizer", "Sequence"])
    raise ValueError(f"unsupported normalizer type {kind!r}; supported: {supported}")


NORMALIZERS: dict[str, Callable[[], Normalizer]] = {
    "nfd": NFD,
    "nfkc": NFKC,
    "lowercase": Lowercase,
    "strip-accents": StripAccents,
    "bert": BertNormalizer,
}


def build_normalizer(names: SequenceOf[str]) -> Normalizer:
    """The normalizer for registry names applied in order: [] -> Identity, one name -> that
    component, several -> a Sequence."""
    if isinstance(names, str):
        names = [names]
    unknown = [name for name in names if name not in NORMALIZERS]
    if unknown:
        raise ValueError(f"unknown normalizer {unknown[0]!r}; choose from: {', '.join(NORMALIZERS)}")
    components = [NORMALIZERS[name]() for name in names]
    if not components:
        return Identity()
    return components[0] if len(components) == 1 else Sequence(components)
