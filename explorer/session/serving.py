"""What every session of one server shares: the pool of worker processes that trains and measures
(explorer.work), the run store that keeps finished runs (explorer.runstore), and the runs read
from it, parsed once per process.

- `pool()`, `store()`: one per server process, made on first use. Without a store (no writable
  disk: logged) the app still works; it trains every run and a reload starts over. A store that
  cannot be written is read-only: its runs are still served, new ones are not kept
  (`runs_kept()` is False, and the pages say so: `RUNS_NOT_KEPT`).
- `training_key(text, settings, limits)`: a run's key in the store, an HMAC of the corpus and the
  settings under the deployment's secret. Thirty visitors of one sample with one set of settings
  have one key, so one training (`pool().request` shares a job by key) and one stored run.
  A pasted or uploaded corpus's key also holds its session's salt (`owner`): its run is that
  session's, never reused for nor shared with another visitor holding the same text, who would
  learn it was trained here (docs/reliability.md); links still open it anywhere.
- `load_run(key, number)`: the stored run as a `Run` (and its corpus text), or None. Its MergeHistory
  (a RoundHistory for a Unigram run) and derived objects are kept in a small process-wide LRU
  (`SHARED_RUNS`), so a class opening the same run parses it once and holds it once.
- `stopped_key(key, steps)`: the key of a run stopped by its visitor (the worker stores it there,
  never under the shared key: `store_spec`).
- `save_run(run, corpus_text)`: store a run the server made itself, so a reload brings it back too;
  `keep_run`: the same for a run its worker could not store, remembering the key when the store
  takes it neither (`run_kept(key)` False: a page then writes no link to it, and says
  `RUN_NOT_KEPT`).
- `with_session_text(run, text)`: such a run made whole in the session holding its text.
- `never_finished(key)`: a link's run that started training here and was never stored (a restart
  during its training), told apart from one that expired.
- `upload_key(content_key)`: an uploaded tokenizer's key (`upload:` + an HMAC of its files under the
  deployment's secret, like a run's); `save_upload` / `load_upload` keep its files under it.
  `is_old_upload_key`: a link of an older version (`upload:` + the bare sha256), answered with
  `OLD_UPLOAD_LINK`.

Pure Python (no streamlit): the Streamlit side is explorer.ui.common.training and explorer.ui.common.link.
What it does not do: train, or decide what a page shows.
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
from collections import OrderedDict
from collections.abc import Sequence

from explorer.checks import MB, Limits, utf8_size
from explorer.drawing.wording import character_count
from explorer.runs.run import MergeRun, RoundRun, Run, RunKey, corpus_digest, make_run
from explorer.runs.settings import Settings
from explorer.runstore import (
    RunStore,
    canonical_json,
    is_run_key,
    open_store,
    run_key,
    stopped_key_seed,
    stopped_run_key,
)
from explorer.runstore.keys import UPLOAD_META_KIND
from explorer.runstore.keys import upload_key as keyed_upload_key
from explorer.samples import SAMPLES
from explorer.session.count_uploads import CountFile
from explorer.session.host_corpora import HostCorpus
from explorer.training.history import TrainingHistory
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
SHARED_RUNS = 8  # parsed runs kept for the whole server (each session keeps its own few too)
SHARED_CHARACTERS = 16_000_000  # ... holding at most this many corpus characters in all

_store_lock = threading.Lock()
_store: list[RunStore | None] = []
_process_secret = secrets.token_bytes(32)  # keys when there is no store (nothing outlives the process)
_shared_lock = threading.Lock()
_shared: OrderedDict[str, tuple[TrainingHistory, dict, int]] = (
    OrderedDict()
)  # key -> (trace, derived, characters)


def pool() -> WorkerPool:
    return default_pool()


_compare_warmed: list[bool] = []


def warm_compare() -> None:
    """Once per process (the first page past Train's first view, which imports no heavy library):
    load the encoders of Compare's first columns (GPT-2, GPT-4, GPT-4o) in the background, so that
    no visitor's first key there waits for them (explorer.compare.warm). Not with
    EXPLORER_WARM_UP=0 (explorer.work.config: no warm-up)."""
    with _shared_lock:
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


def training_key(
    text: str, settings: Settings, limits: Limits, owner: bytes | None = None, digest: str | None = None
) -> str:
    """The store key of training `text` with `settings` under the step limit of `limits` (the
    time limit is not part of it: a run it stopped says so). A run stopped by its visitor has a key
    of its own, never this shared one (`store_spec`'s "stopped_seed", `stopped_key`). `owner`: the
    salt of the session training a pasted or uploaded corpus (None for a sample, which every
    visitor shares). `digest`: the corpus's sha256 when the caller has it already (the Train
    page's corpus check made it), or what stands for it when there is no text here (a host's file:
    explorer.session.host_corpora.HostCorpus.fingerprint)."""
    run = settings.run_config(limits)
    described = {**run.to_dict(), "trace_version": TRACE_VERSION}
    if owner is not None:
        described["owner"] = owner.hex()
    if run.trainer.takes_step_limit:  # the step limit counts merges: a Unigram run has none
        described["max_steps"] = limits.max_steps
    return run_key(secret(), digest or corpus_digest(text), canonical_json(described))


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
    run_store.mark_started(key)  # a link to it, should it never finish, says so (`never_finished`)
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
    host: HostCorpus | None = None,
    count_file: CountFile | None = None,
    digest: str | None = None,
) -> dict:
    """What the store keeps beside a run's trace, to make it a `Run` again in any session. Its
    label is `shared_label`, what anyone may see the corpus called ("pasted text", "uploaded
    file"): the name a visitor gave an uploaded corpus stays in that visitor's session. A run of a
    host's file (`host`) or of an uploaded count file (`count_file`) has no text here: it is
    `from_counts`, and its `origin` names the host's file (its size and modification time) or the
    count file's SHA-256 and size (not its name: the uploader's). `digest`: the text's sha256 when
    the caller has it (else computed here)."""
    if host is not None:
        return {
            "settings": dataclasses.asdict(settings),
            "corpus_label": host.name,
            "sample_key": host.key,
            "corpus_sha256": host.fingerprint,
            "characters": 0,
            "from_counts": True,
            "host_file": {"name": host.name, "size": host.size, "mtime_ns": host.mtime_ns},
        }
    if count_file is not None:
        return {
            "settings": dataclasses.asdict(settings),
            "corpus_label": shared_label,
            "sample_key": None,
            "corpus_sha256": count_file.fingerprint,
            "characters": 0,
            "from_counts": True,
            "count_file": {"sha256": count_file.sha256, "size": count_file.size},
        }
    meta = {
        "settings": dataclasses.asdict(settings),
        "corpus_label": shared_label,
        "sample_key": sample_key,
        "corpus_sha256": digest or corpus_digest(text),
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


def settings_from_meta(meta: dict) -> Settings:
    values = dict(meta["settings"])
    values["normalizers"] = tuple(values.get("normalizers") or ())
    return Settings(**values)


def _shared_trace(key: str, payload: bytes, characters: int) -> tuple[TrainingHistory, dict]:
    """The parsed trace of a stored run and its dict of derived objects, shared by every session."""
    with _shared_lock:
        found = _shared.get(key)
        if found is not None:
            _shared.move_to_end(key)
            return found[0], found[1]
    from explorer.train import trace_from_json  # here: the first page view trains nothing

    trace = trace_from_json(payload)
    with _shared_lock:
        found = _shared.setdefault(key, (trace, {}, characters))
        _shared.move_to_end(key)
        while len(_shared) > 1 and (
            len(_shared) > SHARED_RUNS or sum(entry[2] for entry in _shared.values()) > SHARED_CHARACTERS
        ):
            _shared.popitem(last=False)
    return found[0], found[1]


def load_run(key: str, number: int = 0) -> tuple[MergeRun | RoundRun, str | None] | None:
    """The stored run with this key and its corpus text (None for a run trained from word counts),
    or None (not stored, expired, no store, or a key that is not one)."""
    run_store = store()
    if run_store is None or not is_run_key(key):
        return None
    entry = run_store.get(key)
    if entry is None:
        return None
    meta = entry.meta
    try:
        sample = SAMPLES.get(meta.get("sample_key") or "")
        text: str | None
        if meta.get("from_counts"):
            text = None
        elif entry.corpus is not None:
            text = entry.corpus.decode("utf-8", "surrogatepass")
        elif sample is not None:
            text = sample.text
        else:
            raise KeyError(f"no corpus and no sample {meta.get('sample_key')!r}")
        settings = settings_from_meta(meta)
        trace, derived = _shared_trace(key, entry.payload, 0 if text is None else len(text))
    except (KeyError, TypeError, ValueError, AttributeError) as error:  # a store from another version
        LOG.warning("stored run %s cannot be read (%s): ignored", key[:12], error)
        return None
    run = make_run(
        key=RunKey(meta.get("corpus_sha256") or corpus_digest(text or ""), settings),
        history=trace,
        corpus_label=str(meta.get("corpus_label") or STORED_CORPUS_LABEL),
        shared_label=str(meta.get("corpus_label") or STORED_CORPUS_LABEL),
        characters=0 if text is None else len(text),
        perceived_characters=0 if text is None else character_count(text),
        from_counts=text is None,
        sample_key=meta.get("sample_key"),
        number=number,
        stopped_by=meta.get("stopped_by"),
        store_key=key,
        derived=derived,
        origin=origin_of(meta),
    )
    with _shared_lock:
        _not_kept.pop(key, None)  # stored since (another visitor's training of it)
    return run, text


def with_session_text(run: MergeRun | RoundRun, text: str) -> MergeRun | RoundRun:
    """A stored run without its corpus (`from_counts`: over `STORED_CORPUS_BYTES`) made whole again
    in the session that holds the text: its views that need the text use it, and its summary
    counts its characters (the stored run has none to count)."""
    run.from_counts = False
    run.characters = len(text)
    run.perceived_characters = character_count(text)
    return run


def never_finished(key: str) -> bool:
    """Whether the run `key` names started training on this server and was never stored (the
    server restarted during its training, or it failed or was stopped): not an expired run."""
    run_store = store()
    return run_store is not None and is_run_key(key) and run_store.was_started(key)


RUN_NOT_KEPT = (
    "This run could not be kept on this server (it is larger than the server's run store takes, or the "
    "store could not write it): a reload or a shared link cannot bring it back, so the link leaves it out."
)
_not_kept: OrderedDict[str, None] = OrderedDict()  # keys of finished runs the store does not hold
NOT_KEPT_REMEMBERED = 1_000


def keep_run(run: Run, text: str, trace_json: bytes | None = None) -> bool:
    """Store a finished run its worker did not store (no store that could write it, or a run over
    the store's bound), with the trace JSON the worker sent when there is one (`save_run`); when
    that fails too, remember that its key is not kept (`run_kept`), so that no page hands out a
    link to it."""
    kept = save_run(run, text, trace_json)
    with _shared_lock:
        if kept:
            _not_kept.pop(run.store_key, None)
        else:
            _not_kept[run.store_key] = None
            while len(_not_kept) > NOT_KEPT_REMEMBERED:
                _not_kept.popitem(last=False)
    return kept


def run_kept(key: str | None) -> bool:
    """False for a run this server made and could not store (`keep_run`): a link to it would not open."""
    with _shared_lock:
        return key not in _not_kept


def save_run(run: Run, text: str, trace_json: bytes | None = None) -> bool:
    """Store a run the server made itself (the worker stores the others); False without a store
    that can be written. `trace_json`: the run's trace as UTF-8 JSON when the server holds it
    already (a worker's), else built here."""
    run_store = store()
    if run_store is None or not run_store.writable:
        return False
    meta = {
        **run_meta(
            run.settings,
            run.shared_label or STORED_CORPUS_LABEL,
            run.sample_key,
            text,
            digest=run.key.corpus_sha256,
        ),
        "stopped_by": run.stopped_by,
    }
    if run.origin:  # a host's file or a count file: no text, its digest and where it came from
        meta.update(corpus_sha256=run.key.corpus_sha256, characters=0, from_counts=True, **run.origin)
    keep = not (run.sample_key or run.origin) and keeps_corpus(text)
    corpus = text.encode("utf-8", "surrogatepass") if keep else None
    if trace_json is None:
        trace_json = run.history.to_json().encode("utf-8", "surrogatepass")
    return run_store.put(run.store_key, trace_json, corpus, meta)


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
