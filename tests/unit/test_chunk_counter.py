"""`ChunkCounter` (explorer/corpora/counter.py): a corpus counted chunk by chunk gives the words,
order, counts and figures of counting it whole, for each reading.

What it does not check: the readings against the `tokenizers` library (tests/parity/
test_readings.py) or the engines against each other on random texts (tests/unit/
test_chunk_counter_engines.py).
"""

from __future__ import annotations

import pytest

from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.training.word_counts import count_corpus, count_text, line_chunks

TEXT = "The cat sat.\r\n\n  trailing  \nlone\rreturn é中文😀\n\x0bvertical tab\u2028here\nno final break"


def counted(reading: str, chunks: list[str], pre_tokenizer: str = "byte-level", engine: str = "python"):
    counter = ChunkCounter(Counting((), pre_tokenizer, reading), engine=engine)
    for chunk in chunks:
        if reading == "records":
            counter.add_records([chunk])
        else:
            counter.add_text(chunk)
    return counter.result()


@pytest.mark.parametrize("size", [1, 5, 1000])
@pytest.mark.parametrize("pre_tokenizer", ["byte-level", "bert", "metaspace"])
def test_lines_in_chunks_are_count_corpus_of_the_whole_text(size, pre_tokenizer):
    result = counted("lines", list(line_chunks(TEXT, size)), pre_tokenizer)
    words, figures = count_corpus(TEXT, (), pre_tokenizer, engine="python")
    assert list(result.words.items()) == list(words.items())
    assert result.figures == figures


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_lines_with_endings_in_chunks_are_the_whole_text(size):
    whole = counted("lines-with-endings", [TEXT])
    result = counted("lines-with-endings", list(line_chunks(TEXT, size)))
    assert list(result.words.items()) == list(whole.words.items())
    assert result.figures == whole.figures == count_text(TEXT)


def test_lines_with_endings_keep_the_ending_in_the_sequence_and_cut_only_at_line_feeds():
    # "  \n" ends its sequence: GPT-2's `\s+(?!\S)` takes the spaces and the break together.
    result = counted("lines-with-endings", ["a  \nb\x0bc\r\n"])
    assert list(result.words) == ["a", "ĠĠĊ", "b", "\u010b", "c", "čĊ"]


def test_a_record_is_one_sequence_with_its_line_breaks_inside():
    result = counted("records", ["a  \nb"])
    assert list(result.words) == ["a", "ĠĠ", "Ċ", "b"]
    assert result.figures == count_text("a  \nb")


def test_a_chunk_without_a_final_break_ends_its_input():
    assert list(counted("lines-with-endings", ["a b", "c"]).words) == ["a", "Ġb", "c"]


def test_normalizers_apply_to_each_sequence_with_its_ending():
    counter = ChunkCounter(Counting(("lowercase",), "whitespace-split", "lines-with-endings"))
    counter.add_text("A B\nb a\n")
    assert counter.result().words == {"a": 2, "b": 2}


def test_the_wrong_kind_of_input_for_the_reading_is_one_sentence():
    with pytest.raises(ValueError, match="takes records"):
        ChunkCounter(Counting(reading="records")).add_text("a\n")
    with pytest.raises(ValueError, match="takes text"):
        ChunkCounter(Counting(reading="lines")).add_records(["a"])
