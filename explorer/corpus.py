"""From corpus text to word counts: normalize and pre-tokenize every line, count distinct words.

A corpus is split into sequences at line breaks ("\\r\\n" and "\\n"), each line without its break,
exactly like feeding `train_from_iterator(lines)` to the `tokenizers` library. The result is a dict
word -> count in order of first appearance (the order the course's `word_freqs` has).

Fast paths, each equal to the line-by-line definition (tests check it):
- no normalizer and a whitespace-splitting pre-tokenizer: pre-tokenize the whole text at once,
  since no piece can contain a line break;
- byte-level: the GPT-2 pattern with `\\s` narrowed to exclude "\\n" finds the same pieces in the
  whole text as line by line; an ASCII-only text uses the standard `re` module with ASCII classes
  (twice as fast as `regex` with Unicode properties); distinct pieces are byte-mapped once each.

What it does not do: decide limits or decode uploads (see explorer/limits.py and the app).
"""

from __future__ import annotations

import re
from collections import Counter

import regex

from explorer.bytelevel import bytes_to_symbols
from explorer.normalizers import build_normalizer
from explorer.pre_tokenizers import build_pre_tokenizer

# GPT-2's pattern with whitespace classes that never match "\n", so that a whole text splits into
# the same pieces as its lines do.
_GPT2_NO_NEWLINE = regex.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|[^\S\n]+(?!\S)|[^\S\n]+"""
)
# The same on ASCII text: \p{L} = [A-Za-z], \p{N} = [0-9], White_Space = [\t\n\x0b\x0c\r ].
_ASCII_SPACE = r"\t\x0b\x0c\r "
_GPT2_ASCII_NO_NEWLINE = re.compile(
    rf"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\n{_ASCII_SPACE}A-Za-z0-9]+"""
    rf"""|[{_ASCII_SPACE}]+(?![^\n{_ASCII_SPACE}])|[{_ASCII_SPACE}]+"""
)


def split_lines(text: str) -> list[str]:
    """The sequences of a corpus: one per line, line breaks removed, empty lines dropped."""
    return [line for line in text.replace("\r\n", "\n").split("\n") if line]


def count_words(text: str, normalizers: tuple[str, ...] | list[str] = (), pre_tokenizer: str = "byte-level") -> dict[str, int]:
    """Distinct pre-tokenized words of the corpus with their counts, in order of first appearance."""
    text = text.replace("\r\n", "\n")
    pre = build_pre_tokenizer(pre_tokenizer)
    if normalizers:
        normalizer = build_normalizer(list(normalizers))
        counts: Counter[str] = Counter()
        for line in text.split("\n"):
            if line:
                counts.update(pre.words(normalizer.normalize(line).text))
        return dict(counts)
    if pre_tokenizer != "byte-level":
        return dict(Counter(pre.words(text)))
    pattern = _GPT2_ASCII_NO_NEWLINE if text.isascii() else _GPT2_NO_NEWLINE
    raw_counts = Counter(pattern.findall(text))
    return {bytes_to_symbols(piece.encode("utf-8")): count for piece, count in raw_counts.items()}
