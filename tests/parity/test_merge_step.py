"""explorer.lessons.merge_step: the sentence that says why a pair won names the rule that really decided
(checked against the trace's own candidates and ids, and the course loop), and the course's
tables equal what the course's own loop computes at every step."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.drawing.charts import token_labels
from explorer.lessons.merge_step import candidates_at, first_occurrences, pair_table, splits_at, why_chosen
from explorer.run_config import TrainerConfig
from tests.helpers.engines import train
from tests.reference.trainers import course_reference

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
words = st.text(st.sampled_from("abcde"), min_size=1, max_size=7)
corpora = st.dictionaries(words, st.integers(1, 6), min_size=1, max_size=8)


@SETTINGS
@given(corpora, st.integers(6, 30), st.booleans())
def test_pair_table_is_the_course_loops_table_at_every_step(word_counts, vocab_size, wordpiece):
    tables = []
    course_reference(word_counts, vocab_size, wordpiece=wordpiece, pair_tables=tables)
    trace = train(
        word_counts,
        TrainerConfig(algorithm="wordpiece" if wordpiece else "bpe", flavor="course", vocab_size=vocab_size),
    )
    if len(tables) == trace.steps + 1:  # the loop counted pairs once more and found none left
        assert tables.pop() == [] and pair_table(trace, trace.steps, wordpiece) == []
    assert trace.steps == len(tables)
    for k, table in enumerate(tables):
        ours = [
            (row.left, row.right, row.count, row.left_count, row.right_count, row.score)
            for row in pair_table(trace, k, wordpiece)
        ]
        assert ours == table  # same pairs, same order (the course's dict order), same floats
        assert splits_at(trace, k)[0][0] == trace.words[0]


@SETTINGS
@given(corpora, st.integers(6, 30))
def test_library_ties_go_to_the_smallest_id_pair_and_the_sentence_says_so(word_counts, vocab_size):
    trace = train(word_counts, TrainerConfig(vocab_size=vocab_size))
    labels = token_labels(trace)
    for merge in range(1, trace.steps + 1):
        candidates = candidates_at(trace, merge)
        chosen = candidates[0]
        tied = [c for c in candidates if c.count == chosen.count]
        sentence = why_chosen(trace, merge, labels)
        if len(tied) == 1:
            assert "highest count" in sentence and "tie" not in sentence
        else:
            assert (chosen.left_id, chosen.right_id) == min((c.left_id, c.right_id) for c in tied)
            assert "The library breaks ties by the smallest pair of ids" in sentence
            assert f"({chosen.left_id}, {chosen.right_id}) wins" in sentence


@SETTINGS
@given(corpora, st.integers(6, 30), st.booleans())
def test_course_ties_go_to_the_pair_seen_first(word_counts, vocab_size, wordpiece):
    trace = train(
        word_counts,
        TrainerConfig(algorithm="wordpiece" if wordpiece else "bpe", flavor="course", vocab_size=vocab_size),
    )
    labels = token_labels(trace)
    for merge in range(1, trace.steps + 1):
        candidates = candidates_at(trace, merge)
        tied = [c for c in candidates if c.value == candidates[0].value]
        sentence = why_chosen(trace, merge, labels)
        if wordpiece:  # the formula, with its numbers
            chosen = candidates[0]
            assert f"{chosen.count:,} / ({chosen.left_count:,} × {chosen.right_count:,})" in sentence
        if len(tied) > 1:
            seen = first_occurrences(trace, merge - 1, [(c.left_id, c.right_id) for c in tied])
            assert seen[(tied[0].left_id, tied[0].right_id)] == min(seen.values())
            assert "The course keeps the first pair it meets" in sentence


def test_the_librarys_stale_count_is_named_when_it_chooses_a_pair_below_the_best():
    # Found by a random search: prefix and suffix characters inside the text make a merge rebuild
    # an existing token, and the library then keeps a stale count in its queue.
    word_counts = {"<>>bba": 3, "bb>>a>": 4, ">><b": 2, "aa": 5, "aa>>>": 2}
    trace = train(
        word_counts, TrainerConfig(vocab_size=40, continuing_subword_prefix="<", end_of_word_suffix=">")
    )
    candidates = candidates_at(trace, 3)
    assert max(c.count for c in candidates) > candidates[0].count
    sentence = why_chosen(trace, 3, token_labels(trace))
    assert "kept an out-of-date count in its queue" in sentence
