"""One worker process as the server sees it: start it, talk to it, end it, say how it ended.

A worker is `python -m explorer.work.worker FD` (see explorer/work/worker.py for why not
multiprocessing.Process), started with `subprocess.Popen` (fork + exec: safe from a threaded
server) and connected through a Unix socket pair.

What it does not do: decide when to start or stop a worker (explorer.work.pool does).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

from explorer.work.jobs import Job

# The folder holding the `explorer` package: on the worker's PYTHONPATH so `-m` finds it
# whatever the server's working directory.
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
TERMINATE_SECONDS = 1.0  # after SIGTERM, how long a worker may take before SIGKILL


def worker_environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [PACKAGE_ROOT, env.get("PYTHONPATH")]))
    return env


def cpu_seconds(pid: int | None) -> float | None:
    """The CPU time (user + system, seconds) process `pid` has used, from Linux's /proc; None
    where that cannot be read (another system, a process gone)."""
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (name) ": state is field 3
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def exit_description(returncode: int | None) -> str:
    """'signal 9, SIGKILL' or 'exit code 1', for the crash message."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return f"signal {-returncode}, {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


class WorkerProcess:
    """A started worker: its process, its connection, and what the pool tracks about it."""

    def __init__(
        self,
        sys_path: list[str],
        report_interval: float,
        preload: tuple[str, ...],
        niceness: int = 0,
        idle_steps: tuple[tuple[str, tuple], ...] = (),
    ):
        parent_end, child_end = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "explorer.work.worker", str(child_end.fileno())],
                pass_fds=(child_end.fileno(),),
                stdin=subprocess.DEVNULL,
                env=worker_environment(),
            )
        except BaseException:
            parent_end.close()
            raise
        finally:
            child_end.close()  # the child has its copy; ours would hide the child's death (no EOF)
        self.connection = Connection(parent_end.detach())
        self.pid = self.process.pid
        self.started = time.monotonic()
        self.ready = False
        self.job: Job | None = None
        self.tasks_done = 0
        self.connection.send(
            ("setup", sys_path, report_interval, tuple(preload), niceness, tuple(idle_steps))
        )

    @property
    def idle(self) -> bool:
        return self.ready and self.job is None

    def cpu_seconds(self) -> float | None:
        """The CPU time this worker has used (see the function of that name)."""
        return cpu_seconds(self.pid)

    def end(self, wait_first: float = 0.0, grace: float = TERMINATE_SECONDS) -> int:
        """Wait up to `wait_first` seconds for the process to exit by itself (after an "exit"
        message), then terminate it (SIGTERM, SIGKILL after `grace` s); reap it, return its exit code."""
        if wait_first > 0:
            try:
                self.process.wait(wait_first)
            except subprocess.TimeoutExpired:
                pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
        returncode = self.process.wait()
        self.close()
        return returncode

    def close(self) -> None:
        self.connection.close()
