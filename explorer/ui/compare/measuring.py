"""The Compare page's figures on the training corpus: measured in worker processes of the server's
pool, never in its threads, on a bounded and stated sample by default (the whole corpus on request),
and kept in the run store beside the run (explorer.session.serving).

- The default measures `explorer.checks.corpus_sample`: a seeded random sample of the corpus's
  lines, at most `checks.SAMPLE_BYTES` of UTF-8 (the whole corpus when it is smaller). A button
  measures the whole corpus.
- A measurement's key is an HMAC (the store's `run_key`) of the corpus digest, the tokenizer's
  content, the sample and `MEASUREMENT_VERSION`: the same tokenizer measured on the same text by
  any visitor is one job and one stored result.
- `start_measurements(run, columns, corpus_text, whole)` asks the pool for what is not stored yet,
  without waiting (the page calls it before drawing anything slow); the session holds the
  handles, so a job nobody waits for any more is cancelled.
- `measurements(run, columns, corpus_text, whole)` returns what is known (stored, or finished
  since), asks for the rest and never waits: the live box's keys wait for a whole page's run to
  end, so the page's poller redraws the section once they are all in (a 1-second inline wait made
  the first keys typed on arriving by the sidebar wait for it; 20 s once lagged them 10 s).

What it does not do: define the figures (explorer.measures.metrics, and explorer.measures.audit for
the research figures each result also carries) or draw them (explorer.ui.compare.sections and
research_figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer import checks
from explorer.checks import utf8_size
from explorer.compare import TokenizerColumn
from explorer.drawing.wording import plural
from explorer.measures.metrics import TokenizerMetrics
from explorer.runs.run import Run
from explorer.runstore import canonical_json, run_key
from explorer.session import serving
from explorer.training.word_counts import split_lines
from explorer.ui.common import abandoned, state, worker_results
from explorer.work import tasks
from explorer.work.jobs import DONE, JobHandle

# In what a measurement's key describes: a new version measures again what was stored before
# (version 2 added the research figures, explorer.compare.research).
MEASUREMENT_VERSION = 2
OLDER_MEASUREMENT = "measured before the research figures existed"
MEASURE_TIME_LIMIT = 600.0


@dataclass(frozen=True)
class Measured:
    """One tokenizer measured on the corpus (or its sample)."""

    metrics: TokenizerMetrics
    seconds: float
    lines: int
    characters: int
    research: dict | None = None  # explorer.measures.audit.research_figures, or None with a reason
    research_reason: str | None = None


def measurement_key(run: Run, column: TokenizerColumn, sample: dict) -> str:
    described = {
        "measure": column.content_key or canonical_json(column.spec),
        "sample": sample,
        "version": MEASUREMENT_VERSION,
    }
    return run_key(serving.secret(), run.key.corpus_sha256, canonical_json(described))


def _measured(result: dict, name: str) -> Measured:
    """A task's result (explorer.work.tasks.measure_task) read back; one stored before the research
    figures has none, with a reason."""
    metrics = TokenizerMetrics(**{**result["metrics"], "name": name})
    research = result.get("research")
    if not isinstance(research, dict):
        research = None
    reason = result.get("research_reason") if "research" in result else OLDER_MEASUREMENT
    if research is None and not reason:
        reason = OLDER_MEASUREMENT
    return Measured(
        metrics, result["seconds"], result["lines"], result["characters"], research, reason and str(reason)
    )


def _stored(key: str, name: str) -> Measured | None:
    result = worker_results.stored(key)
    try:
        return None if result is None else _measured(result, name)
    except (KeyError, TypeError, ValueError):
        return None


def start_measurements(run: Run, columns: Sequence[TokenizerColumn], corpus_text: str, whole: bool) -> None:
    """Ask the pool for every measurement not stored yet, without waiting: called at the top of
    the page, the workers measure while the server draws the sentence sections (and loads the
    pretrained vocabularies they need); `measurements` then finds the session's jobs."""
    _request(run, columns, corpus_text, checks.corpus_sample(corpus_text, whole))


def _request(
    run: Run, columns: Sequence[TokenizerColumn], corpus_text: str, sample: dict
) -> tuple[dict[str, Measured], dict[str, str], dict[str, tuple[str, JobHandle]]]:
    """(stored results, columns that cannot be measured, the pending jobs: column key -> (key,
    handle)). The handles are kept in the session, so a second call asks for nothing new."""
    held: dict[str, JobHandle] = state.get(state.MEASURE_JOBS) or {}
    found: dict[str, Measured] = {}
    failed: dict[str, str] = {}
    pending: dict[str, tuple[str, JobHandle]] = {}
    for column in columns:
        if column.spec is None:
            failed[column.key] = "this tokenizer cannot be rebuilt in a worker"
            continue
        key = measurement_key(run, column, sample)
        stored = _stored(key, column.name)
        if stored is not None:
            found[column.key] = stored
            continue
        handle = held.get(key)
        if handle is None:
            handle = serving.pool().request(
                key, tasks.measure_task, corpus_text, column.spec, sample, time_limit=MEASURE_TIME_LIMIT
            )
            abandoned.hold(handle)
            held[key] = handle
        pending[column.key] = (key, handle)
    state.put(state.MEASURE_JOBS, held)
    return found, failed, pending


def measurements(
    run: Run, columns: Sequence[TokenizerColumn], corpus_text: str, whole: bool
) -> tuple[dict[str, Measured], dict[str, str], int]:
    """(measured by column key, failures by column key: one sentence each, how many still run);
    a finished job is stored with the run (and let go), a running one is not waited for."""
    found, failed, pending = _request(run, columns, corpus_text, checks.corpus_sample(corpus_text, whole))
    held: dict[str, JobHandle] = state.get(state.MEASURE_JOBS) or {}
    for column_key, (key, handle) in list(pending.items()):
        job = handle.job
        if not job.finished:
            continue
        del pending[column_key]
        held.pop(key, None)
        abandoned.forget(handle)
        handle.release()
        name = next(column.name for column in columns if column.key == column_key)
        if job.state == DONE:
            worker_results.store(key, job.result, "measurement")
            found[column_key] = _measured(job.result, name)
        else:
            failed[column_key] = job.error or "the measurement was stopped"
    return found, failed, len(pending)


def sample_note(corpus_text: str, whole: bool, characters: int) -> str:
    """Which text the figures are of, in words (`characters`: its user-perceived characters, as the
    Train page counts them, explorer.drawing.wording.character_count)."""
    sample = checks.corpus_sample(corpus_text, whole)
    lines = split_lines(corpus_text)
    if sample["kind"] == "whole":
        return f"the whole corpus: {plural(len(lines), 'line')}, {plural(characters, 'character')}"
    return (
        f"a random sample of the corpus's lines, up to {checks.SAMPLE_BYTES:,} bytes "
        f"(seed {checks.SAMPLE_SEED}; the same sample every time) of its {plural(len(lines), 'line')} and "
        f"{utf8_size(corpus_text):,} bytes"
    )
