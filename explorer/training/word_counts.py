"""From corpus text to word counts: normalize and pre-tokenize every line, count distinct words.

A corpus is split into sequences at line breaks ("\\r\\n" and "\\n"), each line without its break,
exactly like feeding `train_from_iterator(lines)` to the `tokenizers` library. The result is a dict
word -> count in order of first appearance (the order the course's `word_freqs` has).

The corpus is cut once, here, into chunks of whole lines (`line_chunks`), and each chunk is read
once: its figures (`count_text`) are added up as the pre-tokenizer takes it
(`PreTokenizer.count_line_words`, equal to the line-by-line definition; tests check it). Each
chunk takes its own fastest path (ASCII or not), so a corpus with a few other characters is fast
around them. With normalizers each line is normalized on its own (no alignments are built:
training needs none). `jobs` > 1 counts parts of a large corpus (from `PARALLEL_CHARACTERS`), cut
at line breaks, in that many forked worker processes and adds their counts up in order: the same
dict, in the same order (tests/unit/test_word_counting.py). On the compiled engine
(explorer.training.engines), a corpus without normalizers is counted in Rust (engine/src/words.rs:
the same words, counts, order and figures, parts of it on `jobs` threads) for the pre-tokenizers
it knows.

What it does not do: decide limits or decode uploads (see explorer/checks/).
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Iterator

from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.training.engines import module_for

# A word, wherever the app counts words (tokens per word, words split): a maximal run of
# non-whitespace characters, as `str.split()` sees them ("don't", "U.S.", "(hello)," are one each).
WORD = re.compile(r"\S+")


def split_lines(text: str) -> list[str]:
    """The sequences of a corpus: one per line, line breaks removed, empty lines dropped."""
    return [line for line in text.replace("\r\n", "\n").split("\n") if line]


def count_text(text: str) -> dict[str, int]:
    """The corpus as the figures count a text: its lines (`split_lines`), their characters and
    UTF-8 bytes (line breaks excluded: each line is one sequence) and their words (`WORD`).
    Counted in chunks of whole lines, so that an ASCII chunk takes the fast path of
    `count_words_in` even when the corpus holds a few other characters elsewhere.

    >>> count_text("a cat\\r\\nsat.\\n\\n")
    {'lines': 2, 'characters': 9, 'utf8_bytes': 9, 'words': 3}
    """
    return _line_figures(text.replace("\r\n", "\n"))


def _line_figures(text: str) -> dict[str, int]:
    """`count_text` of a text whose "\r\n" are already "\n" (replacing them again would join a
    "\r" of the text to the break after it: "\r\r\n" is the line "\r")."""
    figures = dict.fromkeys(FIGURES, 0)
    for chunk in line_chunks(text):
        _add_figures(figures, chunk)
    return figures


FIGURES = ("lines", "characters", "utf8_bytes", "words")
CHUNK_CHARACTERS = 1 << 16  # the chunks' size: ASCII stretches keep their fast path, lists stay small


def line_chunks(text: str, size: int | None = None) -> Iterator[str]:
    """`text` in consecutive pieces of about `size` characters (`CHUNK_CHARACTERS`) or more, each
    but the last ending just after a line break ("\\n"), so that no line is cut. Joined, they are
    `text`.

    >>> list(line_chunks("ab\\ncd\\nef", size=1))
    ['ab\\n', 'cd\\n', 'ef']
    """
    size = size or CHUNK_CHARACTERS
    start, length = 0, len(text)
    while start < length:
        cut = text.find("\n", start + size - 1) if start + size < length else -1
        end = length if cut < 0 else cut + 1
        yield text[start:end]
        start = end


def _measured(chunks: Iterator[str], figures: dict[str, int] | None) -> Iterator[str]:
    """`chunks`, each passed on after its figures are added to `figures` (None: passed on only)."""
    for chunk in chunks:
        if figures is not None:
            _add_figures(figures, chunk)
        yield chunk


def _add_figures(figures: dict[str, int], chunk: str) -> None:
    """Add the figures of `chunk` (whole lines, "\\r\\n" already "\\n") to `figures`."""
    # A line break is neither a character of a line nor part of a word; empty lines add nothing.
    breaks = chunk.count("\n")
    segments = chunk.split("\n")
    figures["lines"] += len(segments) - segments.count("")
    figures["characters"] += len(chunk) - breaks
    size = len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", errors="surrogatepass"))
    figures["utf8_bytes"] += size - breaks
    figures["words"] += count_words_in(chunk)


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


# The pre-tokenizers the compiled engine counts (engine/src/words.rs), and the least size in bytes of
# the parts its threads count (a part is cut at a line break; at most 64 parts).
COMPILED_PRE_TOKENIZERS = ("byte-level", "bert", "whitespace", "whitespace-split")
COMPILED_PART_BYTES = 1 << 18

# Below this many characters one process counts faster than starting others.
PARALLEL_CHARACTERS = 2_000_000
PARTS_PER_JOB = 4  # parts of unequal cost even out across the workers


def count_words(
    text: str,
    normalizers: tuple[str, ...] | list[str] = (),
    pre_tokenizer: str = "byte-level",
    jobs: int = 1,
    engine: str | None = None,
) -> dict[str, int]:
    """Distinct pre-tokenized words of the corpus with their counts, in order of first appearance;
    counted in `jobs` processes (threads on the compiled engine) when the corpus is large."""
    return count_corpus(text, normalizers, pre_tokenizer, jobs, figures=False, engine=engine)[0]


def count_corpus(
    text: str,
    normalizers: tuple[str, ...] | list[str] = (),
    pre_tokenizer: str = "byte-level",
    jobs: int = 1,
    figures: bool = True,
    engine: str | None = None,
) -> tuple[dict[str, int], dict[str, int] | None]:
    """`count_words` and, when `figures`, `count_text` of the same text, in one pass over it.
    `engine` (explorer.training.engines; None: the environment's): the compiled engine counts
    without normalizers for the pre-tokenizers it knows (`COMPILED_PRE_TOKENIZERS`), the same dict
    in the same order; otherwise, and always with `engine="python"`, Python counts."""
    compiled = module_for(engine) if not normalizers and pre_tokenizer in COMPILED_PRE_TOKENIZERS else None
    if compiled is not None:
        counted = compiled.count_corpus(
            text,
            pre_tokenizer,
            figures=figures,
            jobs=jobs,
            part_size=max(COMPILED_PART_BYTES, len(text) // 64),
        )
        if counted is not None:  # None: a lone surrogate in the text, which only Python counts
            words, word_counts, compiled_figures = counted
            return dict(zip(words, array("q", word_counts))), (
                dict(zip(FIGURES, compiled_figures)) if figures else None
            )
    import multiprocessing  # here: the compiled counter and a one-process count need neither

    text = text.replace("\r\n", "\n")
    options = (tuple(normalizers), pre_tokenizer, figures)
    if jobs > 1 and len(text) >= PARALLEL_CHARACTERS and "fork" in multiprocessing.get_all_start_methods():
        parts = _count_in_processes(text, options, jobs)
    else:
        parts = [_count_part(text, *options)]
    counts: dict[str, int] = {}
    totals = dict.fromkeys(FIGURES, 0) if figures else None
    for part_counts, part_figures in parts:  # in the parts' order: the first appearance stays first
        if not counts:
            counts = dict(part_counts)
        else:
            for word, count in part_counts.items():
                counts[word] = counts.get(word, 0) + count
        if totals is not None and part_figures is not None:
            for name, value in part_figures.items():
                totals[name] += value
    return counts, totals


def _count_part(
    text: str, normalizers: tuple[str, ...], pre_tokenizer: str, figures: bool
) -> tuple[Counter[str], dict[str, int] | None]:
    """The words of `text` (whole lines, "\\r\\n" already "\\n") and, when `figures`, its figures,
    in one pass over its chunks."""
    pre = build_pre_tokenizer(pre_tokenizer)
    part_figures = dict.fromkeys(FIGURES, 0) if figures else None
    chunks = _measured(line_chunks(text), part_figures)
    if not normalizers:
        return pre.count_line_words(chunks), part_figures
    normalizer = build_normalizer(list(normalizers))
    counts: Counter[str] = Counter()
    for chunk in chunks:
        for line in chunk.split("\n"):
            if line:
                counts.update(pre.words(normalizer.normalize_str(line)))
    return counts, part_figures


# The corpus a forked worker reads its parts from (set before the fork, so nothing is pickled).
_FORKED_TEXT = ""


def _count_span(span: tuple[int, int], options: tuple) -> tuple[Counter[str], dict[str, int] | None]:
    start, end = span
    return _count_part(_FORKED_TEXT[start:end], *options)


def _count_in_processes(text: str, options: tuple, jobs: int) -> list:
    """The parts of `text` (whole lines) counted in `jobs` forked processes, in order."""
    global _FORKED_TEXT
    spans, start = [], 0
    for part in line_chunks(text, max(1, len(text) // (jobs * PARTS_PER_JOB))):
        spans.append((start, start + len(part)))
        start += len(part)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _FORKED_TEXT = text
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_count_span, spans, [options] * len(spans)))
    finally:
        _FORKED_TEXT = ""
