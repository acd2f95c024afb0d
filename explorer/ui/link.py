"""Shareable URLs: the training settings and the chosen built-in sample live in `st.query_params`
(a pasted or uploaded corpus never does). Opening such a link on any page trains that sample with
those settings (cached per session) and shows the same view.
"""

from __future__ import annotations

import streamlit as st

from explorer.samples import SAMPLES, sample_by_key
from explorer.ui import state, training
from explorer.ui.runs import Run
from explorer.ui.settings import Settings, from_query_params, limits_or_defaults
from explorer.ui.views import markdown_literal

SAMPLE_PARAM = "sample"


def params_for(settings: Settings, sample_key: str | None) -> dict[str, str]:
    params = settings.to_query_params()
    if sample_key:
        params[SAMPLE_PARAM] = sample_key
    return params


def write(params: dict[str, str]) -> None:
    """Put exactly `params` in the URL (no write when it already says so)."""
    current = {key: st.query_params.get(key) for key in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


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
    """On pages other than Train: the URL names the current run, if it came from a sample, and
    keeps the page's own parameters listed in `keep_params` (the player's step)."""
    run = state.current_run()
    if run is not None and run.sample_key:
        params = params_for(run.settings, run.sample_key)
        params.update({key: st.query_params[key] for key in keep_params if key in st.query_params})
        write(params)


def train_from_link() -> Run | None:
    """When no run exists yet and the URL names a sample: train it (progress bar shown)."""
    if state.current_run() is not None:
        return state.current_run()
    link = read()
    if link is None:
        return None
    settings, sample_key, notes = link
    for note in notes:
        st.warning(markdown_literal(note))
    sample = sample_by_key(sample_key)
    if sample is None:
        return None
    run = training.train_run(sample.text, settings, sample.label, sample.key)
    if run is not None:
        state.set_current_run(run, sample.text)
    return run
