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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, cast

import streamlit as st

from explorer.compare import (
    TokenizerColumn,
    UploadedFile,
    UploadedTokenizer,
    pretrained_column,
)
from explorer.compare.columns import content_key
from explorer.compare.curve import metrics_curve
from explorer.compare.picker import hidden_at_first
from explorer.compare.upload_checks import SESSION_UPLOADS, keep_uploads
from explorer.drawing import charts
from explorer.drawing.token_html import legend_html
from explorer.pretrained import BUNDLED
from explorer.reproduce import compare_program
from explorer.runs.run import MergeRun, Run, per_run
from explorer.runs.settings import (
    ALGORITHM_LABELS,
    limits_or_defaults,
    other_algorithm,
    settings_for_other_algorithm,
)
from explorer.session import compare_params, upload_jobs
from explorer.ui.common import encode_panel, frame, state, training
from explorer.ui.common import plotly_figures as figures
from explorer.ui.compare import compare_link
from explorer.views import reproduce_views
from explorer.views import run_views as views

if TYPE_CHECKING:
    import pandas as pd

W = state.Widget


# ---------------------------------------------------------------- columns


def other_run(run: Run) -> Run | None:
    """The other algorithm on the current run's corpus: trained already, or on this button."""
    other = state.other_run(run)
    if other is not None:
        return other
    label = ALGORITHM_LABELS[other_algorithm(run.settings.algorithm)]
    if run.from_counts:
        st.caption(f"{label} is not trained beside this run: it keeps its words and counts, not its text.")
        return None
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
    """The uploader, and every tokenizer uploaded in this session (within its bound:
    explorer.compare.upload_checks.keep_uploads).

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
        remembered, notes = keep_uploads(remembered, found, limits)
        state.put(state.UPLOADED_TOKENIZERS, remembered)
        last = (digest, errors, notes)
        state.put(state.LAST_UPLOAD, last)
    if uploads and last is not None:
        for message in last[1]:
            frame.error(f"Cannot use this upload. {message}")
        for message in last[2]:
            frame.warning(message)
    if remembered:
        st.caption(
            f"Uploaded tokenizers stay for this session (the last {SESSION_UPLOADS}, at most "
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


def merge_runs(runs: Iterable[Run]) -> list[MergeRun]:
    """The runs that learned merges, in order: the Compare page's one question of a run's kind
    (the vocabulary curves and the merge overlap are a merge run's)."""
    return [run for run in runs if isinstance(run, MergeRun)]


def curve_section(runs: Sequence[Run]) -> None:
    """The trained tokenizers' metrics against vocabulary size, read from their traces (merge runs
    only: a Unigram run's vocabulary shrinks, round by round)."""
    merges = merge_runs(runs)
    unigram = [run for run in runs if run not in merges]
    if not runs:
        return
    with frame.section("As the vocabulary grows", W.SECTION_CURVE) as opened:
        if opened:
            _curves(merges, unigram)


@per_run
def _curve(run: MergeRun) -> pd.DataFrame:
    return metrics_curve(run.history, characters=run.perceived_characters)


def _curves(runs: Sequence[MergeRun], unigram: Sequence[Run]) -> None:
    if unigram:
        st.caption(
            f"Not drawn here: {', '.join(run.name for run in unigram)}. A Unigram run prunes its vocabulary "
            "round by round instead of growing it merge by merge; the figures above measure it."
        )
    if not runs:
        return

    curves = {run.name: _curve(run) for run in runs}
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


def code_section(
    shown: Sequence[TokenizerColumn],
    runs: Sequence[Run],
    uploads: Sequence[UploadedTokenizer],
    special_tokens: bool,
) -> None:
    """Reproduce these ids in Python: the program that encodes the text with each shown column
    and prints the ids (explorer.reproduce.compare_program), drawn only while the section is open."""
    with frame.section("Reproduce these ids in Python", W.SECTION_COMPARE_CODE) as opened:
        if not opened:
            return
        columns, skipped = reproduce_views.compare_columns(
            shown, runs, {upload.key: upload for upload in uploads}
        )
        text = state.get(W.SENTENCES) or compare_params.DEFAULT_TEXT
        st.caption(
            "It encodes the text in the box with each column shown, offline (the pretrained files "
            "from their pinned packages; an uploaded file from its name in the program, beside it; "
            "a run retrained with the explorer package), special-token text "
            + ("special, as the switch above says." if special_tokens else "plain, as the switch above says.")
        )
        if skipped:
            frame.info(f"Not written as code yet, so left out: {', '.join(skipped)}.")
        if columns:
            program = compare_program(text, columns, special_tokens=special_tokens)
            st.code(program, language=None, wrap_lines=True)  # as reproduce_panel.code says
