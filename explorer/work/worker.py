"""The worker process: runs one job at a time for the pool (explorer.work.pool) and reports back.

A worker is a fresh Python interpreter (`python -m explorer.work.worker FD`) that talks to the
server over one Unix socket, wrapped in a `multiprocessing.connection.Connection` (length-prefixed
pickles). Messages, as tuples:

    server -> worker   ("setup", sys_path, report_interval, preload, niceness, idle_steps)   once
                       ("task", task_id, pickled (function, args))
                       ("cancel", task_id)                              only while that task runs
                       ("exit",)
    worker -> server   ("ready", pid)                                   after setup
                       ("progress", task_id, {name: value})
                       ("stopping", task_id)                            the cancel was seen
                       ("done", task_id, result)
                       ("failed", task_id, sentence, traceback_text)

Idle steps: ("module:function", args) pairs that warm the worker up for later jobs (load what a
first job would otherwise load). They run one at a time, in order, only once the worker has been
idle for `IDLE_AFTER` seconds, and a message is looked for between two steps: a job never waits for
more than the one step under way, and the remaining steps run when the worker is idle again. A
step that fails is skipped (the job that needs it meets the same failure and reports it).

A task is `function(reporter, *args)`. `Reporter.report(**progress)` sends progress, at most one
message per `report_interval` (fields accumulate: a report of `phase` alone keeps the last `step`);
`Reporter.should_stop()` is True once the server has cancelled this task, or once the server is
gone (this process's parent changed): the function should then return what it has, soon.

Why not multiprocessing.Process: a spawn or forkserver child re-runs the parent's `__main__`
module before it starts, and under Streamlit `sys.modules["__main__"]` is the page script being
run (Streamlit installs it there), so every worker would first execute the app's page. A worker
started with `-m` has this module as its `__main__` and nothing else runs.

Memory: a worker may allocate at most EXPLORER_WORKER_MEMORY_MB megabytes (default 3,000; 0 for
no limit), enforced by the kernel (RLIMIT_DATA: the heap and every private writable mapping, so
numpy's arrays too) from setup on. An allocation past it raises MemoryError in the task: a Unigram
run stops there at its last finished step, its rounds so far kept (explorer.work.tasks says "by the
worker's memory limit"); any other task fails with a sentence naming the limit.

What it does not do: schedule, time-limit or restart anything (the pool does), or log: a failed
task's traceback travels to the server, which logs it.
"""

from __future__ import annotations

import importlib
import os
import pickle
import resource
import signal
import sys
import time
import traceback
from multiprocessing.connection import Connection

IDLE_AFTER = 0.5  # seconds without a message before an idle step starts
DEFAULT_MEMORY_MB = 3000
MEMORY_VARIABLE = "EXPLORER_WORKER_MEMORY_MB"


def memory_limit_mb(environ=None) -> int | None:
    """The worker's memory limit in MB (1,000,000 bytes) from the environment; None: no limit.
    A malformed value is ValueError with a sentence (the pool logs it and keeps the default)."""
    raw = (os.environ if environ is None else environ).get(MEMORY_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_MEMORY_MB
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"{MEMORY_VARIABLE} must be a whole number of MB (0: no limit), not {raw!r}")
    return value or None


def apply_memory_limit(environ=None) -> int | None:
    """Limit this process's allocations (RLIMIT_DATA) as the environment says; the limit in MB."""
    try:
        limit = memory_limit_mb(environ)
    except ValueError as error:
        print(f"{error}; using {DEFAULT_MEMORY_MB} MB", file=sys.stderr)
        limit = DEFAULT_MEMORY_MB
    if limit is not None:
        size = limit * 1_000_000
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            size = min(size, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (size, hard))
    return limit


def current_memory_limit_mb() -> int | None:
    """The allocation limit in force in this process, in MB (None: none)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    return None if soft == resource.RLIM_INFINITY else soft // 1_000_000


def memory_limit_text() -> str:
    """What a run stopped on MemoryError was stopped by: "the worker's memory limit (3,000 MB,
    EXPLORER_WORKER_MEMORY_MB)", or "running out of memory" where no limit is in force."""
    limit = current_memory_limit_mb()
    return (
        f"the worker's memory limit ({limit:,} MB, {MEMORY_VARIABLE})" if limit else "running out of memory"
    )


