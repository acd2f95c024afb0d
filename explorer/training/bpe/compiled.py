"""The compiled engine's front: the same inputs as the Python merge loop (`_merge` in
`trainer.py`: the words, the initial vocabulary, a `MergeSettings`), the same `MergeColumns` out.

The Rust crate (engine/, module `explorer_engine`, typed by stubs/explorer_engine.pyi) runs the
engine, the queue of the flavor and the columns it records; this module hands it the words as symbol ids
(one array, end to end, which the crate copies into its engine's one buffer: `compiled_run`; words
the compiled counter holds go over whole, `compiled_run_from_words`, and the crate makes their
symbol ids) and the initial vocabulary, then (`merge_compiled`) calls `advance()` (which releases
the GIL) until a stop reason, doing the Stop and progress checks between blocks of steps exactly
where the Python loop does them, and reads the columns it returns as arrays of the kinds in
shared.py.

What it does not do: choose the engine (explorer.training.engines) or build the initial
vocabulary (`trainer.py`, shared by both engines).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from explorer.training.bpe.candidates import Candidates
from explorer.training.bpe.merge_columns import MergeColumns
from explorer.training.bpe.shared import BOUNDARY_STEP_KIND, COLUMN_KINDS, MergeSettings
from explorer.training.held_words import HeldWords
from explorer.training.memory import release_free_memory
from explorer.training.packing import KINDS, Rows

if TYPE_CHECKING:
    from explorer_engine import BpeRun  # typed by stubs/explorer_engine.pyi


def _column(data: bytes, kind: str) -> array:
    """An array of `kind` (explorer.training.packing's kinds) from the crate's bytes."""
    column = array(KINDS[kind][0])
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
    symbol_ids: array, lengths: array, counts: list[int], tokens: list[str], settings: MergeSettings
) -> BpeRun:
    """The crate's run (`BpeRun`) over the words as symbol ids, before any merge: it copies
    `symbol_ids` into its engine, so the caller can let its array go. Only called when the engine
    is built (explorer.training.engines)."""
    from explorer_engine import BpeRun

    return BpeRun(_aligned(symbol_ids), _aligned(lengths), counts, tokens, settings)


def compiled_run_from_words(
    held: HeldWords, tokens: list[str], suffix: str, settings: MergeSettings
) -> BpeRun:
    """The crate's run over words the compiled counter holds, each as its initial symbols
    (decorated with the settings' prefix and `suffix`) looked up in `tokens`: the words stay in Rust."""
    from explorer_engine import BpeRun

    return BpeRun.from_words(held.held, tokens, suffix, settings)


def merge_compiled(
    run: BpeRun,
    lengths: Iterable[int],
    settings: MergeSettings,
    initial_vocab_size: int,
    progress: Callable[[int, int], None] | None,
    should_stop: Callable[[], bool] | None,
) -> MergeColumns:
    """Run the merges in Rust, between the same Stop and progress checks as the Python loop, and
    read the columns it recorded."""
    planned = max(0, settings.vocab_size - initial_vocab_size)
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
    columns, tokens, steps = run.columns()  # the run's memory is freed; each column's bytes go once read

    def take(name: str) -> array:
        return _column(columns.pop(name), COLUMN_KINDS[name])

    likelihood = settings.likelihood
    merges = take("merges").tolist()
    count = len(merges) // 3
    merged = MergeColumns(
        vocab=tokens,
        merges=list(zip(merges[0::3], merges[1::3], merges[2::3])),
        merge_counts=take("merge_counts").tolist(),
        merge_scores=take("merge_scores").tolist() if likelihood else [None] * count,
        words_changed=take("words_changed").tolist(),
        occurrences=take("occurrences").tolist(),
        candidates=Candidates(
            take("candidate_ends"),
            take("candidate_lefts"),
            take("candidate_rights"),
            take("candidate_counts"),
            take("candidate_scores") if likelihood else None,
            (take("candidate_left_counts"), take("candidate_right_counts")) if likelihood else None,
        ),
        stop_reason=stop_reason,
        boundary_steps=Rows(_column(steps, BOUNDARY_STEP_KIND), (max(length - 1, 0) for length in lengths)),
    )
    del merges, steps
    columns.clear()  # what the run did not fill for this flavor
    release_free_memory()  # the columns' bytes, freed amid the heap (memory.py)
    return merged
