"""From corpus text to word counts: normalize and pre-tokenize every line, count distinct words.

A corpus is split into sequences at line breaks ("\\r\\n" and "\\n"), each line without its break,
exactly like feeding `train_from_iterator(lines)` to the `tokenizers` library. The result is a dict
word -> count in order of first appearance (the order the course's `word_freqs` has).

Without normalizers the pre-tokenizer counts the whole text in chunks cut at line breaks
(`PreTokenizer.count_line_words`, equal to the line-by-line definition; tests check it). With
normalizers each line is normalized on its own (no alignments are built: training needs none).
`jobs` > 1 counts parts of a large corpus (from `PARALLEL_CHARACTERS`), cut at line breaks, in
that many forked worker processes and adds their counts up in order: the same dict, in the same
order (tests/unit/test_word_counting.py).

What it does not do: decide limits or decode uploads (see explorer/checks/).
"""

from __future__ import annotations

import multiprocessing
import re
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.pipeline.pre_tokenizers.patterns import line_chunks

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


# Below this many characters one process counts faster than starting others.
PARALLEL_CHARACTERS = 2_000_000
PARTS_PER_JOB = 4  # parts of unequal cost even out across the workers


def count_words(
    text: str, normalizers: tuple[str, ...] | list[str] = (), pre_tokenizer: str = "byte-level", jobs: int = 1
) -> dict[str, int]:
    """Distinct pre-tokenized words of the corpus with their counts, in order of first appearance;
    counted in `jobs` processes when the corpus is large and the platform can fork."""
    text = text.replace("\r\n", "\n")
    if jobs > 1 and len(text) >= PARALLEL_CHARACTERS and "fork" in multiprocessing.get_all_start_methods():
        return _count_in_processes(text, tuple(normalizers), pre_tokenizer, jobs)
    return dict(_count_part(text, tuple(normalizers), pre_tokenizer))


def _count_part(text: str, normalizers: tuple[str, ...], pre_tokenizer: str) -> Counter[str]:
    pre = build_pre_tokenizer(pre_tokenizer)
    if not normalizers:
        return pre.count_line_words(text)
    normalizer = build_normalizer(list(normalizers))
    counts: Counter[str] = Counter()
    for line in text.split("\n"):
        if line:
            counts.update(pre.words(normalizer.normalize_str(line)))
    return counts


# The corpus a forked worker reads its parts from (set before the fork, so nothing is pickled).
_FORKED_TEXT = ""


def _count_span(span: tuple[int, int], normalizers: tuple[str, ...], pre_tokenizer: str) -> Counter[str]:
    start, end = span
    return _count_part(_FORKED_TEXT[start:end], normalizers, pre_tokenizer)


def _count_in_processes(
    text: str, normalizers: tuple[str, ...], pre_tokenizer: str, jobs: int
) -> dict[str, int]:
    global _FORKED_TEXT
    spans, start = [], 0
    for part in line_chunks(text, max(1, len(text) // (jobs * PARTS_PER_JOB))):
        spans.append((start, start + len(part)))
        start += len(part)
    _FORKED_TEXT = text
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            parts = pool.map(_count_span, spans, [normalizers] * len(spans), [pre_tokenizer] * len(spans))
            counts: dict[str, int] = {}
            for part_counts in parts:  # in the parts' order: the first appearance stays first
                for word, count in part_counts.items():
                    counts[word] = counts.get(word, 0) + count
    finally:
        _FORKED_TEXT = ""
    return counts
