"""What the two merge engines must agree on, in one place: the Python engine (this package) reads
these names, and engine/generate_shared.py writes them into the compiled engine's
engine/src/shared.rs, which tests/unit/test_engine_tables.py checks is current. A change here
reaches both engines, or fails that test until the Rust file is written again.

- `CHECK_EVERY`: merges between two Stop and progress checks (`should_stop`, `progress`).
- `NEVER`: the boundary step of a boundary no merge removed (int32's largest: it compares
  greater than every step).
- `STALE_FACTOR`, `STALE_ENTRIES_KEPT`: a ranking's heap is rebuilt once it holds more than
  STALE_FACTOR entries per live pair plus STALE_ENTRIES_KEPT (memory only: no pick depends on it).
- `COLUMN_KINDS`: the columns a merge loop records (`MergeColumns`, merge_columns.py), each with the
  kind of its elements (explorer.training.packing's kinds): the compiled engine's Rust type and
  the array typecode its bytes are read with both come from here. `BOUNDARY_STEP_KIND` is the
  kind of `boundary_steps`.

`MergeSettings` is what a merge loop knows of a run's settings, on either engine: the compiled
one reads its attributes by name (engine/src/run.rs `Settings`), so a name changed on one side
fails every compiled training at once.

What it does not do: hold the columns (merge_columns.py) or check settings (explorer.run_config).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.run_config import TrainerConfig

CHECK_EVERY = 32
NEVER = 2**31 - 1
STALE_FACTOR = 2
STALE_ENTRIES_KEPT = 50_000

COLUMN_KINDS = {
    "merges": "i32",  # left, right, new id: three per step
    "merge_counts": "i64",
    "merge_scores": "f64",  # likelihood runs only
    "words_changed": "i64",
    "occurrences": "i64",
    "candidate_ends": "i32",  # one per step: the candidate rows up to its end
    "candidate_lefts": "i32",
    "candidate_rights": "i32",
    "candidate_counts": "i64",
    "candidate_scores": "f64",  # likelihood runs only, as are the two below
    "candidate_left_counts": "i64",
    "candidate_right_counts": "i64",
}
BOUNDARY_STEP_KIND = "i32"


@dataclass(frozen=True)
class MergeSettings:
    """A run's settings as the merge loop uses them."""

    library: bool  # the library's queue (else the course's)
    likelihood: bool  # pairs ranked by likelihood score (the course's WordPiece), not by count
    candidates: int  # candidates recorded per step, the chosen pair included
    prefix: str  # the continuing-subword prefix ("" for none)
    vocab_size: int
    # The course counts every appended token: its vocabulary size before any merge; None for the
    # library, which counts distinct tokens.
    course_size: int | None
    min_count: int  # a best pair below this count stops the run
    max_steps: int | None  # stop (reason `stopped`) after exactly this many merges

    @classmethod
    def of(cls, config: TrainerConfig, course_size: int | None, max_steps: int | None) -> MergeSettings:
        return cls(
            library=config.flavor == "library",
            likelihood=config.flavor == "course" and config.algorithm == "wordpiece",
            candidates=config.candidates,
            prefix=config.prefix or "",
            vocab_size=config.vocab_size,
            course_size=course_size,
            min_count=max(1, config.min_frequency),
            max_steps=max_steps,
        )
