"""Train a Unigram tokenizer from word counts, in two flavors, recording the run as a UnigramTrace.

- `course`: the Hugging Face course's Unigram from scratch (chapter 6, section 7), exactly; see
  unigram_course.py.
- `library`: the `tokenizers` library's UnigramTrainer; see unigram_library.py.

`train_unigram(word_counts, config, progress, should_stop)`: word counts in order of first
appearance (what `explorer.corpus.count_words` gives); `progress(round, planned_rounds)` and
`should_stop()` are called at least once per EM iteration (library) or every few dozen pieces
scored (course). Stop reasons: see UNIGRAM_STOP_REASONS.

What it does not do: count words (explorer/corpus.py) or build the tokenizer (pipeline.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass

from explorer.unigram_trace import UnigramTrace

UNIGRAM_FLAVORS = ("library", "course")
UNIGRAM_STOP_REASONS = {
    "vocab_size": "vocabulary size reached",
    "stopped": "stopped before the end (Stop button or budget)",
    "characters_only": "only single characters are left, and they are never removed",
    "stuck": "a round could remove nothing more (the library would repeat it forever)",
}
LIBRARY_DEFAULTS = {"seed_size": 1_000_000, "max_piece_length": 16}
COURSE_DEFAULTS = {"seed_size": 300, "max_piece_length": None}


@dataclass(frozen=True)
class UnigramConfig:
    """Everything that decides a Unigram run (hashable: a cache key). None means the flavor's
    default: seed size 1,000,000 (library) / 300 (course); longest piece 16 (library) / no
    limit (course). `shrinking_factor` and `n_sub_iterations` are the library's,
    `percent_to_remove` the course's. The library's own `unk_token` default is None (unknown
    characters then cannot be encoded); here it is "<unk>"."""

    flavor: str = "library"
    vocab_size: int = 8000
    seed_size: int | None = None
    shrinking_factor: float = 0.75
    max_piece_length: int | None = None
    n_sub_iterations: int = 2
    percent_to_remove: float = 0.1
    unk_token: str | None = "<unk>"
    special_tokens: tuple[str, ...] = ()

    algorithm = "unigram"

    def __post_init__(self):
        if self.flavor not in UNIGRAM_FLAVORS:
            raise ValueError(f"flavor must be one of {', '.join(UNIGRAM_FLAVORS)}, not {self.flavor!r}")
        for name in ("vocab_size", "seed_size", "max_piece_length", "n_sub_iterations"):
            value = getattr(self, name)
            if value is None and name in ("seed_size", "max_piece_length"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
        if not 0 < self.shrinking_factor < 1:
            raise ValueError(
                f"shrinking_factor must be between 0 and 1 (exclusive), not {self.shrinking_factor!r}"
            )
        if not 0 < self.percent_to_remove < 1:
            raise ValueError(
                f"percent_to_remove must be between 0 and 1 (exclusive), not {self.percent_to_remove!r}"
            )
        if self.unk_token == "":
            raise ValueError("unk_token cannot be empty (use None for no unk token)")
        if any(not isinstance(token, str) or not token for token in self.special_tokens):
            raise ValueError("special tokens must be non-empty strings")

    @property
    def defaults(self) -> dict:
        return LIBRARY_DEFAULTS if self.flavor == "library" else COURSE_DEFAULTS

    @property
    def effective_seed_size(self) -> int:
        return self.seed_size if self.seed_size is not None else self.defaults["seed_size"]

    @property
    def effective_max_piece_length(self) -> int | None:
        return (
            self.max_piece_length if self.max_piece_length is not None else self.defaults["max_piece_length"]
        )

    def to_dict(self) -> dict:
        data = {
            key: list(value) if isinstance(value, tuple) else value for key, value in asdict(self).items()
        }
        data["algorithm"] = self.algorithm
        data["seed_size"] = self.effective_seed_size
        data["max_piece_length"] = self.effective_max_piece_length
        return data


def train_unigram(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    config: UnigramConfig,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> UnigramTrace:
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    words = [word for word, count in items if word and count > 0]
    counts = [int(count) for word, count in items if word and count > 0]
    if config.flavor == "course":
        from explorer.trainers.unigram_course import train_course

        return train_course(words, counts, config, progress, should_stop)
    from explorer.trainers.unigram_library import train_library

    return train_library(words, counts, config, progress, should_stop)
