"""What the Training history page says about a course Unigram run, against the course's own code
(tests/reference/unigram_course.py): the first piece kept after each round's cut-off, and the
loss after every round (the course's compute_loss), to the last bit."""

import pytest

from explorer.lessons.rounds import course_loss, loss_series
from explorer.training.unigram import UnigramConfig, train_unigram
from explorer.training.word_counts import count_words
from tests.reference import unigram_course as course
from tests.reference.course_corpus import COURSE_CORPUS

CORPUS = "\n".join(COURSE_CORPUS)


@pytest.fixture(scope="module")
def trace():
    counts = count_words(CORPUS, (), "metaspace")
    # A vocabulary size that makes the later rounds remove pieces with non-zero loss increases.
    return train_unigram(counts, UnigramConfig(flavor="course", vocab_size=60))


def course_model(trace, r):
    """The course's model dict after round r: piece -> -log p, in model order."""
    return {piece: -score for piece, score in trace.pieces_at(r)}


def test_the_first_piece_kept_is_the_one_the_course_ranks_next(trace):
    word_freqs = dict(zip(trace.words, trace.counts))
    checked = 0
    for r in (1, len(trace.rounds) - 1, len(trace.rounds)):
        model = course_model(trace, r - 1)
        ranked = sorted(course.compute_scores(model, word_freqs).items(), key=lambda item: item[1])
        removed = len(trace.removed_at(r))
        assert [piece for piece, _ in ranked[:removed]] == [removal.piece for removal in trace.removed_at(r)]
        assert trace.first_kept_at(r) == ranked[removed]
        checked += 1
    assert checked == 3
    assert any(value > 0 for _, value in map(trace.first_kept_at, range(1, len(trace.rounds) + 1)))


def test_the_loss_after_every_round_is_the_courses_compute_loss(trace):
    word_freqs = dict(zip(trace.words, trace.counts))
    for r in range(len(trace.rounds) + 1):
        expected = course.compute_loss(course_model(trace, r), word_freqs)
        assert course_loss(trace, r) == expected
        if r < len(trace.rounds):
            assert trace.rounds[r].losses[0] == expected  # what the trainer recorded before round r + 1
        else:
            assert trace.final_loss == expected  # what the trainer recorded after the last round
    series, first_round, _ = loss_series(trace)
    assert first_round == 0
    assert [losses[0] for losses in series] == [course_loss(trace, r) for r in range(len(trace.rounds) + 1)]
