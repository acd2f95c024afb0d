"""The Compare page's figures on the training corpus: measured in worker processes of the server's
pool, never in its threads, on a bounded and stated sample by default (the whole corpus on a
button), kept in the run store beside the run, and drawn as a table, bars and research figures.

- `start_corpus_figures(run, columns)` asks the pool for what is not stored yet, without waiting
  (the page calls it before drawing anything slow); the session holds the handles, so a job nobody
  waits for any more is cancelled.
- A run trained from word counts has no running text: the section says so and measures a sample
  picked instead (explorer.ui.common.stand_in), keyed apart (`stand_in_sample`).
- `metrics_section(run, columns)` draws what is known (stored, or finished since), asks for the
  rest and never waits: the live box's keys wait for a whole page's run to end, so a poller
  redraws the section once they are all in (a 1-second inline wait made the first keys typed on
  arriving by the sidebar wait for it; 20 s once lagged them 10 s).

What it does not do: key or read back a measurement (explorer.session.measurements), define the
figures (explorer.measures.metrics) or draw the research table (explorer.ui.compare.research_figures).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer import checks
from explorer.checks import format_size, utf8_size
from explorer.compare import TokenizerColumn
from explorer.drawing import charts
from explorer.drawing.wording import METRIC_DEFINITIONS, character_count
from explorer.measures.metrics import metrics_table
from explorer.runs.run import Run
from explorer.samples import SAMPLES
from explorer.session import serving
from explorer.session.measurements import MEASURE_TIME_LIMIT, Measured, measured, measurement_key, sample_note
from explorer.ui.common import abandoned, frame, stand_in, state, tables, worker_results
from explorer.ui.common import plotly_figures as figures
from explorer.ui.compare import research_figures
from explorer.views.stand_in_text import stand_in_sample
from explorer.work import tasks
from explorer.work.jobs import DONE, JobHandle

W = state.Widget

METRIC_FORMATS = {
    "_index": st.column_config.TextColumn("tokenizer", width="medium"),
    "tokens": st.column_config.NumberColumn(format="%d", help=METRIC_DEFINITIONS["tokens"]),
    "characters / token": st.column_config.NumberColumn(
        format="%.2f", help=METRIC_DEFINITIONS["characters / token"]
    ),
    "bytes / token": st.column_config.NumberColumn(format="%.2f", help=METRIC_DEFINITIONS["bytes / token"]),
    "tokens per word": st.column_config.NumberColumn(
        format="%.2f", help=METRIC_DEFINITIONS["tokens per word"]
    ),
    "words split": st.column_config.NumberColumn(format="percent", help=METRIC_DEFINITIONS["words split"]),
    "unknown tokens": st.column_config.NumberColumn(
        format="percent", help=METRIC_DEFINITIONS["unknown tokens"]
    ),
    "characters lost": st.column_config.NumberColumn(format="%d", help=METRIC_DEFINITIONS["characters lost"]),
    "seconds": st.column_config.NumberColumn("time (s)", format="%.2f"),
}


def _stored(key: str, name: str) -> Measured | None:
    result = worker_results.stored(key)
    try:
        return None if result is None else measured(result, name)
    except (KeyError, TypeError, ValueError):
        return None


def start_measurements(run: Run, columns: Sequence[TokenizerColumn], corpus_text: str, whole: bool) -> None:
    """Ask the pool for every measurement not stored yet, without waiting: called at the top of
    the page, the workers measure while the server draws the sentence sections (and loads the
    pretrained vocabularies they need); `measurements` then finds the session's jobs."""
    _request(run, columns, corpus_text, _sample(run, corpus_text, whole))


def _sample(run: Run, corpus_text: str, whole: bool) -> dict:
    """What of `corpus_text` is measured; a stand-in text's is keyed apart from a training corpus's."""
    sample = checks.corpus_sample(corpus_text, whole)
    return stand_in_sample(sample, corpus_text) if run.from_counts else sample


