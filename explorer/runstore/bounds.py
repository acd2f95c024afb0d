"""Where the run store lives and how much it keeps, from the environment.

EXPLORER_STORE_PATH (default `~/.cache/tokenizer-explorer/runs.sqlite3`, $XDG_CACHE_HOME
respected), EXPLORER_STORE_MB (at most that many megabytes stored, compressed sizes; default 512)
and EXPLORER_STORE_DAYS (nothing kept longer; default 7). A malformed value is a ValueError that
names it.

What it does not do: enforce the bounds (explorer.runstore.sqlite evicts).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DEFAULT_MAX_MB = 512
DEFAULT_MAX_DAYS = 7
DAY = 86_400.0


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get("EXPLORER_STORE_PATH"):
        return Path(environ["EXPLORER_STORE_PATH"]).expanduser()
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "tokenizer-explorer" / "runs.sqlite3"


def positive_number(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{name} must be a number above 0, not {raw!r}")
    return value
