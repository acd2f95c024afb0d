"""Training from the app: a real progress bar, a time budget, user errors as messages, and the
session's bounded cache of runs (key = sha256 of the corpus + settings).
"""

from __future__ import annotations

import time

import streamlit as st

from explorer.pipeline import train_corpus
from explorer.trainers import STOP_REASONS
from explorer.ui import state
from explorer.ui.runs import Run, RunKey, corpus_digest
from explorer.ui.settings import ALGORITHM_LABELS, Settings

TIME_BUDGET_SECONDS = 120.0  # a hosted app must not train forever; the trace says "stopped"
PROGRESS_INTERVAL_SECONDS = 0.1


def _progress_callback(bar):
    last_update = [0.0]

    def progress(step: int, planned: int) -> None:
        now = time.perf_counter()
        if now - last_update[0] < PROGRESS_INTERVAL_SECONDS and step < planned:
            return
        last_update[0] = now
        fraction = min(1.0, step / planned) if planned > 0 else 1.0
        bar.progress(fraction, text=f"Merge {step:,} of at most {planned:,}")

    return progress


def train_run(corpus_text: str, settings: Settings, corpus_label: str, sample_key: str | None = None) -> Run | None:
    """The run for this corpus and settings: from the cache, or trained now with a progress bar.

    Problems a user can cause are shown as `st.error` and give None.
    """
    if not corpus_text.strip():
        st.error("The corpus is empty: paste some text, upload a .txt file or pick a sample corpus.")
        return None
    try:
        config = settings.trainer_config()
    except ValueError as error:
        st.error(f"Cannot train with these settings: {error}")
        return None

    key = RunKey(corpus_digest(corpus_text), settings)
    cache = state.run_cache()
    cached = cache.get(key)
    if cached is not None:
        st.caption("Same corpus and settings as an earlier run in this session: its result was reused.")
        return cached

    label = ALGORITHM_LABELS[settings.algorithm]
    bar = st.progress(0.0, text=f"Training {label}: counting words …")
    deadline = time.perf_counter() + TIME_BUDGET_SECONDS
    try:
        trace = train_corpus(
            corpus_text,
            config,
            settings.normalizers,
            settings.pre_tokenizer,
            progress=_progress_callback(bar),
            should_stop=lambda: time.perf_counter() > deadline,
        )
    except ValueError as error:
        bar.empty()
        st.error(f"Training failed: {error}")
        return None
    if not trace.words:
        bar.empty()
        st.error("The corpus has no words once normalized and pre-tokenized: try another pre-tokenizer or corpus.")
        return None
    bar.progress(1.0, text=f"{label}: {trace.steps:,} merges in {trace.seconds:.2f} s ({STOP_REASONS.get(trace.stop_reason, trace.stop_reason)})")
    run = Run(key=key, trace=trace, corpus_label=corpus_label, characters=len(corpus_text), sample_key=sample_key)
    cache.put(run)
    return run
