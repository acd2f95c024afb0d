"""Pre-tokenizers that cut at white space and punctuation, whose pre-tokens are exactly the
matches of one regular expression: BertPreTokenizer, Whitespace, WhitespaceSplit.

Follows the `tokenizers` library (0.23.3), tokenizers/src/pre_tokenizers/bert.rs and
whitespace.rs:
- BertPreTokenizer: splits on white space (dropped) and isolates every punctuation character:
  ASCII punctuation and symbols (`$ + < = > ^ \\` | ~`) and Unicode 8.0 P* characters.
- Whitespace: `\\w+|[^\\w\\s]+` with the library's \\w = Alphabetic | Mark | Nd | Pc |
  Join_Control (so `x²` splits in two, combining marks and ZWJ stay inside words).
- WhitespaceSplit: splits on Unicode White_Space (not Python's str.split, which also splits on
  U+001C..U+001F).

What it does not do: the library's Punctuation, Digits, CharDelimiterSplit or UnicodeScripts
pre-tokenizers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.pre_tokenizers.base import PreToken, PreTokenizer
from explorer.pipeline.pre_tokenizers.patterns import (
    ASCII_SPACE,
    UNKNOWN_TO_LIBRARY,
    VersionedPattern,
    class_items,
)
from explorer.pipeline.pre_tokenizers.regex_tables import (
    PUNCTUATION_AFTER_UNICODE_8,
    PUNCTUATION_ONLY_IN_UNICODE_8,
    UNKNOWN_TO_LIBRARY_REGEX,
)

WORD_CHARACTERS = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"  # the library's \w
_WHITESPACE_PATTERN = VersionedPattern(
    fast=rf"[{WORD_CHARACTERS}]+|[^\s{WORD_CHARACTERS}]+",
    exact=rf"[[{WORD_CHARACTERS}]--{UNKNOWN_TO_LIBRARY}]+|[[^\s{WORD_CHARACTERS}]{UNKNOWN_TO_LIBRARY}]+",
    differing=UNKNOWN_TO_LIBRARY_REGEX,
    ascii=rf"[A-Za-z0-9_]+|[^{ASCII_SPACE}A-Za-z0-9_]+",
)

_ASCII_PUNCTUATION = r"\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e"  # Rust's char::is_ascii_punctuation
BERT_PUNCTUATION = (
    rf"[[[\p{{P}}{_ASCII_PUNCTUATION}]--[{class_items(PUNCTUATION_AFTER_UNICODE_8)}]]"
    rf"{class_items(PUNCTUATION_ONLY_IN_UNICODE_8)}]"
)
# Runs of neither white space nor punctuation, or one punctuation character.
_BERT_PATTERN = VersionedPattern(
    fast=rf"[^\s\p{{P}}{_ASCII_PUNCTUATION}]+|[\p{{P}}{_ASCII_PUNCTUATION}]",
    exact=rf"[^\s{BERT_PUNCTUATION}]+|{BERT_PUNCTUATION}",
    differing=PUNCTUATION_AFTER_UNICODE_8 + PUNCTUATION_ONLY_IN_UNICODE_8,
    ascii=rf"[^{ASCII_SPACE}{_ASCII_PUNCTUATION}]+|[{_ASCII_PUNCTUATION}]",
)


class RegexPieces(PreTokenizer):
    """A pre-tokenizer whose pre-tokens are exactly the matches of one regex."""

    pattern: VersionedPattern

    def pre_tokenize(self, text: str) -> list[PreToken]:
        return [(match.group(), match.span()) for match in self.pattern.for_text(text).finditer(text)]

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        text = normalized.text
        return [
            Normalized(match.group(), normalized.alignments[match.start() : match.end()])
            for match in self.pattern.for_text(text).finditer(text)
        ]

    def words(self, text: str) -> list[str]:
        return self.pattern.for_text(text).findall(text)

    def count_line_words(self, chunks: Iterator[str]) -> Counter[str]:
        # White space (line breaks included) separates pre-tokens, so none spans two lines.
        return self.pattern.count_lines(chunks)

    def count_lines_with_endings(self, chunks: Iterator[str]) -> Counter[str]:
        # A line break is white space, in no pre-token: an ending kept changes no piece.
        return self.pattern.count_lines(chunks)


class BertPreTokenizer(RegexPieces):
    hf_type = "BertPreTokenizer"
    pattern = _BERT_PATTERN


class Whitespace(RegexPieces):
    hf_type = "Whitespace"
    pattern = _WHITESPACE_PATTERN


class WhitespaceSplit(RegexPieces):
    hf_type = "WhitespaceSplit"
    pattern = VersionedPattern(fast=r"\S+", exact=r"\S+", differing=(), ascii=rf"[^{ASCII_SPACE}]+")
