"""Waiting on processes in tests: whether a process is alive, and a bounded wait for a condition
(used by the worker pool's tests and the app's serving tests).

What it does not do: stop or kill anything.
"""

from __future__ import annotations

import os
import time


def alive(pid: int) -> bool:
    """Whether a process with this id exists (a zombie not yet reaped still does)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_until(predicate, timeout: float = 30.0, what: str = "condition") -> None:
    """Call `predicate` until it is true; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)