def failure_sentence(error: BaseException) -> str:
    """One sentence for the visitor; the traceback goes to the server log, never to the page.

    ValueError carries a message written for people (the house rule for bad input); anything else
    is a bug or a resource problem and is named only by its kind."""
    if isinstance(error, MemoryError):
        if current_memory_limit_mb():
            return f"it passed {memory_limit_text()}: try a smaller corpus or vocabulary size"
        return "it ran out of memory: try a smaller corpus or vocabulary size"
    if isinstance(error, ValueError) and str(error):
        return str(error)
    return f"it failed unexpectedly ({type(error).__name__}); the details are in the server log"


class Reporter:
    """What a task function gets as its first argument: `report(**progress)`, `should_stop()`."""

    def __init__(self, connection: Connection, task_id: int, interval: float, clock=time.monotonic):
        self._connection = connection
        self._task_id = task_id
        self._interval = interval
        self._clock = clock
        self._parent = os.getppid()
        self._pending: dict = {}
        self._last_sent = -float("inf")
        self.cancelled = False

    def report(self, **progress) -> None:
        """Queue progress fields; they are sent when the last message is `interval` old."""
        self._pending.update(progress)
        self._send_if_due()

    def should_stop(self) -> bool:
        """Whether the function should stop now (cancelled, or the server has gone)."""
        while not self.cancelled and self._connection.poll():
            message = self._connection.recv()
            # While a task runs the server sends nothing but a cancel for it; a late cancel of an
            # earlier task is ignored.
            if message == ("cancel", self._task_id):
                self.cancelled = True
                # The function is wrapping up: the server gives it longer than a function
                # that never looks (building and sending a big trace on a busy machine takes time).
                self._connection.send(("stopping", self._task_id))
        if os.getppid() != self._parent:  # orphaned: nobody will read the result
            self.cancelled = True
        self._send_if_due()  # a report held back by the throttle goes out on the next check
        return self.cancelled

    def _send_if_due(self) -> None:
        if self._pending and self._clock() - self._last_sent >= self._interval:
            self._connection.send(("progress", self._task_id, self._pending))
            self._pending = {}
            self._last_sent = self._clock()


def run_task(connection: Connection, task_id: int, payload: bytes, interval: float) -> None:
    """Run one task and send its outcome; never raises (except when the socket itself fails)."""
    try:
        function, args = pickle.loads(payload)
        reporter = Reporter(connection, task_id, interval)
        result = function(reporter, *args)
    except BaseException as error:  # noqa: BLE001 - every failure becomes a message, the worker lives on
        connection.send(("failed", task_id, failure_sentence(error), traceback.format_exc()))
        return
    try:
        connection.send(("done", task_id, result))
    except Exception as error:  # the result could not be pickled: nothing was written yet
        connection.send(("failed", task_id, failure_sentence(error), traceback.format_exc()))


def run_idle_step(name: str, args: tuple) -> None:
    """Call the function `name` ("module:function") with `args`; a failure is ignored."""
    module, function = name.split(":")
    try:
        getattr(importlib.import_module(module), function)(*args)
    except Exception:  # noqa: BLE001 - an optimisation only: the job needing it reports the failure
        pass


def serve(connection: Connection) -> None:
    """Set up as the server says, then run tasks until told to exit or the server goes away."""
    _, sys_path, interval, preload, niceness, idle_steps = connection.recv()
    if niceness:
        os.nice(niceness)  # the server's page reruns go first when the cores are busy
    apply_memory_limit()
    sys.path[:] = list(dict.fromkeys([*sys_path, *sys.path]))
    for module in preload:  # import the heavy modules before the first task, not during it
        importlib.import_module(module)
    connection.send(("ready", os.getpid()))
    idle_steps = list(idle_steps)
    while True:
        # A job sent right after this worker's start or its last job comes first.
        if idle_steps and not connection.poll(IDLE_AFTER):
            run_idle_step(*idle_steps.pop(0))
            continue
        try:
            message = connection.recv()
        except EOFError:  # the server closed its end: it has exited
            return
        if message[0] == "exit":
            return
        if message[0] == "task":
            run_task(connection, message[1], message[2], interval)
        # ("cancel", id) for a task that has already finished: nothing to do


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # Ctrl-C in the server's terminal reaches the whole process group; the server stops its
    # workers itself, so a worker ignores it rather than dying mid-task with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    connection = Connection(int(argv[0]))
    try:
        serve(connection)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass  # the server is gone
    finally:
        connection.close()


if __name__ == "__main__":
    main()
