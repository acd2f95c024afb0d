"""Unicode tables: where the `regex` module's character classes differ from the `tokenizers`
library's.

The library's regex engines (onig, and the `regex` crate) know Unicode 16.0, and BertPreTokenizer
tests punctuation with a Unicode 8.0 table (tokenizers/src/pre_tokenizers/bert.rs), while the
`regex` module used here knows Unicode 17.0. Each table lists code points as hexadecimal
`FIRST-LAST` ranges (inclusive) or single code points, measured against tokenizers 0.23.3 one
code point at a time; tests/parity/test_pre_tokenizers.py re-checks every code point.

What it does not do: build patterns (patterns.py) or split anything.
"""

from __future__ import annotations

from explorer.pipeline.normalizers.unicode_tables import CodePointRange, parse_ranges

CodePointRanges = tuple[CodePointRange, ...]

# Letters, numbers and word characters of Unicode 17.0 that the library's regex engines
# (Unicode 16.0) do not know: for them these characters are unassigned, i.e. "other".
UNKNOWN_TO_LIBRARY_REGEX = parse_ranges("""
    0558 058B-058C 05C8-05C9 088F 0B53-0B54 0C5C 0CDC 1ACF-1AF0 208F 209D-209F A7CE-A7CF A7D2 A7D4 A7DD
    A7E2 A7F1 AB6C-AB6D 107BB-107BF 10940-10959 10EC5-10EC7 10ECB-10ECF 10ED9-10EEE 10EF0-10EFB 11B0A
    11B60-11B67 11DB0-11DDB 11DE0-11DE9 11DF0-11DF1 1246F 12475-1247F 12550-12686 16EA0-16EB8
    16EBB-16ED3 16FF2-16FF6 187F8-187FF 18CD6-18CDA 18D09-18D20 18D80-18DF2 18E00-19191 191A0-191D2
    1B123-1B128 1B168 1D127-1D128 1D250-1D252 1D25B-1D25C 1D25F 1D280-1D281 1D6A6 1DF1F-1DF24
    1DF2B-1DF81 1DF90-1DF96 1DFCD-1DFFF 1E6C0-1E6DE 1E6E0-1E6F5 1E6FE-1E6FF 2B73A-2B73F 2B81E
    2CEA2-2CEAD 323B0-33479 3D000-3FC3F
""")

# Punctuation (P*) assigned after Unicode 8.0: BertPreTokenizer does not isolate it.
PUNCTUATION_AFTER_UNICODE_8 = parse_ranges("""
    061D 09FD 0A76 0C77 0C84 1B4E-1B4F 1B7D-1B7F 2E43-2E4F 2E52-2E5D 2E60-2E63 10D6E 10EAD 10ED0
    10F55-10F59 10F86-10F89 113D4-113D5 113D7-113D8 1144B-1144F 1145A-1145B 1145D 11660-1166C 116B9
    1183B 11944-11946 119E2 11A3F-11A46 11A9A-11A9C 11A9E-11AA2 11B00-11B09 11BE1 11C41-11C45
    11C70-11C71 11EF7-11EF8 11F43-11F4F 11FFF 12FF1-12FF2 16D6D-16D6F 16E97-16E9A 16FE2 1E5FF
    1E95E-1E95F
""")
# Punctuation in Unicode 8.0 that is not any more: U+166D CANADIAN SYLLABICS CHI SIGN (now So),
# U+111C9 SHARADA SANDHI MARK (now Mn).
PUNCTUATION_ONLY_IN_UNICODE_8 = parse_ranges("166D 111C9")
