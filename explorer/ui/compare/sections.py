"""The Compare page's Streamlit glue: which tokenizers are columns, the upload, the sections and
the cached corpus measurements. The comparing itself is pure (`explorer.compare`); the picker and
the special-token switch are explorer.ui.compare.model_picker, the decode panel
explorer.ui.compare.decode_panel, the research figures below the corpus figures
explorer.ui.compare.research_figures.

A column is `explorer.compare.TokenizerColumn` (a name plus an encode function): the current run,
the other algorithm on the same corpus, earlier runs of the session, every bundled pretrained
tokenizer (explorer.pretrained.BUNDLED) and uploaded tokenizers. A run's column is
explorer.views.run_views.run_column (the Train page draws its sample sentences with it too).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

import streamlit as st

from explorer import checks
from explorer.checks import format_size, utf8_size
from explorer.compare import (
    TokenizerColumn,
    UploadedFile,
    UploadedTokenizer,
    pretrained_column,
)
from explorer.compare.columns import content_key
from explorer.compare.curve import metrics_curve
from explorer.compare.picker import hidden_at_first
from explorer.compare.upload_checks import over_session_bound
from explorer.drawing import charts
from explorer.drawing.token_html import legend_html
from explorer.drawing.wording import METRIC_DEFINITIONS
from explorer.measures.metrics import metrics_table
from explorer.pretrained import BUNDLED
from explorer.runs.run import Run
from explorer.runs.settings import (
    ALGORITHM_LABELS,
    limits_or_defaults,
    other_algorithm,
    settings_for_other_algorithm,
)
from explorer.session import upload_jobs
from explorer.ui.common import encode_panel, frame, state, tables, training
from explorer.ui.common import plotly_figures as figures
from explorer.ui.compare import compare_link, measuring, research_figures
from explorer.views import run_views as views

if TYPE_CHECKING:
    import pandas as pd

W = state.Widget

UPLOAD_LIMIT = 4  # uploaded tokenizers kept per session (a GPT-2 sized one holds ~50k merges)

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


# ---------------------------------------------------------------- columns


def other_run(run: Run) -> Run | None:
    """The other algorithm on the current run's corpus: trained already, or on this button."""
    other = state.other_run(run)
    if other is not None:
        return other
    label = ALGORITHM_LABELS[other_algorithm(run.settings.algorithm)]
    corpus_text = state.trained_corpus_text(run)
    clicked = st.button(
        f"Train the other algorithm ({label})", key=W.TRAIN_OTHER, disabled=corpus_text is None
    )
    if clicked and corpus_text is not None:  # (a disabled button is never clicked)
        other = training.train_run(
            corpus_text,
            settings_for_other_algorithm(run.settings),
            run.corpus_label,
            run.sample_key,
            run.shared_label,
        )
        if other is not None:
            state.set_other_run(other)
            st.rerun()  # redraw without the button (and with the new column ticked)
    return other


