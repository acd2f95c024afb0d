"""A result that a page shows, computed once in a worker process and kept in the run store: the
same key asked by any number of visitors is one job and one stored result (explorer.work.pool
joins requests of one key), waited for a while in the script run, then polled.

- `stored(key, accept)`: the JSON result kept under `key` in the run store, or None (none, not
  JSON, or not what `accept` takes: a result of an older shape is computed again).
- `store(key, result, kind)`: keep it (nothing when the server has no store).
- `worker_result(jobs_key, key, kind, request, wait_seconds, spinner)`: (result, None) once known,
  stored or just finished (then stored); (None, a sentence) when the job failed; (None, None) while
  it still runs after waiting up to `wait_seconds`. `request()` submits the job to the pool; it
  is called only when the result is neither stored nor already asked for by this session. The
  session holds its handles in state under `jobs_key`, one choice at a time: the handles of other
  keys are let go (stored when done; released otherwise, and a job nobody else waits for is
  cancelled: the visitor chose something else).
- `poll_until_done(jobs_key, message)`: a fragment showing `message` once a second and rerunning
  the page once the session's jobs under `jobs_key` are all in.

What it does not do: decide keys (the callers' HMACs, `explorer.runstore.run_key`), run anything
itself, or hold several pending jobs of one page at once (explorer.ui.compare.measuring does, one
per column).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import streamlit as st

from explorer.session import serving
from explorer.ui.common import abandoned, state
from explorer.work import admission
from explorer.work.jobs import DONE, JobHandle


def stored(key: str, accept: Callable[[dict], bool] = lambda result: True) -> dict | None:
    run_store = serving.store()
    entry = run_store.get(key) if run_store is not None else None
    if entry is None:
        return None
    try:
        result = json.loads(entry.payload)
    except ValueError:
        return None
    return result if isinstance(result, dict) and accept(result) else None


def store(key: str, result: dict, kind: str) -> None:
    run_store = serving.store()
    if run_store is not None:
        run_store.put(key, json.dumps(result).encode("utf-8"), None, {"kind": kind})


def _let_go_of_others(held: dict[str, JobHandle], key: str, kind: str) -> None:
    for other_key, other in list(held.items()):
        if other_key == key:
            continue
        if other.job.finished and other.job.state == DONE:
            store(other_key, other.job.result, kind)
        del held[other_key]
        abandoned.forget(other)
        other.release()


def worker_result(
    jobs_key: str,
    key: str,
    kind: str,
    request: Callable[[], JobHandle],
    wait_seconds: float,
    spinner: str,
    accept: Callable[[dict], bool] = lambda result: True,
) -> tuple[dict | None, str | None]:
    """See the module's docstring."""
    held: dict[str, JobHandle] = state.get(jobs_key) or {}
    _let_go_of_others(held, key, kind)
    state.put(jobs_key, held)
    found = stored(key, accept)
    if found is not None:
        return found, None
    handle = held.get(key)
    if handle is None:
        handle = request()
        abandoned.hold(handle)
        held[key] = handle
    job = handle.job
    with st.spinner(spinner), admission.set_aside():
        job.wait(wait_seconds)
    if not job.finished:
        return None, None
    held.pop(key, None)
    abandoned.forget(handle)
    handle.release()
    if job.state != DONE:
        return None, job.error or "the job was stopped"
    store(key, job.result, kind)
    return job.result, None


@st.fragment(run_every=1.0)
def poll_until_done(jobs_key: str, message: str) -> None:
    """While the session's jobs under `jobs_key` run: `message`, and a rerun of the page once they
    are all in."""
    jobs: dict[str, JobHandle] = state.get(jobs_key) or {}
    if not any(not handle.job.finished for handle in jobs.values()):
        st.rerun(scope="app")
    st.caption(message)
