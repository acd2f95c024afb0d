"""A bounded pool of worker processes for CPU-heavy jobs, shared by every session of the server.

`WorkerPool(size)` keeps at most `size` worker processes (explorer/work/worker.py), started when
work arrives and kept for `tasks_per_worker` jobs each, then replaced, so memory cannot creep.
Workers run at a lower priority (`niceness`, default 10): when every core is busy, the server's
own page reruns still get the CPU first.
`submit(key, function, *args)` queues `function(reporter, *args)` (a module-level function: the
worker imports it by name) and returns a `Job` (explorer/work/jobs.py); a job with the same key
that is still queued or running is returned instead, so thirty visitors asking for one run get one
job. `request(...)` is submit plus `attach()` in one step (use it from sessions: nothing can cancel
the job between the two). Jobs start in the order they were submitted.

One dispatcher thread does all the talking to workers: it hands queued jobs to idle workers,
records progress and results, sends cancels, terminates a worker whose job outlived its cancel
grace period or its hard `time_limit`, and notices a worker that died (killed, segfault): its job
becomes `crashed` with a sentence such as "the worker process ended unexpectedly (signal 9,
SIGKILL)", and the next job gets a new worker. Tracebacks of failed jobs go to this module's log.

`shutdown()` (also run at exit) cancels what is queued, ends every worker and waits for them.

What it does not do: store results (explorer.runstore), know what a job computes
(explorer.work.tasks), or run on Windows (workers need Unix sockets).
"""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import pickle
import queue
import socket
import sys
import threading
import time
from collections import OrderedDict, deque
from multiprocessing.connection import wait as wait_for_any
from typing import NamedTuple

from explorer.work.jobs import CANCELLED, CRASHED, DONE, FAILED, QUEUED, RUNNING, Job, JobHandle
from explorer.work.process import WorkerProcess, exit_description

LOG = logging.getLogger(__name__)

START_FAILURES_TOLERATED = 3  # workers in a row that die before they are ready: then queued jobs fail
IDLE_TICK = 1.0  # the dispatcher's longest sleep when nothing is due (a safety net: wake-ups are explicit)


class PoolLoad(NamedTuple):
    workers: int
    running: int
    queued: int


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use (taskset, cpusets)
    except AttributeError:
        return os.cpu_count() or 1


class WorkerPool:
    """See the module docstring. Every public method is safe from any thread."""

    def __init__(
        self,
        size: int | None = None,
        tasks_per_worker: int = 20,
        cancel_grace: float = 2.0,
        time_limit: float | None = 600.0,
        report_interval: float = 0.1,
        keep_finished: int = 8,
        keep_seconds: float = 120.0,
        preload: tuple[str, ...] = (),
        niceness: int = 10,
    ):
        self.size = max(1, size if size is not None else _cpu_count())
        if tasks_per_worker < 1:
            raise ValueError(f"tasks_per_worker must be at least 1, not {tasks_per_worker!r}")
        self.tasks_per_worker = tasks_per_worker
        self.cancel_grace = cancel_grace
        self.time_limit = time_limit
        self.report_interval = report_interval
        self.keep_finished = keep_finished
        self.keep_seconds = keep_seconds
        self.preload = tuple(preload)
        self.niceness = niceness
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
            raise ValueError(f"{function!r} must be defined in an importable module: a worker imports it by name")
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

    def _wake(self) -> None:
        try:
            self._wake_writer.send(b"\0")
        except OSError:  # full (a wake-up is pending anyway) or closed (shut down)
            pass

    # ------------------------------------------------------------ under the lock

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
            self._workers.append(WorkerProcess(list(sys.path), self.report_interval, self.preload, self.niceness))
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
                        self._receive(connections[ready])
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
            elif job.time_limit is not None and now - job.started >= job.time_limit:
                overdue.append((worker, FAILED, f"it ran longer than its limit of {job.time_limit:g} s and was stopped"))
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
                deadlines.append(job.started + job.time_limit)
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
            messages.append(("failed", worker.job._task_id if worker.job else 0, "its result could not be read", ""))
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
        worker.job = None
        worker.tasks_done += 1
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
