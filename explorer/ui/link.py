"""Shareable URLs that keep the view: every page's URL names the current run (`run`, its key in the
server's run store), its settings and, for a built-in sample, the sample; Merge history adds the
player's `step`, Vocabulary the `search`. A reload, a bookmark or the link opened in another browser
shows the same run at the same step.

`open_from_url()` (the frame calls it on a session's first script run, on any page) turns a URL
back into a run: from the store (anyone's run: a run key is an HMAC of the corpus and settings
under the deployment's secret, unguessable without the corpus); else the job still training it
(a reload during training waits for it); else, for a sample, by training it again; else the
visitor is told the run has expired and what to do. A pasted or uploaded corpus never appears in a
URL: only its run's key does, and the store keeps the corpus with the run.
"""

from __future__ import annotations

import streamlit as st

from explorer.runstore import is_run_key
from explorer.samples import SAMPLES, sample_by_key
from explorer.ui import serving, state, training
from explorer.ui.literal import markdown_literal
from explorer.ui.runs import Run
from explorer.ui.settings import Settings, from_query_params, limits_or_defaults

SAMPLE_PARAM = "sample"
RUN_PARAM = "run"
EXPIRED = (
    "The run in this link is no longer on this server: runs are kept for a while and the least recently "
    "used go first when the store is full. Its corpus went with it, and links never hold a corpus: paste or "
    "upload it again on the Train page and train it (the link's settings are already set)."
)


def params_for(settings: Settings, sample_key: str | None, run_key: str | None = None) -> dict[str, str]:
    params = settings.to_query_params()
    if sample_key:
        params[SAMPLE_PARAM] = sample_key
    if run_key:
        params[RUN_PARAM] = run_key
    return params


def write(params: dict[str, str]) -> None:
    """Put exactly `params` in the URL (no write when it already says so)."""
    current = {key: st.query_params.get(key) for key in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def set_param(name: str, value: str | None) -> None:
    """One page parameter (the player's step, the vocabulary search): set, or removed when empty."""
    if value:
        if st.query_params.get(name) != value:
            st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]


def train_page_run_key() -> str | None:
    """The key of the run the Train page shows, or of the one training for it (a reload finds it)."""
    job = training.current_job()
    if job is not None:
        return job.key
    run = state.current_run()
    return run.store_key if run is not None else None


def read() -> tuple[Settings, str | None, list[str]] | None:
    """Settings and sample from the URL, with notes about ignored values; None without params."""
    params = {key: st.query_params.get(key) for key in st.query_params}
    if not params:
        return None
    settings, notes = from_query_params(params, limits_or_defaults()[0])
    sample_key = params.get(SAMPLE_PARAM)
    if sample_key and sample_key not in SAMPLES:
        notes.append(f"Unknown sample {sample_key!r} in the link (choose from {', '.join(SAMPLES)}).")
        sample_key = None
    return settings, sample_key, notes


def show_current_run(keep_params: tuple[str, ...] = ()) -> None:
    """On pages other than Train: the URL names the current run, and keeps the page's own
    parameters listed in `keep_params` (the player's step, the vocabulary search)."""
    run = state.current_run()
    if run is not None:
        params = params_for(run.settings, run.sample_key, run.store_key)
        params.update({key: st.query_params[key] for key in keep_params if key in st.query_params})
        write(params)


def open_from_url() -> Run | None:
    """The run the URL names, made current (see the module docstring); None when there is none,
    or while it is still training (the session then holds the job: `training.current_job()`)."""
    if state.current_run() is not None or training.current_job() is not None:
        return state.current_run()
    key = st.query_params.get(RUN_PARAM)
    if key and is_run_key(key):
        loaded = state.numbered(serving.load_run(key))
        if loaded is not None:
            run, text = loaded
            state.run_cache().put(run)
            state.set_current_run(run, text)
            return run
        if training.attach(key):
            return None
    link = read()
    sample = sample_by_key(link[1]) if link else None
    if link is not None:
        for note in link[2]:
            st.warning(markdown_literal(note))
    if sample is not None:
        run = training.train_run(sample.text, link[0], sample.label, sample.key)
        if run is not None:
            state.set_current_run(run, sample.text)
        return run
    if key:
        state.put(state.LINK_EXPIRED, True)
    return None
