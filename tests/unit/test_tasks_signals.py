"""`python3 tasks.py app` passes SIGTERM and SIGINT on to the Streamlit server and waits for it, so
stopping it leaves no orphaned server answering health checks (issue 20).

`tasks.py app` itself first makes sure `.venv` is installed (pip, which a test must not run), so
the test runs the function it starts the server with, `tasks.run_forwarding_signals`, in a
process of its own, on the real server command (`tasks.server_launch`)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest

from tests import ROOT
from tests.helpers.processes import alive, wait_until

LAUNCHER = """
import sys
sys.path.insert(0, {root!r})
import tasks
command, env = tasks.server_launch(sys.executable, ["--server.port", "{port}"])
sys.exit(tasks.run_forwarding_signals(command, env))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def children_of(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as listing:
        return [int(child) for child in listing.read().split()]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_stopping_the_launcher_stops_the_server_it_started(signum):
    port = free_port()
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER.format(root=str(ROOT), port=port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # only the launcher gets the signal, as from `kill` or a service manager
    )
    server = None
    try:
        wait_until(lambda: healthy(port), timeout=90, what="the server to answer health checks")
        (server,) = children_of(launcher.pid)
        launcher.send_signal(signum)
        status = launcher.wait(timeout=60)
        assert not alive(server), "the server outlived the launcher"
        assert not healthy(port)
        assert status in (0, 128 + signum), status  # Streamlit exits 0 on a signal it handles
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()
        if server is not None and alive(server):
            os.kill(server, signal.SIGKILL)
