"""A job of the worker pool as its callers see it, and the handles that keep it wanted.

- `Job`: one `function(reporter, *args)` for the pool; `state` goes queued -> running -> done,
  failed, cancelled or crashed. `progress` is the latest progress dict (fields accumulate),
  `result` the function's return value, `error` one sentence for the visitor (to follow e.g.
  "Training failed: "), `worker_pid` the process that runs or ran it. These are read-only: the
  job's own methods under "the dispatcher's side" change them, called by the pool's dispatcher
  (explorer/work/dispatch.py) with its lock held, each value replaced whole, and `wait()`
  returns once they are final.
- `JobHandle` (`job.attach()`): one visitor's interest in a job. When the last handle of a job is
  released (`release()`, or the handle is garbage-collected: `weakref.finalize`, so a Streamlit
  session dropped by the server releases what it held), a queued or running job is cancelled.
  A job nobody ever attached to runs to its end.
- `JobOwner`: what a job asks of the dispatcher that made it (cancel, attach, ...).
- `result_of(handle, seconds)`: a page run waits for a short job (an upload read, a library
  encode), its place and the GIL set aside, then lets go of it: the job's result, or its error.

What it does not do: run anything, talk to processes or decide anything (explorer.work.dispatch
does); it imports nothing of the pool.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from explorer.work import admission

QUEUED, RUNNING, DONE, FAILED, CANCELLED, CRASHED = (
    "queued",
    "running",
    "done",
    "failed",
    "cancelled",
    "crashed",
)
FINAL_STATES = (DONE, FAILED, CANCELLED, CRASHED)
# A cancelled job's grace, and a job's hard time limit, are counted in its worker's CPU time, so that
# a worker the machine starves (a busy class server: the workers run at a lower priority than
# everything else) is not ended for being slow. One that uses no CPU (blocked, asleep) is ended
# after this many graces (limits) of wall time.
GRACE_WALL_FACTOR = 10


class _Grace:
    """A job's time to end (a cancelled job's grace, or its hard time limit): `seconds` of its
    worker's CPU from `since` (wall) and `cpu` (that worker's CPU seconds then, None: count wall
    time), looked at again at `deadline`."""

    def __init__(self, since: float, cpu: float | None, seconds: float):
        self.since, self.cpu, self.seconds = since, cpu, seconds
        self.deadline = since + seconds

    def over(self, now: float, cpu: Callable[[], float | None]) -> bool:
        """Whether it is used up: `cpu()` reads the worker's CPU seconds, asked only once the wall
        time is over (a starved worker then gets the rest, up to GRACE_WALL_FACTOR times it)."""
        if now < self.deadline:
            return False
        used = None if self.cpu is None else cpu()
        if used is not None and self.cpu is not None and now - self.since < GRACE_WALL_FACTOR * self.seconds:
            spent = used - self.cpu
            if spent < self.seconds:
                self.deadline = min(now + self.seconds - spent, self.since + GRACE_WALL_FACTOR * self.seconds)
                return False
        return True


class JobOwner(Protocol):
    """The dispatcher's methods a job and its handles call (explorer.work.dispatch.Dispatcher)."""

    def cancel(self, job: Job, reason: str = ...) -> None: ...

    def attach(self, job: Job) -> JobHandle: ...

    def ahead(self, job: Job) -> int: ...

    def cancel_for(self, handle: JobHandle) -> bool: ...

    def note_release(self, job: Job) -> None: ...


