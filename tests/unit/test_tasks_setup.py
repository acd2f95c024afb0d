"""What `python3 tasks.py test` installs for the browser tests: Debian's Chromium and the Noto CJK
and emoji fonts (issue 50: the fonts were installed by hand), only those missing, and nothing at
all when every one is there.

What it does not do: run apt-get or dpkg (their calls are recorded; dpkg-query's answer is made up).
"""

from __future__ import annotations

import subprocess

import pytest

import tasks


@pytest.fixture
def debian(monkeypatch):
    """A Debian machine, run as root, with `installed` of tasks.BROWSER_PACKAGES installed: yields
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
    installed.add("chromium")
    tasks.ensure_chromium()
    assert apt[-1][:4] == ["apt-get", "install", "-y", "-qq"]
    assert apt[-1][4:] == ["fonts-noto-cjk", "fonts-noto-color-emoji"]


def test_nothing_is_installed_when_everything_is_there(debian):
    installed, apt = debian
    installed.update(tasks.BROWSER_PACKAGES)
    tasks.ensure_chromium()
    assert apt == []
