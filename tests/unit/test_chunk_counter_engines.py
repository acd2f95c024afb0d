"""`ChunkCounter` on both engines, on random texts cut into random chunks at line breaks: the same
words, order, counts and figures on each, equal to `count_corpus` of the whole text for the reading
"lines", and to the obvious loop of each reading (tests/reference/readings.py). The compiled
counter is also driven directly with parts of 1 and 7 bytes on two threads, so that short texts
are cut at every line and their parts added in order.

What it does not check: the readings against the `tokenizers` library (tests/parity/
test_readings.py).
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.training import engines
from explorer.training.word_counts import COMPILED_PRE_TOKENIZERS, FIGURES, count_corpus
from tests.helpers.engines import built_engines
from tests.reference import readings

# Line breaks of every kind (only "\n" ends a line), white space before them, letters that make
# contractions, Latin, CJK, emoji, a combining mark, the metaspace mark, U+0558.
ALPHABET = "ab Z9_'.dtms\n\n\n\r\r\t \x0b\x0c\x1c\x85\u2028éß中文😀\u0301▁\u0558"
texts = st.text(alphabet=ALPHABET, max_size=120)
PRE_TOKENIZERS = [*COMPILED_PRE_TOKENIZERS, "metaspace", "byte-level-cl100k"]
NORMALIZERS = [(), ("nfkc", "lowercase")]


@st.composite
def chunked(draw, text_strategy=texts):
    """A text and its chunks, cut after some of its "\\n"s."""
    text = draw(text_strategy)
    breaks = [index + 1 for index, char in enumerate(text) if char == "\n"]
    cuts = sorted(draw(st.sets(st.sampled_from(breaks)))) if breaks else []
    bounds = [0, *cuts, len(text)]
    return text, [text[start:end] for start, end in zip(bounds, bounds[1:]) if end > start]


def counted_by_each_engine(counting: Counting, feed) -> dict:
    """`ChunkCounter(counting)` fed by `feed(counter)` on every built engine, checked equal; one result."""
    results = []
    for engine in built_engines():
        counter = ChunkCounter(counting, engine=engine)
        feed(counter)
        results.append(counter.result())
    for other in results[1:]:
        assert list(other.words.items()) == list(results[0].words.items()), (
            "the engines count different words"
        )
        assert other.figures == results[0].figures, "the engines count different figures"
    return results[0]


@pytest.mark.parametrize("normalizers", NORMALIZERS)
@pytest.mark.parametrize("pre_tokenizer", PRE_TOKENIZERS)
@pytest.mark.parametrize("reading", ["lines", "lines-with-endings"])
@settings(max_examples=30, deadline=None)
@given(case=chunked())
@example(case=("a  \nb\r\n\r\r\nc \x0bd\u2028", ["a  \n", "b\r\n", "\r\r\n", "c \x0bd\u2028"]))
def test_text_in_chunks_on_both_engines_is_the_reading_s_loop(reading, pre_tokenizer, normalizers, case):
    text, chunks = case

    def feed(counter):
        for chunk in chunks:
            counter.add_text(chunk)

    result = counted_by_each_engine(Counting(normalizers, pre_tokenizer, reading), feed)
    assert list(result.words.items()) == list(
        readings.counted(text, normalizers, pre_tokenizer, reading).items()
    )
    assert result.figures == readings.figures(text)
    if reading == "lines":
        words, figures = count_corpus(text, normalizers, pre_tokenizer)
        assert list(result.words.items()) == list(words.items())
        assert result.figures == figures


@pytest.mark.parametrize("pre_tokenizer", PRE_TOKENIZERS)
@settings(max_examples=30, deadline=None)
@given(records=st.lists(texts, max_size=6), batch=st.integers(1, 4))
def test_records_in_batches_on_both_engines_are_the_reading_s_loop(pre_tokenizer, records, batch):
    def feed(counter):
        for start in range(0, len(records), batch):
            counter.add_records(records[start : start + batch])

    result = counted_by_each_engine(Counting((), pre_tokenizer, "records"), feed)
    assert list(result.words.items()) == list(readings.counted(records, (), pre_tokenizer, "records").items())
    assert result.figures == readings.figures(records)


@pytest.mark.skipif(engines.compiled() is None, reason="the compiled engine is not built")
@pytest.mark.parametrize("pre_tokenizer", COMPILED_PRE_TOKENIZERS)
@pytest.mark.parametrize("reading", ["lines", "lines-with-endings", "records"])
@settings(max_examples=30, deadline=None)
@given(case=chunked())
def test_the_compiled_counter_in_parts_of_a_few_bytes_on_two_threads(reading, pre_tokenizer, case):
    text, chunks = case
    module = engines.compiled()
    for part_size in (1, 7):
        counter = module.WordCounter(pre_tokenizer, reading, 2)
        for chunk in chunks:
            if reading == "records":
                assert counter.add_records(chunk.split("\n"), part_size=part_size)
            else:
                assert counter.add_text(chunk, part_size=part_size)
        words, counts, figures = counter.take()
        corpus = (
            [record for chunk in chunks for record in chunk.split("\n")] if reading == "records" else text
        )
        expected = readings.counted(corpus, (), pre_tokenizer, reading)
        assert list(zip(words, array("q", counts))) == list(expected.items())
        assert dict(zip(FIGURES, figures)) == readings.figures(corpus)


@pytest.mark.parametrize("reading", ["lines", "lines-with-endings"])
def test_a_chunk_with_a_lone_surrogate_is_counted_by_python_in_its_place(reading):
    chunks = ["b a\n", "a \ud800 c\n", "c d\n"]  # not UTF-8: the compiled counter hands it back

    def feed(counter):
        for chunk in chunks:
            counter.add_text(chunk)

    result = counted_by_each_engine(Counting((), "whitespace-split", reading), feed)
    assert list(result.words.items()) == [("b", 1), ("a", 2), ("\ud800", 1), ("c", 2), ("d", 1)]


def test_result_hands_the_counts_over_and_starts_again():
    counter = ChunkCounter(Counting(reading="lines-with-endings"))
    counter.add_text("a\n")
    assert counter.result().words == {"a": 1, "Ċ": 1}
    counter.add_text("b")
    result = counter.result()
    assert (result.words, result.figures["lines"]) == ({"b": 1}, 1)
