"""Training from the app: the checks that block a run, a time and step budget, a Stop button, the
session's bounded cache of runs (key = sha256 of the corpus + settings), and a process-wide cap on
how many runs train at once.

Why a thread: Streamlit reruns the script when a button is clicked, interrupting whatever the
script was doing, so a training loop run by the script could never be stopped with its partial
history kept. A run therefore trains in a background thread owned by the session: a `Job` kept in
`st.session_state` (thread, progress, stop flag, result). The Train page waits for it briefly
(a quick run shows its result in the same script run, which is also what AppTest sees), then shows
a progress poller (`st.fragment(run_every=...)`) next to a Stop button that sets the job's flag;
the trainer's `should_stop` reads that flag as well as the budget (`Limits.budget()`), so a stopped
run ends within a few dozen merges with stop_reason "stopped" and its trace is explorable on every
page like any other. `collect()` (called by every page's frame) turns a finished job into the
current run, or into a message.

The thread never calls streamlit. Any exception in it becomes one sentence for the visitor (the
traceback goes to the server log only). At most `TRAINING_SLOTS` runs train at once in the whole
server, whoever started them; the others wait (their progress says so) for at most
`QUEUE_SECONDS`.

`train_run` is the synchronous form (same checks, budget and cache) for the shareable-link and
Compare pages, which train tiny samples or a corpus already accepted.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass

import streamlit as st

from explorer.inputs import Check, InputError, Limits, check_corpus, check_special_tokens, check_vocab_size
from explorer.pipeline import train_corpus
from explorer.trainers import STOP_REASONS, TrainerConfig
from explorer.ui import state
from explorer.ui.runs import Run, RunKey, corpus_digest
from explorer.ui.settings import ALGORITHM_LABELS, Settings, limits_or_defaults
from explorer.ui.views import markdown_literal
from explorer.wording import format_seconds, plural

LOG = logging.getLogger(__name__)

TRAINING_SLOTS = 2  # runs training at once in the server (one per core of a small host)
QUEUE_SECONDS = 300.0  # the longest a run waits for a slot before giving up with a message
INLINE_SECONDS = 1.5  # the script waits this long for a job before handing over to the poller
# The poller's tick. Every rerun, a fragment's too, uploads the state of every widget, the corpus
# text area included (measured: 842 KB per tick for an 821 KB corpus), so it ticks once a second.
POLL_SECONDS = 1.0
PROGRESS_INTERVAL_SECONDS = 0.1
STOP_BUTTON = "the Stop button"

_slots = threading.BoundedSemaphore(TRAINING_SLOTS)
_running = [0]  # runs holding a slot now (read for the "waiting" message only)
_running_lock = threading.Lock()


@contextlib.contextmanager
def work_slot(timeout: float = QUEUE_SECONDS):
    """Hold one of the server's `TRAINING_SLOTS` for other heavy work on a visitor's corpus (such
    as measuring tokenizers on all of it), so that at most that many such jobs use memory at once.
    Raises TimeoutError when no slot frees up within `timeout` seconds."""
    if not _slots.acquire(timeout=timeout):
        raise TimeoutError(f"the server is busy (no free slot within {timeout:.0f} s): try again in a minute")
    try:
        yield
    finally:
        _slots.release()


# ---------------------------------------------------------------- checks


def corpus_check(text: str, bounds: Limits) -> Check:
    """`check_corpus`, remembered for the last corpus of the session (it reruns on every click)."""
    digest = corpus_digest(text)
    remembered = state.get(state.CORPUS_CHECK)
    if remembered is not None and remembered[0] == digest and remembered[1] == bounds:
        return remembered[2]
    check = check_corpus(text, bounds)
    state.put(state.CORPUS_CHECK, (digest, bounds, check))
    return check


def settings_check(settings: Settings, bounds: Limits) -> Check:
    """What blocks training with these settings (vocabulary size, special tokens, the trainer's
    own rules), what deserves a warning, and notes about the special tokens."""
    errors: list[str] = []
    try:
        check_vocab_size(settings.vocab_size, bounds)
    except InputError as error:
        errors.append(str(error))
    tokens = check_special_tokens(settings.special_token_entries(), settings.pre_tokenizer)
    errors.extend(tokens.errors)
    if not errors:
        try:
            settings.trainer_config(bounds)
        except ValueError as error:
            errors.append(f"Cannot train with these settings: {error}")
    return Check(tuple(errors), tokens.warnings, tokens.notes)


# ---------------------------------------------------------------- the job


@dataclass(frozen=True)
class Request:
    """Everything one training run needs; built in the script, read by the thread."""

    text: str
    settings: Settings
    config: TrainerConfig
    bounds: Limits
    key: RunKey
    corpus_label: str
    sample_key: str | None
    number: int


class Job:
    """One run training in a background thread. Written by the thread, read by the script:
    plain attributes, each replaced whole, and `done` set last."""

    def __init__(self, request: Request):
        self.request = request
        self.stop_requested = threading.Event()
        self.done = threading.Event()
        self.phase = "waiting"  # waiting -> counting -> training -> finished
        self.step = 0
        self.planned = 0
        self.started = time.monotonic()
        self.training_started: float | None = None
        self.run: Run | None = None
        self.error: str | None = None
        self.stopped_by: str | None = None
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self.work, name=f"train-run-{self.request.number}", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stop_requested.set()

    def _report(self, step: int, planned: int) -> None:
        self.phase = "training"
        self.planned = planned
        self.step = step

    def _should_stop(self, budget) -> bool:
        if self.stop_requested.is_set():
            self.stopped_by = STOP_BUTTON
            return True
        if budget.should_stop():
            self.stopped_by = budget.stopped_by
            return True
        return False

    def _wait_for_slot(self) -> bool:
        deadline = time.monotonic() + QUEUE_SECONDS
        while not _slots.acquire(timeout=0.2):
            if self.stop_requested.is_set():
                self.error = "Training was stopped before it started: nothing was learned."
                return False
            if time.monotonic() > deadline:
                self.error = (
                    f"The server is busy training for other visitors (waited {QUEUE_SECONDS:.0f} s): "
                    "try again in a minute."
                )
                return False
        return True

    def work(self) -> None:
        """Train (in the thread, or in the script for `train_run`); never raises."""
        request = self.request
        try:
            if not self._wait_for_slot():
                return
            with _running_lock:
                _running[0] += 1
            try:
                self.phase = "counting"
                self.training_started = time.monotonic()
                budget = request.bounds.budget(progress=self._report)
                trace = train_corpus(
                    request.text,
                    request.config,
                    request.settings.normalizers,
                    request.settings.pre_tokenizer,
                    progress=budget.progress,
                    should_stop=lambda: self._should_stop(budget),
                    max_steps=budget.step_limit,
                )
            finally:
                with _running_lock:
                    _running[0] -= 1
                _slots.release()
            if not trace.words:
                self.error = "The corpus has no words once normalized and pre-tokenized: try another pre-tokenizer or corpus."
                return
            self.run = Run(
                key=request.key,
                trace=trace,
                corpus_label=request.corpus_label,
                characters=len(request.text),
                sample_key=request.sample_key,
                number=request.number,
                stopped_by=(self.stopped_by or budget.stop_cause(trace)) if trace.stop_reason == "stopped" else None,
            )
        except MemoryError:
            self.error = "Training ran out of memory: try a smaller corpus or vocabulary size."
        except ValueError as error:
            self.error = f"Training failed: {error}"
        except Exception as error:  # a bug must reach the visitor as a sentence, the log as a traceback
            LOG.exception("training run %s failed", request.number)
            self.error = f"Training failed unexpectedly ({type(error).__name__}). Try other settings or a smaller corpus."
        finally:
            self.phase = "finished"
            self.done.set()

    def progress(self) -> tuple[float, str]:
        """(fraction, text) for a progress bar."""
        label = ALGORITHM_LABELS[self.request.settings.algorithm]
        if self.phase == "waiting":
            waited = time.monotonic() - self.started
            return 0.0, f"Waiting for a free trainer ({_running[0]} runs training now, {waited:.0f} s) …"
        if self.phase == "counting":
            return 0.0, f"Training {label}: counting words …"
        elapsed = time.monotonic() - (self.training_started or self.started)
        fraction = min(1.0, self.step / self.planned) if self.planned > 0 else 1.0
        limit = self.request.bounds.max_seconds
        return fraction, f"Training {label}: merge {self.step:,} of at most {self.planned:,} · {elapsed:.0f} s of at most {limit:g} s"


def current_job() -> Job | None:
    return state.get(state.JOB)


def request_stop() -> None:
    """The Stop button's callback: the trainer stops at its next check (every 32 merges)."""
    job = current_job()
    if job is not None:
        job.stop()


