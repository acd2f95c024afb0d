"""A job of the worker pool as its callers see it, and the handles that keep it wanted.

- `Job`: one `function(reporter, *args)` for the pool; `state` goes queued -> running -> done,
  failed, cancelled or crashed. `progress` is the latest progress dict (fields accumulate),
  `result` the function's return value, `error` one sentence for the visitor (to follow e.g.
  "Training failed: "), `worker_pid` the process that runs or ran it. Attributes are written by
  the pool's dispatcher thread, each replaced whole, and `wait()` returns once they are final.
- `JobHandle` (`job.attach()`): one visitor's interest in a job. When the last handle of a job is
  released (`release()`, or the handle is garbage-collected: `weakref.finalize`, so a Streamlit
  session dropped by the server releases what it held), a queued or running job is cancelled.
  A job nobody ever attached to runs to its end.

What it does not do: run anything or talk to processes (explorer.work.pool does).
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.work.pool import WorkerPool

QUEUED, RUNNING, DONE, FAILED, CANCELLED, CRASHED = (
    "queued",
    "running",
    "done",
    "failed",
    "cancelled",
    "crashed",
)
FINAL_STATES = (DONE, FAILED, CANCELLED, CRASHED)


class Job:
    """One piece of work for the pool (see the module docstring). Made by `WorkerPool.submit`."""

    def __init__(self, pool: WorkerPool, key: str, task_id: int, payload: bytes, time_limit: float | None):
        self.key = key
        self.state = QUEUED
        self.progress: dict[str, Any] = {}
        self.result: Any = None
        self.error: str | None = None
        self.worker_pid: int | None = None
        self.time_limit = time_limit
        self.submitted = time.monotonic()
        self.started: float | None = None
        self.ended: float | None = None
        self.cancel_requested = False
        # Owned by the pool, under its lock:
        self._pool = pool
        self._task_id = task_id
        self._payload: bytes | None = payload  # the pickled (function, args), dropped once sent
        self._handles = 0
        self._cancel_deadline: float | None = None
        self._cancel_sent = False
        self._ended = threading.Event()

    @property
    def finished(self) -> bool:
        return self._ended.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has ended (True) or `timeout` seconds have passed (False)."""
        return self._ended.wait(timeout)

    def cancel(self) -> None:
        """Queued: removed at once. Running: the function's `should_stop()` turns True; its worker
        is terminated (and replaced) when the function has not seen that within the pool's
        `cancel_grace` (5 s), or has seen it but not returned within `finish_grace` (30 s). A
        function that returns ends `done` with what it returned (the trainer returns the merges
        learned so far, stop_reason "stopped"); a terminated one `cancelled`."""
        self._pool._cancel(self)

    def attach(self) -> JobHandle:
        """A handle that keeps this job wanted (see the module docstring)."""
        return self._pool._attach(self)

    @property
    def interest(self) -> int:
        """How many handles are attached (releases are counted by the dispatcher, a moment late)."""
        return self._handles

    def ahead(self) -> int:
        """How many queued jobs will start before this one (0 once it runs)."""
        return self._pool._ahead(self)

    def __repr__(self) -> str:
        return f"<Job {self.key!r} {self.state}>"


class JobHandle:
    """One holder's interest in a job; `handle.job` is the job."""

    def __init__(self, job: Job, on_release):
        self.job = job
        # The finalizer must not refer to the handle itself, or the handle would never be collected.
        self._finalizer = weakref.finalize(self, on_release, job)
        self._finalizer.atexit = False  # at exit the pool shuts down anyway

    @property
    def released(self) -> bool:
        return not self._finalizer.alive

    def release(self) -> None:
        """Drop this interest (idempotent); the job is cancelled when nobody else holds it."""
        self._finalizer()

    def cancel(self) -> bool:
        """The Stop button: cancel the job if this is its only holder and return True; when others
        still wait for it (the same run, asked for by other visitors), release only this handle
        and return False, so one visitor never stops another's work."""
        return self.job._pool._cancel_for(self)

    def __enter__(self) -> JobHandle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"<JobHandle {self.job!r}{' released' if self.released else ''}>"
