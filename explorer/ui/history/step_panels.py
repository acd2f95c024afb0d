"""Every panel of the Merge history page at step k (drawn by the player's fragment on each tick):
first, as one element (explorer.views.merge_views.step_panels_html, so that they always show the
same step), why merge k's pair won, the competition it won (table and bars), the words and the
sample sentences after k merges; then, in closed sections a learner opens, the count and compression
curves, how a token was built, the course's own tables for course-sized corpora, and how a text
is tokenized step by step.

Merge k is the last one applied at step k; at step 0 the panels show the competition for merge 1,
the next one. Everything is read from the run's trace (explorer.lessons.merge_step,
explorer.views.run_views,
explorer.drawing.charts); nothing here trains or encodes beyond the sample sentences.
"""

from __future__ import annotations

from typing import cast

import streamlit as st

from explorer.drawing import charts
from explorer.drawing.wording import plural
from explorer.lessons.encode_steps import encode_steps
from explorer.lessons.merge_step import MergeStep, is_course_sized, stop_sentence
from explorer.runs.run import MergeRun
from explorer.ui.common import encode_panel, state, tables
from explorer.ui.common import plotly_figures as figures
from explorer.ui.common.frame import section
from explorer.views import merge_views, reproduce_views
from explorer.views import run_views as views

W = state.Widget
FOLLOW_STEP = -1  # the merge tree's choice "the token made at this step"


def show(run: MergeRun, step: MergeStep, sentences: list[str]) -> None:
    """Everything below the step line at `step` (explorer.ui.history.player draws the step and what
    merge k did, from the same MergeStep)."""
    trace, k = step.history, step.k
    st.html(merge_views.step_panels_html(run, step, sentences, show_ids=state.show_ids()))
    if step.is_last:
        st.caption(stop_sentence(trace))

    # The rest in sections a learner opens (stable labels and keys: a section stays open as the
    # step moves; every section draws step k, the one value this fragment run has).
    with section("Counts and compression charts", W.SECTION_CHARTS) as opened:
        if opened:
            timeline, compression = st.columns(2)
            with timeline:
                log_scale = st.toggle(
                    "Log scale", key=W.LOG_SCALE, help="Counts (and scores) on a logarithmic axis."
                )
                figures.plotly_chart(
                    charts.merge_timeline(trace, k, log_scale=log_scale), state.Chart.TIMELINE
                )
            figures.plotly_chart(charts.compression_curve(trace, k), state.Chart.COMPRESSION, compression)

    with section("How a token was built", W.SECTION_TREE) as opened:
        if opened:
            merge_tree(run, step)

    if is_course_sized(trace):
        course_tables(step)

    with section("How a text is tokenized, step by step", W.SECTION_STEPS) as opened:
        if opened:
            st.subheader(f"How a text is tokenized, step by step, after {plural(k, 'merge')}")
            st.caption(
                "The run's tokenizer as it was at this step (only the first k merges): each pre-token starts "
                "as characters (bytes for byte-level) and takes the merge of lowest rank present, again and "
                "again; WordPiece takes the longest piece it knows, then the longest ## continuation."
            )
            tokenizer = run.tokenizer_at(k)
            encode_panel.show(
                lambda text: encode_steps(tokenizer, text, name=f"{run.name}, after {plural(k, 'merge')}"),
                key=W.STEPS_TEXT,
            )

    with section("Reproduce this merge in Python", W.SECTION_STEP_CODE) as opened:
        if opened:
            step_code(run, step)


CANDIDATE_COLUMNS = {  # the course's pair table (a data grid: hundreds of rows)
    column: (
        st.column_config.NumberColumn(column, format="%.4g" if column == "score" else "%d", help=help_text)
        if column.startswith(("count", "score"))
        else st.column_config.TextColumn(
            column, width="small" if column in ("rank", "chosen") else None, help=help_text
        )
    )
    for column, help_text in merge_views.CANDIDATE_HELP.items()
}


def course_tables(step: MergeStep) -> None:
    """The course's printouts at step k: `splits` after k merges, and every pair the step's merge
    was chosen from, with its frequency (or score), in the course's dict order."""
    k, merge = step.k, step.merge
    scored = charts.uses_scores(step.history)
    with section("As the course prints it: every word's split and every pair", W.SECTION_COURSE) as opened:
        if not opened:
            return
        splits, pairs = st.columns([1, 1], gap="medium")
        with splits:
            st.markdown(f"**`splits` after {plural(k, 'merge')}** (with `word_freqs`)")
            tables.table(merge_views.splits_frame(step), height=320)
        with pairs:
            function = "compute_pair_scores" if scored else "compute_pair_freqs"
            st.markdown(
                f"**Every pair merge {merge:,} was chosen from** (`{function}()` on the splits before it; "
                "the chosen one first, then the course's dict order)"
            )
            table = merge_views.pair_table_frame(step)
            # The winner first, so it is in view without scrolling a table of hundreds of pairs.
            table = table.sort_values("chosen", ascending=False, kind="stable", ignore_index=True)
            chosen_row = table["chosen"] == "✓"
            styled = table.style.apply(
                lambda column: ["background-color:#ffd6a5" if hit else "" for hit in chosen_row]
            )
            tables.table(styled, CANDIDATE_COLUMNS, height=320)


def merge_tree(run: MergeRun, step: MergeStep) -> None:
    """How a token was built, down to characters: the token merge k made, unless another is picked."""
    names = views.labels(run)
    merged = run.merged_token_ids
    # A cast: under python_version 3.10, typing.Never (3.11+) is Any to mypy, so Streamlit's
    # overload for empty options (`Sequence[Never]`, returns None) matches every list.
    choice = cast(
        int,
        st.selectbox(
            "Token",
            [FOLLOW_STEP, *merged],
            format_func=lambda token_id: (
                "the token made at this step"
                if token_id == FOLLOW_STEP
                else f"{names[token_id]}   (id {token_id})"
            ),
            key=W.TREE_TOKEN,
            help="Follows the player's step; type to search among the tokens made by merges.",
        ),
    )
    token_id = step.made if choice == FOLLOW_STEP else choice
    if token_id is None:
        st.caption("No token has been made yet at step 0: step forward, or pick a token.")
        return
    tree = step.history.merge_tree(token_id)
    left, right = st.columns([2, 3])
    left.html(merge_views.merge_tree_html(tree, names, step.k))
    figures.plotly_chart(charts.merge_tree_figure(tree, names), state.Chart.MERGE_TREE, right)


def step_code(run: MergeRun, step: MergeStep) -> None:
    """The program that prints the step's merge (its pair, count and the candidates) from the run's
    trace, with the trace to download beside it."""
    if step.history.steps == 0:
        st.caption("This run made no merge.")
        return
    trace_name = reproduce_views.trace_file_name(run)
    st.caption(
        f"It prints merge {step.merge:,} as this page shows it, from the run's trace: save the trace "
        f"as `{trace_name}` beside the program (the same file as the Vocabulary page's Trace download)."
    )
    st.code(reproduce_views.step_program(run, step.merge), language=None, wrap_lines=True)
    st.download_button(
        "Trace (JSON)",
        run.trace_json,
        trace_name,
        "application/json",
        key=W.STEP_CODE_TRACE,
        icon=":material/download:",
    )
