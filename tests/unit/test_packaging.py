"""The package installs (issue 50: `python -m explorer` worked only from the repository's root, and
a downloaded notebook's `import explorer` failed in a fresh folder): pyproject.toml builds a
package holding every file of explorer/, with the `explorer` command and requirements.txt's
pins, and that package alone runs `python -m explorer` from another folder.

setuptools (in .venv) builds it as `pip install .` would, from a copy of the files pyproject.toml
reads, so nothing is written into the repository.

What it does not do: install anything, or build the compiled engine (engine/, its own package:
`pip install . ./engine`, tried by hand in a fresh venv, docs/serving.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import ROOT

BUILD = "from setuptools import setup; setup()"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The package as setuptools builds it: its metadata (egg-info) and its files (lib/)."""
    folder = tmp_path_factory.mktemp("package")
    for name in ("pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "explorer", folder / "explorer", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [
            sys.executable,
            "-c",
            BUILD,
            "--quiet",
            "egg_info",
            "--egg-base",
            ".",
            "build_py",
            "--build-lib",
            "lib",
        ],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    return folder


def test_the_package_holds_every_file_of_explorer(built):
    source = ROOT / "explorer"
    wanted = {
        path.relative_to(source)
        for path in source.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    packaged = {
        path.relative_to(built / "lib" / "explorer") for path in (built / "lib" / "explorer").rglob("*")
    }
    assert not wanted - packaged, "left out of the package (pyproject.toml's package-data?)"


def test_the_package_has_the_explorer_command_and_the_pinned_requirements(built):
    (egg_info,) = built.glob("*.egg-info")
    assert "explorer = explorer.cli:main" in (egg_info / "entry_points.txt").read_text().splitlines()
    pins = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert (egg_info / "requires.txt").read_text().split() == pins


def test_the_package_runs_the_command_line_from_another_folder(built, tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(PYTHONPATH=str(built / "lib"), HF_HUB_OFFLINE="1")
    result = subprocess.run(
        [sys.executable, "-m", "explorer", "encode", "--pretrained", "gpt2", "Hello world"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "Hello" in result.stdout
