"""Train a Unigram tokenizer from word counts, in two flavors, recording the run as a RoundHistory.

- `course`: the Hugging Face course's Unigram from scratch (chapter 6, section 7), exactly; see
  unigram_course.py.
- `library`: the `tokenizers` library's UnigramTrainer; see library.py.

`train_unigram(word_counts, config, progress, should_stop)`: word counts in order of first
appearance (what `explorer.training.word_counts.count_words` gives); `progress(round, planned_rounds)` and
`should_stop()` are called at least once per EM iteration (library) or every few dozen pieces
scored (course). Stop reasons: see UNIGRAM_STOP_REASONS. `engine` (explorer.training.engines; None:
$EXPLORER_ENGINE): the library flavor's lattices run compiled or in Python, the same trace either
way; the course flavor trains in Python.

What it does not do: count words (explorer/training/word_counts.py); the tokenizer a run gives is
`RoundHistory.tokenizer_at` (round_history.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from explorer.run_config import UnigramConfig
from explorer.training.unigram.round_history import RoundHistory


def train_unigram(
    word_counts: Mapping[str, int] | Iterable[tuple[str, int]],
    config: UnigramConfig,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    engine: str | None = None,
) -> RoundHistory:
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    words = [word for word, count in items if word and count > 0]
    counts = [int(count) for word, count in items if word and count > 0]
    if config.flavor == "course":
        from explorer.training.unigram.course import train_course

        return train_course(words, counts, config, progress, should_stop)
    from explorer.training.unigram.library import train_library

    return train_library(words, counts, config, progress, should_stop, engine)
