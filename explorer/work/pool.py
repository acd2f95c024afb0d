"""A bounded pool of worker processes for CPU-heavy jobs, shared by every session of the server.

`WorkerPool(size)` keeps at most `size` worker processes (explorer/work/worker.py), started when
work arrives and kept for `tasks_per_worker` jobs each, then replaced, so memory cannot creep.
Workers run at a lower priority (`niceness`, default 10): when every core is busy, the server's
own page reruns still get the CPU first. `idle_steps` warm a worker up while it has nothing to do
(explorer/work/worker.py); with `keep_all_started`, once the first job has been submitted the pool
keeps all `size` workers started (a recycled one is replaced at once), so they are warm before the
next jobs need them.
`submit(key, function, *args)` queues `function(reporter, *args)` (a module-level function: the
worker imports it by name) and returns a `Job` (explorer/work/jobs.py); a job with the same key
that is still queued or running is returned instead, so thirty visitors asking for one run get one
job. `request(...)` is submit plus `attach()` in one step (use it from sessions: nothing can cancel
the job between the two). Jobs start in the order they were submitted, but for those submitted
with `first=True` (a short job a visitor waits for as they type), which go to the queue's front.

The pool holds a `Dispatcher` (explorer/work/dispatch.py), which owns the jobs and the workers.
Its one thread does all the talking to workers: it hands queued jobs to idle workers, records
progress and results, sends cancels, terminates a worker whose job outlived its cancel grace or
its hard `time_limit`, and notices a worker that died (killed, segfault): its job becomes
`crashed` with a sentence such as "the worker process ended unexpectedly (signal 9, SIGKILL)",
and the next job gets a new worker. Tracebacks of failed jobs go to the log of
explorer.work.dispatch.

A cancelled function has `cancel_grace` (30 s) to notice, then `finish_grace` (30 s) to return,
both counted in its worker's CPU time (explorer.work.jobs.GRACE_WALL_FACTOR: a worker that uses
none is ended after ten graces of wall time). Why CPU time: the workers run at nice 10, and on a
busy host a nice-10 worker gets a tenth of a core; terminating it loses what it learned. Counted
in wall time, a Stop lost its Unigram run with both cores kept busy (stress-ng --cpu 2 beside the
test suite): the trainer's return after the Stop (its final vocabulary's frequencies) takes 2-3 s
of CPU, more than 30 s of wall time at a tenth of a core. Why 30 s: a function that never looks
is rare (every task here checks), and it only keeps its worker longer.

`shutdown()` (also run at exit) cancels what is queued, ends every worker and waits for them.

`pool.settings` is what it was made with (a frozen `PoolSettings`).

What it does not do: keep jobs or workers itself, or talk to them (its dispatcher does), store
results (explorer.runstore), know what a job computes (explorer.work.tasks), or run on Windows
(workers need Unix sockets).
"""

from __future__ import annotations

import atexit
import os
import pickle

from explorer.work.dispatch import Dispatcher, PoolLoad, PoolSettings
from explorer.work.jobs import Job, JobHandle


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use (taskset, cpusets)
    except AttributeError:
        return os.cpu_count() or 1


class WorkerPool:
    """See the module docstring. Every public method is safe from any thread."""

    def __init__(self, size: int | None = None, **options):
        """`size` workers at the most (default: the cores this process may use); `options` are the
        other fields of `PoolSettings` (a wrong name is a TypeError, a wrong value a ValueError)."""
        self.settings = PoolSettings(size=max(1, size if size is not None else _cpu_count()), **options)
        self._dispatcher = Dispatcher(self.settings)
        atexit.register(self.shutdown)

    @property
    def counting_jobs(self) -> int:
        """Processes one job may count a corpus's words in: the cores this pool's workers leave
        (one per worker by default, so 1; `EXPLORER_WORKERS=1` on 4 cores gives 4)."""
        return max(1, _cpu_count() // self.settings.size)

    def submit(self, key: str, function, *args, time_limit: float | None = None, first: bool = False) -> Job:
        """The queued or running job for `key`, or a new one running `function(reporter, *args)`.

        `time_limit` (seconds of running, default the pool's) is a hard limit: past it the worker
        is terminated and the job fails. It counts the worker's CPU time, as a cancel's grace does
        (a worker a busy machine starves is not ended for being slow), and at most ten times it in
        wall time (explorer.work.jobs.GRACE_WALL_FACTOR). Raises ValueError when `function` cannot
        be sent to a worker (not a module-level function) and RuntimeError after `shutdown()`.
        `first`: start it before the jobs queued already (a short job a visitor waits for)."""
        return self._submit(key, function, args, time_limit, attach=False, first=first)

    def request(
        self, key: str, function, *args, time_limit: float | None = None, first: bool = False
    ) -> JobHandle:
        """`submit(...)` and `attach()` at once: what a visitor's session should hold."""
        return self._submit(key, function, args, time_limit, attach=True, first=first)

    @property
    def closed(self) -> bool:
        """True after `shutdown()`, or when the dispatcher thread has died (logged)."""
        return self._dispatcher.closed

    def find(self, key: str) -> Job | None:
        """The queued or running job for `key`, else one that ended lately (for late readers)."""
        return self._dispatcher.find(key)

    def load(self) -> PoolLoad:
        return self._dispatcher.load()

    def worker_pids(self) -> list[int]:
        return self._dispatcher.worker_pids()

    def warm_up(self, timeout: float = 30.0) -> bool:
        """Start every worker now instead of when work arrives; True once all are ready."""
        return self._dispatcher.start_all(timeout)

    def shutdown(self, timeout: float = 10.0) -> None:
        """Cancel queued jobs, end running ones and every worker; wait for them (idempotent)."""
        self._dispatcher.close(timeout)
        atexit.unregister(self.shutdown)

    def _submit(
        self, key: str, function, args: tuple, time_limit: float | None, attach: bool, first: bool = False
    ):
        existing = self._dispatcher.shared(key, attach)
        if existing is not None:
            return existing
        if getattr(function, "__module__", None) == "__main__":
            raise ValueError(
                f"{function!r} must be defined in an importable module: a worker imports it by name"
            )
        try:
            payload = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:
            raise ValueError(f"cannot send {function!r} and its arguments to a worker: {error}") from error
        limit = self.settings.time_limit if time_limit is None else time_limit
        return self._dispatcher.add(key, payload, limit, attach, first)
