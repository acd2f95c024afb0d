"""What a merge loop ends with, on either engine: `MergeColumns`, the recorded columns (a row per
merge step, or per candidate), the vocabulary, every word's boundary steps and the stop reason;
`history` makes the MergeHistory of them, the one way a training builds one.

The Python engine's `MergeRecorder` (recorder.py) fills them a merge at a time; the compiled
engine's front (compiled.py) reads the arrays the crate hands over (their kinds are shared.py's
`COLUMN_KINDS`, the crate's too).

What it does not do: record (recorder.py, engine/src/run.rs) or answer the app's questions about a
run (merge_history.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.run_config import RunConfig, TrainerConfig
from explorer.training.bpe.candidates import Candidates
from explorer.training.bpe.merge_history import MergeHistory


@dataclass
class MergeColumns:
    vocab: list[str]  # every token in id order, the initial vocabulary first
    merges: list[tuple[int, int, int]]  # left id, right id, new id
    merge_counts: list[int]
    merge_scores: list[float | None]  # None where the run ranks pairs by count
    words_changed: list[int]
    occurrences: list[int]
    candidates: Candidates
    boundary_steps: Sequence[array]  # per word, the step that removed each boundary
    stop_reason: str  # a key of merge_history.STOP_REASONS

    def history(
        self,
        config: TrainerConfig,
        words: Sequence[str],
        counts: Sequence[int],
        initial_vocab_size: int,
        seconds: float,
        engine: str,
    ) -> MergeHistory:
        """The finished run: these columns and what the trainer knows about the whole run."""
        return MergeHistory(
            config=RunConfig(config, pre_tokenizer=None),
            words=words,
            counts=counts,
            vocab=self.vocab,
            initial_vocab_size=initial_vocab_size,
            merges=self.merges,
            merge_counts=self.merge_counts,
            merge_scores=self.merge_scores,
            words_changed=self.words_changed,
            occurrences=self.occurrences,
            candidates=self.candidates,
            stop_reason=self.stop_reason,
            boundary_steps=self.boundary_steps,
            seconds=seconds,
            engine=engine,
        )
