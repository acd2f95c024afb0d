"""The course in one click (issue 18): each lesson link and each "Reproduce the course" button opens
the lesson's run trained, on Merge history / Training history at step 1, with a "matches the course"
check computed from the course's printed results; the URL it ends with reproduces what is shown;
the course's corpus trained with settings that learn nothing points to the lesson."""

from __future__ import annotations

import pytest

from explorer.lessons.course_lessons import LESSON_SAMPLE, LESSONS
from explorer.runs.settings import from_query_params
from explorer.ui.common.state import STEP
from explorer.ui.common.state import Widget as W
from tests.app.helpers import MERGES, new_app, player, query, run_of, session_value, train

TITLES = {
    "course-bpe": "Merge history",
    "course-wordpiece": "Merge history",
    "course-unigram": "Training history",
}


def course_verdicts(at) -> list[str]:
    return [e.label for e in at.expander if "the course" in e.label and "printed result" in e.label]


def assert_lesson_opened_at_step_1(at, lesson_key: str) -> None:
    assert not at.exception
    run = run_of(at)
    assert run is not None and run.sample_key == LESSON_SAMPLE
    assert run.settings == from_query_params(LESSONS[lesson_key].params)[0]
    assert at.title[0].value == TITLES[lesson_key]
    assert player(at)["step"] == 1 and session_value(at, STEP) == 1
    verdicts = course_verdicts(at)
    assert len(verdicts) == 1 and verdicts[0].startswith("Matches the course: ")
    link = query(at)
    assert "lesson" not in link and link["run"] == run.store_key and link["step"] == "1"


@pytest.mark.parametrize("lesson_key", list(LESSONS))
def test_a_lesson_link_opens_trained_at_step_1_matching_the_course(lesson_key):
    at = new_app({"lesson": lesson_key})
    assert_lesson_opened_at_step_1(at, lesson_key)
    # The URL it ends with reproduces it in a fresh browser.
    again = new_app(query(at), MERGES)
    assert run_of(again).store_key == run_of(at).store_key and player(again)["step"] == 1


def test_a_lesson_link_to_merge_history_opens_there_at_step_1():
    at = new_app({"lesson": "course-wordpiece"}, MERGES)
    assert_lesson_opened_at_step_1(at, "course-wordpiece")


def test_a_reproduce_button_trains_the_lesson_sets_the_form_and_opens_step_1():
    at = new_app()
    at.button(key=f"{W.LESSON_PREFIX}course-unigram").click().run()
    assert_lesson_opened_at_step_1(at, "course-unigram")
    at.switch_page("app.py").run()  # back on Train: the form says what trained the run
    assert at.radio(key=W.ALGORITHM).value == "unigram" and at.radio(key=W.FLAVOR).value == "course"
    assert (
        at.number_input(key=W.VOCAB_NUMBER).value == 100 and at.selectbox(key=W.SAMPLE).value == "hf-course"
    )
    assert query(at)["run"] == run_of(at).store_key
    assert len(course_verdicts(at)) == 1


def test_the_course_sample_that_learns_nothing_points_to_the_lesson():
    at = new_app({"sample": "hf-course", "vocab_size": "50"})
    at = train(at)
    assert run_of(at).history.steps == 0
    links = [element for element in at.get("page_link") if "Reproduce the course: BPE" in str(element.proto)]
    assert len(links) == 1 and "lesson=course-bpe" in str(links[0].proto)
    assert not course_verdicts(at)  # not the lesson's run: no comparison
