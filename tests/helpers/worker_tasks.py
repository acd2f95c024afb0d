"""Tiny task functions for tests/unit/test_workers.py (and a broken training for
tests/app/test_bad_inputs.py). A worker imports a task by its module's name, so they live in a
module of their own that any process can import (tests.helpers.worker_tasks)."""

from __future__ import annotations

import os
import signal
import time


def echo(reporter, value):
    return value


def whoami(reporter):
    return os.getpid()


def count(reporter, steps, delay):
    """Report every step; return how many steps ran."""
    for step in range(steps):
        reporter.report(step=step, of=steps)
        time.sleep(delay)
    return steps


def until_stopped(reporter, seconds=30.0):
    """Cooperative: check should_stop like the trainer does; 'stopped' or 'finished'."""
    reporter.report(phase="waiting")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if reporter.should_stop():
            return "stopped"
        time.sleep(0.01)
    return "finished"


def stubborn(reporter, seconds=30.0):
    """Never asks should_stop: only terminating the worker ends it early."""
    reporter.report(phase="stubborn")
    time.sleep(seconds)
    return "finished"


def timed(reporter, seconds):
    """(pid, start, end) in wall-clock seconds, to check order and overlap."""
    start = time.time()
    time.sleep(seconds)
    return os.getpid(), start, time.time()


def kill_myself(reporter):
    os.kill(os.getpid(), signal.SIGKILL)


def bad_input(reporter):
    raise ValueError("The corpus is empty.")


def bug(reporter):
    return {}["missing"]


def big(reporter, size):
    return b"x" * size


def unpicklable_result(reporter):
    return lambda: None


def niceness(reporter):
    return os.nice(0)


def slow_to_stop(reporter, release):
    """Sees the cancel at once, then works a while before it returns (like building a big trace),
    using the CPU as that does: until the file `release` exists."""
    while not reporter.should_stop():
        time.sleep(0.01)
    while not os.path.exists(release):
        pass
    return "wrapped up"


def broken_training(reporter, *args):
    """Stands in for train_task in a test of the app: an unexpected error inside the worker."""
    raise RuntimeError("secret internal detail")


WARMED: list[str] = []  # the idle steps this worker process has run


def warm_step(name, seconds=0.0):
    """An idle step (WorkerPool idle_steps): takes `seconds`, then is recorded."""
    time.sleep(seconds)
    WARMED.append(name)


def warmed(reporter):
    return list(WARMED)


def slow_training(reporter, *args, **kwargs):
    """The real training task (explorer.work.tasks.train_task) whose stop checks each wait 50 ms
    (the trainer asks every few dozen merges): thousands of merges then last tens of seconds on any
    machine, so a test can press Stop, reload or kill the worker while it trains (a fast machine
    trained the tests' corpus in 3.7 s, before a reload's Stop could land)."""
    from explorer.checks import Budget
    from explorer.work import tasks

    checked = Budget.should_stop

    def slower(self) -> bool:
        time.sleep(0.05)
        return checked(self)

    Budget.should_stop = slower  # in this worker process, for this job
    try:
        return tasks.train_task(reporter, *args, **kwargs)
    finally:
        Budget.should_stop = checked
