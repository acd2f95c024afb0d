"""A shared, content-addressed store of finished runs on local disk.

    store = open_store()                      # EXPLORER_STORE_PATH, _MB, _DAYS, EXPLORER_SECRET
    key = run_key(store.secret, corpus_sha256, canonical_json(settings))
    store.put(key, trace_json_bytes, corpus_bytes, {"label": ...})
    entry = store.get(key)                    # Entry(payload, corpus, meta, ...) or None

- keys.py: `run_key` (HMAC of the corpus digest and the settings under a per-deployment secret),
  `is_run_key`, `canonical_json`, `load_secret`;
- bounds.py: where the store lives and how much it keeps, from the environment;
- sqlite.py: `RunStore` (the interface), `SQLiteRunStore` (one SQLite file, bounded, shared by
  threads and processes), `open_store` (the server's store, or None when it cannot be opened).

What it does not do: know what a payload means (the caller stores a history's JSON), work on a
network file system, or list entries.
"""

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
from explorer.runstore.sqlite import TOUCH_SECONDS, Entry, RunStore, SQLiteRunStore, open_store

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
    "stopped_key_seed",
    "stopped_run_key",
]
