"""Training from the app: a session's training, asked for as the command line asks
(explorer.session.requests: the checks), then run in a worker process of the server's pool
(explorer.session.training_jobs: the job), shared by key with every visitor asking for the same
corpus and settings, and kept in the run store (explorer.session.serving); its progress, Stop
button and outcome here. What it does not do: check, key, look up or submit a training itself
(explorer.session.training_jobs.start does, without Streamlit).

How a training goes:
- `start` makes one call, `training_jobs.start`, with the corpus's check and digest the form has
  already (`corpus_check`, `state.form_corpus_digest`) and the session's salt, cache and run
  numbers: `Refused` (its sentences shown as errors), `Reused` (a run of the session's cache or of
  the store, made current at once: a class opening one sample gets the run one of them trained),
  or `Submitted` (a job of the pool, a new one or the one another visitor started). The session
  keeps that `TrainingJob` in `st.session_state`. The URL gets the run's key at once, so a
  reload finds the job (still training) or the stored run.
- The Train page shows the progress (first inline for `INLINE_SECONDS`, then an
  `st.fragment(run_every=POLL_SECONDS)` poller) and a Stop button: `handle.cancel()` stops the
  job when this visitor is the only one waiting for it (the trainer checks every 32 merges and
  returns the merges learned so far, stop_reason "stopped"), and otherwise only lets go of it.
- `collect()` (every page's frame calls it) turns a finished job into the current run, or into
  one sentence: a failure, a crash of the worker (the pool starts a new one), a cancellation.
  A run the visitor stopped is stored by the worker under a key of its own (explorer.runstore.keys).
- A visitor who closes the tab: the session's handle is released once it has been disconnected
  for a while (explorer.ui.common.abandoned), and a job nobody holds any more is cancelled.

No training runs in a thread of this process: one GIL serves every visitor. `train_run` is the
synchronous form (same checks, key, store and pool) for links and the Compare page, which wait in
their script run (sleeping, not computing) with a progress bar.
"""

from __future__ import annotations

import logging
import time

import streamlit as st

from explorer.checks import (
    Check,
    Limits,
    check_corpus,
)
from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.wording import format_seconds, plural
from explorer.lessons.explain import stop_reason_text
from explorer.runs.run import MergeRun, RoundRun
from explorer.runs.settings import ALGORITHM_LABELS, Settings, limits_or_defaults
from explorer.session import serving, training_jobs
from explorer.session.count_uploads import CountFile
from explorer.session.host_corpora import HostCorpus
from explorer.session.linked_corpus import LinkedCorpus
from explorer.session.training_jobs import Refused, Reused, Submitted, TrainingCorpus, TrainingJob
from explorer.ui.common import abandoned, state
from explorer.work import admission
from explorer.work.jobs import Job

LOG = logging.getLogger(__name__)

INLINE_SECONDS = 1.5  # the script waits this long for a job before handing over to the poller
# The poller's tick. Every rerun, a fragment's too, uploads the state of every widget, the corpus
# text area included (measured: 842 KB per tick for an 821 KB corpus), so it ticks once a second.
POLL_SECONDS = 1.0
PROGRESS_INTERVAL_SECONDS = 0.1
REUSED = "This corpus and these settings were trained before: the stored result is shown."


# ---------------------------------------------------------------- checks


def corpus_check(text: str, limits: Limits) -> Check:
    """`check_corpus`, remembered for the last corpus of the session (it reruns on every click; the
    digest too, while the text is the same object, as an upload's is)."""
    digest = state.form_corpus_digest(text)
    remembered = state.get(state.CORPUS_CHECK)
    if remembered is not None and remembered[0] == digest and remembered[1] == limits:
        return remembered[2]
    check = check_corpus(text, limits)
    state.put(state.CORPUS_CHECK, (digest, limits, check))
    return check


# ---------------------------------------------------------------- the job


def current_job() -> TrainingJob | None:
    return state.get(state.JOB)


def request_stop() -> None:
    """The Stop button's callback: the trainer stops at its next check (every 32 merges), unless
    other visitors wait for the same run: then this session only lets go of it."""
    job = current_job()
    if job is None:
        return
    if job.handle.cancel():
        job.stopping = True
        return
    abandoned.forget(job.handle)
    state.put(state.JOB, None)
    state.put(
        state.OUTCOME,
        [
            (
                "caption",
                "Other visitors are waiting for this same run, so it goes on training for them. "
                "Train again to wait for it with them.",
            )
        ],
    )


def _start(
    text: str,
    settings: Settings,
    label: str,
    sample_key: str | None,
    shared_label: str,
    source: HostCorpus | CountFile | LinkedCorpus | None = None,
) -> Reused | Submitted | Refused:
    """`training_jobs.start` for this session: the corpus's check and digest the Train form has
    already (remembered: `corpus_check`), the session's salt, cache and run numbers. What blocks
    the training is shown (`st.error`, markup shown literally); a submitted job is watched in case
    this visitor goes away (explorer.ui.common.abandoned)."""
    limits, _ = limits_or_defaults()
    checked = corpus_check(text, limits) if source is None else None
    digest = state.form_corpus_digest(text) if source is None else ""  # made by the check: remembered
    corpus = TrainingCorpus(text, label, sample_key, shared_label, source, digest)
    started = training_jobs.start(
        corpus,
        settings,
        limits,
        salt=state.run_salt(),
        cache=state.run_cache(),
        next_number=state.next_run_number,
        corpus_check=checked,
    )
    if isinstance(started, Refused):
        for problem in started.errors:
            st.error(markdown_literal(problem))
    elif isinstance(started, Submitted):
        abandoned.hold(started.job.handle)  # released if this visitor goes away
    return started