def _request(text: str, settings: Settings, corpus_label: str, sample_key: str | None, bounds: Limits) -> Request | Run | None:
    """The cached run for this corpus and settings, a Request to train it, or None after showing
    why it cannot be trained (`st.error`, markup shown literally)."""
    problems = list(corpus_check(text, bounds).errors) + list(settings_check(settings, bounds).errors)
    if problems:
        for problem in problems:
            st.error(markdown_literal(problem))
        return None
    key = RunKey(corpus_digest(text), settings)
    cached = state.run_cache().get(key)
    if cached is not None:
        return cached
    return Request(
        text=text,
        settings=settings,
        config=settings.trainer_config(bounds),
        bounds=bounds,
        key=key,
        corpus_label=corpus_label,
        sample_key=sample_key,
        number=state.next_run_number(),
    )


def start(text: str, settings: Settings, corpus_label: str, sample_key: str | None = None) -> Run | Job | None:
    """Start training in the background; a cached run is returned at once instead (and made
    current). None (after an `st.error`) when the inputs block training."""
    bounds, _ = limits_or_defaults()
    state.put(state.OUTCOME, [])
    found = _request(text, settings, corpus_label, sample_key, bounds)
    if found is None:
        return None
    if isinstance(found, Run):
        state.put(state.OUTCOME, [("caption", "Same corpus and settings as an earlier run in this session: its result was reused.")])
        state.set_current_run(found, text)
        return found
    job = Job(found)
    state.put(state.JOB, job)
    job.start()
    return job


