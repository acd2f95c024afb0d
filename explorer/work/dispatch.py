"""The dispatcher's side of the worker pool: one thread that does all the talking to workers.

`Dispatcher` is the base class of `WorkerPool` (explorer/work/pool.py), split off by idea: the pool
takes work from callers; the dispatcher thread hands queued jobs to idle workers, records progress
and results, sends cancels, terminates a worker whose job outlived its cancel grace period or its
hard time limit, notices a worker that died (its job becomes `crashed`), retires workers after
`tasks_per_worker` jobs or a cancelled one, and at shutdown ends them all. The methods under
"job states" run with `self._lock` held; reading from a worker and ending one happen outside it
(a result can be large, a worker slow to end), so callers are never kept waiting by a process.

It uses the attributes `WorkerPool.__init__` sets (the queue, the workers, the lock, ...).

What it does not do: accept work or hand out handles (explorer.work.pool).
"""

from __future__ import annotations

import logging
import queue
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from multiprocessing.connection import wait as wait_for_any

from explorer.work.jobs import CANCELLED, CRASHED, DONE, FAILED, QUEUED, RUNNING, Job
from explorer.work.process import WorkerProcess, exit_description

LOG = logging.getLogger(__name__)

START_FAILURES_TOLERATED = 3  # workers in a row that die before they are ready: then queued jobs fail
IDLE_TICK = 1.0  # the dispatcher's longest sleep when nothing is due (a safety net: wake-ups are explicit)


def _started(job: Job) -> float:
    """When a job a worker holds started (set when it was handed over)."""
    assert job.started is not None
    return job.started


class Dispatcher:
    """See the module docstring."""

    # Set by `WorkerPool.__init__` (declared here for the type checker; no class-level values).
    size: int
    tasks_per_worker: int
    cancel_grace: float
    finish_grace: float
    time_limit: float | None
    report_interval: float
    keep_finished: int
    keep_seconds: float
    preload: tuple[str, ...]
    niceness: int
    idle_steps: tuple[tuple[str, tuple], ...]
    keep_all_started: bool
    _used: bool
    _lock: threading.Lock
    _queue: deque[Job]
    _active: dict[str, Job]
    _finished: OrderedDict[str, Job]
    _workers: list[WorkerProcess]
    _releases: queue.SimpleQueue[Job]
    _start_failures: int
    _closing: bool
    _wake_reader: socket.socket
    _wake_writer: socket.socket

    def _wake(self) -> None:
        try:
            self._wake_writer.send(b"\0")
        except OSError:  # full (a wake-up is pending anyway) or closed (shut down)
            pass

    # ------------------------------------------------------------ job states, under the lock

    def _cancel_locked(self, job: Job, reason: str) -> None:
        if job.finished:
            return
        job.cancel_requested = True
        if job.state == QUEUED:
            self._queue.remove(job)
            self._end_job(job, CANCELLED, error=f"{reason} before it started")
        elif job._cancel_deadline is None:
            job._cancel_deadline = time.monotonic() + self.cancel_grace

    def _apply_releases(self) -> None:
        while True:
            try:
                job = self._releases.get_nowait()
            except queue.Empty:
                return
            job._handles -= 1
            if job._handles == 0:
                self._cancel_locked(job, "nobody was waiting for it any more, so it was cancelled")

    def _end_job(self, job: Job, state: str, result=None, error: str | None = None) -> None:
        job.result, job.error, job.ended, job.state = result, error, time.monotonic(), state
        job._payload = None
        if self._active.get(job.key) is job:
            del self._active[job.key]
        self._finished.pop(job.key, None)
        self._finished[job.key] = job
        while len(self._finished) > self.keep_finished:
            self._finished.popitem(last=False)
        job._ended.set()

    def _start_worker(self) -> None:
        try:
            self._workers.append(
                WorkerProcess(
                    list(sys.path), self.report_interval, self.preload, self.niceness, self.idle_steps
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
                        self._receive(connections[ready])  # type: ignore[index]  # `wait` returns what it was given
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
            if job._cancel_deadline is not None and not job._cancel_sent:
                job._cancel_sent = True
                self._send(worker, ("cancel", job._task_id))
            if job._cancel_deadline is not None and now >= job._cancel_deadline:
                overdue.append((worker, CANCELLED, "it was cancelled"))
            elif job.time_limit is not None and now - _started(job) >= job.time_limit:
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
        for worker in [w for w in self._workers if w.idle and w.tasks_done >= self.tasks_per_worker]:
            self._workers.remove(worker)
            self._send(worker, ("exit",))
            threading.Thread(target=worker.end, args=(5.0,), name="worker-retire", daemon=True).start()

    def _start_needed_workers(self) -> None:
        starting = sum(1 for worker in self._workers if not worker.ready)
        wanted = min(self.size - len(self._workers), len(self._queue) - starting)
        # Started before they are needed, they warm up (idle steps) meanwhile; not while starts fail.
        if self.keep_all_started and self._used and not self._start_failures:
            wanted = self.size - len(self._workers)
        for _ in range(max(0, wanted)):
            self._start_worker()

    def _dispatch(self, now: float) -> None:
        for worker in self._workers:
            if not self._queue:
                return
            if not worker.idle:
                continue
            job = self._queue.popleft()
            worker.job, job.worker_pid, job.started, job.state = job, worker.pid, now, RUNNING
            self._send(worker, ("task", job._task_id, job._payload))
            job._payload = None

    def _send(self, worker: WorkerProcess, message: tuple) -> None:
        try:
            worker.connection.send(message)
        except OSError:  # it died; the dispatcher sees its end of file next and says so
            pass

    def _forget_old(self, now: float) -> None:
        while self._finished:
            job = next(iter(self._finished.values()))
            assert job.ended is not None  # a finished job has ended
            if now - job.ended < self.keep_seconds:
                return
            self._finished.popitem(last=False)

    def _next_deadline(self, now: float) -> float:
        deadlines = [now + IDLE_TICK]
        for worker in self._workers:
            job = worker.job
            if job is not None and job._cancel_deadline is not None:
                deadlines.append(job._cancel_deadline)
            if job is not None and job.time_limit is not None:
                deadlines.append(_started(job) + job.time_limit)
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
                ("failed", worker.job._task_id if worker.job else 0, "its result could not be read", "")
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
        if job is None or message[1] != job._task_id:
            return  # about a job that has already ended (terminated meanwhile)
        if kind == "progress":
            job.progress = {**job.progress, **message[2]}
            return
        if kind == "stopping":  # it saw the cancel and is returning what it has: give it time
            job._cancel_deadline = max(job._cancel_deadline or 0.0, time.monotonic() + self.finish_grace)
            return
        worker.job = None
        worker.tasks_done += 1
        if job.cancel_requested:
            # A cancelled job's worker is retired once it has returned what it had (a stopped
            # trainer's merges so far): a Stop ends the work for real, its process included.
            worker.tasks_done = max(worker.tasks_done, self.tasks_per_worker)
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
