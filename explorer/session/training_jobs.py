"""The Train page's training in a worker of the pool, once its request is clear
(explorer.session.requests): `submit` asks the pool for the run (a new job, or the one another
visitor started), `TrainingJob` is a session's interest in it and its progress line, and `finish`
turns the finished job into a `Run` (from the store, where the worker put it, or from its trace).

What it does not do: check a request (explorer.session.requests), hold a session's job or draw
its progress (explorer.ui.common.training), or train (explorer.work.tasks.train_task).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from explorer.checks import Limits, format_size
from explorer.drawing.wording import character_count, plural
from explorer.runs.run import MergeRun, RoundRun, RunKey, corpus_digest, make_run
from explorer.runs.settings import ALGORITHM_LABELS, Settings
from explorer.session import count_uploads, host_corpora, serving
from explorer.session.count_uploads import CountFile
from explorer.session.host_corpora import HostCorpus
from explorer.training import engines
from explorer.work import tasks
from explorer.work.jobs import CANCELLED, CRASHED, DONE, QUEUED, JobHandle

EXTRA_SECONDS = 60.0  # the pool's hard limit on a job: the time budget plus this


@dataclass
class TrainingJob:
    """One session's interest in a training job of the pool, and the run it will make."""

    handle: JobHandle
    key: str
    text: str
    settings: Settings
    corpus_label: str
    sample_key: str | None
    number: int
    limits: Limits
    shared_label: str = ""
    # A run without text here (a host's file, a count file): its digest and origin (serving.run_meta).
    source: tuple[str, dict] | None = None
    corpus_sha256: str = ""  # `text`'s, when the session had it already ("": digested when needed)
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


def shared_label(corpus_label: str, sample_key: str | None, label: str) -> str:
    """The label the store keeps: `label`, else a sample's own, else a neutral one."""
    return label or (corpus_label if sample_key else serving.STORED_CORPUS_LABEL)


def _engine() -> str | None:
    """The merge engine this server trains with (EXPLORER_ENGINE, explorer.training.engines), sent
    with the job so that its worker uses the same; None when the setting is wrong (the worker's
    training then fails with the sentence that says so)."""
    try:
        return engines.resolve()
    except ValueError:
        return None


def submit(
    key: str,
    text: str,
    settings: Settings,
    sample_key: str | None,
    limits: Limits,
    label: str,
    host: HostCorpus | None = None,
    count_file: CountFile | None = None,
    digest: str | None = None,
) -> JobHandle:
    """Ask the pool for the run `key` names (a new job, or the one another visitor started), stored
    by the worker under `key` with `label`. A host's file (`host`) goes to the worker as its path,
    never as its text, and an uploaded count file (`count_file`) as its bytes; neither is stored
    (the run's key and meta name it, its trace holds its words and counts). `digest`: the text's
    sha256 when the caller has it (else it is computed)."""
    meta = serving.run_meta(settings, label, sample_key, text, host, count_file, digest)
    pool = serving.pool()
    corpus: str | dict = text
    if host is not None:
        corpus = host_corpora.worker_input(host)
    elif count_file is not None:
        corpus = count_uploads.worker_input(count_file)
    return pool.request(
        key,
        tasks.train_task,
        corpus,
        serving.training_spec(settings, limits),
        dataclasses.asdict(limits),
        serving.store_spec(
            key,
            meta,
            keep_corpus=isinstance(corpus, str) and sample_key is None and serving.keeps_corpus(text),
        ),
        pool.counting_jobs,
        _engine(),
        time_limit=limits.max_seconds + EXTRA_SECONDS,
    )


def finish(job: TrainingJob) -> tuple[MergeRun | RoundRun, str | None] | str:
    """(the run a finished job made, its corpus text), or the sentence saying why there is none."""
    ended = job.job
    if ended.state == DONE:
        result = ended.result
        if result.get("stored_key"):
            loaded = serving.load_run(result["stored_key"], job.number)
            if loaded is not None:
                if job.corpus_label:  # this visitor's name for it (a reload's attached job has none)
                    loaded[0].corpus_label = job.corpus_label
                if loaded[1] is None and job.text:  # not stored, but this session holds its text
                    return serving.with_session_text(loaded[0], job.text), job.text
                return loaded
        if result.get("trace_json") is None or not (job.text or job.source):
            return "Training finished, but its result could not be read back from the run store: train again."
        from explorer.train import trace_from_json  # here: the first page view trains nothing

        trace = trace_from_json(result["trace_json"])
        digest, origin = (
            job.source if job.source is not None else (job.corpus_sha256 or corpus_digest(job.text), {})
        )
        run = make_run(
            key=RunKey(digest, job.settings),
            history=trace,
            corpus_label=job.corpus_label,
            shared_label=job.shared_label,
            characters=len(job.text),
            perceived_characters=character_count(job.text),
            sample_key=job.sample_key,
            number=job.number,
            stopped_by=result.get("stopped_by"),
            store_key=job.key,
            from_counts=job.source is not None,
            origin=origin,
        )
        if trace.stop_reason == "stopped" and result.get("stopped_by") == tasks.STOP_BUTTON:
            # Stopped by its visitor, and not stored by the worker (no store that can be written):
            # theirs alone, under a key of its own (not the shared one).
            run.store_key = serving.stopped_key(job.key, tasks.trace_steps(trace))
        # Not stored by the worker: by the server (the worker's bytes, not built again), else no link to it.
        serving.keep_run(run, job.text, result["trace_json"])
        return run, job.text
    if ended.state == CANCELLED:
        return "Training was stopped before it learned anything."
    if ended.state == CRASHED:
        return f"Training failed: {ended.error}. The server has started a new worker: train again to retry."
    return f"Training failed: {ended.error or 'unknown error'}."
