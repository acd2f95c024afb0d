"""Both merge engines in one call, for every trainer test: `train` trains with the Python engine
(the readable reference) and, when it is built, with the compiled one, checks that the two traces
are the same bytes (the trace JSON, but for the run's `seconds` and `engine`), and returns the Python one.

One call per example rather than a parametrized fixture: the references the tests compare against
(recount loops, the `tokenizers` library) run once, and every example proves the two engines
agree. `tests/parity/test_engines.py` checks that CI built the compiled engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from explorer.training import bpe, engines
from explorer.training.bpe.merge_history import Trace


def trace_bytes(trace: Trace) -> str:
    """The trace's JSON but for the two facts about the run itself: how long it took and which
    engine ran it."""
    return dataclasses.replace(trace, seconds=0.0, engine="").to_json()


def train(word_counts: Mapping[str, int] | Iterable[tuple[str, int]], config, **options) -> Trace:
    items = list(word_counts.items() if isinstance(word_counts, Mapping) else word_counts)
    python = bpe.train(items, config, engine="python", **options)
    if engines.compiled() is not None:
        rust = bpe.train(items, config, engine="rust", **options)
        assert trace_bytes(rust) == trace_bytes(python), "the two engines' traces differ"
    return python
