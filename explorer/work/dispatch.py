"""The worker pool's engine: its jobs, its worker processes, and the one thread that talks to them.

`Dispatcher(settings)` is what a `WorkerPool` (explorer/work/pool.py) holds and hands its callers'
work to. It owns the queue, the queued-or-running and recently-ended jobs by key, the workers and
the lock that guards them all, and runs the dispatcher thread: that thread hands queued jobs to
idle workers, records progress and results, sends cancels, terminates a worker whose job
outlived its cancel grace period or its hard time limit, notices a worker that died (its job
becomes `crashed`), retires workers after `tasks_per_worker` jobs or a cancelled one, and at
`close()` ends them all. A job's state is changed through the `Job`'s own methods
(explorer/work/jobs.py), always with the lock held. Reading from a worker and ending one happen
outside the lock (a result can be large, a worker slow to end), so callers are never kept
waiting by a process.

Its public methods are safe from any thread; `cancel`, `attach`, `ahead`, `cancel_for` and
`note_release` are what a `Job` and a `JobHandle` call (jobs.JobOwner).

What it does not do: check or pickle what callers submit, or decide the pool's settings
(explorer.work.pool); know what a job computes (explorer.work.tasks).
"""

from __future__ import annotations

import itertools
import logging
import queue
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_for_any
from typing import NamedTuple

from explorer.work.jobs import CANCELLED, CRASHED, DONE, FAILED, QUEUED, Job, JobHandle
from explorer.work.process import WorkerProcess, cpu_seconds, exit_description

LOG = logging.getLogger(__name__)

START_FAILURES_TOLERATED = 3  # workers in a row that die before they are ready: then queued jobs fail
IDLE_TICK = 1.0  # the dispatcher's longest sleep when nothing is due (a safety net: wake-ups are explicit)


@dataclass(frozen=True)
class PoolSettings:
    """A pool's settings, fixed when it is made (see `WorkerPool` for each one's meaning)."""

    size: int
    tasks_per_worker: int = 20
    cancel_grace: float = 30.0
    finish_grace: float = 30.0
    time_limit: float | None = 600.0
    report_interval: float = 0.1
    keep_finished: int = 8
    keep_seconds: float = 120.0
    preload: tuple[str, ...] = ()
    niceness: int = 10
    idle_steps: tuple[tuple[str, tuple], ...] = ()
    keep_all_started: bool = False

    def __post_init__(self) -> None:
        if self.tasks_per_worker < 1:
            raise ValueError(f"tasks_per_worker must be at least 1, not {self.tasks_per_worker!r}")
        object.__setattr__(self, "preload", tuple(self.preload))  # a list given is kept as a tuple
        object.__setattr__(self, "idle_steps", tuple(self.idle_steps))


class PoolLoad(NamedTuple):
    workers: int
    running: int
    queued: int


