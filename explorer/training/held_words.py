"""Word counts the compiled engine holds: a corpus's distinct words stay in Rust from counting
to the trace, never a Python string and two list slots each.

`HeldWords` wraps the `explorer_engine.CountedWords` that `WordCounter.take_words()` gives (every
word's bytes end to end in one buffer, engine/src/counted.rs). It is a read-only `Mapping` word
-> count in order of first appearance, so that what reads counts (count files, adding counts,
the Python engine, Unigram) reads it as it reads a dict; the BPE trainer on the compiled engine
hands it to the run whole (`BpeRun.from_words`), and the MergeHistory keeps its `words` view
(`WordList`) and `counts` as its words and counts. Pickled, it becomes a dict.

What it does not do: count (explorer.corpora.counter) or train (explorer.training.bpe).
"""

from __future__ import annotations

from array import array
from collections.abc import ItemsView, Iterator, Mapping, Sequence, ValuesView
from functools import cached_property

# Words made into Python strings at a time when they are walked.
BATCH_WORDS = 1 << 16


class WordList(Sequence[str]):
    """The held words in order, each made into a string when asked for (a slice: a list)."""

    def __init__(self, held) -> None:
        self.held = held

    def __len__(self) -> int:
        return len(self.held)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return self.held.words(start, max(start, stop))
            return [self.held.word(at) for at in range(start, stop, step)]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("no such word")
        return self.held.word(index)

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), BATCH_WORDS):
            yield from self.held.words(start, start + BATCH_WORDS)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):
        return (list, (list(self),))


class _Values(ValuesView[int]):
    def __iter__(self) -> Iterator[int]:
        return iter(self._mapping.counts)  # type: ignore[attr-defined]


class _Items(ItemsView[str, int]):
    def __iter__(self) -> Iterator[tuple[str, int]]:
        mapping = self._mapping  # type: ignore[attr-defined]
        return zip(mapping, mapping.counts)


class HeldWords(Mapping[str, int]):
    """Words and counts held by the compiled engine, as a read-only mapping in first-seen order."""

    def __init__(self, held) -> None:
        self.held = held

    @cached_property
    def words(self) -> WordList:
        return WordList(self.held)

    @cached_property
    def counts(self) -> array:
        counts = array("q")
        counts.frombytes(self.held.counts())
        return counts

    def lengths(self) -> array:
        """Each word's number of characters."""
        lengths = array("I")
        lengths.frombytes(self.held.lengths())
        return lengths

    def initial_symbols(self, prefix: str, suffix: str) -> list[str]:
        """The distinct symbols the words start as (`_decorate`d by prefix and suffix), sorted."""
        return self.held.initial_symbols(prefix, suffix)

    def __len__(self) -> int:
        return len(self.held)

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {word: at for at, word in enumerate(self.words)}

    def __getitem__(self, word: str) -> int:
        return self.counts[self._positions[word]]

    def values(self) -> ValuesView[int]:
        return _Values(self)

    def items(self) -> ItemsView[str, int]:
        return _Items(self)

    def __reduce__(self):
        return (dict, (list(self.items()),))
