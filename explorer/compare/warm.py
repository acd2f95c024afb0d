"""Columns' encoders loaded before anyone types: a bundled vocabulary takes 0.4-1.4 s to load
(docs/performance.md), which a keystroke must never wait for.

- `warm(columns)`: load, in one background thread, the encoder of every column not loaded yet
  (`TokenizerColumn.load`); returns at once. The Compare page calls it as it opens, with the
  columns its link or picker names, before it draws anything.
- `loading(columns)`: the keys of those still loading: the live columns say so in their place and
  are drawn when ready, rather than the page's run waiting for them.
- `wait_all(timeout)`: wait for every load asked for (no browser asks again): for the app tests
  (tests/app/helpers.py) and bench/bench_compare_columns.py only; the app never calls it.
- `warm_defaults()`: the first columns of every Compare page (GPT-2, GPT-4, GPT-4o), loaded once
  per process once a visitor is past the Train page's first view (on another page, on Train's next
  run, or on Train with a run shown: explorer.ui.common.frame.page and serving.warm_compare).

Loads are serialized by explorer.pretrained (one at a time), so one thread loses nothing; a load
that fails is left for the column's own encode to report.

What it does not do: encode, draw, or decide which columns a page shows.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait

from explorer.compare.columns import TokenizerColumn, pretrained_column
from explorer.pretrained import PRETRAINED

_LOADER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compare-warm")
_asked: dict[str, Future] = {}  # content key -> its load
_lock = threading.Lock()


def _load(column: TokenizerColumn) -> None:
    try:
        if column.load is not None:
            column.load()
    except Exception:  # noqa: BLE001 - the column's own encode says why, in its place
        pass


def warm(columns: Iterable[TokenizerColumn]) -> None:
    """Start loading every column's encoder not loaded (or asked for) yet; do not wait."""
    for column in columns:
        if column.load is None or column.loaded is None or column.loaded():
            continue
        with _lock:
            if column.content_key not in _asked:
                _asked[column.content_key] = _LOADER.submit(_load, column)


def loading(columns: Iterable[TokenizerColumn]) -> set[str]:
    """The keys of the columns whose encoder is still loading (asking for their load); a load
    that failed is not waited for (the column's encode says why)."""
    waiting = [column for column in columns if column.loaded is not None and not column.loaded()]
    warm(waiting)
    with _lock:
        return {column.key for column in waiting if not _asked[column.content_key].done()}


def wait_all(timeout: float) -> None:
    """Wait up to `timeout` seconds for every load asked for so far (a test or a benchmark that has
    no browser to ask the page again)."""
    with _lock:
        asked = list(_asked.values())
    wait(asked, timeout=timeout)


def warm_defaults() -> None:
    """Load the encoders of the columns every Compare page starts with, in the background."""
    warm(pretrained_column(name) for name in PRETRAINED)  # GPT-2, GPT-4, GPT-4o
