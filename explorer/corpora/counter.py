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
  (`explorer.pipeline.pre_tokenizers.lines_with_endings`: a last line without "\\n" is a
  sequence too, and there is no empty sequence);
- "records": each record's text is one sequence, line breaks inside it included.
Normalizers apply to each sequence as cut. The figures keep `count_text`'s definitions whatever the
reading (non-empty lines, their characters and UTF-8 bytes without breaks, `str.split` words).

On the compiled engine (`explorer.training.engines.module_for`) a chunk is counted in Rust by
`explorer_engine.WordCounter` (engine/src/words.rs: the GIL released, a large chunk cut at line
breaks into parts counted on `jobs` threads and added in order, the words kept in Rust between
chunks and after the last: `result()` hands them over as `explorer.training.held_words.HeldWords`,
never as Python strings); where it cannot (normalizers, a pre-tokenizer it does not know:
Metaspace, the split patterns of GPT-4 and others; a chunk holding a lone surrogate), and on the
Python engine, Python
counts with the pre-tokenizers of explorer.pipeline (the reading "lines" through `count_corpus`,
in `jobs` processes for a large chunk; the other readings in this process): the same words,
order, counts and figures.

What it does not do: read files (explorer.corpora.streaming), write counts
(explorer.corpora.count_files) or train.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping

from explorer.corpora.counting import Counting, WordCounts, no_figures
from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer, lines_with_endings
from explorer.training.engines import module_for
from explorer.training.held_words import HeldWords
from explorer.training.word_counts import (
    COMPILED_PART_BYTES,
    COMPILED_PRE_TOKENIZERS,
    FIGURES,
    count_corpus,
    count_text,
    line_chunks,
)


def _part_size(size: int) -> int:
    """The size in bytes of the parts the compiled counter's threads take from a chunk of `size`."""
    return max(COMPILED_PART_BYTES, size // 64)


class ChunkCounter:
    """Words and figures of a corpus given in chunks, added up in order."""

    def __init__(self, counting: Counting, *, jobs: int = 1, engine: str | None = None) -> None:
        self.counting = counting
        self.jobs = jobs
        self._words: dict[str, int] = {}
        self._figures = no_figures()
        self._pre_tokenizer = build_pre_tokenizer(counting.pre_tokenizer)
        self._normalizer = build_normalizer(list(counting.normalizers)) if counting.normalizers else None
        compiled = (
            module_for(engine)
            if not counting.normalizers and counting.pre_tokenizer in COMPILED_PRE_TOKENIZERS
            else None
        )
        self._compiled = (
            compiled.WordCounter(counting.pre_tokenizer, counting.reading, jobs)
            if compiled is not None
            else None
        )

    def add_text(self, text: str) -> None:
        """Count a chunk of whole lines (reading "lines" or "lines-with-endings")."""
        reading = self.counting.reading
        if reading == "records":
            raise ValueError("the reading 'records' takes records (add_records), not text")
        if self._counted_compiled(lambda counter: counter.add_text(text, part_size=_part_size(len(text)))):
            return
        if reading == "lines":
            counting = self.counting
            words, figures = count_corpus(
                text, counting.normalizers, counting.pre_tokenizer, self.jobs, engine="python"
            )
            self._add(words, figures or {})
            return
        if self._normalizer is None:  # the pre-tokenizer's own pass over chunks of lines
            words = self._pre_tokenizer.count_lines_with_endings(line_chunks(text))
        else:
            words = self._sequence_words(lines_with_endings(text))
        self._add(words, count_text(text))

    def add_records(self, texts: list[str]) -> None:
        """Count records (reading "records"): each text is one sequence."""
        if self.counting.reading != "records":
            raise ValueError(f"the reading {self.counting.reading!r} takes text (add_text), not records")
        size = sum(map(len, texts))
        if self._counted_compiled(lambda counter: counter.add_records(texts, part_size=_part_size(size))):
            return
        figures = no_figures()
        for text in texts:
            for name, value in count_text(text).items():
                figures[name] += value
        self._add(self._sequence_words(texts), figures)

    def result(self) -> WordCounts:
        """The words and figures of everything counted so far, handed over: the counter starts
        again from nothing (no copy of a large vocabulary is made). When the compiled counter
        counted every chunk, its words stay in Rust (`HeldWords`)."""
        words: Mapping[str, int]
        if self._compiled is not None and not self._words:
            held, figures = self._compiled.take_words()
            self._add({}, dict(zip(FIGURES, figures)))
            words = HeldWords(held)
        else:
            self._take_compiled()
            words = self._words
        counts = WordCounts(words, self._figures, self.counting)
        self._words, self._figures = {}, no_figures()
        return counts

    def _counted_compiled(self, count) -> bool:
        """Whether the compiled counter counted a chunk (`count(counter)`); when it could not (a
        lone surrogate), what it holds is added first, so that Python's count of the chunk comes
        after it in order."""
        if self._compiled is None:
            return False
        if count(self._compiled):
            return True
        self._take_compiled()
        return False

    def _take_compiled(self) -> None:
        """Add what the compiled counter holds, in order, and empty it."""
        if self._compiled is None:
            return
        words, counts, figures = self._compiled.take()
        if words or any(figures):
            self._add(dict(zip(words, array("q", counts))), dict(zip(FIGURES, figures)))

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
        """Add a chunk's counts (a dict made for this call) after those before it: first
        appearance stays first."""
        if not self._words:
            self._words = words if type(words) is dict else dict(words)
        else:
            total = self._words
            for word, count in words.items():
                total[word] = total.get(word, 0) + count
        for name in FIGURES:
            self._figures[name] += figures.get(name, 0)
