"""The seeds of the link walk (tests/browser/test_link_walk.py): new ones for every commit, so that
each CI run explores walks no earlier run took, and any one walk can be replayed by its seed.

- EXPLORER_LINK_WALK_SEED=S: the walk of seed S alone (a failure names its seed).
- EXPLORER_LINK_WALKS=N: N walks (default WALKS_DEFAULT; each new walk costs about two minutes,
  as it trains settings the run store does not hold yet).

The seeds start at the commit's hash read as a number (the same commit walks the same seeds), or
at today's date outside a git checkout. tests/conftest.py prints them when the session starts.
"""

from __future__ import annotations

import datetime
import os
import subprocess

from tests import ROOT

WALKS_DEFAULT = 1


def first_seed() -> int:
    """Where this run's seeds start: the first 8 hex digits of HEAD's hash, or YYYYMMDD00."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
        return int(commit[:8], 16)
    except (OSError, subprocess.SubprocessError, ValueError):
        return int(datetime.date.today().strftime("%Y%m%d")) * 100


def walk_seeds() -> list[int]:
    """The seeds this run walks."""
    only = os.environ.get("EXPLORER_LINK_WALK_SEED")
    if only:
        return [int(only)]
    walks = int(os.environ.get("EXPLORER_LINK_WALKS", str(WALKS_DEFAULT)))
    start = first_seed()
    return [start + i for i in range(walks)]
