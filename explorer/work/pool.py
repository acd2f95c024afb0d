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
the job between the two). Jobs start in the order they were submitted.

One dispatcher thread (explorer/work/dispatch.py) does all the talking to workers: it hands
queued jobs to idle workers, records progress and results, sends cancels, terminates a worker
whose job outlived its cancel grace or its hard `time_limit`, and notices a worker that died
(killed, segfault): its job becomes `crashed` with a sentence such as "the worker process ended
unexpectedly (signal 9, SIGKILL)", and the next job gets a new worker. Tracebacks of failed jobs
go to the log of explorer.work.dispatch.

A cancelled function has `cancel_grace` (5 s) to notice, then `finish_grace` (30 s) to return.
Why 5 s: on a busy 2-core host a nice-10 worker can take seconds to reach the trainer's next check
(every 32 merges), and terminating it loses the merges learned so far.

`shutdown()` (also run at exit) cancels what is queued, ends every worker and waits for them.

What it does not do: store results (explorer.runstore), know what a job computes
(explorer.work.tasks), or run on Windows (workers need Unix sockets).
"""

from __future__ import annotations

import atexit
import itertools
import os
import pickle
import queue
import socket
import threading
import time
from collections import OrderedDict, deque
from typing import NamedTuple

from explorer.work.dispatch import Dispatcher
from explorer.work.jobs import QUEUED, Job, JobHandle
from explorer.work.process import WorkerProcess


class PoolLoad(NamedTuple):
    workers: int
    running: int
    queued: int


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use (taskset, cpusets)
    except AttributeError:
        return os.cpu_count() or 1


class WorkerPool(Dispatcher):
    """See the module docstring. Every public method is safe from any thread."""

    def __init__(
        self,
        size: int | None = None,
        tasks_per_worker: int = 20,
        cancel_grace: float = 5.0,
        finish_grace: float = 30.0,
        time_limit: float | None = 600.0,
        report_interval: float = 0.1,
        keep_finished: int = 8,
        keep_seconds: float = 120.0,
        preload: tuple[str, ...] = (),
        niceness: int = 10,
        idle_steps: tuple[tuple[str, tuple], ...] = (),
        keep_all_started: bool = False,
    ):
        self.size = max(1, size if size is not None else _cpu_count())
        if tasks_per_worker < 1:
            raise ValueError(f"tasks_per_worker must be at least 1, not {tasks_per_worker!r}")
        self.tasks_per_worker = tasks_per_worker
        self.cancel_grace = cancel_grace
        self.finish_grace = finish_grace
        self.time_limit = time_limit
        self.report_interval = report_interval
        self.keep_finished = keep_finished
        self.keep_seconds = keep_seconds
        self.preload = tuple(preload)
        self.niceness = niceness
        self.idle_steps = tuple(idle_steps)
        self.keep_all_started = keep_all_started
        self._used = False  # a job has been submitted (keep_all_started waits for it)
        self._lock = threading.Lock()
        self._queue: deque[Job] = deque()
        self._active: dict[str, Job] = {}  # key -> queued or running job
        self._finished: OrderedDict[str, Job] = OrderedDict()  # key -> recently ended job
        self._workers: list[WorkerProcess] = []
        self._releases: queue.SimpleQueue[Job] = queue.SimpleQueue()  # safe to put from finalizers
        self._task_ids = itertools.count(1)
        self._start_failures = 0
        self._closing = False
        # Wakes the dispatcher from its wait. Sockets, not os.pipe: after close, a late send fails
        # instead of writing to whatever file reuses the descriptor number.
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._wake_writer.setblocking(False)
        self._thread = threading.Thread(target=self._serve, name="worker-pool", daemon=True)
        self._thread.start()
        atexit.register(self.shutdown)

    # ------------------------------------------------------------ the callers' side

    def submit(self, key: str, function, *args, time_limit: float | None = None) -> Job:
        """The queued or running job for `key`, or a new one running `function(reporter, *args)`.

        `time_limit` (seconds of running, default the pool's) is a hard limit: past it the worker
        is terminated and the job fails. Raises ValueError when `function` cannot be sent to a
        worker (not a module-level function) and RuntimeError after `shutdown()`."""
        return self._submit(key, function, args, time_limit, attach=False)

    def request(self, key: str, function, *args, time_limit: float | None = None) -> JobHandle:
        """`submit(...)` and `attach()` at once: what a visitor's session should hold."""
        return self._submit(key, function, args, time_limit, attach=True)

    @property
    def closed(self) -> bool:
        """True after `shutdown()`, or when the dispatcher thread has died (logged)."""
        return self._closing or not self._thread.is_alive()

    def find(self, key: str) -> Job | None:
        """The queued or running job for `key`, else one that ended lately (for late readers)."""
        with self._lock:
            return self._active.get(key) or self._finished.get(key)

    def load(self) -> PoolLoad:
        with self._lock:
            running = sum(1 for worker in self._workers if worker.job is not None)
            return PoolLoad(len(self._workers), running, len(self._queue))

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [worker.pid for worker in self._workers]

    def warm_up(self, timeout: float = 30.0) -> bool:
        """Start every worker now instead of when work arrives; True once all are ready."""
        with self._lock:
            while len(self._workers) < self.size and not self._closing:
                self._start_worker()
        self._wake()  # the dispatcher must listen to the new workers
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if all(worker.ready for worker in self._workers) and len(self._workers) == self.size:
                    return True
            time.sleep(0.01)
        return False

    def shutdown(self, timeout: float = 10.0) -> None:
        """Cancel queued jobs, end running ones and every worker; wait for them (idempotent)."""
        with self._lock:
            self._closing = True
        self._wake()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        atexit.unregister(self.shutdown)

    def _submit(self, key: str, function, args: tuple, time_limit: float | None, attach: bool):
        existing = self._shared_job(key, attach)
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
        with self._lock:
            if self._closing:
                raise RuntimeError("the worker pool has been shut down")
            job = self._active.get(key)  # submitted by another thread meanwhile
            if job is None:
                limit = self.time_limit if time_limit is None else time_limit
                self._used = True
                job = Job(self, key, next(self._task_ids), payload, limit)
                self._active[key] = job
                self._queue.append(job)
            handle = self._attach_locked(job) if attach else None
        self._wake()
        return handle if attach else job

    def _shared_job(self, key: str, attach: bool):
        with self._lock:
            job = self._active.get(key)
            if job is None:
                return None
            return self._attach_locked(job) if attach else job

    def _attach(self, job: Job) -> JobHandle:
        with self._lock:
            return self._attach_locked(job)

    def _attach_locked(self, job: Job) -> JobHandle:
        job._handles += 1
        return JobHandle(job, self._note_release)

    def _note_release(self, job: Job) -> None:
        """A handle was released or collected. Runs in any thread, even inside garbage
        collection while this thread holds the lock: so it only queues, and wakes the dispatcher."""
        self._releases.put(job)
        self._wake()

    def _cancel(self, job: Job, reason: str = "it was cancelled") -> None:
        with self._lock:
            self._cancel_locked(job, reason)
        self._wake()

    def _cancel_for(self, handle: JobHandle) -> bool:
        with self._lock:
            if handle.released:
                return False
            self._apply_releases()
            if handle.job._handles > 1:
                handle.release()
                return False
            self._cancel_locked(handle.job, "it was stopped")
        self._wake()
        return True

    def _ahead(self, job: Job) -> int:
        with self._lock:
            return self._queue.index(job) if job.state == QUEUED and job in self._queue else 0