def start(
    text: str,
    settings: Settings,
    corpus_label: str,
    sample_key: str | None = None,
    shared_label: str = "",
    source: HostCorpus | CountFile | LinkedCorpus | None = None,
) -> Reused | Submitted | Refused:
    """Start training in a worker (`Submitted`: the session's job); a run already trained (this
    session's, or anyone's in the store) is made current at once instead (`Reused`). `Refused`
    (after an `st.error`) when the inputs block training. `source`: a host's file or a count file,
    which has no text here, or a link's run's corpus the store does not keep (refused: `REUPLOAD`)."""
    state.put(state.OUTCOME, [])
    started = _start(text, settings, corpus_label, sample_key, shared_label, source)
    if isinstance(started, Reused):
        state.put(state.OUTCOME, [("caption", REUSED)])
        state.set_current_run(started.run, None if started.run.from_counts else text)
    elif isinstance(started, Submitted):
        state.put(state.JOB, started.job)
    return started


def attach(key: str) -> bool:
    """A reload or a link during training: wait for the job training `key`, if there is one. Its
    run will be read from the store (the worker stores it), so what it trains need not be known."""
    job = serving.pool().find(key)
    if job is None or job.finished or job.cancel_requested or not serving.runs_kept():
        return False
    handle = job.attach()
    abandoned.hold(handle)
    unknown = TrainingCorpus("", "")  # its run is read from the store, whatever it trained
    waiting = TrainingJob(handle, key, unknown, Settings(), state.next_run_number(), limits_or_defaults()[0])
    state.put(state.JOB, waiting)
    return True


def collect() -> MergeRun | RoundRun | None:
    """If the session's job has finished: its run becomes the current one (and enters the cache),
    or its sentence becomes the outcome to show. Returns the new run, if any."""
    job = current_job()
    if job is None or not job.job.finished:
        return None
    state.put(state.JOB, None)
    outcome = training_jobs.finish(job)
    abandoned.forget(job.handle)
    job.handle.release()
    if isinstance(outcome, str):
        state.put(state.OUTCOME, [("error", outcome)])
        return None
    run, text = outcome
    state.run_cache().put(run)
    state.set_current_run(run, text)
    return run


def _progress_slot(job: TrainingJob, slot) -> None:
    fraction, text = job.progress()
    slot.progress(fraction, text=text)


@st.fragment(run_every=POLL_SECONDS)
def _poller() -> None:
    """Redraws the progress bar every tick; when the job is over, reruns the page to show it."""
    job = current_job()
    if job is None or job.job.finished:
        st.rerun(scope="app")
    _progress_slot(job, st.empty())


def show_job(stop_button: bool = True) -> bool:
    """While a job runs: its progress and (on the Train page) the Stop button, waiting up to
    INLINE_SECONDS in this script run first. A job that finishes meanwhile is collected and the
    page drawn again (its Train button was drawn disabled); otherwise the poller takes over and
    this returns True. False when there is no job."""
    job = current_job()
    if job is None:
        return False
    stop_slot, bar_slot = st.empty(), st.empty()
    if not job.job.finished:
        if stop_button:
            stop_slot.button(
                "Stop",
                key=state.Widget.STOP,
                icon=":material/stop_circle:",
                on_click=request_stop,
                help="End training now: what it learned so far (merges, or Unigram's pruning rounds) is "
                "kept and can be explored.",
            )
        deadline = time.monotonic() + INLINE_SECONDS
        while not _waited(job.job, PROGRESS_INTERVAL_SECONDS) and time.monotonic() < deadline:
            _progress_slot(job, bar_slot)
    if job.job.finished:
        stop_slot.empty()
        bar_slot.empty()
        collect()
        st.rerun()
    bar_slot.empty()
    _poller()
    return True


def _waited(job: Job, seconds: float) -> bool:
    """Wait up to `seconds` for the job (True: finished), this page run's place given to another
    meanwhile (explorer.work.admission): the job runs in a worker process, not here."""
    with admission.set_aside():
        return job.wait(seconds)


# ---------------------------------------------------------------- synchronous


def train_run(
    corpus_text: str,
    settings: Settings,
    corpus_label: str,
    sample_key: str | None = None,
    shared_label: str = "",
) -> MergeRun | RoundRun | None:
    """The run for this corpus and settings: from the session, the store, or trained now by the
    pool while this script run waits (sleeping) with a progress bar. Problems are `st.error`s and
    give None."""
    started = _start(corpus_text, settings, corpus_label, sample_key, shared_label)
    if isinstance(started, Refused):
        return None
    if isinstance(started, Reused):
        st.caption(REUSED)
        return started.run
    job = started.job
    bar = st.progress(0.0, text=job.progress()[1])
    try:
        while not _waited(job.job, PROGRESS_INTERVAL_SECONDS):
            _progress_slot(job, bar)
        outcome = training_jobs.finish(job)
    finally:
        abandoned.forget(job.handle)
        # A script interrupted (a click) lets go of the job: cancelled if nobody else waits.
        job.handle.release()
    if isinstance(outcome, str):
        bar.empty()
        st.error(markdown_literal(outcome))
        return None
    run, _ = outcome
    trace = run.history
    label = ALGORITHM_LABELS[settings.algorithm]
    done = plural(trace.steps, trace.step_noun)
    bar.progress(
        1.0,
        text=f"{label}: {done} in {format_seconds(trace.seconds)} ({stop_reason_text(trace)})",
    )
    state.run_cache().put(run)
    return run
