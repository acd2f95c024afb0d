"""The course lessons (explorer/lessons/course_lessons.py): their quotes match the seeds, our runs of
their settings
match what the course prints, and a wrong result makes the comparison fail."""

from __future__ import annotations

import ast

import pytest

from explorer.lessons.course_lessons import LESSON_SAMPLE, LESSONS, Comparison, compare, lesson_by_key
from explorer.runs.settings import from_query_params
from explorer.samples import sample_by_key
from explorer.train import tokenizer_from_trace, train_corpus
from tests.helpers.shared_files import seed_text


def our_comparisons(lesson_key: str, corpus: str | None = None) -> list[Comparison]:
    lesson = LESSONS[lesson_key]
    settings, notes = from_query_params(lesson.params)
    assert notes == []
    trace = train_corpus(corpus or sample_by_key(LESSON_SAMPLE).text, settings.run_config())
    tokenizer = tokenizer_from_trace(trace)
    merges = None if settings.is_unigram else trace.merge_strings()
    return compare(
        lesson, merges, trace.vocab, lambda text: tokenizer.encode(text, add_special_tokens=False).tokens
    )


@pytest.mark.parametrize("lesson_key", list(LESSONS))
def test_each_lesson_trained_as_the_course_says_matches_what_the_course_prints(lesson_key):
    comparisons = our_comparisons(lesson_key)
    assert comparisons and all(comparison.matches for comparison in comparisons)
    assert all(comparison.first_difference() is None for comparison in comparisons)


def test_another_corpus_does_not_match_the_course():
    comparisons = our_comparisons("course-bpe", corpus="Ich bin ein deutscher Text. Und ich bin ein Text.")
    assert not any(comparison.matches for comparison in comparisons)


def test_a_wrong_result_fails_the_comparison_at_its_first_difference():
    lesson = LESSONS["course-bpe"]
    printed = lesson.printouts[0].printed
    swapped = [printed[1], printed[0], *printed[2:]]
    merges, tokens = compare(lesson, swapped, [], lambda text: ["This"])
    assert not merges.matches and merges.first_difference() == 0
    assert not tokens.matches and tokens.first_difference() == 1  # a prefix: the shorter length
    assert not compare(lesson, printed[:-1], [], lambda text: [])[0].matches  # one merge short


def test_the_wordpiece_quote_is_the_seeds_printed_vocabulary():
    seed = seed_text("hf-course-wordpiece.txt")
    marker = "vocab.append(new_token)\nprint(vocab)\n"
    printed = seed[seed.index(marker) + len(marker) :].split("\n", 1)[0]
    assert LESSONS["course-wordpiece"].printouts[0].printed == tuple(ast.literal_eval(printed))


def test_lessons_are_found_by_key_and_their_settings_are_the_courses():
    assert lesson_by_key("course-unigram") is LESSONS["course-unigram"]
    assert lesson_by_key("nope") is None and lesson_by_key(None) is None
    sizes = {key: from_query_params(lesson.params)[0].vocab_size for key, lesson in LESSONS.items()}
    assert sizes == {"course-bpe": 50, "course-wordpiece": 70, "course-unigram": 100}
    assert all(from_query_params(lesson.params)[0].flavor == "course" for lesson in LESSONS.values())


def test_the_pages_verdict_says_differs_when_one_printout_differs():
    from explorer.ui.common.course_check import verdict

    lesson = LESSONS["course-bpe"]
    results = compare(lesson, lesson.printouts[0].printed, [], lambda text: ["This", "is", "wrong"])
    assert verdict(results)[0] == "Differs from the course: 1 of 2 printed results are equal to ours"
    assert verdict(results[:1])[0] == "Matches the course: its printed result is equal to ours"
