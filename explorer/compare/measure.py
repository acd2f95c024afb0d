"""How tokenizers measure on a whole corpus, timed.

- `measure_corpus(column, texts)`: the figures of `explorer.measures.metrics` over a whole corpus
  through the column's batch
  encoder (explorer.compare.encoders: ids and spans in arrays, no `Piece` per token), a batch of
  `MEASURE_BATCH` lines at a time so that memory stays bounded whatever the corpus, each distinct
  line of a batch encoded once and counted as often as it occurs.

What it does not do: define the figures (explorer.measures.metrics), keep results
(explorer.ui.compare.measuring
stores them beside the run) or choose the process it runs in (explorer.work.tasks.measure_task
runs it in a worker).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.compare.columns import TokenizerColumn
from explorer.measures.metrics import (
    TokenizerMetrics,
    add_metrics,
    compute_metrics,
    encoded_metrics,
)

MEASURE_BATCH = 4096  # lines encoded at once by measure_corpus: bounds its memory on any corpus


@dataclass(frozen=True)
class CorpusMeasurement:
    metrics: TokenizerMetrics
    seconds: float


def measure_corpus(column: TokenizerColumn, texts: Sequence[str]) -> CorpusMeasurement:
    """`compute_metrics` over `texts`, timed: `MEASURE_BATCH` lines at a time (each distinct line
    of a batch encoded once), so only one batch's tokens are ever held. A column without a batch
    encoder (one of ours that may drop characters) encodes into pieces, one text at a time."""
    started = time.perf_counter()
    parts = []
    for first in range(0, len(texts), MEASURE_BATCH):
        batch = texts[first : first + MEASURE_BATCH]
        times = Counter(batch)  # in order of first occurrence
        distinct = list(times)
        if column.encode_batch is not None:
            encoded = column.encode_batch(distinct)
            parts.append(encoded_metrics(column.name, distinct, encoded, list(times.values())))
        else:
            pieces = dict(zip(distinct, map(column.encode, distinct)))
            parts.append(compute_metrics(column.name, batch, pieces.__getitem__))
    metrics = add_metrics(parts, column.name) if parts else compute_metrics(column.name, (), column.encode)
    return CorpusMeasurement(metrics, time.perf_counter() - started)
