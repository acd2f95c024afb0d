"""What `python3 tasks.py` installs beside the requirements: for the browser tests (`test`),
Debian's Chromium and the Noto CJK and emoji fonts, for the run store's tests on PostgreSQL,
Debian's postgresql, for the tests of several replicas, nginx, and for the JavaScript files' syntax
check, nodejs, only those missing, and nothing at all when every one is there (issue 50: the
fonts were installed by hand); for `app` and `test`, the explorer package itself into .venv,
editable, once per change of pyproject.toml.

What it does not do: run apt-get, dpkg or an installer (their calls are recorded; dpkg-query's
answer is made up). tests/unit/test_packaging.py builds the package.
"""

from __future__ import annotations

import subprocess

import pytest

import tasks


@pytest.fixture
def debian(monkeypatch):
    """A Debian machine, run as root, with `installed` of tasks.TEST_PACKAGES installed: yields
    (installed, the apt-get commands run)."""
    installed: set[str] = set()
    apt: list[list[str]] = []

    def run(command, **_options):
        if command[0] == "dpkg-query":  # packages dpkg never saw are left out, exit status 1
            listing = "".join(f"{package} ii \n" for package in command[3:] if package in installed)
            return subprocess.CompletedProcess(command, int(listing.count("\n") < len(command[3:])), listing)
        apt.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(tasks.subprocess, "run", run)
    monkeypatch.setattr(tasks.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(tasks.os, "geteuid", lambda: 0)
    yield installed, apt


def test_missing_fonts_are_installed_beside_an_installed_chromium(debian):
    installed, apt = debian
    installed.update(("chromium", "postgresql", "nginx", "nodejs"))
    tasks.ensure_test_packages()
    assert apt[-1][:4] == ["apt-get", "install", "-y", "-qq"]
    assert apt[-1][4:] == ["fonts-noto-cjk", "fonts-noto-color-emoji"]


def test_nothing_is_installed_when_everything_is_there(debian):
    installed, apt = debian
    installed.update(tasks.TEST_PACKAGES)
    tasks.ensure_test_packages()
    assert apt == []


def test_postgresql_is_installed_when_missing_for_the_stores_tests(debian):
    """Issue 52: the run store's contract tests run on PostgreSQL too, on a server they start with
    the package's initdb and pg_ctl."""
    installed, apt = debian
    installed.update(tasks.BROWSER_PACKAGES + tasks.REPLICA_PACKAGES + tasks.SCRIPT_PACKAGES)
    tasks.ensure_test_packages()
    assert apt[-1] == ["apt-get", "install", "-y", "-qq", "postgresql"]


def test_nginx_is_installed_when_missing_for_the_replicas_tests(debian):
    """Issue 52: the tests of several replicas run Debian's nginx in front of them."""
    installed, apt = debian
    installed.update(tasks.BROWSER_PACKAGES + tasks.STORE_PACKAGES + tasks.SCRIPT_PACKAGES)
    tasks.ensure_test_packages()
    assert apt[-1] == ["apt-get", "install", "-y", "-qq", "nginx"]


def test_nodejs_is_installed_when_missing_for_the_javascript_check(debian):
    """Issue 53: the components' JavaScript files are checked by `node --check`."""
    installed, apt = debian
    installed.update(tasks.BROWSER_PACKAGES + tasks.STORE_PACKAGES + tasks.REPLICA_PACKAGES)
    tasks.ensure_test_packages()
    assert apt[-1] == ["apt-get", "install", "-y", "-qq", "nodejs"]


def test_the_package_is_installed_into_the_venv_editable_once(monkeypatch, tmp_path):
    # So that `python -m explorer` and a downloaded notebook's `import explorer` work in any
    # folder (issue 50: "No module named explorer" outside the repository's root).
    commands: list[tuple[str, ...]] = []
    monkeypatch.setattr(tasks, "VENV", tmp_path)
    monkeypatch.setattr(tasks, "_run", lambda *command: commands.append(command))
    tasks.ensure_package()
    ((*install, editable, root),) = commands
    assert install[-1] == "--no-deps" and editable == "-e" and root == str(tasks.ROOT)
    tasks.ensure_package()
    assert len(commands) == 1, "installed again though pyproject.toml did not change"


@pytest.mark.parametrize("command", ["app", "test"])
def test_app_and_test_install_the_package(monkeypatch, command):
    steps: list[str] = []
    for step in ("ensure_venv", "ensure_package", "ensure_engine", "ensure_test_packages"):
        monkeypatch.setattr(tasks, step, lambda *_args, step=step: steps.append(step))
    monkeypatch.setattr(tasks.shutil, "which", lambda name: None)  # no cargo test
    monkeypatch.setattr(tasks, "run_forwarding_signals", lambda command, env: 0)
    monkeypatch.chdir(tasks.ROOT)
    tasks.main([command])
    assert steps.index("ensure_venv") < steps.index("ensure_package")
