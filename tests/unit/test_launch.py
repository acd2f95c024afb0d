"""One launch: the tests' and the benches' servers start as `python3 tasks.py app` starts the
host's (`tasks.server_launch`), with only where they listen added, and `.streamlit/config.toml`
makes that launch a host's: no source watcher (issue 50: with watchdog installed, Streamlit's
default watcher walked every session's modules, and thirty visitors of one link waited 5.3 s
instead of 0.6-1.7 s, which is what the benches, started with the watcher off, reported).

What it does not do: start a server (tests/unit/test_tasks_signals.py and every browser test do).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tasks
from tests import ROOT
from tests.browser import helpers

PORT = 8765
# `--section.option` of `streamlit run`: an option of Streamlit's configuration given on the command line.
STREAMLIT_OPTION = re.compile(
    r"--(global|logger|client|runner|server|browser|mapbox|theme|secrets|magic)\.\w+"
)


class Launched(Exception):
    """Raised in place of starting the server: the launch was recorded."""


def app_launch(monkeypatch, *arguments: str) -> tuple[list[str], dict[str, str]]:
    """What `python3 tasks.py app ARGUMENTS` runs (the install steps skipped)."""
    launched = []
    monkeypatch.setattr(tasks, "ensure_venv", lambda requirements: None)
    monkeypatch.setattr(tasks, "ensure_engine", lambda: None)
    monkeypatch.setattr(tasks, "ensure_package", lambda: None)
    monkeypatch.setattr(tasks, "run_forwarding_signals", lambda command, env: launched.append((command, env)))
    monkeypatch.chdir(ROOT)  # main() moves to the repository's root; the test goes back after
    tasks.main(["app", *arguments])
    ((command, env),) = launched
    return command, env


def test_tests_and_benches_launch_the_server_as_tasks_app_does(monkeypatch):
    app_command, app_env = app_launch(
        monkeypatch, "--server.address", "127.0.0.1", "--server.port", str(PORT)
    )

    def popen(command, env, **_options):
        raise Launched(command, env)

    monkeypatch.setattr(helpers, "free_port", lambda: PORT)
    monkeypatch.setattr(helpers.subprocess, "Popen", popen)
    with pytest.raises(Launched) as launched, helpers.streamlit_server("launch-check"):
        pass
    test_command, test_env = launched.value.args
    assert Path(app_command[0]) == tasks.PYTHON  # the tests run in .venv's interpreter
    assert test_command[1:] == app_command[1:]
    assert test_env == app_env


def test_a_developer_asks_for_reload_on_save(monkeypatch):
    command, _env = app_launch(monkeypatch, "--dev", "--server.port", str(PORT))
    assert command[1:] == ["-m", "streamlit", "run", "app.py", *tasks.DEV_OPTIONS, "--server.port", str(PORT)]
    host_command, _env = app_launch(monkeypatch)
    assert host_command[1:] == ["-m", "streamlit", "run", "app.py"]


def test_the_host_launch_watches_no_source_file():
    # What Streamlit itself reads from .streamlit/config.toml, in the folder the server runs in.
    read = "from streamlit import config; print(config.get_option('server.fileWatcherType'))"
    watcher = subprocess.run(
        [sys.executable, "-c", read], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert watcher == "none"


def launch_files() -> list[Path]:
    """Every Python file of the tests, the benches and docs/ (the screenshot script starts a server)."""
    return sorted(path for folder in ("tests", "bench", "docs") for path in (ROOT / folder).rglob("*.py"))


def test_no_test_or_bench_gives_the_server_an_option_of_its_own():
    # Where a server listens is the only option a launch adds (tasks.PLACE_OPTIONS); anything
    # else would measure or test another server than the one a host runs.
    found = []
    for path in launch_files():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for option in STREAMLIT_OPTION.finditer(node.value):
                    if option.group(0) not in tasks.PLACE_OPTIONS:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {option.group(0)}")
    assert not found, "options only .streamlit/config.toml may set:\n" + "\n".join(found)


def test_a_test_server_refuses_streamlit_settings_in_its_environment(monkeypatch):
    def popen(*_args, **_options):
        raise AssertionError("the server was started")

    monkeypatch.setattr(helpers.subprocess, "Popen", popen)
    with (
        pytest.raises(ValueError, match="STREAMLIT_SERVER_FILE_WATCHER_TYPE"),
        helpers.streamlit_server("launch-check", environ={"STREAMLIT_SERVER_FILE_WATCHER_TYPE": "auto"}),
    ):
        pass
