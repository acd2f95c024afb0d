"""Page runs admitted a few at a time: one interpreter serves every visitor.

Each visitor's page script runs in a thread of its own in the server, and they all share the
interpreter's lock with the server's event loop, which answers `/_stcore/health` and sends every
page to its browser. Thirty visitors opening a teacher's link at once were thirty page runs sharing
it: the health check took up to 2.4 s to answer, and a visitor already on Merge history waited up
to 2.8 s for a step key (`bench/serving_bench.py class`, docs/serving.md).

- `page_run()`: a whole page's run, admitted when one of `EXPLORER_PAGE_RUNS` places (default 2)
  is free; until then its thread waits on a semaphore, which does not hold the interpreter. A run
  that has waited `MAX_WAIT_SECONDS` goes anyway and says so in the log: a place never given back
  (a bug) slows the server, it does not stop it. Nested in the same thread, it takes no second place.
- `set_aside()`: the run in this thread gives its place to another while it waits for something
  that is not the interpreter (a training in a worker process, an upload being read), and takes one
  again after.

A fragment's rerun (a step key, the live box) is not a page run: it never waits here, so the
visitors already on a page keep answering while a class arrives.

What it does not do: limit the worker processes' jobs (explorer.work.pool), fragment runs, or
connections; or decide what a page draws.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

LOG = logging.getLogger(__name__)

DEFAULT_PAGE_RUNS = 2
MAX_WAIT_SECONDS = 30.0

_places: threading.Semaphore | None = None
_places_lock = threading.Lock()
_held = threading.local()  # .depth: page_run() levels entered in this thread; .place: a place held


def page_runs_setting(environ: Mapping[str, str] | None = None) -> int:
    """EXPLORER_PAGE_RUNS (a whole number of at least 1); a malformed value is logged, the default used."""
    raw = (os.environ if environ is None else environ).get("EXPLORER_PAGE_RUNS", "").strip()
    if not raw:
        return DEFAULT_PAGE_RUNS
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    LOG.warning(
        "EXPLORER_PAGE_RUNS must be a whole number of at least 1, not %r; using %d", raw, DEFAULT_PAGE_RUNS
    )
    return DEFAULT_PAGE_RUNS


def _semaphore() -> threading.Semaphore:
    global _places
    with _places_lock:
        if _places is None:
            _places = threading.Semaphore(page_runs_setting())
        return _places


def _take() -> None:
    _held.place = _semaphore().acquire(timeout=MAX_WAIT_SECONDS)
    if not _held.place:
        LOG.warning("a page run waited %.0f s for its place and goes without one", MAX_WAIT_SECONDS)


def _give_back() -> None:
    if holds_place():
        _held.place = False
        _semaphore().release()


@contextmanager
def page_run() -> Iterator[None]:
    """Run the block as one of the page runs admitted at once (see the module's docstring)."""
    depth = getattr(_held, "depth", 0)
    _held.depth = depth + 1
    if depth == 0:
        _take()
    try:
        yield
    finally:
        _held.depth = depth
        if depth == 0:
            _give_back()


@contextmanager
def set_aside() -> Iterator[None]:
    """While the block waits (not computing), this thread's place goes to another page run."""
    if not holds_place():
        yield
        return
    _give_back()
    try:
        yield
    finally:
        _take()


def holds_place() -> bool:
    """Whether this thread's page run holds a place now."""
    return bool(getattr(_held, "place", False))
