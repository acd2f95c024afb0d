"""Counting a corpus's words fast gives exactly the line-by-line definition: the same words, the
same counts, in the same order of first appearance.

- in chunks cut at line breaks (`word_counts.line_chunks`), each chunk matched with its own fastest
  pattern form (ASCII, the `regex` module's classes, or the corrected ones), with chunks made tiny
  here so that every text is cut many times;
- in parallel worker processes (`count_words(..., jobs=2)`), chunks counted apart and merged in order;
- by the compiled engine (engine/src/words.rs, through tests/helpers/engines.py `count`), in parts
  down to one byte on two threads.

The reference is every line's pieces as `split` gives them (the path that keeps alignments), and
`words()` (the fast path, composed through a Sequence for the byte-level split patterns) is checked
against `split` for every pre-tokenizer.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.pre_tokenizers import PRE_TOKENIZERS, Split, build_pre_tokenizer
from explorer.training import word_counts
from explorer.training.word_counts import (
    COMPILED_PRE_TOKENIZERS,
    WORD,
    count_corpus,
    count_text,
    count_words,
    line_chunks,
    split_lines,
)
from tests.helpers.engines import count

# ASCII (the letters of the contractions s t re ve m ll d among them), white space and line
# breaks, Latin, CJK, emoji, a combining mark, the metaspace mark, and U+0558 (one of the
# characters on which the regex module's Unicode and the library's differ).
ALPHABET = "ab Z9_'.dtmlrevs\n\n\r\t  éßÅ中文字😀\u0301▁\u0558"
texts = st.text(alphabet=ALPHABET, max_size=200)


def line_by_line(pre_tokenizer: str, text: str) -> list[tuple[str, int]]:
    """The definition: every line's pre-tokens as `split` gives them (with alignments), counted."""
    pre = build_pre_tokenizer(pre_tokenizer)
    counts: Counter[str] = Counter()
    for line in text.replace("\r\n", "\n").split("\n"):
        counts.update(piece.text for piece in pre.split(Normalized.unchanged(line)) if piece.text)
    return list(counts.items())


@pytest.mark.parametrize("pre_tokenizer", sorted(PRE_TOKENIZERS))
@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_words_are_the_texts_of_the_split_pieces(pre_tokenizer, text):
    pre = build_pre_tokenizer(pre_tokenizer)
    assert pre.words(text) == [piece.text for piece in pre.split(Normalized.unchanged(text))]


@pytest.mark.parametrize("pre_tokenizer", sorted(PRE_TOKENIZERS))
@settings(max_examples=150, deadline=None)
@given(text=texts, chunk=st.integers(min_value=1, max_value=12))
def test_counting_in_chunks_is_the_line_by_line_definition(pre_tokenizer, text, chunk):
    chunks = line_chunks(text.replace("\r\n", "\n"), chunk)
    counted = build_pre_tokenizer(pre_tokenizer).count_line_words(chunks)
    assert list(counted.items()) == line_by_line(pre_tokenizer, text)


@settings(max_examples=150, deadline=None)
@given(text=texts, chunk=st.integers(min_value=1, max_value=12))
def test_a_split_leaving_text_between_matches_counts_it_too(text, chunk):
    split = Split(r"[a9]+|(\s)")  # text between matches, and a group
    expected = Counter(
        piece.text for line in text.split("\n") for piece in split.split(Normalized.unchanged(line))
    )
    assert list(split.count_line_words(line_chunks(text, chunk)).items()) == list(expected.items())


def test_line_chunks_cut_only_after_line_breaks_and_join_to_the_text():
    text = "one\ntwo words\n\nthree\nfour"
    for size in range(1, len(text) + 2):
        chunks = list(line_chunks(text, size))
        assert "".join(chunks) == text
        assert all(chunk.endswith("\n") for chunk in chunks[:-1])


@pytest.mark.parametrize("pre_tokenizer", ["byte-level", "bert", "metaspace"])
@pytest.mark.parametrize("normalizers", [(), ("nfkc", "lowercase")])
def test_counting_in_worker_processes_gives_the_same_counts_in_the_same_order(
    pre_tokenizer, normalizers, monkeypatch
):
    monkeypatch.setattr(word_counts, "PARALLEL_CHARACTERS", 1_000)  # in parallel from 1,000 characters
    lines = [f"line {i} 中文 Été {'x' * (i % 7)} {i % 13} ▁mark\u0558" for i in range(3_000)]
    text = "\r\n".join(lines) + "\n\nlast"
    serial = count_words(text, normalizers, pre_tokenizer, jobs=1)
    parallel, figures = count_corpus(text, normalizers, pre_tokenizer, jobs=2)
    assert list(parallel.items()) == list(serial.items())
    assert len(serial) > 100
    assert figures == count_text(text)


@settings(max_examples=300, deadline=None)
@given(text=texts, chunk=st.integers(min_value=1, max_value=12))
def test_the_corpus_figures_counted_in_chunks_are_the_per_line_definition(text, chunk):
    saved = word_counts.CHUNK_CHARACTERS
    word_counts.CHUNK_CHARACTERS = chunk
    try:
        figures = count_text(text)
    finally:
        word_counts.CHUNK_CHARACTERS = saved
    lines = split_lines(text)
    assert figures == {
        "lines": len(lines),
        "characters": sum(map(len, lines)),
        "utf8_bytes": sum(len(line.encode("utf-8", errors="surrogatepass")) for line in lines),
        "words": sum(len(WORD.findall(line)) for line in lines),
    }


@pytest.mark.parametrize("pre_tokenizer", COMPILED_PRE_TOKENIZERS)
@settings(max_examples=300, deadline=None)
@given(text=texts | st.text(max_size=40))
@example(text="\r\r\n")  # one line, "\r": Python's figures once replaced "\r\n" twice (found by this test)
def test_both_engines_count_the_line_by_line_definition(pre_tokenizer, text):
    counted, figures = count(text, (), pre_tokenizer)
    assert list(counted.items()) == line_by_line(pre_tokenizer, text)
    assert figures == count_text(text)


def test_a_lone_surrogate_is_counted_by_python_on_either_engine():
    text = "ok \ud800 ok"  # not UTF-8: the compiled counter hands it back to Python
    assert count(text, (), "whitespace-split")[0] == {"ok": 2, "\ud800": 1}
