"""From corpus text to word counts: normalize and pre-tokenize every line, count distinct words.

A corpus is split into sequences at line breaks ("\\r\\n" and "\\n"), each line without its break,
exactly like feeding `train_from_iterator(lines)` to the `tokenizers` library. The result is a dict
word -> count in order of first appearance (the order the course's `word_freqs` has).

Without normalizers the pre-tokenizer counts the whole text in one pass
(`PreTokenizer.count_line_words`, equal to the line-by-line definition; tests check it). With
normalizers each line is normalized on its own (no alignments are built: training needs none).

What it does not do: decide limits or decode uploads (see explorer/checks/).
"""

from __future__ import annotations

import re
from collections import Counter

from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer

# A word, wherever the app counts words (tokens per word, words split): a maximal run of
# non-whitespace characters, as `str.split()` sees them ("don't", "U.S.", "(hello)," are one each).
WORD = re.compile(r"\S+")


def split_lines(text: str) -> list[str]:
    """The sequences of a corpus: one per line, line breaks removed, empty lines dropped."""
    return [line for line in text.replace("\r\n", "\n").split("\n") if line]


def count_text(text: str) -> dict[str, int]:
    """The corpus as the figures count a text: its lines (`split_lines`), their characters and
    UTF-8 bytes (line breaks excluded: each line is one sequence) and their words (`WORD`).

    >>> count_text("a cat\\r\\nsat.\\n\\n")
    {'lines': 2, 'characters': 9, 'utf8_bytes': 9, 'words': 3}
    """
    text = text.replace("\r\n", "\n")
    breaks = text.count("\n")
    # Whole-text forms of the per-line counts: empty lines add nothing, a line break is neither a
    # character of a line nor part of a word.
    return {
        "lines": len(split_lines(text)),
        "characters": len(text) - breaks,
        "utf8_bytes": len(text.encode("utf-8", errors="surrogatepass")) - breaks,
        "words": count_words_in(text),
    }


# For ASCII text: every whitespace byte (as `str.split()` sees it) -> " ", every other byte -> "x".
_ASCII_WHITESPACE = {byte for byte in range(128) if chr(byte).isspace()}
_SPACE_OR_X = bytes(32 if byte in _ASCII_WHITESPACE else 120 for byte in range(256))


def count_words_in(text: str) -> int:
    """len(text.split()) without building the words (a 1 MB text has 200,000 of them: 60 ms):
    for ASCII text, a word starts at every non-space character after a space or at the start."""
    if not text.isascii():
        return len(text.split())
    marks = text.encode("ascii").translate(_SPACE_OR_X)
    return marks.count(b" x") + marks.startswith(b"x")


def count_words(
    text: str, normalizers: tuple[str, ...] | list[str] = (), pre_tokenizer: str = "byte-level"
) -> dict[str, int]:
    """Distinct pre-tokenized words of the corpus with their counts, in order of first appearance."""
    text = text.replace("\r\n", "\n")
    pre = build_pre_tokenizer(pre_tokenizer)
    if not normalizers:
        return dict(pre.count_line_words(text))
    normalizer = build_normalizer(list(normalizers))
    counts: Counter[str] = Counter()
    for line in text.split("\n"):
        if line:
            counts.update(pre.words(normalizer.normalize_str(line)))
    return dict(counts)