def _measured_text(run: Run) -> tuple[str, str] | None:
    """(the text measured, its name): the run's training corpus, or for a run without running text
    the sample picked instead (widget `MEASURE_STAND_IN`); None when the session no longer holds
    the corpus."""
    if run.from_counts:
        sample = SAMPLES[state.get(W.MEASURE_STAND_IN) or stand_in.DEFAULT]
        return sample.text, sample.label
    corpus_text = state.trained_corpus_text(run)
    return None if corpus_text is None else (corpus_text, run.corpus_label)


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
    found, failed, pending = _request(run, columns, corpus_text, _sample(run, corpus_text, whole))
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
            found[column_key] = measured(job.result, name)
        else:
            failed[column_key] = job.error or "the measurement was stopped"
    return found, failed, len(pending)


def start_corpus_figures(run: Run, columns: Sequence[TokenizerColumn]) -> None:
    """Set the workers measuring the corpus now: the page draws its other sections meanwhile
    (on a fresh server the first visit's sentence columns load the GPT vocabularies, 0.8 s)."""
    measured_text = _measured_text(run)
    if measured_text is not None and columns:
        start_measurements(run, columns, measured_text[0], bool(state.get(state.MEASURE_WHOLE)))


def corpus_figures(run: Run, columns: Sequence[TokenizerColumn]) -> None:
    """Every column measured on the run's training corpus in worker processes (a stated sample by
    default, the whole corpus on request), kept in the run store; redrawn once a second while
    measurements are still running."""
    if run.from_counts:
        stand_in.stand_in("measure", W.MEASURE_STAND_IN)
    measured_text = _measured_text(run)
    if measured_text is None:
        st.info("The corpus of this run is no longer in the session: train again to measure on it.")
        return
    corpus_text, corpus_label = measured_text
    whole = bool(state.get(state.MEASURE_WHOLE))
    characters = character_count(corpus_text) if run.from_counts else run.perceived_characters
    sample_text = sample_note(corpus_text, whole, characters)
    if checks.corpus_sample(corpus_text)["kind"] != "whole" and not whole:
        st.button(
            f"Measure the whole corpus ({format_size(utf8_size(corpus_text))})",
            key=W.MEASURE_WHOLE_BUTTON,
            on_click=state.put,
            args=(state.MEASURE_WHOLE, True),
            icon=":material/straighten:",
            help="Runs in a worker process; the figures below are then of every line.",
        )
    st.markdown(f"**On {'the sample text' if run.from_counts else 'the training corpus'}**: {sample_text}")
    found, failed, pending = measurements(run, columns, corpus_text, whole)
    for key, problem in failed.items():
        name = next(column.name for column in columns if column.key == key)
        frame.error(f"Could not measure {name} on the corpus: {problem}")
    if pending:
        _measuring_poller(pending)
    measured = [found[column.key] for column in columns if column.key in found]
    if not measured:
        return
    table = metrics_table(entry.metrics for entry in measured)
    table["seconds"] = [entry.seconds for entry in measured]
    tables.table(table, METRIC_FORMATS, hide_index=False)
    frame.note(
        f"Corpus: {corpus_label}. Words are whitespace-separated; a word is split when two or more "
        "tokens overlap it. Measured in the server's worker processes: our tokenizers through their "
        "exported tokenizer.json by the tokenizers library (by our own encoder when they may drop "
        "characters, so that each lost character is counted), the GPT ones by tiktoken. Time: how long "
        "each tokenizer took to encode and measure this text the first time; results are kept with the run."
    )
    with frame.section("The figures as bars", W.SECTION_FIGURES_CHART) as opened:
        if opened:
            figures.plotly_chart(charts.metrics_bar_chart(table), state.Chart.COMPARE_BARS)
    research_figures.research_section(measured)


@st.fragment(run_every=1.0)
def _measuring_poller(pending: int) -> None:
    """While measurements run in workers: a line, and a rerun of the page once they are all in."""
    jobs = state.get(state.MEASURE_JOBS) or {}
    if not any(not handle.job.finished for handle in jobs.values()):
        st.rerun(scope="app")
    st.caption(f"Still measuring {pending} tokenizer{'s' if pending != 1 else ''} in a worker …")


def metrics_section(run: Run, columns: Sequence[TokenizerColumn]) -> None:
    """The training corpus's metrics table and its bar chart (the text's figures are live:
    explorer.ui.compare.live_columns)."""
    st.subheader("Figures")
    st.caption(
        "A word is a run of non-white-space characters. "
        + " · ".join(
            f"**{name}**: {definition}" for name, definition in METRIC_DEFINITIONS.items() if name != "tokens"
        )
    )
    corpus_figures(run, columns)
