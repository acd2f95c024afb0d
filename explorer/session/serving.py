"""What every session of one server shares: the pool of worker processes that trains and measures
(explorer.work), the run store that keeps finished runs (explorer.runstore), the secret every key
is made with, and the keys and meta a run is stored under.

- `pool()`, `store()`: one per server process, made on first use. Without a store (no writable
  disk: logged) the app still works; it trains every run and a reload starts over. A store that
  cannot be written is read-only: its runs are still served, new ones are not kept
  (`runs_kept()` is False, and the pages say so: `RUNS_NOT_KEPT`).
- `training_key(digest, settings, limits)`: a run's key in the store, an HMAC of the corpus's
  digest and the settings under the deployment's secret. Thirty visitors of one sample with one
  set of settings have one key, so one training (`pool().request` shares a job by key) and one
  stored run.
  A pasted or uploaded corpus's key also holds its session's salt (`owner`): its run is that
  session's, never reused for nor shared with another visitor holding the same text, who would
  learn it was trained here (docs/reliability.md); links still open it anywhere.
- `stopped_key(key, steps)`: the key of a run stopped by its visitor (the worker stores it there,
  never under the shared key: `store_spec`).
- `store_spec(key, meta, keep_corpus)`, `run_meta(...)`, `training_spec(settings, limits)`: what a
  worker is sent to train a run and store it, with the meta that makes it a `Run` again.
- `upload_key(content_key)`: an uploaded tokenizer's key (`upload:` + an HMAC of its files under the
  deployment's secret, like a run's); `save_upload` / `load_upload` keep its files under it.
  `is_old_upload_key`: a link of an older version (`upload:` + the bare sha256), answered with
  `OLD_UPLOAD_LINK`.

Pure Python (no streamlit): the Streamlit side is explorer.ui.common.training and explorer.ui.common.link.
What it does not do: read stored runs back as `Run`s or store the ones the server made
(explorer.session.stored_runs), start or follow a training (explorer.session.training_jobs),
train, or decide what a page shows.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import hashlib
import logging
import os
import secrets
import threading
from collections.abc import Sequence

from explorer.checks import MB, Limits, utf8_size
from explorer.runs.settings import Settings
from explorer.runstore import (
    RunStore,
    canonical_json,
    open_store,
    run_key,
    stopped_key_seed,
    stopped_run_key,
)
from explorer.runstore.keys import UPLOAD_META_KIND
from explorer.runstore.keys import upload_key as keyed_upload_key
from explorer.session.count_uploads import CountFile
from explorer.session.host_corpora import HostCorpus
from explorer.work.config import default_pool
from explorer.work.pool import WorkerPool

LOG = logging.getLogger(__name__)

# Part of every key: a run stored by an older format is never served (4: a stored run's label
# never holds a visitor's file name).
TRACE_VERSION = 4
STORED_CORPUS_LABEL = "corpus"  # a stored run without a label of its own
# A pasted or uploaded corpus is kept with its run up to this size (the Python engine's corpus
# limit): a 50 MB upload's text cost the store 28 MB and its worker 19 s of compression. A larger
# one's run is kept without it (`from_counts`: its words and counts, no running text).
STORED_CORPUS_BYTES = 4 * MB

_store_lock = threading.Lock()
_store: list[RunStore | None] = []
_process_secret = secrets.token_bytes(32)  # keys when there is no store (nothing outlives the process)


def pool() -> WorkerPool:
    return default_pool()


_compare_lock = threading.Lock()
_compare_warmed: list[bool] = []


def warm_compare() -> None:
    """Once per process (the first page past Train's first view, which imports no heavy library):
    load the encoders of Compare's first columns (GPT-2, GPT-4, GPT-4o) in the background, so that
    no visitor's first key there waits for them (explorer.compare.warm). Not with
    EXPLORER_WARM_UP=0 (explorer.work.config: no warm-up)."""
    with _compare_lock:
        if _compare_warmed:
            return
        _compare_warmed.append(True)
    if os.environ.get("EXPLORER_WARM_UP", "").strip() == "0":
        return
    from explorer.compare.warm import warm_defaults

    warm_defaults()


@functools.cache
def _malloc_trim():
    return getattr(ctypes.CDLL(None), "malloc_trim", None)


def give_memory_back() -> None:
    """Ask the C library to give the memory this process has freed back to the system (glibc's
    `malloc_trim`; nothing where there is none). Python's freed memory otherwise stays mapped in
    glibc's heaps, in pieces between what is still used: a session that read a 49 MB upload left
    about 100 MB of it (bench/bench_upload_stall.py --train-upload-memory)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def store() -> RunStore | None:
    with _store_lock:
        if not _store:
            _store.append(open_store())
        return _store[0]


RUNS_NOT_KEPT = (
    "Runs are not kept on this server (its run store cannot be written): a reload or a shared link "
    "cannot bring back a run trained now."
)


def runs_kept() -> bool:
    """Whether new runs are stored (a store that can be written)."""
    run_store = store()
    return run_store is not None and run_store.writable


def secret() -> bytes:
    """The secret every key is made with: the store's (per deployment), else this process's (no
    store, or a shared one whose secret cannot be read now: its server is gone)."""
    run_store = store()
    if run_store is None:
        return _process_secret
    try:
        return run_store.secret
    except OSError:
        return _process_secret


def training_spec(settings: Settings, limits: Limits) -> dict:
    """The plain-data settings `tasks.train_task` takes (ValueError when they are invalid)."""
    return settings.run_config(limits).to_dict()


def training_key(digest: str, settings: Settings, limits: Limits, owner: bytes | None = None) -> str:
    """The store key of training the corpus `digest` stands for (its text's sha256, or a host's
    file's or a count file's fingerprint) with `settings` under the step limit of `limits` (the
    time limit is not part of it: a run it stopped says so). A run stopped by its visitor has a key
    of its own, never this shared one (`store_spec`'s "stopped_seed", `stopped_key`). `owner`: the
    salt of the session training a pasted or uploaded corpus (None for a sample, which every
    visitor shares)."""
    run = settings.run_config(limits)
    described = {**run.to_dict(), "trace_version": TRACE_VERSION}
    if owner is not None:
        described["owner"] = owner.hex()
    if run.trainer.takes_step_limit:  # the step limit counts merges: a Unigram run has none
        described["max_steps"] = limits.max_steps
    return run_key(secret(), digest, canonical_json(described))


def stopped_key(key: str, steps: int) -> str:
    """The key of the run trained under `key` that its visitor stopped after `steps` steps."""
    return stopped_run_key(stopped_key_seed(secret(), key), steps)


def store_spec(key: str, meta: dict, keep_corpus: bool) -> dict | None:
    """`train_task`'s `store` argument: where the worker writes the finished run, and what with
    (a stopped one under a key of its own, made from "stopped_seed": explorer.runstore.keys).
    Asked for when the training is: the store remembers that `key` started."""
    run_store = store()
    if run_store is None or not run_store.writable:
        return None
    run_store.mark_started(key)  # a link to it, should it never finish, says so (stored_runs.never_finished)
    seed = stopped_key_seed(run_store.secret, key)
    return {
        **run_store.location(),
        "key": key,
        "stopped_seed": seed,
        "meta": meta,
        "keep_corpus": keep_corpus,
    }


def run_meta(
    settings: Settings,
    shared_label: str,
    sample_key: str | None,
    text: str,
    digest: str,
    source: HostCorpus | CountFile | None = None,
) -> dict:
    """What the store keeps beside a run's trace, to make it a `Run` again in any session. Its
    label is `shared_label`, what anyone may see the corpus called ("pasted text", "uploaded
    file"): the name a visitor gave an uploaded corpus stays in that visitor's session. `digest`:
    the corpus's (its text's sha256, or the source's fingerprint). A run of a host's file or of an
    uploaded count file (`source`) has no text here: it is `from_counts`, and its `origin` names the
    host's file (its size and modification time) or the count file's SHA-256 and size (not its
    name: the uploader's)."""
    if isinstance(source, HostCorpus):
        return {
            "settings": dataclasses.asdict(settings),
            "corpus_label": source.name,
            "sample_key": source.key,
            "corpus_sha256": digest,
            "characters": 0,
            "from_counts": True,
            "host_file": {"name": source.name, "size": source.size, "mtime_ns": source.mtime_ns},
        }
    if isinstance(source, CountFile):
        return {
            "settings": dataclasses.asdict(settings),
            "corpus_label": shared_label,
            "sample_key": None,
            "corpus_sha256": digest,
            "characters": 0,
            "from_counts": True,
            "count_file": {"sha256": source.sha256, "size": source.size},
        }
    meta = {
        "settings": dataclasses.asdict(settings),
        "corpus_label": shared_label,
        "sample_key": sample_key,
        "corpus_sha256": digest,
        "characters": len(text),
    }
    if sample_key is None and not keeps_corpus(text):
        meta["from_counts"] = True
    return meta


def keeps_corpus(text: str) -> bool:
    """Whether a pasted or uploaded corpus is stored with its run (`STORED_CORPUS_BYTES`)."""
    return utf8_size(text) <= STORED_CORPUS_BYTES


def origin_of(meta: dict) -> dict:
    """Where a run without running text came from, as its meta says: {"host_file": {...}} or
    {"count_file": {...}} (`run_meta`), else {}."""
    return {
        name: dict(meta[name]) for name in ("host_file", "count_file") if isinstance(meta.get(name), dict)
    }


# ---------------------------------------------------------------- Compare's uploaded tokenizers


def upload_key(content: str) -> str:
    """An uploaded tokenizer's key, from its readers' content key (`upload:` + the sha256 of its
    files, explorer.compare.columns.content_key): `upload:` + the first `UPLOAD_KEY_DIGITS` hex
    digits of `run_key` under the deployment's secret, as runs are keyed. Its links and the store
    use this key alone, so holding a candidate file does not tell whether it was uploaded here.

    >>> from explorer.runstore.keys import is_old_upload_key, is_upload_key
    >>> key = upload_key("upload:" + "0" * 64)
    >>> is_upload_key(key), is_old_upload_key(key), key == upload_key("upload:" + "1" * 64)
    (True, False, False)
    """
    return keyed_upload_key(secret(), content)


def upload_store_key(tokenizer_key: str) -> str:
    """The store key of an uploaded tokenizer's files, from its key (`upload_key`)."""
    return hashlib.sha256(f"compare-upload\0{tokenizer_key}".encode()).hexdigest()


def save_upload(tokenizer_key: str, files: Sequence[tuple[str, bytes]]) -> bool:
    """Keep the files an uploaded tokenizer was read from, by its content key, so that a Compare
    link naming its column opens it in any browser. Bounded like the runs (the store's bytes)."""
    run_store = store()
    if run_store is None or not files:
        return False
    key = upload_store_key(tokenizer_key)
    if run_store.get(key) is not None:
        return True
    meta = {"kind": UPLOAD_META_KIND, "tokenizer": tokenizer_key, "files": [[n, len(d)] for n, d in files]}
    return run_store.put(key, b"".join(data for _, data in files), None, meta)


def load_upload(tokenizer_key: str) -> list[tuple[str, bytes]] | None:
    """The files of an uploaded tokenizer kept by `save_upload`, or None."""
    run_store = store()
    if run_store is None:
        return None
    entry = run_store.get(upload_store_key(tokenizer_key))
    if (
        entry is None
        or entry.meta.get("kind") != UPLOAD_META_KIND
        or entry.meta.get("tokenizer") != tokenizer_key
    ):
        return None
    files, start = [], 0
    try:
        for name, size in entry.meta["files"]:
            files.append((str(name), entry.payload[start : start + int(size)]))
            start += int(size)
    except (KeyError, TypeError, ValueError):
        return None
    return files if start == len(entry.payload) else None
