"""The compiled engine's front: the same inputs as the Python merge loop (`_merge` in
`trainer.py`), the same MergeHistory out.

The Rust crate (engine/, module `explorer_engine`) runs the engine, the queue of the flavor and the
recording; this module hands it the words as symbol ids (one array, end to end) and the initial
vocabulary, calls `advance()` (which releases the GIL) until a stop reason, doing the Stop and
progress checks between blocks of steps exactly where the Python loop does them, and turns the
columns it returns into the MergeHistory's lists and arrays.

What it does not do: choose the engine (explorer.training.engines) or build the initial
vocabulary (`trainer.py`, shared by both engines).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from types import ModuleType

from explorer.run_config import TrainerConfig
from explorer.training.bpe.candidates import Candidates
from explorer.training.packing import Rows


def _column(data: bytes, typecode: str) -> array:
    column = array(typecode)
    column.frombytes(data)
    return column


def symbol_arrays(symbol_strings: list[str] | list[list[str]], ids: dict[str, int]) -> tuple[array, array]:
    """Every word's symbol ids end to end (four bytes each, where lists of ids would take 30 or
    so), and each word's length."""
    lengths = array("I", map(len, symbol_strings))
    return array("I", [ids[symbol] for symbols in symbol_strings for symbol in symbols]), lengths


def merge_compiled(
    module: ModuleType,
    symbol_ids: array,
    lengths: array,
    counts: list[int],
    tokens: list[str],
    config: TrainerConfig,
    course_size: int | None,
    progress: Callable[[int, int], None] | None,
    should_stop: Callable[[], bool] | None,
    max_steps: int | None,
) -> dict:
    """Run the merges in Rust; the MergeHistory's fields that the merges decide (see `MergeHistory`)."""
    likelihood = config.flavor == "course" and config.algorithm == "wordpiece"
    run = module.BpeRun(
        symbol_ids.tobytes(),
        lengths.tobytes(),
        counts,
        tokens,
        library=config.flavor == "library",
        likelihood=likelihood,
        candidates=config.candidates,
        prefix=config.prefix or "",
        vocab_size=config.vocab_size,
        course_size=course_size,
        min_count=max(1, config.min_frequency),
        max_steps=max_steps,
    )
    planned = max(0, config.vocab_size - len(tokens))
    while True:
        stop_reason = run.advance()
        if stop_reason is not None:
            break
        if should_stop is not None and should_stop():
            stop_reason = "stopped"
            break
        if progress is not None:
            progress(run.step, planned)
    if progress is not None:
        progress(run.step, planned)
    columns = run.columns()  # the run's memory is freed; each column's bytes go once converted

    def take(name: str, typecode: str) -> array:
        return _column(columns.pop(name), typecode)

    merges = take("merges", "i").tolist()
    steps = len(merges) // 3
    scores = take("merge_scores", "d").tolist() if likelihood else [None] * steps
    boundary_steps = Rows(take("boundary_steps", "i"), (max(length - 1, 0) for length in lengths))
    return {
        "vocab": columns.pop("tokens"),
        "merges": list(zip(merges[0::3], merges[1::3], merges[2::3])),
        "merge_counts": take("merge_counts", "q").tolist(),
        "merge_scores": scores,
        "words_changed": take("words_changed", "q").tolist(),
        "occurrences": take("occurrences", "q").tolist(),
        "candidates": Candidates(
            take("candidate_ends", "i"),
            take("candidate_lefts", "i"),
            take("candidate_rights", "i"),
            take("candidate_counts", "q"),
            take("candidate_scores", "d") if likelihood else None,
            (take("candidate_left_counts", "q"), take("candidate_right_counts", "q")) if likelihood else None,
        ),
        "stop_reason": stop_reason,
        "boundary_steps": boundary_steps,
    }
