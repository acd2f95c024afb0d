"""Training's large arrays go back to the system when freed: Unigram's seed stage and a BPE run
on the compiled engine (glibc's malloc, told so around them), and a BPE run's columns once they
are the trace's (`release_free_memory`).

glibc serves an allocation above its mmap threshold from a mapping of its own, unmapped on free;
anything smaller comes from the heap, which keeps freed memory for reuse. The threshold starts at
128 KB and rises to the size of every large block freed (up to 32 MB), so after a few numpy arrays
of several MB each later one comes from the heap, and the stage ends holding its garbage: on 5 MB
of prose, the seeds of a Unigram run end at 550 MB of which 245 MB is freed memory, and the run's
peak (the lattices built next) is 1.23x the library's instead of 0.99x
(`bench/bench_unigram.py --prose`; docs/performance.md). `large_blocks_mapped()` fixes the
threshold at 1 MB for the stage, then at glibc's own ceiling (32 MB), where the passes after it
reuse their memory as fast as before. Around a compiled BPE run (its vectors grow by doubling,
each left in the heap when it moves) it took the run's peak on 5 MB of prose from 47.5 to 43.3 MB.

`release_free_memory()` is glibc's `malloc_trim(0)`, what the compiled engine calls after a large
chunk or its run's end (engine/src/lib.rs): the heap's free pages go back to the system. A BPE run
calls it once its columns are the trace's lists and arrays: the columns' bytes, freed in the
middle of the heap, were 8 MB of a 46 MB process after 5 MB of prose (its peak was the trace's
tokenizer.json and JSON written on top of them).

What it does not do: anything where the C library has no `mallopt` or `malloc_trim` (macOS); musl
ignores them.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
STAGE_THRESHOLD = 1 << 20
CEILING = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit machines


@functools.cache
def _mallopt():
    return getattr(ctypes.CDLL(None), "mallopt", None)


@functools.cache
def _malloc_trim():
    return getattr(ctypes.CDLL(None), "malloc_trim", None)


def release_free_memory() -> None:
    """Give the free pages of the C library's heap back to the system (glibc's `malloc_trim(0)`)."""
    malloc_trim = _malloc_trim()
    if malloc_trim is not None:
        malloc_trim(0)


@contextlib.contextmanager
def large_blocks_mapped():
    mallopt = _mallopt()
    if mallopt is not None:
        _thresholds(mallopt, STAGE_THRESHOLD)
    try:
        yield
    finally:
        if mallopt is not None:
            _thresholds(mallopt, CEILING)


def _thresholds(mallopt, mmap_threshold: int) -> None:
    """Set, the heap's trim threshold at twice the mmap threshold as glibc's own adjustment does
    (left at its 128 KB start, the heap's top would be given back and faulted in again at every
    large free: the passes took a quarter longer)."""
    mallopt(M_MMAP_THRESHOLD, mmap_threshold)
    mallopt(M_TRIM_THRESHOLD, 2 * mmap_threshold)