class Job:
    """One piece of work for the pool (see the module docstring). Made by `WorkerPool.submit`."""

    def __init__(self, owner: JobOwner, key: str, task_id: int, payload: bytes, time_limit: float | None):
        self.key = key
        self.time_limit = time_limit
        self.submitted = time.monotonic()
        self._state = QUEUED
        self._progress: dict[str, Any] = {}
        self._result: Any = None
        self._error: str | None = None
        self._worker_pid: int | None = None
        self._started: float | None = None
        self._limit: _Grace | None = None  # the hard time limit, counted from the start
        self._ended_at: float | None = None
        self._cancel_requested = False
        # The dispatcher's bookkeeping, changed under its lock:
        self._owner = owner
        self._task_id = task_id
        self._payload: bytes | None = payload  # the pickled (function, args), dropped once sent
        self._handles = 0
        self._grace: _Grace | None = None  # set by a cancel of the running job
        self._cancel_sent = False
        self._ended = threading.Event()

    # ------------------------------------------------------------ the callers' side

    @property
    def state(self) -> str:
        return self._state

    @property
    def progress(self) -> dict[str, Any]:
        return self._progress

    @property
    def result(self) -> Any:
        return self._result

    @property
    def error(self) -> str | None:
        return self._error

    @property
    def worker_pid(self) -> int | None:
        return self._worker_pid

    @property
    def started(self) -> float | None:
        """When it started running (time.monotonic()), None while queued."""
        return self._started

    @property
    def ended(self) -> float | None:
        """When it ended (time.monotonic()), None until then."""
        return self._ended_at

    @property
    def cancel_requested(self) -> bool:
        return self._cancel_requested

    @property
    def finished(self) -> bool:
        return self._ended.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has ended (True) or `timeout` seconds have passed (False)."""
        return self._ended.wait(timeout)

    def cancel(self) -> None:
        """Queued: removed at once. Running: the function's `should_stop()` turns True; its worker
        is terminated (and replaced) when the function has not seen that within the pool's
        `cancel_grace` (30 s of the worker's CPU time), or has seen it but not returned within
        `finish_grace` (30 s of it; either at most GRACE_WALL_FACTOR times that in wall time). A
        function that returns ends `done` with what it returned (the trainer returns the merges
        learned so far, stop_reason "stopped"); a terminated one `cancelled`."""
        self._owner.cancel(self)

    def attach(self) -> JobHandle:
        """A handle that keeps this job wanted (see the module docstring)."""
        return self._owner.attach(self)

    @property
    def interest(self) -> int:
        """How many handles are attached (releases are counted by the dispatcher, a moment late)."""
        return self._handles

    def ahead(self) -> int:
        """How many queued jobs will start before this one (0 once it runs)."""
        return self._owner.ahead(self)

    def __repr__(self) -> str:
        return f"<Job {self.key!r} {self.state}>"

    # ------------------------------------------------------------ the dispatcher's side, under its lock

    @property
    def task_id(self) -> int:
        """The number that names this job in the messages to and from its worker."""
        return self._task_id

    def add_handle(self) -> None:
        self._handles += 1

    def drop_handle(self) -> int:
        """One handle fewer; how many are left."""
        self._handles -= 1
        return self._handles

    def start(self, worker_pid: int, now: float, cpu: float | None = None) -> bytes | None:
        """It runs from `now` in that worker (`cpu`: the worker's CPU seconds then, None where they
        cannot be read): the pickled (function, args) to send it, dropped here."""
        self._worker_pid, self._started, self._state = worker_pid, now, RUNNING
        if self.time_limit is not None:
            self._limit = _Grace(now, cpu, self.time_limit)
        payload, self._payload = self._payload, None
        return payload

    def add_progress(self, fields: dict[str, Any]) -> None:
        self._progress = {**self._progress, **fields}

    def request_cancel(self, now: float, grace: float, cpu: float | None) -> None:
        """Note the cancel; a running job must end within `grace` seconds of its worker's CPU time
        (`cpu`: that worker's CPU seconds now, None where they cannot be read: then wall time),
        unless it says it is stopping (`give_time_to_finish`). A queued one the dispatcher ends
        at once."""
        self._cancel_requested = True
        if self._state != QUEUED and self._grace is None:
            self._grace = _Grace(now, cpu, grace)

    def cancel_to_send(self) -> bool:
        """True once when a cancel has been requested and not yet sent to the worker."""
        if self._grace is None or self._cancel_sent:
            return False
        self._cancel_sent = True
        return True

    def give_time_to_finish(self, now: float, grace: float, cpu: float | None) -> None:
        """The function saw the cancel and is returning what it has: it gets `grace` from now."""
        self._grace = _Grace(now, cpu, grace)

    def cancel_overdue(self, now: float, cpu: Callable[[], float | None]) -> bool:
        """Whether the cancelled job has had its grace: `cpu()` reads its worker's CPU seconds,
        asked only once the grace's wall time is over (a starved worker then gets the rest)."""
        return self._grace is not None and self._grace.over(now, cpu)

    def over_time_limit(self, now: float, cpu: Callable[[], float | None]) -> bool:
        """Whether the running job has used its hard time limit: `time_limit` seconds of its
        worker's CPU (wall time where that cannot be read), at most GRACE_WALL_FACTOR times it in
        wall time."""
        return self._limit is not None and self._limit.over(now, cpu)

    def deadlines(self) -> list[float]:
        """When the dispatcher must look at this running job again: its cancel's deadline, its time limit."""
        return [grace.deadline for grace in (self._grace, self._limit) if grace is not None]

    def end(self, state: str, result: Any = None, error: str | None = None) -> None:
        """Final: `wait()` returns from now on."""
        self._result, self._error, self._ended_at, self._state = result, error, time.monotonic(), state
        self._payload = None
        self._ended.set()


class JobHandle:
    """One holder's interest in a job; `handle.job` is the job. Made by the job's owner, which has
    counted it (`Job.add_handle`)."""

    def __init__(self, job: Job, owner: JobOwner):
        self.job = job
        self._owner = owner
        # The finalizer must not refer to the handle itself, or the handle would never be collected.
        self._finalizer = weakref.finalize(self, owner.note_release, job)
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
        return self._owner.cancel_for(self)

    def __enter__(self) -> JobHandle:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"<JobHandle {self.job!r}{' released' if self.released else ''}>"


def result_of(handle: JobHandle, seconds: float) -> tuple[bool, Any]:
    """Wait up to `seconds` for the job `handle` holds, this page run's place given to another
    meanwhile (an Event: the GIL is free while it waits, and the place too: explorer.work.admission),
    then let go of it (a job nobody else waits for is cancelled). (True, its result) when it is
    done, else (False, its error: None when it did not end in time)."""
    try:
        with admission.set_aside():
            handle.job.wait(seconds)
        job = handle.job
        return (True, job.result) if job.state == DONE else (False, job.error)
    finally:
        handle.release()
