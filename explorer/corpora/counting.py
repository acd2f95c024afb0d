"""Word counts and the settings that made them: what a count file holds, and what adds up.

`Counting` is the part of a run's settings that decides its words: normalizers, pre-tokenizer (its
split pattern included: "byte-level-cl100k") and reading (`explorer.run_config.READINGS`). Two sets
of word counts add up only when their `Counting` is the same (`add_word_counts` refuses otherwise,
in one sentence). `WordCounts` is the distinct pre-tokenized words with their counts, in order of
first appearance (the order `explorer.training.word_counts.count_corpus` gives, which decides the
trainers' ties), and the corpus figures (lines, characters, utf8_bytes, words) of the same text.

Adding in order keeps first appearance first: the counts of shards 1..n added in shard order are
the counts of their concatenation, word for word and in the same order.

What it does not do: read a corpus (explorer.corpora.streaming) or a file of counts
(explorer.corpora.count_files), or train.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from explorer.run_config import RunConfig
from explorer.training.held_words import HeldWords
from explorer.training.word_counts import FIGURES


@dataclass(frozen=True)
class Counting:
    """The settings that decide a corpus's words."""

    normalizers: tuple[str, ...] = ()
    pre_tokenizer: str = "byte-level"
    reading: str = "lines"

    def __post_init__(self):
        object.__setattr__(self, "normalizers", tuple(self.normalizers))
        # Known names only, checked as a run's are (a count file's settings come from outside).
        RunConfig(normalizers=self.normalizers, pre_tokenizer=self.pre_tokenizer, reading=self.reading)

    @classmethod
    def of(cls, config: RunConfig) -> Counting:
        """The counting settings of a run (a run given words directly has none: a ValueError)."""
        if config.pre_tokenizer is None:
            raise ValueError("this run was given words directly: it has no counting settings")
        return cls(config.normalizers, config.pre_tokenizer, config.reading)

    def to_dict(self) -> dict:
        return {
            "normalizers": list(self.normalizers),
            "pre_tokenizer": self.pre_tokenizer,
            "reading": self.reading,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Counting:
        return cls(tuple(data.get("normalizers") or ()), data["pre_tokenizer"], data.get("reading", "lines"))

    def describe(self) -> str:
        """One phrase a sentence can name the settings by."""
        normalizers = "+".join(self.normalizers) or "no normalizer"
        return f"{normalizers}, pre-tokenizer {self.pre_tokenizer}, reading {self.reading}"


@dataclass
class WordCounts:
    """Distinct words with their counts (first appearance first), the corpus figures, the settings."""

    # A dict, or the compiled counter's words held in Rust (explorer.training.held_words).
    words: Mapping[str, int]
    figures: dict[str, int]
    counting: Counting
    # Where the counts came from, for a person reading the file (names and sizes); never compared.
    sources: list[str] = field(default_factory=list)

    def hand_over(self) -> HeldWords | Iterator[tuple[str, int]]:
        """The words with their counts, in order, for a trainer: these counts are left without
        words. Words held in Rust go over whole (the compiled trainer reads them there); a dict's
        go one by one, for a trainer that keeps its own lists of them, and the table is freed
        once the last is given (371,431 words: 21 MB that would otherwise stay beside it)."""
        words, self.words = self.words, {}
        if isinstance(words, HeldWords):
            return words
        return iter(_emptied(words))


def _emptied(words: Mapping[str, int]) -> Iterator[tuple[str, int]]:
    yield from words.items()


def no_figures() -> dict[str, int]:
    return dict.fromkeys(FIGURES, 0)


def add_word_counts(parts: Iterable[WordCounts]) -> WordCounts:
    """The counts of `parts` added in their order: the counts of the concatenated corpora. A
    ValueError, in one sentence, when two parts were counted with different settings."""
    total: WordCounts | None = None
    words: dict[str, int] = {}
    for part in parts:
        if total is None:
            words = dict(part.words.items())
            total = WordCounts(words, dict(part.figures), part.counting, list(part.sources))
            continue
        if part.counting != total.counting:
            raise ValueError(
                f"these counts were made with different settings ({total.counting.describe()}; "
                f"{part.counting.describe()}): count the corpora again with one set of settings"
            )
        for word, count in part.words.items():
            words[word] = words.get(word, 0) + count
        for name in FIGURES:
            total.figures[name] = total.figures.get(name, 0) + part.figures.get(name, 0)
        total.sources += part.sources
    if total is None:
        raise ValueError("no counts to add")
    return total
