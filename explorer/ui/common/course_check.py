"""A lesson's run beside the course: the course's printed results (explorer.lessons.course_lessons)
beside ours, in a closed section whose label says whether they all match. The Train page
(explorer.ui.train.run_summary) and Merge history (explorer.ui.history.by_kind) draw it once they
know the run's kind: `show_merges` (the course prints a BPE or WordPiece run's merges) or
`show_rounds`. `lesson_of(run)` is the lesson a run reproduces, if any.

What it does not do: hold the course's settings or printed results, or compare them
(explorer.lessons.course_lessons), or train a lesson (explorer.ui.train.lesson_buttons).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from explorer.checks import Limits
from explorer.drawing.wording import plural
from explorer.lessons.course_lessons import LESSON_SAMPLE, LESSONS, Comparison, Lesson, compare, lesson_by_key
from explorer.runs.run import MergeRun, RoundRun, Run, per_run
from explorer.runs.settings import Settings, from_query_params, limits_or_defaults
from explorer.ui.common import frame, state

LESSON_BY_ALGORITHM = {lesson.params["algorithm"]: key for key, lesson in LESSONS.items()}


def lesson_settings(lesson: Lesson, limits: Limits) -> Settings:
    return from_query_params(lesson.params, limits)[0]


def lesson_of(run: Run) -> Lesson | None:
    """The lesson `run` reproduces: the course's corpus with exactly a lesson's settings."""
    if run.sample_key != LESSON_SAMPLE:
        return None
    key = LESSON_BY_ALGORITHM.get(run.settings.algorithm)
    lesson = lesson_by_key(key)
    if lesson is None or lesson_settings(lesson, limits_or_defaults()[0]) != run.settings.canonical():
        return None
    return lesson


def verdict(results: list[Comparison]) -> tuple[str, str]:
    """'Matches the course' or 'Differs from the course', with how many printouts agree, and its
    icon (a Material icon: an emoji needs a font the visitor may not have)."""
    equal = sum(result.matches for result in results)
    if equal == len(results):
        agree = "its printed result is" if equal == 1 else f"all {equal} of its printed results are"
        return f"Matches the course: {agree} equal to ours", ":material/check_circle:"
    return (
        f"Differs from the course: {equal} of {plural(len(results), 'printed result')} "
        f"{'is' if len(results) == 1 else 'are'} equal to ours",
        ":material/cancel:",
    )


def show_merges(run: MergeRun) -> None:
    """`show` for a merge run: the course prints its merges too."""
    lesson = lesson_of(run)
    if lesson is not None:
        show(lesson, merge_comparisons(run, lesson.key))


def show_rounds(run: RoundRun) -> None:
    """`show` for a Unigram run."""
    lesson = lesson_of(run)
    if lesson is not None:
        show(lesson, round_comparisons(run, lesson.key))


@per_run
def merge_comparisons(run: MergeRun, lesson_key: str) -> list[Comparison]:
    """The printouts of the lesson `lesson_key` beside this run's results (computed once per run)."""
    return compare(LESSONS[lesson_key], run.history.merge_strings(), run.history.vocab, _tokens(run))


@per_run
def round_comparisons(run: RoundRun, lesson_key: str) -> list[Comparison]:
    """The same for a Unigram run, which has no merges."""
    return compare(LESSONS[lesson_key], None, run.history.vocab, _tokens(run))


def _tokens(run: Run) -> Callable[[str], list[str]]:
    tokenizer = run.tokenizer
    return lambda text: tokenizer.encode(text, add_special_tokens=False).tokens


def show(lesson: Lesson, results: list[Comparison]) -> None:
    """For a lesson's run, a closed section whose label says whether the run matches the course,
    with each printout of the course beside our result."""
    label, icon = verdict(results)
    # Drawn only when opened (frame.section): closed, it sends no code block, so a lesson link's
    # first screen does not wait for the browser's syntax highlighter (1.5 MB of JavaScript).
    with frame.section(f"{label} ({lesson.section})", state.Widget.SECTION_COURSE_CHECK, icon=icon) as opened:
        if not opened:
            return
        st.caption(f"Quoted from {lesson.source}; ours computed from this run now, entry by entry.")
        for result in results:
            difference = result.first_difference()
            sign = "equal" if difference is None else f"differs at entry {difference + 1}"
            entries = plural(len(result.printout.printed), "entry", "entries")
            st.markdown(f"`{result.printout.code}`: **{sign}** ({entries})")
            course, ours = st.columns(2)
            course.caption("The course prints")
            course.code(repr(list(result.printout.printed)), language=None, wrap_lines=True)
            ours.caption("Our run gives")
            ours.code(repr(list(result.ours)), language=None, wrap_lines=True)
