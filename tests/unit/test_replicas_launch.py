"""`python3 tasks.py app --replicas N` (tasks.Replicas): N servers launched as `tasks.server_launch`
launches one, each on its own loopback port, with one EXPLORER_SECRET, behind nginx configured by
deploy/nginx.conf (issue 52); Ctrl-C or SIGTERM stops every one of them.

What it does not do: open pages through nginx (tests/browser/test_replicas.py does, with PostgreSQL).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

import tasks
from tests import ROOT
from tests.helpers.processes import alive, wait_until

needs_nginx = pytest.mark.skipif(
    tasks.nginx_program() is None, reason="nginx is not installed (python3 tasks.py test installs it)"
)


def test_the_nginx_config_agrees_with_the_apps_upload_limit_and_keeps_websockets_and_visitors():
    config = tasks.nginx_config("127.0.0.1:8501", ["10.0.0.1:8501", "10.0.0.2:8501"], ROOT / "x")
    limit = re.search(r"^maxUploadSize = (\d+)", (ROOT / ".streamlit/config.toml").read_text(), re.M)
    assert f"client_max_body_size {int(limit.group(1)) + 1}m;" in config  # + Streamlit's 1 MB framing
    assert "proxy_set_header Upgrade $http_upgrade;" in config
    assert "proxy_set_header Connection $connection_upgrade;" in config
    assert "hash $explorer_replica consistent;" in config  # sticky by nginx's own cookie
    assert "server 10.0.0.1:8501 max_fails=2 fail_timeout=10s;" in config
    assert "server 10.0.0.2:8501 max_fails=2 fail_timeout=10s;" in config
    assert "@" not in config.replace("$", ""), "a place left unfilled"


@needs_nginx
def test_nginx_takes_the_rendered_config(tmp_path):
    config = tmp_path / "nginx.conf"
    config.write_text(tasks.nginx_config("127.0.0.1:18501", ["127.0.0.1:18502"], tmp_path))
    checked = subprocess.run(
        [tasks.nginx_program(), "-t", "-p", str(tmp_path), "-c", str(config), "-e", str(tmp_path / "e.log")],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("count", ["0", "two", ""])
def test_a_bad_number_of_replicas_is_one_sentence(monkeypatch, capsys, count):
    for step in ("ensure_venv", "ensure_package", "ensure_engine"):
        monkeypatch.setattr(tasks, step, lambda *_: None)
    monkeypatch.chdir(ROOT)
    assert tasks.main(["app", "--replicas", *([count] if count else [])]) == 2
    assert (
        capsys.readouterr().out.strip() == f"--replicas takes a number of servers, at least 1, not {count!r}"
    )


@needs_nginx
def test_each_replica_is_launched_as_server_launch_launches_one_with_one_secret(monkeypatch):
    launched: list[tuple[list[str], dict[str, str]]] = []

    class Started:
        args = ()

        def __init__(self, command, env=None, **_options):
            launched.append((command, env))

        def poll(self):
            return None

    monkeypatch.setattr(tasks.subprocess, "Popen", Started)
    monkeypatch.setattr(tasks.Replicas, "wait_healthy", lambda *_: None)
    monkeypatch.setattr(tasks, "_stop_group", lambda *_: None)
    environ = {key: value for key, value in os.environ.items() if key != "EXPLORER_SECRET"}
    replicas = tasks.Replicas(sys.executable, 3, environ=environ, options=tasks.DEV_OPTIONS)
    with replicas:
        pass
    *servers, (nginx, _) = launched
    assert len(servers) == 3 and nginx[0] == tasks.nginx_program()
    for (command, env), port in zip(servers, replicas.ports, strict=True):
        place = ["--server.address", "127.0.0.1", "--server.port", str(port)]
        assert (command, env) == tasks.server_launch(sys.executable, [*tasks.DEV_OPTIONS, *place], env)
    secrets = {env["EXPLORER_SECRET"] for _, env in servers}
    assert len(secrets) == 1 and len(secrets.pop()) == 64  # made once, for every replica
    assert len(set(replicas.ports)) == 3


LAUNCHER = """
import sys
sys.path.insert(0, {root!r})
import tasks
tasks.PYTHON = sys.executable
sys.exit(tasks.run_replicas(2, ["--server.address", "127.0.0.1", "--server.port", "{port}"]))
"""


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def _family(pid: int) -> set[int]:
    found = {pid}
    for child in open(f"/proc/{pid}/task/{pid}/children").read().split():
        found |= _family(int(child)) if alive(int(child)) else set()
    return found


@needs_nginx
def test_sigterm_stops_every_replica_and_nginx(tmp_path):
    port = tasks.free_port()
    environ = dict(
        os.environ, EXPLORER_WORKERS="1", EXPLORER_WARM_UP="0", EXPLORER_STORE_PATH=str(tmp_path / "runs.db")
    )
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER.format(root=str(ROOT), port=port)], env=environ, cwd=ROOT
    )
    try:
        wait_until(
            lambda: _healthy(port) or launcher.poll() is not None, 90, "nginx in front of the replicas"
        )
        assert _healthy(port), "nginx did not answer for the replicas"
        started = list(_family(launcher.pid) - {launcher.pid})
        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=60) == 128 + signal.SIGTERM
        wait_until(lambda: not any(alive(pid) for pid in started), 30, "every process to end")
        assert not [pid for pid in started if alive(pid)], "a replica or nginx outlived the launcher"
    finally:
        if launcher.poll() is None:
            launcher.kill()
