"""The course in one click, on the pages: the Train page's "Reproduce the course" buttons and its
`?lesson=` link (the course's corpus and settings set in the form, trained while the script run
waits, then Merge history / Training history at step 1), a pointer to the lesson when the course's
corpus was trained with settings that learn nothing (the course's printed results beside ours are
explorer.ui.common.course_check's, which the Train and Merge history pages draw after dispatching
on the run's kind).

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
from explorer.lessons.course_lessons import LESSON_SAMPLE, LESSONS, Lesson, lesson_by_key
from explorer.runs.run import Run
from explorer.runs.settings import limits_or_defaults
from explorer.samples import SAMPLES
from explorer.ui.common import frame, link, state, training
from explorer.ui.common.course_check import LESSON_BY_ALGORITHM, lesson_of, lesson_settings
from explorer.ui.train import settings_form

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
