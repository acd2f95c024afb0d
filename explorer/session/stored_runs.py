"""Runs read from and written to the server's run store (explorer.session.serving.store), as
`Run`s a session shows: what makes a stored run a `Run` again, and a run the server made a stored
one.

- `load_run(key, number)`: the stored run as the `MergeRun` or `RoundRun` it is (`make_run`), and
  its corpus text, or None. Its MergeHistory (a RoundHistory for a Unigram run) and derived
  objects are kept in a small process-wide LRU (`SHARED_RUNS`, `SHARED_TRACE_BYTES` of trace
  JSON), so a class opening the same run parses it once and holds it once.
- `save_run(run, corpus_text)`: store a run the server made itself, so a reload brings it back too;
  `keep_run`: the same for a run its worker could not store, remembering the key when the store
  takes it neither (`run_kept(key)` False: a page then writes no link to it, and says
  `RUN_NOT_KEPT`).
- `with_session_text(run, text)`: such a run made whole in the session holding its text.
- `never_finished(key)`: a link's run that started training here and was never stored (a restart
  during its training), told apart from one that expired.
- `settings_from_meta(meta)`: a stored run's `Settings`.

Pure Python (no streamlit). What it does not do: make keys or the meta a run is stored with, or
open the store (explorer.session.serving), train (the worker stores what it trains:
explorer.work.tasks), or decide what a page shows.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

from explorer.drawing.wording import character_count
from explorer.runs.run import MergeRun, RoundRun, Run, RunKey, corpus_digest, make_run
from explorer.runs.settings import Settings
from explorer.runstore import is_run_key
from explorer.samples import SAMPLES
from explorer.session import serving
from explorer.training.history import TrainingHistory

LOG = logging.getLogger(__name__)

SHARED_RUNS = 8  # parsed runs kept for the whole server (each session keeps its own few too)
# ... whose traces' JSON has at most this many bytes in all: a parsed history grows with its JSON,
# a run without running text's too (its corpus's characters, none here, bounded nothing).
SHARED_TRACE_BYTES = 40_000_000

_shared_lock = threading.Lock()
_shared: OrderedDict[str, tuple[TrainingHistory, dict, int]] = (
    OrderedDict()
)  # key -> (trace, derived, its JSON's bytes)


def settings_from_meta(meta: dict) -> Settings:
    values = dict(meta["settings"])
    values["normalizers"] = tuple(values.get("normalizers") or ())
    return Settings(**values)


def _shared_trace(key: str, payload: bytes) -> tuple[TrainingHistory, dict]:
    """The parsed trace of a stored run and its dict of derived objects, shared by every session,
    counted by the size of its JSON."""
    with _shared_lock:
        found = _shared.get(key)
        if found is not None:
            _shared.move_to_end(key)
            return found[0], found[1]
    from explorer.train import trace_from_json  # here: the first page view trains nothing

    trace = trace_from_json(payload)
    with _shared_lock:
        found = _shared.setdefault(key, (trace, {}, len(payload)))
        _shared.move_to_end(key)
        while len(_shared) > 1 and (
            len(_shared) > SHARED_RUNS or sum(held[2] for held in _shared.values()) > SHARED_TRACE_BYTES
        ):
            _shared.popitem(last=False)
    return found[0], found[1]


def load_run(key: str, number: int = 0) -> tuple[MergeRun | RoundRun, str | None] | None:
    """The stored run with this key and its corpus text (None for a run trained from word counts),
    or None (not stored, expired, no store, or a key that is not one)."""
    run_store = serving.store()
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
        trace, derived = _shared_trace(key, entry.payload)
    except (KeyError, TypeError, ValueError, AttributeError) as error:  # a store from another version
        LOG.warning("stored run %s cannot be read (%s): ignored", key[:12], error)
        return None
    run = make_run(
        key=RunKey(meta.get("corpus_sha256") or corpus_digest(text or ""), settings),
        history=trace,
        corpus_label=str(meta.get("corpus_label") or serving.STORED_CORPUS_LABEL),
        shared_label=str(meta.get("corpus_label") or serving.STORED_CORPUS_LABEL),
        characters=0 if text is None else len(text),
        perceived_characters=0 if text is None else character_count(text),
        from_counts=text is None,
        sample_key=meta.get("sample_key"),
        number=number,
        stopped_by=meta.get("stopped_by"),
        store_key=key,
        derived=derived,
        origin=serving.origin_of(meta),
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
    run_store = serving.store()
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
    run_store = serving.store()
    if run_store is None or not run_store.writable:
        return False
    meta = {
        **serving.run_meta(
            run.settings,
            run.shared_label or serving.STORED_CORPUS_LABEL,
            run.sample_key,
            text,
            run.key.corpus_sha256,
        ),
        "stopped_by": run.stopped_by,
    }
    if run.origin:  # a host's file or a count file: no text, its digest and where it came from
        meta.update(corpus_sha256=run.key.corpus_sha256, characters=0, from_counts=True, **run.origin)
    keep = not (run.sample_key or run.origin) and serving.keeps_corpus(text)
    corpus = text.encode("utf-8", "surrogatepass") if keep else None
    if trace_json is None:
        trace_json = run.history.to_json().encode("utf-8", "surrogatepass")
    return run_store.put(run.store_key, trace_json, corpus, meta)