def uploaded_tokenizers() -> list[UploadedTokenizer]:
    """The uploader, and every tokenizer uploaded in this session (the last `UPLOAD_LIMIT`, and
    no more than `Limits.max_session_uploads_mb` of files: the oldest go first).

    Files are checked against the limits and read in a worker (explorer.session.upload_jobs). Files
    that cannot be used are `st.error` messages that say why; never a traceback.
    """
    limits, _ = limits_or_defaults()
    remembered: OrderedDict[str, UploadedTokenizer] = state.get(state.UPLOADED_TOKENIZERS) or OrderedDict()
    files = st.file_uploader(
        "Tokenizer files: a tokenizer.json, a WordPiece vocab.txt, a BPE vocab.json together with its "
        "merges.txt, or a SentencePiece model (tokenizer.model, spiece.model, Mistral's "
        "tokenizer.model.v3...)",
        # No type filter: the browser filters on the last extension only, which would refuse
        # Mistral's "*.model.v3"; `upload_kind` names what each file is, or says why it cannot be used.
        type=None,
        accept_multiple_files=True,
        key=W.TOKENIZER_UPLOAD,
    )
    uploads = [UploadedFile(file.name, file.getvalue()) for file in files or []]
    digest = content_key(
        "files", b"\0".join(f"{u.name}\0".encode("utf-8", "replace") + u.data for u in uploads)
    )
    last = state.get(state.LAST_UPLOAD)
    if uploads and (last is None or last[0] != digest):
        try:
            with st.spinner("Reading the uploaded files..."):
                found, errors = upload_jobs.read_in_worker(uploads, limits)
        except Exception as error:  # a reader bug must not take the page down
            found, errors = [], [f"Could not read the uploaded files: {error}"]
        compare_link.remember_uploads(found)  # a link to their columns opens them elsewhere
        for tokenizer in found:
            remembered.pop(tokenizer.key, None)
            remembered[tokenizer.key] = tokenizer
        while len(remembered) > UPLOAD_LIMIT:
            remembered.popitem(last=False)
        sizes = [sum(len(file.data) for file in tokenizer.files) for tokenizer in remembered.values()]
        notes = []
        for _ in range(over_session_bound(sizes, limits)):
            _, dropped = remembered.popitem(last=False)
            notes.append(
                f"{dropped.name} was dropped: this session's uploaded tokenizers may hold "
                f"{limits.max_session_uploads_mb:g} MB of files in all, and the newer ones fill it"
            )
        state.put(state.UPLOADED_TOKENIZERS, remembered)
        last = (digest, errors, notes)
        state.put(state.LAST_UPLOAD, last)
    if uploads and last is not None:
        for message in last[1]:
            frame.error(f"Cannot use this upload. {message}")
        for message in last[2]:
            frame.warning(f"{message}.")
    if remembered:
        st.caption(
            f"Uploaded tokenizers stay for this session (the last {UPLOAD_LIMIT}, at most "
            f"{limits.max_session_uploads_mb:g} MB of files); untick them in the list "
            "of tokenizers to hide them. A vocab.txt or vocab.json + merges.txt holds no normalizer or "
            "pre-tokenizer: each column's note says which ones were assumed."
        )
    return list(remembered.values())


def available_columns(
    run: Run, other: Run | None, uploads: Sequence[UploadedTokenizer], special_tokens: bool = False
) -> tuple[list[TokenizerColumn], set[str]]:
    """Every column the page can show (special-token text special or plain in all of them), and the
    keys of those not shown unless asked: earlier runs and the bundled tokenizers beyond GPT-2,
    GPT-4 and GPT-4o. Building a pretrained column loads nothing."""
    other_label = ALGORITHM_LABELS[other_algorithm(run.settings.algorithm)]
    columns = [views.run_column(run, "current run", special_tokens)]
    if other is not None:
        columns.append(views.run_column(other, f"{other_label} on the same corpus", special_tokens))
    earlier = [
        views.run_column(e, "earlier run", special_tokens)
        for e in state.earlier_runs()
        if e is not other and e is not run
    ]
    columns += earlier
    columns += [pretrained_column(name, special_tokens) for name in BUNDLED]
    for upload in uploads:
        try:
            columns.append(upload.column_for(special_tokens))
        except Exception as error:  # e.g. the library refuses a file it parsed before
            frame.error(f"Cannot use {upload.name}: {error}")
    return columns, hidden_at_first(columns, [column.key for column in earlier])


MEMO_CHARACTERS = 50_000  # per column: the live text at its limit (20,000) and the edits around it


def with_memo(columns: Sequence[TokenizerColumn]) -> list[TokenizerColumn]:
    """Columns whose `encode` remembers the sentences it encoded (up to MEMO_CHARACTERS of them):
    a keystroke in one line of the live box then encodes that line only, and the spans, the diff
    and the figures of one script run encode each sentence once."""
    memoized = []
    for column in columns:
        cache: dict[str, list] = {}
        held = [0]

        def encode(text: str, encode=column.encode, cache=cache, held=held) -> list:
            if text not in cache:
                if held[0] + len(text) > MEMO_CHARACTERS:
                    cache.clear()
                    held[0] = 0
                cache[text] = list(encode(text))
                held[0] += len(text)
            return cache[text]

        memoized.append(replace(column, encode=encode))
    return memoized


# ---------------------------------------------------------------- sections


def legend() -> None:
    with st.expander("How tokens are shown"):
        st.html(legend_html())


def start_corpus_figures(run: Run, columns: Sequence[TokenizerColumn]) -> None:
    """Set the workers measuring the corpus now: the page draws its other sections meanwhile
    (on a fresh server the first visit's sentence columns load the GPT vocabularies, 0.8 s)."""
    corpus_text = state.trained_corpus_text(run)
    if corpus_text is not None and columns:
        measuring.start_measurements(run, columns, corpus_text, bool(state.get(state.MEASURE_WHOLE)))


