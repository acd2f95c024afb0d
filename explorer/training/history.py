"""`TrainingHistory`: what every recorded training run offers, whatever its algorithm.

A BPE or WordPiece run records merges (`explorer.training.bpe.merge_history.MergeHistory`); a Unigram
run records rounds of pruning (`explorer.training.unigram.round_history.RoundHistory`). Both
implement this Protocol, so that the pages, the CLI and the worker ask a history the same
questions and never ask which algorithm made it:

- `steps`: how many steps the run took (merges, or rounds), and `step_noun` ("merge" or
  "round") to write them; `algorithm` ("bpe", "wordpiece" or "unigram"), `config` (its
  RunConfig), `words` and `counts` (the corpus as distinct words), `stop_reason`, `seconds`.
- `vocab` (the final vocabulary in id order) and `vocab_at(k)` (the vocabulary after step k);
  `tokenizer_at(k)` (the tokenizer after step k; None: the trained one); `special_tokens`;
  `save_tokenizer(path)` (the trained one's tokenizer.json, written from the run).
- `segment(word, k)`: a corpus word's pieces after step k (None: after the last step).
- `vocabulary_grows`: whether the vocabulary grows step by step (merges) or shrinks (rounds).
- `stop_reason_text()`: why the run stopped, in a few words.
- `record_final_frequencies()`: record what the Vocabulary page would otherwise compute (the
  worker calls it; a no-op for a merge history, which derives its frequencies cheaply).
- `to_dict` / `to_json` and `from_dict`: the JSON form (each class's docstring gives its schema;
  `explorer.train.trace_from_json` reads either kind back from its text).

Step 0 is the state before any merge (the initial alphabet) or before any round (the seeds).

Questions only one kind answers (a merge's candidates, a round's removed pieces) stay on that
class: the app holds a history in a run of its kind (explorer.runs.run.make_run gives a
`MergeRun` or a `RoundRun`, whose `history` is typed as its class), so a view that takes a
`MergeRun` asks its MergeHistory directly.

What it does not do: hold a history's code (the two history classes do), or say how a page shows
a history (explorer/views/, explorer/ui/).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

# The "format" field of a Unigram trace's JSON (a merge trace's JSON has none): what tells the two
# apart when a trace file is read back (explorer.train.trace_from_json).
UNIGRAM_TRACE_FORMAT = "tokenizer-explorer-unigram-trace"

if TYPE_CHECKING:
    import os

    from explorer.pipeline.tokenizer import Tokenizer
    from explorer.run_config import RunConfig


@runtime_checkable
class TrainingHistory(Protocol):
    """The questions the app asks of any training run's history (see the module docstring)."""

    config: RunConfig
    stop_reason: str
    seconds: float
    engine: str  # which engine trained: "python" or "rust" (explorer.training.engines)
    step_noun: str  # "merge" or "round"
    vocabulary_grows: bool

    @property
    def words(self) -> Sequence[str]: ...  # the corpus's distinct words, first seen first

    @property
    def counts(self) -> Sequence[int]: ...

    @property
    def algorithm(self) -> str: ...

    @property
    def steps(self) -> int: ...

    @property
    def vocab(self) -> list[str]: ...

    @property
    def special_tokens(self) -> list[str]: ...

    def vocab_at(self, k: int | None = None) -> list[str]: ...

    def tokenizer_at(self, k: int | None = None) -> Tokenizer: ...

    def save_tokenizer(self, path: str | os.PathLike) -> None: ...

    def segment(self, word: str, k: int | None = None) -> list[str]: ...

    def stop_reason_text(self) -> str: ...

    def record_final_frequencies(self) -> None: ...

    def to_dict(self) -> dict: ...

    def json_fields(self) -> dict: ...

    def to_json(self) -> str: ...

    @classmethod
    def from_dict(cls, data: dict) -> TrainingHistory: ...
