"""The compiled engine's front: the same inputs as the Python merge loop (`_merge` in
`trainer.py`), the same MergeHistory out.

The Rust crate (engine/, module `explorer_engine`) runs the engine, the queue of the flavor and the
recording; this module hands it the words as symbol ids (one array, end to end, which the crate
copies into its engine's one buffer: `compiled_run`; words the compiled counter holds go over
whole, `BpeRun.from_words`, and the crate makes their symbol ids) and the initial vocabulary, then
(`merge_compiled`) calls `advance()` (which releases the GIL) until a stop reason, doing the Stop and
progress checks between blocks of steps exactly where the Python loop does them, and turns the
columns it returns into the MergeHistory's lists and arrays.

What it does not do: choose the engine (explorer.training.engines) or build the initial
vocabulary (`trainer.py`, shared by both engines).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from types import ModuleType

from explorer.run_config import TrainerConfig
from explorer.training.bpe.candidates import Candidates
from explorer.training.memory import release_free_memory
from explorer.training.packing import Rows


def _column(data: bytes, typecode: str) -> array:
    column = array(typecode)
    column.frombytes(data)
    return column


# Words whose symbol ids are listed at a time: the ids go into the array a batch at a time, never
# as one list of the whole corpus's symbols (8 bytes each, and an array of 4 beside it).
SYMBOL_BATCH_WORDS = 1 << 16


def symbol_arrays(symbol_strings: list[str] | list[list[str]], ids: dict[str, int]) -> tuple[array, array]:
    """Every word's symbol ids end to end (four bytes each, where lists of ids would take 30 or
    so), and each word's length."""
    lengths = array("I", map(len, symbol_strings))
    symbol_ids = array("I")
    for start in range(0, len(symbol_strings), SYMBOL_BATCH_WORDS):
        batch = symbol_strings[start : start + SYMBOL_BATCH_WORDS]
        symbol_ids.extend([ids[symbol] for symbols in batch for symbol in symbols])
    return symbol_ids, lengths


def _aligned(values: array) -> array | memoryview:
    """`values`, or for an empty array an empty u32 view of an aligned buffer: an empty array's
    buffer may sit at any address, and the crate's u32 buffers must be aligned (PyO3 checks)."""
    return values if len(values) else memoryview(bytearray(4)).cast("I")[:0]


def compiled_run(
    module: ModuleType,
    symbol_ids: array,
    lengths: array,
    counts: list[int],
    tokens: list[str],
    config: TrainerConfig,
    course_size: int | None,
    max_steps: int | None,
):
    """The crate's run (`BpeRun`) over the words as symbol ids, before any merge: it copies
    `symbol_ids` into its engine, so the caller can let its array go."""
    return module.BpeRun(
        _aligned(symbol_ids),
        _aligned(lengths),
        counts,
        tokens,
        **run_settings(config, course_size, max_steps),
    )


def run_settings(config: TrainerConfig, course_size: int | None, max_steps: int | None) -> dict:
    """The crate's run settings (`BpeRun` and `BpeRun.from_words` take the same)."""
    return {
        "library": config.flavor == "library",
        "likelihood": scores_by_likelihood(config),
        "candidates": config.candidates,
        "prefix": config.prefix or "",
        "vocab_size": config.vocab_size,
        "course_size": course_size,
        "min_count": max(1, config.min_frequency),
        "max_steps": max_steps,
    }


def scores_by_likelihood(config: TrainerConfig) -> bool:
    """Whether the run picks pairs by likelihood score (the course's WordPiece), not by count."""
    return config.flavor == "course" and config.algorithm == "wordpiece"


def merge_compiled(
    run,
    lengths: Iterable[int],
    config: TrainerConfig,
    initial_vocab_size: int,
    progress: Callable[[int, int], None] | None,
    should_stop: Callable[[], bool] | None,
) -> dict:
    """Run the merges in Rust; the MergeHistory's fields that the merges decide (see `MergeHistory`)."""
    likelihood = scores_by_likelihood(config)
    planned = max(0, config.vocab_size - initial_vocab_size)
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
    merged = {
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
    del merges
    columns.clear()  # what the run did not fill for this flavor
    release_free_memory()  # the columns' bytes, freed amid the heap (memory.py)
    return merged
