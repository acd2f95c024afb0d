"""Training's large arrays go back to the system when freed: glibc's malloc, told so at run start.

glibc serves an allocation above its mmap threshold from a mapping of its own, unmapped on free;
anything smaller comes from the heap, which keeps freed memory for reuse. The threshold starts at
128 KB and rises to the size of every large block freed (up to 32 MB), so after a few numpy arrays
of several MB each later one comes from the heap, and a run's peak carries the garbage of its
earlier stages: on 5 MB of prose, Unigram's seed stage ends holding 550 MB of which 245 MB is
freed memory (`bench/bench_unigram.py --prose`; docs/performance.md). `map_large_blocks()` fixes the
threshold at 1 MB (a lower one costs time: every temporary is then mapped and faulted in afresh).

What it does not do: anything where the C library has no `mallopt` (macOS); musl ignores it.
"""

from __future__ import annotations

import ctypes
import functools

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
THRESHOLD = 1 << 20


@functools.cache
def map_large_blocks() -> bool:
    """Once per process; False where the C library has no mallopt."""
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    return bool(mallopt is not None and mallopt(M_MMAP_THRESHOLD, THRESHOLD))
