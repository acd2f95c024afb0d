"""A training asked for, by the Train page or the command line: one sequence of checks, then the
run's configuration, so that both refuse the same inputs with the same sentences.

- `request_training(text, asked, limits)`: the corpus's check (`check_corpus`), the vocabulary
  size's, the special tokens' (as typed, empty entries kept), a Unigram run's own rules, then the
  `RunConfig` (a setting it refuses is one more error). Errors block, warnings and notes inform
  (`TrainingRequest.check`); `config` is None when something blocks.
- `asked_settings(settings, limits)`, `settings_check(settings, limits)`: the Train page's
  `Settings` as asked for, and their check.
- The page's side, once a request is clear: `training_key` (the run's key), then the session's
  cache, the store (explorer.session.serving.load_run) or a worker of the pool (`submit`), whose
  finished job `finish` turns into a `Run`. The command line trains in its own process.

What it does not do: hold a session's job or draw its progress (explorer.ui.common.training), or
train (explorer.work.tasks.train_task in a worker; explorer.train for the command line).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from explorer.checks import Check, InputError, Limits, check_corpus
from explorer.drawing.wording import character_count, plural
from explorer.run_config import RunConfig
from explorer.runs.run import Run, RunKey, corpus_digest
from explorer.runs.settings import ALGORITHM_LABELS, Settings
from explorer.session import serving
from explorer.training import engines
from explorer.training.settings_checks import check_special_tokens, check_unigram, check_vocab_size
from explorer.work import tasks
from explorer.work.jobs import CANCELLED, CRASHED, DONE, QUEUED, JobHandle

EXTRA_SECONDS = 60.0  # the pool's hard limit on a job: the time budget plus this


@dataclass(frozen=True)
class AskedSettings:
    """Settings as asked for, before the checks: the vocabulary size, the special tokens as typed
    (empty entries and repeats kept), the pre-tokenizer, how to make the RunConfig, and for a
    Unigram run what `check_unigram` looks at (flavor, seed size, unk token)."""

    vocab_size: int
    special_tokens: tuple[str, ...]
    pre_tokenizer: str
    make_config: Callable[[], RunConfig]
    unigram: tuple[str, int | None, str] | None = None


@dataclass(frozen=True)
class TrainingRequest:
    """The checks' verdict on a corpus and its settings, and the run's configuration when nothing
    blocks it."""

    check: Check
    config: RunConfig | None

    @property
    def errors(self) -> tuple[str, ...]:
        return self.check.errors


def check_settings(asked: AskedSettings, limits: Limits) -> tuple[Check, RunConfig | None]:
    """What blocks training with these settings (vocabulary size, special tokens, the trainer's own
    rules), what deserves a warning, notes about the special tokens, and the RunConfig they make
    when nothing blocks."""
    errors: list[str] = []
    try:
        check_vocab_size(asked.vocab_size, limits)
    except InputError as error:
        errors.append(str(error))
    tokens = check_special_tokens(asked.special_tokens, asked.pre_tokenizer)
    errors.extend(tokens.errors)
    warnings = list(tokens.warnings)
    if asked.unigram is not None:
        flavor, seed_size, unk_token = asked.unigram
        rules = check_unigram(flavor, asked.vocab_size, seed_size, unk_token)
        errors.extend(rules.errors)
        warnings.extend(rules.warnings)
    config = None
    if not errors:
        try:
            config = asked.make_config()
        except ValueError as error:
            errors.append(f"Cannot train with these settings: {error}")
    return Check(tuple(errors), tuple(warnings), tokens.notes), config


def request_training(
    text: str, asked: AskedSettings, limits: Limits, corpus_check: Check | None = None
) -> TrainingRequest:
    """The corpus checked (or its `corpus_check`, when the caller has it), then the settings
    (`check_settings`): every error of both, the corpus's first."""
    corpus = corpus_check if corpus_check is not None else check_corpus(text, limits)
    settings, config = check_settings(asked, limits)
    check = Check(
        corpus.errors + settings.errors, corpus.warnings + settings.warnings, corpus.notes + settings.notes
    )
    return TrainingRequest(check, None if check.errors else config)


def asked_settings(settings: Settings, limits: Limits) -> AskedSettings:
    """The Train page's `Settings` as asked for."""
    unigram = (settings.flavor, settings.seed_size, settings.unk_token) if settings.is_unigram else None
    return AskedSettings(
        settings.vocab_size,
        settings.special_token_entries(),
        settings.pre_tokenizer,
        lambda: settings.run_config(limits),
        unigram,
    )


def settings_check(settings: Settings, limits: Limits) -> Check:
    """`check_settings` for the Train page's `Settings` (its form shows the verdict as it is edited)."""
    return check_settings(asked_settings(settings, limits), limits)[0]


# ---------------------------------------------------------------- the page's job in a worker


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
    key: str, text: str, settings: Settings, sample_key: str | None, limits: Limits, label: str
) -> JobHandle:
    """Ask the pool for the run `key` names (a new job, or the one another visitor started), stored
    by the worker under `key` with `label`."""
    meta = serving.run_meta(settings, label, sample_key, text)
    pool = serving.pool()
    return pool.request(
        key,
        tasks.train_task,
        text,
        serving.training_spec(settings, limits),
        dataclasses.asdict(limits),
        serving.store_spec(key, meta, keep_corpus=sample_key is None),
        pool.counting_jobs,
        _engine(),
        time_limit=limits.max_seconds + EXTRA_SECONDS,
    )


def finish(job: TrainingJob) -> tuple[Run, str] | str:
    """(the run a finished job made, its corpus text), or the sentence saying why there is none."""
    ended = job.job
    if ended.state == DONE:
        result = ended.result
        if result.get("stored_key"):
            loaded = serving.load_run(result["stored_key"], job.number)
            if loaded is not None:
                if job.corpus_label:  # this visitor's name for it (a reload's attached job has none)
                    loaded[0].corpus_label = job.corpus_label
                return loaded
        if result.get("trace_json") is None or not job.text:
            return "Training finished, but its result could not be read back from the run store: train again."
        from explorer.train import trace_from_json  # here: the first page view trains nothing

        trace = trace_from_json(result["trace_json"])
        run = Run(
            key=RunKey(corpus_digest(job.text), job.settings),
            history=trace,
            corpus_label=job.corpus_label,
            shared_label=job.shared_label,
            characters=len(job.text),
            perceived_characters=character_count(job.text),
            sample_key=job.sample_key,
            number=job.number,
            stopped_by=result.get("stopped_by"),
            store_key=job.key,
        )
        if trace.stop_reason == "stopped" and result.get("stopped_by") == tasks.STOP_BUTTON:
            # Stopped by its visitor, and not stored by the worker (no store that can be written):
            # theirs alone, under a key of its own (not the shared one).
            run.store_key = serving.stopped_key(job.key, tasks.trace_steps(trace))
            serving.save_run(run, job.text)
        return run, job.text
    if ended.state == CANCELLED:
        return "Training was stopped before it learned anything."
    if ended.state == CRASHED:
        return f"Training failed: {ended.error}. The server has started a new worker: train again to retry."
    return f"Training failed: {ended.error or 'unknown error'}."
