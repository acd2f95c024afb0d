"""The course in one click, on the pages: the Train page's "Reproduce the course" buttons and its
`?lesson=` link (the course's corpus and settings set in the form, trained while the script run
waits, then Merge history / Training history at step 1), the course's printed results beside ours
with a "matches the course" check computed from them, and a pointer to the lesson when the course's
corpus was trained with settings that learn nothing.

A lesson link opened on another page is trained by explorer.ui.common.link (`read` turns `lesson=` into
its settings and sample), which also starts the player at step 1; every page then writes its
ordinary URL (run=..., step=1), so the link the visitor copies reproduces what is shown.

What it does not do: hold the course's settings or printed results (explorer.lessons.course_lessons), or
compare
them (explorer.lessons.course_lessons.compare).
"""

from __future__ import annotations

import streamlit as st

from explorer.checks import Limits
from explorer.drawing.wording import plural
from explorer.lessons.course_lessons import LESSON_SAMPLE, LESSONS, Comparison, Lesson, compare, lesson_by_key
from explorer.runs.run import Run
from explorer.runs.settings import Settings, from_query_params, limits_or_defaults
from explorer.samples import SAMPLES
from explorer.training.history_kinds import as_merge_history
from explorer.ui.common import frame, link, state, training
from explorer.ui.train import settings_form

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


def comparisons(run: Run, lesson: Lesson) -> list[Comparison]:
    """The lesson's printouts beside this run's results (computed once per run)."""

    def build() -> list[Comparison]:
        from explorer.views import (
            run_views as views,  # here: the Train page's first view imports no charts (numpy)
        )

        trace = run.history
        tokenizer = views.tokenizer(run)
        merges = None if trace.config.is_unigram else as_merge_history(run.history).merge_strings()
        return compare(
            lesson, merges, trace.vocab, lambda text: tokenizer.encode(text, add_special_tokens=False).tokens
        )

    return run.derive(f"lesson_{lesson.key}", build)


# ---------------------------------------------------------------- reproducing a lesson


def reproduce(lesson: Lesson, limits: Limits) -> None:
    """Train the lesson (waiting, with a progress bar), set the form to it, start the player at step
    1 and switch to Merge history; a training error stays on this page."""
    sample = SAMPLES[LESSON_SAMPLE]
    run = training.train_run(sample.text, lesson_settings(lesson, limits), sample.label, sample.key)
    if run is None:
        return
    state.set_current_run(run, sample.text)
    settings_form.load_run(run, limits)
    state.start_player_at(1)
    st.switch_page(frame.HISTORY_SCRIPT)


def follow_link(limits: Limits) -> None:
    """The Train page's `?lesson=` (a shared link, or a pointer from another page): reproduced."""
    lesson = lesson_by_key(st.query_params.get(link.LESSON_PARAM))
    if lesson is not None and training.current_job() is None:
        reproduce(lesson, limits)


def reproduce_buttons(limits: Limits) -> None:
    """ "Reproduce the course in one click:" and a row of buttons BPE / WordPiece / Unigram (short
    labels: three columns at 800 px leave each about 170 px)."""
    busy = training.current_job() is not None
    clicked = None
    st.markdown("**Reproduce the course** in one click (its corpus and settings, trained, then its history):")
    for column, lesson in zip(st.columns(len(LESSONS)), LESSONS.values()):
        settings = lesson_settings(lesson, limits)
        if column.button(
            lesson.label,
            key=f"{state.Widget.LESSON_PREFIX}{lesson.key}",
            icon=":material/school:",
            disabled=busy,
            width="stretch",
            help=f"The Hugging Face course, {lesson.section}: its four sentences, {settings.short_name()}, "
            "trained at once, then its history at step 1 with the course's printed results beside ours.",
        ):
            clicked = lesson
    if clicked is not None:
        reproduce(clicked, limits)


# ---------------------------------------------------------------- the course beside our run


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


def course_check(run: Run) -> None:
    """For a lesson's run, a closed section whose label says whether the run matches the course,
    with each printout of the course beside our result."""
    lesson = lesson_of(run)
    if lesson is None:
        return
    results = comparisons(run, lesson)
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


def point_to_lesson(run: Run) -> None:
    """The course's corpus trained with settings that learn nothing: say which lesson trains it as
    the course does, with a link that reproduces it."""
    learned = run.history.steps
    if run.sample_key != LESSON_SAMPLE or learned or lesson_of(run) is not None:
        return
    lesson = lesson_by_key(LESSON_BY_ALGORITHM.get(run.settings.algorithm))
    if lesson is None:
        return
    settings = lesson_settings(lesson, limits_or_defaults()[0])
    st.info(
        f"This is the course's corpus, and with these settings it learns nothing. The course trains it "
        f"with its own flavor and a vocabulary of {settings.vocab_size:,} ({settings.short_name()})."
    )
    st.page_link(
        "app.py",
        label=f"Reproduce the course: {lesson.label}",
        icon=":material/school:",
        query_params={link.LESSON_PARAM: lesson.key},
    )
