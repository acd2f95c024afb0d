"""Unicode tables: what Python's `unicodedata` must be corrected by to give the Unicode versions the
`tokenizers` library was built with.

The library mixes several versions: NFD, NFKC and StripAccents use Unicode 9.0 tables (the
`unicode-normalization-alignments` crate), BertNormalizer's control and non-spacing-mark tests use
Unicode 8.0 categories (tokenizers/src/normalizers/bert.rs), and lowercasing uses Rust's standard
library, newer than Python 3.11's `unicodedata` (14.0). Each table below lists code points,
written as hexadecimal `FIRST-LAST` ranges (inclusive) or single code points, measured against
tokenizers 0.23.3 one code point at a time (and up to Unicode 17.0 through the `regex` module, so
a newer Python's unicodedata is corrected too). tests/parity/test_normalizers.py re-checks every code
point.

What it does not do: build the character classes (character_classes.py) or normalize anything.
"""

from __future__ import annotations

CodePointRange = tuple[int, int]  # inclusive (first, last)


def parse_ranges(text: str) -> tuple[CodePointRange, ...]:
    """'0558 058B-058C' -> ((0x558, 0x558), (0x58B, 0x58C))."""
    ranges = []
    for item in text.split():
        first, _, last = item.partition("-")
        ranges.append((int(first, 16), int(last or first, 16)))
    return tuple(ranges)


# Assigned after Unicode 9.0 with a decomposition or a non-zero combining class: the library's
# normalization tables do not know them, so they neither decompose, reorder nor compose.
UNKNOWN_TO_UNICODE_9_NORMALIZATION = parse_ranges("""
    0558 058B-058C 05C8-05C9 07FD 0897-089F 08CA-08D3 09FE 0C3C 0D3B-0D3C 0EBA 1715 1ABF-1AF0 1DF6-1DFA
    209D-209F 32FF A7F1-A7F4 A82C AB69 105C9 105E4 10781-10785 10787-107B0 107B2-107BF 10D24-10D27
    10D69-10D6D 10EAB-10EAC 10ECB-10ECF 10EF0-10EFB 10EFD-10EFF 10F46-10F50 10F82-10F85 11070 1133B
    11383 11385 1138E 11391 113C5 113C7-113C8 113CE-113D0 1145E 11839-1183A 11938 1193D-1193E 11943
    119E0 11A34 11A47 11A99 11D42 11D44-11D45 11D97 11F41-11F42 16121-16128 1612F 16D68-16D6A
    16FF0-16FF1 1B123-1B126 1CCD6-1CCF9 1D127-1D128 1D250-1D252 1D25B-1D25C 1D25F 1D280-1D281 1D6A6
    1DF95 1DFCD-1DFFF 1E030-1E06D 1E08F 1E130-1E136 1E2AE 1E2EC-1E2EF 1E4EC-1E4EF 1E5EE-1E5EF 1E6E3
    1E6E6 1E6EE-1E6EF 1E6F5 1F16C 1FBF0-1FBF9
""")

# Marks (Mn/Mc/Me) assigned after Unicode 9.0: the library's StripAccents keeps them.
MARKS_AFTER_UNICODE_9 = parse_ranges("""
    05C8-05C9 07FD 0897-089F 08CA-08D3 09FE 0AFA-0AFF 0B53-0B55 0C04 0C3C 0CF3 0D00 0D3B-0D3C 0D81 0EBA
    0ECE 1715 180F 1ABF-1AF0 1CF7 1DF6-1DFA A82C A8FF 10D24-10D27 10D69-10D6D 10EAB-10EAC 10ECB-10ECF
    10EF0-10EFF 10F46-10F50 10F82-10F85 11070 11073-11074 110C2 11145-11146 111C9 111CE-111CF 11241
    1133B 113B8-113C0 113C2 113C5 113C7-113CA 113CC-113D0 113D2 113E1-113E2 1145E 1182C-1183A
    11930-11935 11937-11938 1193B-1193E 11940 11942-11943 119D1-119D7 119DA-119E0 119E4 11A01-11A0A
    11A33-11A39 11A3B-11A3E 11A47 11A51-11A5B 11A8A-11A99 11B60-11B67 11D31-11D36 11D3A 11D3C-11D3D
    11D3F-11D45 11D47 11D8A-11D8E 11D90-11D91 11D93-11D97 11DF0 11EF3-11EF6 11F00-11F01 11F03
    11F34-11F3A 11F3E-11F42 11F5A 13440 13447-13455 1611E-1612F 16F4F 16F7F-16F87 16FE4 16FF0-16FF1
    1CF00-1CF2D 1CF30-1CF46 1D127-1D128 1D250-1D252 1D25B-1D25C 1D25F 1D280-1D281 1E08F 1E130-1E136
    1E2AE 1E2EC-1E2EF 1E4EC-1E4EF 1E5EE-1E5EF 1E6E3 1E6E6 1E6EE-1E6EF 1E6F5
""")
# Characters the library's StripAccents removes although unicodedata says they are not marks.
MARKS_ONLY_IN_UNICODE_9 = parse_ranges("1CF2-1CF3")

