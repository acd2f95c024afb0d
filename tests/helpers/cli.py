"""The command line (`python -m explorer`) run as a user runs it: a process of its own, output
captured, bounded in time.

What it does not do: check the result (each test asserts on returncode, stdout and stderr).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import ROOT

# Only what the command needs: no locale, no user settings, the repository importable from any folder.
BARE_ENVIRONMENT = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}


def cli(
    *args, stdin: bytes | None = None, cwd: Path | str = ROOT, bare: bool = False
) -> subprocess.CompletedProcess:
    """`python -m explorer ARGS` from `cwd` (each argument passed as str(), bytes as they are: an
    argv that is not UTF-8); `bare`: in BARE_ENVIRONMENT instead of this process's environment."""
    argv = [arg if isinstance(arg, bytes) else str(arg) for arg in args]
    return subprocess.run(
        [sys.executable, "-m", "explorer", *argv],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=120,
        env=BARE_ENVIRONMENT if bare else None,
    )
