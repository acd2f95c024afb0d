"""The Train page's result panel for a finished run: its figures (merges, vocabulary, time, stop
reason, corpus; for a Unigram run its rounds, seed pieces and final loss), what its vocabulary size
and special tokens mean, and the tutorial's sample sentences tokenized by it, with the characters
it cannot represent marked and counted, and a live "Try a sentence" box (its text is not in the
link: the Train page's URL names the run, as Merge history's step-by-step text is not in its link).

What it does not do: train (explorer.ui.common.training) or compute the sentences it explains
(explorer.lessons.explain.explain_vocab_size, explorer.views.run_views.special_token_messages).
"""

from __future__ import annotations

import html
from functools import partial

import streamlit as st

from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.wording import format_seconds, plural
from explorer.lessons.explain import (
    explain_unigram_size,
    explain_vocab_size,
    initial_vocabulary_text,
    stop_reason_text,
)
from explorer.runs.run import MergeRun, RoundRun, Run
from explorer.samples import SAMPLE_SENTENCES
from explorer.tokens import lost_characters
from explorer.ui.common import course_check, frame, reproduce_panel, state
from explorer.ui.common.html_view import html_view
from explorer.ui.common.live_text import answered, live_text
from explorer.ui.train import lesson_buttons

W = state.Widget

LOST_CHARACTERS = (
    "each is shown in a dashed box, as the unknown token with the text it stands for, or as dropped. "
    "A character it never saw in the corpus has no token (byte-level BPE with the library's 256-byte "
    "alphabet never drops one)."
)


def summary(run: MergeRun | RoundRun) -> None:
    """The next step (Merge history), metric rows about a finished run, notes about it, the sample
    sentences it tokenizes, and for the course's corpus the lesson it reproduces or should."""
    st.html(f'<div class="result-title">Result of run {html.escape(run.name, quote=True)}</div>')
    if isinstance(run, MergeRun):  # the page's one question of the run's kind
        st.page_link(frame.HISTORY_SCRIPT, label="Watch the merges happen", icon=":material/movie:")
        _figures(run)
        _notes(run)
        check_course = partial(course_check.show_merges, run)
    else:
        st.page_link(frame.HISTORY_SCRIPT, label="Watch the pieces being pruned", icon=":material/movie:")
        _unigram_figures(run)
        _unigram_notes(run)
        check_course = partial(course_check.show_rounds, run)
    _sample_sentences(run)
    with frame.section("Reproduce in Python", W.SECTION_REPRODUCE) as opened:
        if opened:
            reproduce_panel.code(run)
    lesson_buttons.point_to_lesson(run)  # the course's corpus with settings that learn nothing
    check_course()  # a lesson's run: the course's printed results beside ours


def _figures(run: MergeRun) -> None:
    """Two rows of metrics: what training made, then what it was trained on."""
    trace = run.history
    row = st.columns(4)
    row[0].metric("Merges learned", f"{trace.steps:,}")
    row[1].metric("Final vocabulary size", f"{len(trace.vocab):,}")
    row[2].metric(
        "Initial vocabulary", f"{trace.initial_vocab_size:,}", help="Special tokens and the alphabet."
    )
    row[3].metric("Time taken", format_seconds(trace.seconds))
    # Which special tokens the run added, by name (typed text: kept literal).
    st.caption(f"{markdown_literal(initial_vocabulary_text(trace))}. {ENGINE_NOTES[trace.engine]}")
    _corpus_row(run)


# Which merge engine trained (explorer.training.engines), in a sentence under the figures.
ENGINE_NOTES = {
    "rust": "Merged by the compiled (Rust) engine; the Python engine records the same history.",
    "python": "Merged by the Python engine (explorer/training/bpe/), the readable reference.",
}


UNIGRAM_ENGINE_NOTES = {
    "rust": "Lattices computed by the compiled (Rust) engine; the Python engine records the same history.",
    "python": "Computed by the Python engine (explorer/training/unigram/), the readable reference.",
}


def _corpus_row(run: Run) -> None:
    """The stop reason and what the run was trained on."""
    row = st.columns([2, 1, 1, 1])
    # A sentence, not a metric: a metric cuts long text off.
    row[0].markdown(f"Stop reason: **{stop_reason_text(run.history)}**")
    counted = getattr(run.history, "corpus", None) if run.from_counts else None
    if run.from_counts:  # no text here: the counted corpus's figures
        row[1].metric(
            "Corpus characters",
            f"{counted['characters']:,}" if counted else "n/a",
            help="Code points of the corpus as it was counted, line breaks not counted (a run trained "
            "from word counts keeps no text to count user-perceived characters in).",
        )
    else:
        row[1].metric(
            "Corpus characters",
            f"{run.perceived_characters:,}",
            help="User-perceived characters (a grapheme cluster such as 👍🏽 is one), line breaks not "
            f"counted; {plural(run.characters, 'code point')}, line breaks included.",
        )
    row[2].metric("Words", f"{run.words:,}", help="Pre-tokenized words (pieces), counted with repeats.")
    row[3].metric("Distinct words", f"{run.distinct_words:,}")


