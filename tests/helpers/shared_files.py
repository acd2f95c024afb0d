"""The project's shared files (`../shared` beside the repository, or `EXPLORER_SHARED_DIR`): the seed
notebooks whose printed outputs are the course flavor's ground truth. They are not in the
repository; a test that needs one is skipped, saying so, when the folder is not there."""

import os
from pathlib import Path

import pytest

from tests import ROOT

SHARED = Path(os.environ.get("EXPLORER_SHARED_DIR") or ROOT.parent / "shared")
SEEDS = SHARED / "seeds"


def seed_text(name: str) -> str:
    path = SEEDS / name
    if not path.is_file():
        pytest.skip(
            f"{path} is absent: the seed notebooks live in ../shared/seeds beside the repository "
            "(or set EXPLORER_SHARED_DIR)"
        )
    return path.read_text(encoding="utf-8")


def shared_file(relative: str) -> Path | None:
    """A file of the shared folder (e.g. "data/tinyshakespeare.txt"), or None when it is absent."""
    path = SHARED / relative
    return path if path.is_file() else None