class Dispatcher:
    """See the module docstring. Starts its thread at once; `close()` ends it."""

    def __init__(self, settings: PoolSettings):
        self.settings = settings
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

    # ------------------------------------------------------------ the pool's side, any thread

    def shared(self, key: str, attach: bool) -> Job | JobHandle | None:
        """The queued or running job for `key` (a new handle on it with `attach`), or None."""
        with self._lock:
            job = self._active.get(key)
            if job is None:
                return None
            return self._attach_locked(job) if attach else job

    def add(
        self, key: str, payload: bytes, time_limit: float | None, attach: bool, first: bool = False
    ) -> Job | JobHandle:
        """Queue a job running the pickled (function, args) `payload`, unless one for `key` has
        been queued meanwhile; the job, or with `attach` a new handle on it; `first`: at the
        queue's front. RuntimeError once closed."""
        with self._lock:
            if self._closing:
                raise RuntimeError("the worker pool has been shut down")
            job = self._active.get(key)  # submitted by another thread meanwhile
            if job is None:
                self._used = True
                job = Job(self, key, next(self._task_ids), payload, time_limit)
                self._active[key] = job
                (self._queue.appendleft if first else self._queue.append)(job)
            handle = self._attach_locked(job) if attach else None
        self.wake()
        return job if handle is None else handle

    @property
    def closed(self) -> bool:
        """True after `close()`, or when the dispatcher thread has died (logged)."""
        return self._closing or not self._thread.is_alive()

    def find(self, key: str) -> Job | None:
        with self._lock:
            return self._active.get(key) or self._finished.get(key)

    def load(self) -> PoolLoad:
        with self._lock:
            running = sum(1 for worker in self._workers if worker.job is not None)
            return PoolLoad(len(self._workers), running, len(self._queue))

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [worker.pid for worker in self._workers]

    def start_all(self, timeout: float) -> bool:
        """Start every worker now; True once all are ready (within `timeout` seconds)."""
        with self._lock:
            while len(self._workers) < self.settings.size and not self._closing:
                self._start_worker()
        self.wake()  # the dispatcher must listen to the new workers
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if all(worker.ready for worker in self._workers) and len(self._workers) == self.settings.size:
                    return True
            time.sleep(0.01)
        return False

    def close(self, timeout: float) -> None:
        """Cancel queued jobs, end running ones and every worker; wait for them (idempotent)."""
        with self._lock:
            self._closing = True
        self.wake()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def wake(self) -> None:
        """Make the dispatcher thread look at its jobs and workers again now."""
        try:
            self._wake_writer.send(b"\0")
        except OSError:  # full (a wake-up is pending anyway) or closed (shut down)
            pass

    # ------------------------------------------------------------ a job's and a handle's side (JobOwner)

    def attach(self, job: Job) -> JobHandle:
        with self._lock:
            return self._attach_locked(job)

    def note_release(self, job: Job) -> None:
        """A handle was released or collected. Runs in any thread, even inside garbage
        collection while this thread holds the lock: so it only queues, and wakes the dispatcher."""
        self._releases.put(job)
        self.wake()

    def cancel(self, job: Job, reason: str = "it was cancelled") -> None:
        with self._lock:
            self._cancel_locked(job, reason)
        self.wake()

    def cancel_for(self, handle: JobHandle) -> bool:
        with self._lock:
            if handle.released:
                return False
            self._apply_releases()
            if handle.job.interest > 1:
                handle.release()
                return False
            self._cancel_locked(handle.job, "it was stopped")
        self.wake()
        return True

    def ahead(self, job: Job) -> int:
        with self._lock:
            return self._queue.index(job) if job.state == QUEUED and job in self._queue else 0

    # ------------------------------------------------------------ job states, under the lock

    def _attach_locked(self, job: Job) -> JobHandle:
        job.add_handle()
        return JobHandle(job, self)

    def _cancel_locked(self, job: Job, reason: str) -> None:
        if job.finished:
            return
        job.request_cancel(time.monotonic(), self.settings.cancel_grace, cpu_seconds(job.worker_pid))
        if job.state == QUEUED:
            self._queue.remove(job)
            self._end_job(job, CANCELLED, error=f"{reason} before it started")

    def _apply_releases(self) -> None:
        while True:
            try:
                job = self._releases.get_nowait()
            except queue.Empty:
                return
            if job.drop_handle() == 0:
                self._cancel_locked(job, "nobody was waiting for it any more, so it was cancelled")

    def _end_job(self, job: Job, state: str, result=None, error: str | None = None) -> None:
        if self._active.get(job.key) is job:
            del self._active[job.key]
        self._finished.pop(job.key, None)
        self._finished[job.key] = job
        while len(self._finished) > self.settings.keep_finished:
            self._finished.popitem(last=False)
        job.end(state, result, error)

    def _start_worker(self) -> None:
        settings = self.settings
        try:
            self._workers.append(
                WorkerProcess(
                    list(sys.path),
                    settings.report_interval,
                    settings.preload,
                    settings.niceness,
                    settings.idle_steps,
                )
            )
        except OSError:
            LOG.exception("could not start a worker process")
            self._note_start_failure("the server could not start a worker process")

    def _note_start_failure(self, what: str) -> None:
        self._start_failures += 1
        if self._start_failures >= START_FAILURES_TOLERATED:
            self._start_failures = 0
            for job in list(self._queue):
                self._queue.remove(job)
                self._end_job(job, FAILED, error=f"{what}; please try again later")

    # ------------------------------------------------------------ the dispatcher thread

    def _serve(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._closing:
                        break
                    now = time.monotonic()
                    self._apply_releases()
                    overdue = self._overdue_workers(now)
                for worker, state, error in overdue:
                    self._end_worker(worker, state, error)
                with self._lock:
                    self._retire_used_workers()
                    self._dispatch(time.monotonic())
                    self._start_needed_workers()
                    self._forget_old(time.monotonic())
                    connections = {worker.connection: worker for worker in self._workers}
                    timeout = self._next_deadline(time.monotonic())
                for ready in wait_for_any([*connections, self._wake_reader], timeout):
                    if ready is self._wake_reader:
                        self._drain_wake_ups()
                    else:
                        # `wait` gives back the objects it was given; its stub widens them.
                        self._receive(connections[ready])  # type: ignore[index]
        except Exception:
            LOG.exception("the worker pool's dispatcher failed; ending its workers")
        finally:
            self._tear_down()

    def _drain_wake_ups(self) -> None:
        try:
            while self._wake_reader.recv(4096):
                pass
        except BlockingIOError:
            pass

    def _overdue_workers(self, now: float) -> list[tuple[WorkerProcess, str, str]]:
        """Send due cancels; list the workers to terminate: cancel grace over or time limit hit."""
        overdue = []
        for worker in self._workers:
            job = worker.job
            if job is None:
                continue
            if job.cancel_to_send():
                self._send(worker, ("cancel", job.task_id))
            if job.cancel_overdue(now, worker.cpu_seconds):
                overdue.append((worker, CANCELLED, "it was cancelled"))
            elif job.over_time_limit(now, worker.cpu_seconds):
                overdue.append(
                    (worker, FAILED, f"it ran longer than its limit of {job.time_limit:g} s and was stopped")
                )
        return overdue

    def _end_worker(self, worker: WorkerProcess, state: str, error: str) -> None:
        """Terminate a worker whose job must end now; the job ends once the process is gone."""
        returncode = worker.end()
        LOG.info("worker %d terminated (%s): %s", worker.pid, exit_description(returncode), error)
        with self._lock:
            self._workers.remove(worker)
            if worker.job is not None and not worker.job.finished:
                self._end_job(worker.job, state, error=error)

    def _retire_used_workers(self) -> None:
        for worker in [w for w in self._workers if w.idle and w.tasks_done >= self.settings.tasks_per_worker]:
            self._workers.remove(worker)
            self._send(worker, ("exit",))
            threading.Thread(target=worker.end, args=(5.0,), name="worker-retire", daemon=True).start()

    def _start_needed_workers(self) -> None:
        starting = sum(1 for worker in self._workers if not worker.ready)
        wanted = min(self.settings.size - len(self._workers), len(self._queue) - starting)
        # Started before they are needed, they warm up (idle steps) meanwhile; not while starts fail.
        if self.settings.keep_all_started and self._used and not self._start_failures:
            wanted = self.settings.size - len(self._workers)
        for _ in range(max(0, wanted)):
            self._start_worker()

    def _dispatch(self, now: float) -> None:
        for worker in self._workers:
            if not self._queue:
                return
            if not worker.idle:
                continue
            job = self._queue.popleft()
            worker.job = job
            self._send(worker, ("task", job.task_id, job.start(worker.pid, now, worker.cpu_seconds())))

    def _send(self, worker: WorkerProcess, message: tuple) -> None:
        try:
            worker.connection.send(message)
        except OSError:  # it died; the dispatcher sees its end of file next and says so
            pass

    def _forget_old(self, now: float) -> None:
        while self._finished:
            job = next(iter(self._finished.values()))
            if job.ended is not None and now - job.ended < self.settings.keep_seconds:
                return
            self._finished.popitem(last=False)

    def _next_deadline(self, now: float) -> float:
        deadlines = [now + IDLE_TICK]
        for worker in self._workers:
            if worker.job is not None:
                deadlines.extend(worker.job.deadlines())
        return max(0.0, min(deadlines) - now)

    def _receive(self, worker: WorkerProcess) -> None:
        """Read every message the worker has sent (outside the lock: a result can be large)."""
        messages, gone = [], False
        try:
            messages.append(worker.connection.recv())
            while worker.connection.poll():
                messages.append(worker.connection.recv())
        except (EOFError, OSError):
            gone = True
        except Exception:  # a result that cannot be unpickled here
            LOG.exception("could not read a message from worker %d", worker.pid)
            messages.append(
                ("failed", worker.job.task_id if worker.job else 0, "its result could not be read", "")
            )
        with self._lock:
            for message in messages:
                self._handle(worker, message)
        if gone:
            self._worker_gone(worker)

    def _handle(self, worker: WorkerProcess, message: tuple) -> None:
        kind = message[0]
        if kind == "ready":
            worker.ready = True
            self._start_failures = 0
            return
        job = worker.job
        if job is None or message[1] != job.task_id:
            return  # about a job that has already ended (terminated meanwhile)
        if kind == "progress":
            job.add_progress(message[2])
            return
        if kind == "stopping":  # it saw the cancel and is returning what it has: give it time
            job.give_time_to_finish(time.monotonic(), self.settings.finish_grace, worker.cpu_seconds())
            return
        worker.job = None
        worker.tasks_done += 1
        if job.cancel_requested:
            # A cancelled job's worker is retired once it has returned what it had (a stopped
            # trainer's merges so far): a Stop ends the work for real, its process included.
            worker.tasks_done = max(worker.tasks_done, self.settings.tasks_per_worker)
        if kind == "done":
            self._end_job(job, DONE, result=message[2])
        else:
            _, _, sentence, details = message
            LOG.error("job %r failed in worker %d: %s\n%s", job.key, worker.pid, sentence, details)
            self._end_job(job, FAILED, error=sentence)

    def _worker_gone(self, worker: WorkerProcess) -> None:
        returncode = worker.end(wait_first=2.0)  # its socket closed: it is exiting, let it say how
        how = exit_description(returncode)
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)
            if not worker.ready:
                LOG.error("worker %d ended before it was ready (%s)", worker.pid, how)
                self._note_start_failure(f"the server could not start a worker process ({how})")
            job = worker.job
            if job is not None and not job.finished:
                LOG.error("worker %d running job %r ended unexpectedly (%s)", worker.pid, job.key, how)
                self._end_job(job, CRASHED, error=f"the worker process ended unexpectedly ({how})")

    def _tear_down(self) -> None:
        with self._lock:
            self._closing = True
            for job in list(self._queue):
                self._end_job(job, CANCELLED, error="the server is shutting down")
            self._queue.clear()
            workers, self._workers = self._workers, []
        for worker in workers:
            if worker.job is None:
                self._send(worker, ("exit",))
        for worker in workers:
            worker.end(wait_first=0.5 if worker.job is None else 0.0)
            with self._lock:
                if worker.job is not None and not worker.job.finished:
                    self._end_job(worker.job, CANCELLED, error="the server is shutting down")
        self._wake_writer.close()
        self._wake_reader.close()
