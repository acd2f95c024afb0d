"""The sentences the pages and the command line write, with counts 0, 1 and 2 (issue 32, item 7):
nouns agree with their count ("1 merge", never "1 merges"), a bare "0" is never a figure's whole
story ("by at most 0", "Cut-off: 0"), and a link's note names only settings the link gave."""

from __future__ import annotations

import re

import pytest

from explorer.drawing.wording import plural
from explorer.lessons import rounds
from explorer.lessons.course_lessons import LESSONS, compare
from explorer.lessons.explain import explain_vocab_size
from explorer.run_config import RunConfig, TrainerConfig
from explorer.runs.run import Run, RunKey
from explorer.runs.settings import Settings
from explorer.train import train_corpus
from explorer.ui.common.course_check import verdict
from explorer.ui.common.link import ignored_note, params_for
from tests.helpers.cli import cli

# A count and a plural noun where one thing is meant: "1 merges", "1 rounds", "1 of its results".
ONE_WITH_A_PLURAL = re.compile(
    r"(?<![\d,.])1 (?:[a-z]+ )?(?:merges|rounds|pieces|tokens|results|lines|words|characters|bytes|"
    r"pairs|runs|steps|sentences|columns|occurrences|entries|times|tokenizers)\b"
)


def bpe_trace(text: str, vocab_size: int):
    return train_corpus(text, RunConfig(TrainerConfig(vocab_size=vocab_size), (), "whitespace"))


def test_plural_agrees_with_0_1_and_2():
    assert [plural(n, "merge") for n in (0, 1, 2)] == ["0 merges", "1 merge", "2 merges"]
    assert [plural(n, "printed result") for n in (0, 1, 2)] == [
        "0 printed results",
        "1 printed result",
        "2 printed results",
    ]


@pytest.mark.parametrize(
    ("text", "vocab_size", "merges"),
    [
        ("abc abc abc", 3, 0),  # the alphabet is the size asked for
        ("abc abc abc", 4, 1),
        ("abc abc abc", 5, 2),
        ("a a", 10, 0),  # no pair to merge
        ("ab ab", 10, 1),
        ("abc abc", 10, 2),
    ],
)
def test_the_vocabulary_sentence_counts_merges_right(text, vocab_size, merges):
    trace = bpe_trace(text, vocab_size)
    assert trace.steps == merges
    sentence = explain_vocab_size(trace)
    assert not ONE_WITH_A_PLURAL.search(sentence), sentence
    if merges == 1:
        assert "1 merge" in sentence, sentence


@pytest.mark.parametrize(("text", "merges"), [("a a", 0), ("ab ab", 1), ("abc abc", 2)])
def test_the_command_lines_figures_count_merges_right(tmp_path, text, merges):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text)
    result = cli(
        "train",
        "--vocab-size",
        "10",
        "--pre-tokenizer",
        "whitespace",
        str(corpus),
        "--out",
        str(tmp_path / "t"),
    )
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert plural(merges, "merge") + ", vocab" in stderr
    assert not ONE_WITH_A_PLURAL.search(stderr), stderr


def test_the_course_verdict_with_one_and_two_printouts():
    lesson = LESSONS["course-bpe"]
    right = compare(lesson, lesson.printouts[0].printed, [], lambda text: ["This", "is", "wrong"])
    assert verdict(right[:1])[0] == "Matches the course: its printed result is equal to ours"
    assert verdict(right[1:])[0] == "Differs from the course: 0 of 1 printed result is equal to ours"
    assert verdict(right)[0] == "Differs from the course: 1 of 2 printed results are equal to ours"
    assert verdict(right[:1] * 2)[0] == "Matches the course: all 2 of its printed results are equal to ours"


def test_a_course_round_that_raises_the_loss_by_nothing_says_so():
    assert rounds.raised_by(0.0) == "not at all"
    assert rounds.raised_by(0.5) == "by at most 0.5"


def stored_run(settings: Settings) -> Run:
    return Run(RunKey("digest", settings), None, "corpus", 1, 1, store_key="k" * 12)  # type: ignore[arg-type]


def test_a_link_with_only_its_run_ignores_nothing():
    run = stored_run(Settings())
    assert ignored_note(run, {"run": run.store_key}) is None
    note = ignored_note(run, {"run": run.store_key, "algorithm": "wordpiece"})
    assert note is not None and "(algorithm=wordpiece)" in note and "no " not in note.split("(")[-1], note
    assert ignored_note(run, params_for(run.settings, None, run.store_key)) is None