def _unigram_figures(run: RoundRun) -> None:
    """What pruning made (rounds, sizes, loss, time), then what it was trained on."""
    trace = run.history
    row = st.columns(5)
    row[0].metric(
        "Rounds",
        f"{len(trace.rounds):,}",
        help="Pruning rounds (the library's last EM and final assembly included).",
    )
    row[1].metric(
        "Seed pieces",
        f"{len(trace.seeds):,}",
        help="Characters and frequent substrings training starts from.",
    )
    row[2].metric(
        "Final vocabulary size",
        f"{len(trace.vocab):,}",
        help="The pieces kept by the last round, plus the unknown token and the special tokens.",
    )
    from explorer.views import run_views  # here: the page's first view (no run yet) needs no charts

    loss = run_views.final_loss(run)
    row[3].metric(
        "Final loss",
        "—" if loss is None else f"{loss:,.4f}",
        help="Course: the model's loss, the sum over words of count × -log P(best segmentation). "
        "Library: the EM objective of its last iteration.",
    )
    row[4].metric("Time taken", format_seconds(trace.seconds))
    st.caption(UNIGRAM_ENGINE_NOTES[trace.engine])
    _corpus_row(run)


def _unigram_notes(run: RoundRun) -> None:
    """Why the vocabulary has the size it has, and a run stopped early."""
    trace = run.history
    frame.info(explain_unigram_size(trace, run.stopped_by))
    if trace.stop_reason == "stopped":
        stopped_by = run.stopped_by or "the Stop button or the time limit"
        frame.warning(
            f"Training was stopped by {stopped_by} after {plural(len(trace.rounds), 'round')}. "
            "The pieces kept so far make the vocabulary: every page shows this partial history."
        )


def _notes(run: MergeRun) -> None:
    """Why the vocabulary has the size it has, a run stopped early, what the special tokens do."""
    from explorer.views import run_views as views  # here: the page's first view (no run yet) needs no pandas

    trace = run.history
    frame.info(explain_vocab_size(trace, run.settings.vocab_size, run.stopped_by))
    if trace.stop_reason == "stopped":
        stopped_by = run.stopped_by or "the Stop button or a limit"
        frame.warning(
            f"Training was stopped by {stopped_by} after {plural(trace.steps, 'merge')}. "
            "The merges learned so far are kept: every page shows this partial history."
        )
    notes = views.special_token_messages(run)
    if notes:
        with st.expander(f"Special tokens: {plural(len(notes), 'note')}"):
            for message in notes:
                frame.info(message)


def _sample_sentences(run: Run) -> None:
    """The tutorial's sentences with this tokenizer, and how many characters it cannot represent."""
    from explorer.compare.html import column_html  # here: the page's first view needs no comparing
    from explorer.views.run_views import run_column

    st.subheader("The tutorial's sample sentences with this tokenizer")
    column = run_column(run, "this run")
    sentences = list(SAMPLE_SENTENCES)
    body, _ = column_html(column, sentences, show_ids=state.show_ids())
    st.html(body)
    lost = sum(lost_characters(column.encode(sentence)) for sentence in sentences)
    if lost:
        lost_text = plural(lost, "character")
        frame.warning(f"This tokenizer cannot represent {lost_text} of these sentences: {LOST_CHARACTERS}")
    else:
        st.caption("Every character of these sentences is represented by some token.")
    _try_a_sentence(run)


TRY_CHARACTERS = 2_000  # what the "Try a sentence" box takes


@st.fragment
def _try_a_sentence(run: Run) -> None:
    """A live box: any text with this run's tokenizer, redrawn as it is typed (the fragment alone
    reruns)."""
    _tried_sentence(run)
    answered(W.TRY_TEXT)


def _tried_sentence(run: Run) -> None:
    from explorer.compare.columns import sentences_from
    from explorer.compare.html import column_html
    from explorer.views.run_views import run_column

    text = live_text(
        "Try a sentence",
        W.TRY_TEXT,
        state.get(W.TRY_TEXT) or "",
        rows=1,
        live_characters=TRY_CHARACTERS,
        max_characters=TRY_CHARACTERS,
        show_count=False,
    )
    text = text[:TRY_CHARACTERS]
    state.put(W.TRY_TEXT, text)
    sentences = sentences_from(text)
    if not sentences:
        st.caption("Type any text: its tokens follow as you type.")
        return
    body, total = column_html(run_column(run, "this run"), sentences, show_ids=state.show_ids())
    html_view(f'<div class="column-count">Tokens<b>{total:,}</b></div>{body}', "train-try")