# Non-spacing marks (Mn) assigned after Unicode 8.0: BertNormalizer's accent stripping keeps them.
NONSPACING_MARKS_AFTER_UNICODE_8 = parse_ranges("""
    05C8-05C9 07FD 0897-089F 08CA-08E1 09FE 0AFA-0AFF 0B53-0B55 0C04 0C3C 0D00 0D3B-0D3C 0D81 0EBA 0ECE
    180F 1885-1886 1ABF-1AF0 1DF6-1DFB A82C A8C5 A8FF A9BD 10D24-10D27 10D69-10D6D 10EAB-10EAC
    10ECB-10ECF 10EF0-10EFF 10F46-10F50 10F82-10F85 11070 11073-11074 110C2 111C9 111CF 1123E 11241
    1133B 113BB-113C0 113CE 113D0 113D2 113E1-113E2 11438-1143F 11442-11444 11446 1145E 1182F-11837
    11839-1183A 1193B-1193C 1193E 11943 119D4-119D7 119DA-119DB 119E0 11A01-11A0A 11A33-11A38
    11A3B-11A3E 11A47 11A51-11A56 11A59-11A5B 11A8A-11A96 11A98-11A99 11B60 11B62-11B64 11B66
    11C30-11C36 11C38-11C3D 11C3F 11C92-11CA7 11CAA-11CB0 11CB2-11CB3 11CB5-11CB6 11D31-11D36 11D3A
    11D3C-11D3D 11D3F-11D45 11D47 11D90-11D91 11D95 11D97 11DF0 11EF3-11EF4 11F00-11F01 11F36-11F3A
    11F40 11F42 11F5A 13440 13447-13455 1611E-16129 1612D-1612F 16F4F 16FE4 1CF00-1CF2D 1CF30-1CF46
    1D127-1D128 1D25B-1D25C 1E000-1E006 1E008-1E018 1E01B-1E021 1E023-1E024 1E026-1E02A 1E08F
    1E130-1E136 1E2AE 1E2EC-1E2EF 1E4EC-1E4EF 1E5EE-1E5EF 1E6E3 1E6E6 1E6EE-1E6EF 1E6F5 1E944-1E94A
""")
# Characters that were Mn in Unicode 8.0 but have another category in unicodedata.
NONSPACING_MARKS_ONLY_IN_UNICODE_8 = parse_ranges("1734")

# Cc/Cf/Co characters assigned after Unicode 8.0: BertNormalizer's clean_text keeps them.
CONTROLS_AFTER_UNICODE_8 = parse_ranges("0890-0891 08E2 110CD 13430-1343F")

# Lowercase mappings of Rust's standard library that unicodedata does not have yet. Each row
# (first, last, shift, target) maps every code point of the range to `target` or, without one,
# to itself + `shift`.
LOWERCASE_NEWER_THAN_PYTHON: dict[int, str] = {
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
CJK_IDEOGRAPHS = parse_ranges("3400-4DBF 4E00-9FFF F900-FAFF 20000-2A6DF 2A700-2B81F 2B920-2CEAF 2F800-2FA1F")

# Rust's char::is_whitespace (Unicode White_Space), as a character class body.
WHITE_SPACE_CLASS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

# Every assigned character lives in planes 0-3 and 14, or in the private-use planes 15-16.
ASSIGNED_PLANES = (range(0x00000, 0x40000), range(0xE0000, 0xF0000))
PRIVATE_USE_PLANES = parse_ranges("F0000-FFFFD 100000-10FFFD")
