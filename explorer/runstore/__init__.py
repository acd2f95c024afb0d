"""A shared, content-addressed store of finished runs: a SQLite file, or PostgreSQL for several servers.

    store = open_store()                      # EXPLORER_STORE_URL or _PATH, _MB, _DAYS, EXPLORER_SECRET
    key = run_key(store.secret, corpus_sha256, canonical_json(settings))
    store.put(key, trace_json_bytes, corpus_bytes, {"label": ...})
    entry = store.get(key)                    # Entry(payload, corpus, meta, ...) or None

- keys.py: `run_key` (HMAC of the corpus digest and the settings under a per-deployment secret),
  `is_run_key`, `canonical_json`, `load_secret`;
- bounds.py: where the store lives and how much it keeps, from the environment;
- store.py: `RunStore` (the interface and its contract), `Entry`, the packing both backends share;
- sqlite.py: `SQLiteRunStore` (one SQLite file, bounded, shared by threads and processes; the
  default); postgres.py: `PostgresRunStore` (one PostgreSQL database several servers share);
- backends.py: `open_store` (the server's store from the environment, or None when it cannot be
  opened) and `store_at` (a worker's, from the store's `location()`).

What it does not do: know what a payload means (the caller stores a history's JSON), or list entries.
"""

from explorer.runstore.backends import open_store, store_at
from explorer.runstore.bounds import DAY, DEFAULT_MAX_DAYS, DEFAULT_MAX_MB, default_path
from explorer.runstore.keys import (
    SECRET_FILE,
    canonical_json,
    is_run_key,
    load_secret,
    run_key,
    stopped_key_seed,
    stopped_run_key,
)
from explorer.runstore.sqlite import SQLiteRunStore
from explorer.runstore.store import TOUCH_SECONDS, Entry, RunStore

__all__ = [
    "DAY",
    "DEFAULT_MAX_DAYS",
    "DEFAULT_MAX_MB",
    "SECRET_FILE",
    "TOUCH_SECONDS",
    "Entry",
    "RunStore",
    "SQLiteRunStore",
    "canonical_json",
    "default_path",
    "is_run_key",
    "load_secret",
    "open_store",
    "run_key",
    "store_at",
    "stopped_key_seed",
    "stopped_run_key",
]