def corpus_figures(run: Run, columns: Sequence[TokenizerColumn]) -> None:
    """Every column measured on the run's training corpus in worker processes (a stated sample by
    default, the whole corpus on request), kept in the run store; redrawn once a second while
    measurements are still running."""
    corpus_text = state.trained_corpus_text(run)
    if corpus_text is None:
        st.info("The corpus of this run is no longer in the session: train again to measure on it.")
        return
    whole = bool(state.get(state.MEASURE_WHOLE))
    sample_text = measuring.sample_note(corpus_text, whole, run.perceived_characters)
    if checks.corpus_sample(corpus_text)["kind"] != "whole" and not whole:
        st.button(
            f"Measure the whole corpus ({format_size(utf8_size(corpus_text))})",
            key=W.MEASURE_WHOLE_BUTTON,
            on_click=state.put,
            args=(state.MEASURE_WHOLE, True),
            icon=":material/straighten:",
            help="Runs in a worker process; the figures below are then of every line.",
        )
    st.markdown(f"**On the training corpus**: {sample_text}")
    found, failed, pending = measuring.measurements(run, columns, corpus_text, whole)
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
        f"Corpus: {run.corpus_label}. Words are whitespace-separated; a word is split when two or more "
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


def curve_section(runs: Sequence[Run]) -> None:
    """The trained tokenizers' metrics against vocabulary size, read from their traces (merge runs
    only: a Unigram run's vocabulary shrinks, round by round)."""
    unigram = [run for run in runs if not run.trace.vocabulary_grows]
    runs = [run for run in runs if run.trace.vocabulary_grows]
    if not runs and not unigram:
        return
    with frame.section("As the vocabulary grows", W.SECTION_CURVE) as opened:
        if opened:
            _curves(runs, unigram)


def _curves(runs: Sequence[Run], unigram: Sequence[Run]) -> None:
    if unigram:
        st.caption(
            f"Not drawn here: {', '.join(run.name for run in unigram)}. A Unigram run prunes its vocabulary "
            "round by round instead of growing it merge by merge; the figures above measure it."
        )
    if not runs:
        return

    def curve(run: Run) -> pd.DataFrame:
        return run.derive("metrics_curve", lambda: metrics_curve(run.merge_history))

    curves = {run.name: curve(run) for run in runs}
    figures.plotly_chart(charts.metrics_curve_figure(curves), state.Chart.COMPARE_CURVE)
    st.caption(
        "Read from each run's training trace, about 100 points from the first to the last merge, without "
        "encoding anything again, on each run's own training corpus. Characters / token, bytes / token and "
        "tokens per word mean what they mean in the whole-corpus table (at the last merge the two agree). "
        "**pre-tokens split** is a measure of its own: the share of pre-tokens (the words as the "
        "pre-tokenizer cuts them, counted with repeats) that two or more tokens cover."
    )


def runs_shown(columns: Sequence[TokenizerColumn], runs: Sequence[Run]) -> list[Run]:
    """The runs whose columns are shown, in column order."""
    by_key = {run.column_key: run for run in runs}
    return [by_key[column.key] for column in columns if column.key in by_key]


def steps_section(columns: Sequence[TokenizerColumn], url: Callable[[], dict[str, str]]) -> None:
    """How any shown tokenizer encodes a text, step by step (those that can show their steps);
    `url`: the page's URL, which holds the text."""
    able = {column.key: column for column in columns if column.steps is not None}
    st.subheader("How a text is tokenized, step by step")
    if not able:
        st.info(
            "None of the tokenizers shown can show its steps "
            "(an upload the tokenizers library encodes cannot)."
        )
        return
    keys = list(able)
    state.keep_choice(W.STEPS_COLUMN, keys, keys[0])
    # A cast: Streamlit's selectbox types as None under python 3.10 (see explorer.ui.compare.live_columns).
    choice = cast(
        str, st.selectbox("Tokenizer", keys, format_func=lambda key: able[key].name, key=W.STEPS_COLUMN)
    )
    steps = able[choice].steps
    assert steps is not None  # `able`: the columns that show their steps
    encode_panel.show(steps, key=W.COMPARE_STEPS_TEXT, url=url)
