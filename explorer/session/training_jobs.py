"""A session's training, from the request to the run: one call starts it, a job of the pool
trains it, and the finished job becomes a `Run`.

- `start(corpus, settings, limits, ...) -> Reused | Submitted | Refused`: the request checked
  (explorer.session.requests), the run's key made from the corpus's digest (`TrainingCorpus`:
  digested once), the run looked for in the session's cache and then in the store (a class
  opening one sample gets the run one of them trained, at once), and otherwise asked of the pool
  (a new job, or the one another visitor started for the same key).
- `TrainingJob`: a session's interest in that job, and its progress line.
- `finish(job)`: the finished job as a `Run` (from the store, where the worker put it, or from its
  trace), or the sentence saying why there is none.

Pure Python (no streamlit). What it does not do: write the checks (explorer.session.requests), hold
a session's job, show its errors or draw its progress (explorer.ui.common.training), or train
(explorer.work.tasks.train_task).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from explorer.checks import Check, Limits, format_size
from explorer.drawing.wording import character_count, plural
from explorer.runs.run import MergeRun, RoundRun, RunCache, RunKey, corpus_digest, make_run
from explorer.runs.settings import ALGORITHM_LABELS, Settings
from explorer.session import count_uploads, host_corpora, requests, serving, stored_runs
from explorer.session.count_uploads import CountFile
from explorer.session.host_corpora import HostCorpus
from explorer.session.linked_corpus import REUPLOAD, LinkedCorpus
from explorer.training import engines
from explorer.work import tasks
from explorer.work.jobs import CANCELLED, CRASHED, DONE, QUEUED, JobHandle

EXTRA_SECONDS = 60.0  # the pool's hard limit on a job: the time budget plus this


@dataclass(frozen=True)
class TrainingCorpus:
    """The corpus a training is asked for: its text ("" for a host's file or a count file, which a
    worker reads: `source`), what this visitor calls it (`label`), the sample it is, what anyone
    may see it called (`shared_label`, the label the store keeps: a sample's own, else a neutral
    one, never a visitor's file name), and its `digest`: the text's sha256 (`corpus_digest`) or the
    source's fingerprint. It is made once, here, unless the caller hands in the one it has (the
    Train form remembers its text's): the key, the stored meta and the run all use this one."""

    text: str
    label: str
    sample_key: str | None = None
    shared_label: str = ""
    source: HostCorpus | CountFile | LinkedCorpus | None = field(default=None, repr=False)
    digest: str = ""

    def __post_init__(self) -> None:
        if not self.shared_label:
            shared = self.label if self.sample_key else serving.STORED_CORPUS_LABEL
            object.__setattr__(self, "shared_label", shared)
        if not self.digest:
            digest = self.source.fingerprint if self.source is not None else corpus_digest(self.text)
            object.__setattr__(self, "digest", digest)


@dataclass
class TrainingJob:
    """One session's interest in a training job of the pool, and the run it will make."""

    handle: JobHandle
    key: str
    corpus: TrainingCorpus
    settings: Settings
    number: int
    limits: Limits
    # A run without text here (a host's file, a count file): where it came from (serving.origin_of).
    origin: dict = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    stopping: bool = False

    @property
    def job(self):
        return self.handle.job

    def progress(self) -> tuple[float, str]:
        """(fraction, text) for a progress bar."""
        label = ALGORITHM_LABELS[self.settings.algorithm]
        job = self.job
        if job.state == QUEUED:
            load = serving.pool().load()
            ahead = job.ahead()
            waited = time.monotonic() - self.started
            return 0.0, (
                f"Waiting for a free worker: {plural(ahead, 'run')} ahead of this one, "
                f"{load.running} training now ({waited:.0f} s) …"
            )
        progress = job.progress
        if progress.get("phase") != "training":
            read, total = progress.get("bytes_read"), progress.get("total_bytes")
            if read is not None and total:  # a host's file, streamed
                return min(1.0, read / total), (
                    f"Training {label}: counting words, {format_size(read)} of {format_size(total)} read …"
                )
            return 0.0, f"Training {label}: counting words …"
        step, planned = progress.get("step", 0), progress.get("planned", 0)
        fraction = min(1.0, step / planned) if planned > 0 else 1.0
        elapsed = time.monotonic() - (job.started or self.started)
        stopping = " · stopping …" if self.stopping else ""
        if progress.get("unit") == "round":  # Unigram (also when a reload attached without settings)
            return fraction, (
                f"Training Unigram: round {step:,} of about {planned:,} · {elapsed:.0f} s of at most "
                f"{self.limits.max_seconds:g} s (the time limit alone bounds a Unigram run){stopping}"
            )
        return fraction, (
            f"Training {label}: merge {step:,} of at most {planned:,} · {elapsed:.0f} s of at most "
            f"{self.limits.max_seconds:g} s{stopping}"
        )


def _engine() -> str | None:
    """The merge engine this server trains with (EXPLORER_ENGINE, explorer.training.engines), sent
    with the job so that its worker uses the same; None when the setting is wrong (the worker's
    training then fails with the sentence that says so)."""
    try:
        return engines.resolve()
    except ValueError:
        return None


@dataclass(frozen=True)
class Reused:
    """A run trained before (this session's, from its cache, or anyone's, from the store): the
    session shows it at once."""

    run: MergeRun | RoundRun


@dataclass(frozen=True)
class Submitted:
    """The pool trains the run: a new job, or the one another visitor started for the same key."""

    job: TrainingJob


@dataclass(frozen=True)
class Refused:
    """What blocks the training: one sentence each (explorer.session.requests' checks)."""

    errors: tuple[str, ...]


def start(
    corpus: TrainingCorpus,
    settings: Settings,
    limits: Limits,
    *,
    salt: bytes,
    cache: RunCache,
    next_number: Callable[[], int],
    corpus_check: Check | None = None,
) -> Reused | Submitted | Refused:
    """Ask for the run of `corpus` with `settings`: refused by the checks, found (the session's
    `cache`, then the store), or submitted to the pool. `salt`: the session's, in the key of a run
    of a pasted or uploaded corpus (`serving.training_key`'s `owner`); `next_number`: the session's
    next run number; `corpus_check`: the corpus's check when the caller has it (the Train form
    shows it), else it is made here. A host's file or a count file has no text to check: a host's
    own files are trusted in size, and a count file was checked when it was read
    (explorer.session.count_uploads)."""
    checked = Check((), (), ()) if corpus.source is not None else corpus_check
    asked = requests.asked_settings(settings, limits)
    request = requests.request_training(corpus.text, asked, limits, checked)
    if request.errors:
        return Refused(request.errors)
    owner = None if corpus.sample_key else salt
    key = serving.training_key(corpus.digest, settings, limits, owner)
    run = cache.get(key)
    if run is None:
        loaded = stored_runs.load_run(key)
        if loaded is not None:
            run = loaded[0]
            run.number = next_number()
            run.corpus_label = corpus.label  # the name this visitor gave it, never a stored one
            cache.put(run)
    if run is not None:
        if run.from_counts and corpus.source is None:  # a corpus the store does not keep: the session has it
            stored_runs.with_session_text(run, corpus.text)
        return Reused(run)
    if isinstance(corpus.source, LinkedCorpus):  # a link's run stored without its corpus: nothing here
        return Refused((REUPLOAD,))
    meta = serving.run_meta(
        settings, corpus.shared_label, corpus.sample_key, corpus.text, corpus.digest, corpus.source
    )
    handle = _submit(key, corpus, settings, limits, meta)
    origin = serving.origin_of(meta)
    return Submitted(TrainingJob(handle, key, corpus, settings, next_number(), limits, origin))


def _submit(key: str, corpus: TrainingCorpus, settings: Settings, limits: Limits, meta: dict) -> JobHandle:
    """Ask the pool for the run `key` names (a new job, or the one another visitor started), stored
    by the worker under `key` with `meta`. A host's file goes to the worker as its path, never as
    its text, and an uploaded count file as its bytes; neither is stored (the run's key and meta
    name it, its trace holds its words and counts)."""
    pool = serving.pool()
    worker_corpus: str | dict = corpus.text
    if isinstance(corpus.source, HostCorpus):
        worker_corpus = host_corpora.worker_input(corpus.source)
    elif isinstance(corpus.source, CountFile):
        worker_corpus = count_uploads.worker_input(corpus.source)
    keep_corpus = corpus.source is None and corpus.sample_key is None and serving.keeps_corpus(corpus.text)
    return pool.request(
        key,
        tasks.train_task,
        worker_corpus,
        serving.training_spec(settings, limits),
        dataclasses.asdict(limits),
        serving.store_spec(key, meta, keep_corpus),
        pool.counting_jobs,
        _engine(),
        time_limit=limits.max_seconds + EXTRA_SECONDS,
    )


def finish(job: TrainingJob) -> tuple[MergeRun | RoundRun, str | None] | str:
    """(the run a finished job made, its corpus text), or the sentence saying why there is none."""
    ended = job.job
    corpus = job.corpus
    if ended.state == DONE:
        result = ended.result
        if result.get("stored_key"):
            loaded = stored_runs.load_run(result["stored_key"], job.number)
            if loaded is not None:
                if corpus.label:  # this visitor's name for it (a reload's attached job has none)
                    loaded[0].corpus_label = corpus.label
                if loaded[1] is None and corpus.text:  # not stored, but this session holds its text
                    return stored_runs.with_session_text(loaded[0], corpus.text), corpus.text
                return loaded
        if result.get("trace_json") is None or not (corpus.text or corpus.source):
            return "Training finished, but its result could not be read back from the run store: train again."
        from explorer.train import trace_from_json  # here: the first page view trains nothing

        trace = trace_from_json(result["trace_json"])
        run = make_run(
            key=RunKey(corpus.digest, job.settings),
            history=trace,
            corpus_label=corpus.label,
            shared_label=corpus.shared_label,
            characters=len(corpus.text),
            perceived_characters=character_count(corpus.text),
            sample_key=corpus.sample_key,
            number=job.number,
            stopped_by=result.get("stopped_by"),
            store_key=job.key,
            from_counts=corpus.source is not None,
            origin=job.origin,
        )
        if trace.stop_reason == "stopped" and result.get("stopped_by") == tasks.STOP_BUTTON:
            # Stopped by its visitor, and not stored by the worker (no store that can be written):
            # theirs alone, under a key of its own (not the shared one).
            run.store_key = serving.stopped_key(job.key, tasks.trace_steps(trace))
        # Not stored by the worker: by the server (the worker's bytes, not built again), else no link to it.
        stored_runs.keep_run(run, corpus.text, result["trace_json"])
        return run, corpus.text
    if ended.state == CANCELLED:
        return "Training was stopped before it learned anything."
    if ended.state == CRASHED:
        return f"Training failed: {ended.error}. The server has started a new worker: train again to retry."
    return f"Training failed: {ended.error or 'unknown error'}."
