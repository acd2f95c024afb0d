"""From corpus text to word counts: normalize and pre-tokenize every line, count distinct words.

A corpus is split into sequences at line breaks ("\\r\\n" and "\\n"), each line without its break,
exactly like feeding `train_from_iterator(lines)` to the `tokenizers` library. The result is a dict
word -> count in order of first appearance (the order the course's `word_freqs` has).

Without normalizers the pre-tokenizer counts the whole text in one pass
(`PreTokenizer.count_line_words`, equal to the line-by-line definition; tests check it). With
normalizers each line is normalized on its own (no alignments are built: training needs none).

What it does not do: decide limits or decode uploads (see explorer/inputs.py).
"""

from __future__ import annotations

from collections import Counter

from explorer.normalizers import build_normalizer
from explorer.pre_tokenizers import build_pre_tokenizer


def split_lines(text: str) -> list[str]:
    """The sequences of a corpus: one per line, line breaks removed, empty lines dropped."""
    return [line for line in text.replace("\r\n", "\n").split("\n") if line]


def count_words(text: str, normalizers: tuple[str, ...] | list[str] = (), pre_tokenizer: str = "byte-level") -> dict[str, int]:
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
