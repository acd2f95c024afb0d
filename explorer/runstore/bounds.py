"""Where the run store lives and how much it keeps, from the environment.

EXPLORER_STORE_URL (`postgresql://...`: a PostgreSQL store several servers share, each process
holding at most EXPLORER_STORE_POOL connections to it, default 4; unset: the SQLite file below),
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
DEFAULT_POOL = 4  # connections to a PostgreSQL store per server or worker process, at most


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    environ = os.environ if environ is None else environ
    if environ.get("EXPLORER_STORE_PATH"):
        return Path(environ["EXPLORER_STORE_PATH"]).expanduser()
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "tokenizer-explorer" / "runs.sqlite3"


def store_url(environ: Mapping[str, str]) -> str | None:
    """EXPLORER_STORE_URL, or None (the SQLite store); ValueError for a URL of another database."""
    url = environ.get("EXPLORER_STORE_URL", "").strip()
    if not url:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        raise ValueError(f"EXPLORER_STORE_URL must start with postgresql://, not {url.split(':')[0]!r}")
    return url


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