def collect() -> Run | None:
    """If the session's job has finished: its run becomes the current one (and enters the cache),
    or its error becomes the outcome to show. Returns the new run, if any."""
    job = current_job()
    if job is None or not job.done.is_set():
        return None
    state.put(state.JOB, None)
    if job.run is None:
        state.put(state.OUTCOME, [("error", job.error or "Training did not finish.")])
        return None
    state.run_cache().put(job.run)
    state.set_current_run(job.run, job.request.text)
    return job.run


def _progress_slot(job: Job, slot) -> None:
    fraction, text = job.progress()
    slot.progress(fraction, text=text)


@st.fragment(run_every=POLL_SECONDS)
def _poller() -> None:
    """Redraws the progress bar every tick; when the job is over, reruns the page to show it."""
    job = current_job()
    if job is None or job.done.is_set():
        st.rerun(scope="app")
    _progress_slot(job, st.empty())


def show_job() -> bool:
    """While a job runs: the Stop button and its progress (waiting up to INLINE_SECONDS in this
    script run first). A job that finishes meanwhile is collected and the page drawn again (its
    Train button was drawn disabled); otherwise the poller takes over and this returns True."""
    job = current_job()
    if job is None:
        return False
    stop_slot, bar_slot = st.empty(), st.empty()
    if not job.done.is_set():
        stop_slot.button("Stop", key=state.Widget.STOP, icon=":material/stop_circle:", on_click=request_stop,
                         help="End training now: the merges learned so far are kept and can be explored.")
        deadline = time.monotonic() + INLINE_SECONDS
        while not job.done.wait(PROGRESS_INTERVAL_SECONDS) and time.monotonic() < deadline:
            _progress_slot(job, bar_slot)
    if job.done.is_set():
        stop_slot.empty()
        bar_slot.empty()
        collect()
        # The Train button above was drawn disabled while the job ran: draw the page again.
        st.rerun()
    bar_slot.empty()
    _poller()
    return True


# ---------------------------------------------------------------- synchronous


def train_run(corpus_text: str, settings: Settings, corpus_label: str, sample_key: str | None = None) -> Run | None:
    """The run for this corpus and settings: from the cache, or trained now in this script run
    (same checks, budget and slots as `start`) with a progress bar. Problems are `st.error`s
    and give None."""
    bounds, _ = limits_or_defaults()
    found = _request(corpus_text, settings, corpus_label, sample_key, bounds)
    if found is None or isinstance(found, Run):
        if found is not None:
            st.caption("Same corpus and settings as an earlier run in this session: its result was reused.")
        return found
    job = Job(found)
    bar = st.progress(0.0, text=job.progress()[1])
    job.start()
    try:
        while not job.done.wait(PROGRESS_INTERVAL_SECONDS):
            _progress_slot(job, bar)
    finally:
        if not job.done.is_set():  # the script was interrupted (a click): nobody will collect the run
            job.stop()
    if job.run is None:
        bar.empty()
        st.error(markdown_literal(job.error or "Training did not finish."))
        return None
    trace = job.run.trace
    label = ALGORITHM_LABELS[settings.algorithm]
    bar.progress(1.0, text=f"{label}: {plural(trace.steps, 'merge')} in {format_seconds(trace.seconds)} ({STOP_REASONS.get(trace.stop_reason, trace.stop_reason)})")
    state.run_cache().put(job.run)
    return job.run
