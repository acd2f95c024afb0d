"""The RoundHistory of both flavors: what each round records, the segmentation and lattice of any
word after any round (against the reference implementations' models at that round), JSON."""

import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer.train import trace_from_json
from explorer.training.unigram import UnigramConfig, train_unigram
from explorer.training.unigram.round_history import REMOVAL_REASONS, RoundHistory
from explorer.training.word_counts import count_words
from tests.helpers.engines import built_engines, train
from tests.reference import unigram_course as course
from tests.reference import unigram_library as reference
from tests.reference.course_corpus import COURSE_CORPUS

CORPUS = "\n".join(COURSE_CORPUS)
RUNS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
corpora = st.lists(st.text(st.sampled_from("abcab d▁"), max_size=14), min_size=1, max_size=6).map("\n".join)


@pytest.fixture(scope="module", params=["library", "course"])
def trace(request):
    counts = count_words(CORPUS, (), "metaspace")
    if request.param == "course":
        return train(counts, UnigramConfig(flavor="course", vocab_size=100))
    return train(counts, UnigramConfig(vocab_size=50, special_tokens=("<s>",)))


def test_rounds_chain_their_sizes(trace):
    sizes = trace.sizes()
    for r, round_ in enumerate(trace.rounds, start=1):
        assert round_.size_before == sizes[r - 1]
        if round_.kind != "final":
            assert len(trace.pieces_at(r)) == sizes[r] == round_.size_after
            assert round_.size_after == round_.size_before - len(trace.removed_at(r))
    assert (
        trace.vocab == [piece for piece, _ in trace.pieces_at(len(trace.rounds))] or trace.flavor == "course"
    )


def test_removed_pieces_leave_for_their_reason(trace):
    removal_round: dict[str, int] = {}  # seed piece -> the first round whose removed_pieces name it
    for r, round_ in enumerate(trace.rounds, start=1):
        for index in round_.removed_pieces:
            removal_round.setdefault(trace.seeds[index], r)
    for r, round_ in enumerate(trace.rounds, start=1):
        before = {piece for piece, _ in trace.pieces_at(r - 1)}
        after = {piece for piece, _ in trace.pieces_at(r)} if round_.kind != "final" else set(trace.vocab)
        removed = trace.removed_at(r)
        for removal in removed:
            assert removal.piece in before and removal.piece not in after
            assert removal.reason in REMOVAL_REASONS
            assert removal_round[removal.piece] == r
        by_loss = [removal.value for removal in removed if removal.reason == "loss"]
        if by_loss:
            assert round_.threshold == max(by_loss)
        if round_.kind != "final":
            assert after == before - {removal.piece for removal in removed}
    if trace.flavor == "library":
        assert [round_.kind for round_ in trace.rounds][-1] == "final"
        assert all(
            len(round_.losses) == len(round_.em_sizes) for round_ in trace.rounds if round_.kind != "final"
        )


def test_the_trace_survives_a_json_round_trip(trace):
    again = trace_from_json(trace.to_json())
    assert again.to_dict() == trace.to_dict()
    for r in range(len(trace.rounds) + 1):
        assert again.pieces_at(r) == trace.pieces_at(r)
    word = trace.words[3]
    assert again.segment(word, 1) == trace.segment(word, 1)


def test_malformed_json_is_a_clear_error():
    with pytest.raises(ValueError, match="not a Unigram trace"):
        RoundHistory.from_dict({"format": "tokenizer-explorer-trace"})
    with pytest.raises(ValueError, match="not valid JSON"):
        trace_from_json("{")
    with pytest.raises(ValueError, match="malformed"):
        trace_from_json('{"format": "tokenizer-explorer-unigram-trace", "config": {}}')


def test_lattice_best_path_is_the_segmentation(trace):
    for r in range(len(trace.rounds) + 1):
        for word in trace.words[:12]:
            lattice = trace.lattice(word, r)
            assert "".join(edge.piece for edge in lattice.best_path) == word
            if all(not edge.unknown for edge in lattice.best_path):
                assert [edge.piece for edge in lattice.best_path] == trace.segment(word, r)


@RUNS
@given(text=corpora, vocab_size=st.integers(10, 30))
def test_course_segmentations_after_every_round_are_the_course_loops(text, vocab_size):
    counts = count_words(text, (), "metaspace")
    history = []
    course.train(counts, vocab_size, 300, 0.1, history)
    trace = train(counts, UnigramConfig(flavor="course", vocab_size=vocab_size))
    token_freqs = course.initial_token_freqs(counts, 300)
    for r in range(len(history) + 1):
        if r:
            for token, _ in history[r - 1][1]:
                del token_freqs[token]
        model = course.model_from(token_freqs)
        for word in counts:
            tokens, score = course.encode_word(word, model)
            assert trace.segment(word, r) == tokens
            assert -trace.lattice(word, r).best_score == score
        assert trace.segment("zz", r) == ["<unk>"]


@RUNS
@given(text=corpora, extra=st.integers(1, 20))
# Ties that only a summation order breaks: the trainer's Viterbi and the model's search each keep
# a different one of two equal-looking paths (see reference.Model.encode_optimized).
@example(text="aaaa\naaa a\nabbba", extra=1)
@example(text="b     c aaaba ", extra=2)
def test_library_segmentations_after_every_round_are_the_library_ports(text, extra):
    counts = count_words(text, (), "metaspace")
    if not counts:
        return
    vocab_size = len({char for word in counts for char in word}) + extra
    trace = train(counts, UnigramConfig(vocab_size=vocab_size, unk_token=None))
    for r in range(len(trace.rounds)):
        model = reference.Model([("<UNK>", math.nan), *trace.pieces_at(r)])
        for word in list(counts) + ["▁zab"]:
            assert trace.segment(word, r) == model.encode_optimized(word)
            # The trainer's Viterbi finds a path of the same score (up to rounding): the two can
            # differ only where two paths tie.
            viterbi_score = sum(node.score for node in model.lattice(word).viterbi())
            assert math.isclose(
                trace.lattice(word, r).best_score, viterbi_score, rel_tol=1e-12, abs_tol=1e-12
            )


@pytest.mark.parametrize("engine", built_engines())
def test_progress_is_reported_per_round_and_em_iteration(engine):
    counts = count_words(CORPUS, (), "metaspace")
    calls = []
    trace = train_unigram(
        counts,
        UnigramConfig(vocab_size=40),
        progress=lambda r, planned: calls.append((r, planned)),
        engine=engine,
    )
    em_iterations = sum(len(round_.losses) for round_ in trace.rounds)
    assert len(calls) == em_iterations + 1
    assert [r for r, _ in calls] == sorted(r for r, _ in calls)
