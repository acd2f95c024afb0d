"""A word counter fed a corpus chunk by chunk: the corpus is never held whole.

`ChunkCounter(counting)` takes text in chunks of whole lines (`add_text`, for the readings "lines"
and "lines-with-endings") or records (`add_records`, for "records") and adds up their words and
figures in order (`result()`: a `WordCounts`, words in order of first appearance). A chunk that
does not end with "\\n" ends its input: the next chunk starts a new line. Memory is the distinct
words and one chunk.

How a chunk is cut into sequences (`explorer.run_config.READINGS`):
- "lines": one per line, its break ("\\r\\n" or "\\n") removed, empty lines dropped: exactly
  `explorer.training.word_counts.count_corpus` on the same text, which counts each chunk;
- "lines-with-endings": cut just after each "\\n" only (not `str.splitlines`, which also cuts at
  "\\x0b", "\\x1c", "\\u2028" ...), the ending kept: the library's `Tokenizer.train(files)`
  (tokenizers' `lines_with_ending`: a last line without "\\n" is a sequence too, and there is no
  empty sequence);
- "records": each record's text is one sequence, line breaks inside it included.
Normalizers apply to each sequence as cut. The figures keep `count_text`'s definitions whatever the
reading (non-empty lines, their characters and UTF-8 bytes without breaks, `str.split` words).

On the compiled engine (`explorer.training.engines.module_for`) the reading "lines" is counted in
Rust (through `count_corpus`, where it can: no normalizers, a pre-tokenizer it knows); the other
readings, and everything on the Python engine, are counted in Python with the pre-tokenizers of
explorer.pipeline: the same words, order, counts and figures.

What it does not do: read files (explorer.corpora.streaming), write counts
(explorer.corpora.count_files) or train.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from explorer.corpora.counting import Counting, WordCounts, no_figures
from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.training.word_counts import FIGURES, count_corpus, count_text


def sequences_with_endings(text: str) -> list[str]:
    """`text` cut just after each "\\n", endings kept; a last line without "\\n" is one too.

    >>> sequences_with_endings("a\\r\\n\\nb\\x0bc")
    ['a\\r\\n', '\\n', 'b\\x0bc']
    """
    lines = text.split("\n")
    last = lines.pop()
    sequences = [line + "\n" for line in lines]
    if last:
        sequences.append(last)
    return sequences


class ChunkCounter:
    """Words and figures of a corpus given in chunks, added up in order."""

    def __init__(self, counting: Counting, *, jobs: int = 1, engine: str | None = None) -> None:
        self.counting = counting
        self.jobs = jobs
        self.engine = engine
        self._words: dict[str, int] = {}
        self._figures = no_figures()
        self._pre_tokenizer = build_pre_tokenizer(counting.pre_tokenizer)
        self._normalizer = build_normalizer(list(counting.normalizers)) if counting.normalizers else None

    def add_text(self, text: str) -> None:
        """Count a chunk of whole lines (reading "lines" or "lines-with-endings")."""
        reading = self.counting.reading
        if reading == "records":
            raise ValueError("the reading 'records' takes records (add_records), not text")
        if reading == "lines":
            counting = self.counting
            words, figures = count_corpus(
                text, counting.normalizers, counting.pre_tokenizer, self.jobs, engine=self.engine
            )
            self._add(words, figures or {})
            return
        self._add(self._sequence_words(sequences_with_endings(text)), count_text(text))

    def add_records(self, texts: list[str]) -> None:
        """Count records (reading "records"): each text is one sequence."""
        if self.counting.reading != "records":
            raise ValueError(f"the reading {self.counting.reading!r} takes text (add_text), not records")
        figures = no_figures()
        for text in texts:
            for name, value in count_text(text).items():
                figures[name] += value
        self._add(self._sequence_words(texts), figures)

    def result(self) -> WordCounts:
        """The words and figures of everything counted so far."""
        return WordCounts(dict(self._words), dict(self._figures), self.counting)

    def _sequence_words(self, sequences: Iterable[str]) -> Counter[str]:
        """The words of `sequences`, each normalized and pre-tokenized on its own (Python)."""
        counts: Counter[str] = Counter()
        normalizer, pre_tokenizer = self._normalizer, self._pre_tokenizer
        for sequence in sequences:
            if normalizer is not None:
                sequence = normalizer.normalize_str(sequence)
            counts.update(pre_tokenizer.words(sequence))
        return counts

    def _add(self, words: dict[str, int], figures: dict[str, int]) -> None:
        """Add a chunk's counts after those before it: first appearance stays first."""
        if not self._words:
            self._words = dict(words)
        else:
            total = self._words
            for word, count in words.items():
                total[word] = total.get(word, 0) + count
        for name in FIGURES:
            self._figures[name] += figures.get(name, 0)
