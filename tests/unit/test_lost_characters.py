"""Nothing disappears silently: a character that a tokenizer drops or maps to the unknown token is a
marked piece in every display and is counted by the figures.

A BPE model without an unk token drops each character it has no symbol for (the course's BPE on
its own four sentences has no "A" or "P"); the library's offsets do not count a dropped character,
so `Tokenizer.encode_exactly` keeps its own exact offsets and names the dropped spans. These tests
compare it with the library-exact `encode` and with an independent model of what survives.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as LibraryTokenizer

from explorer.compare import tokenizer_column
from explorer.compare.diff import boundary_diff
from explorer.compare.encoders import library_batch_encoder, library_pieces, library_unknown_id
from explorer.compare.html import column_html, count_note
from explorer.drawing.token_html import escape_text, token_spans_html
from explorer.measures.metrics import compute_metrics
from explorer.pipeline.bytelevel import BYTE_TO_UNICODE
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.samples import HF_COURSE
from explorer.tokens import DROPPED, UNKNOWN, Piece, lost_characters, tokens_only
from explorer.train import encode_pieces, tokenizer_from_trace, train_corpus
from explorer.training.unigram import UnigramConfig

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@pytest.fixture(scope="module")
def course_bpe():
    """The course's BPE on its sample at vocab 50: no symbol for "A" or "P", and no unk token."""
    return tokenizer_from_trace(
        train_corpus(
            HF_COURSE.text, RunConfig(TrainerConfig(flavor="course", vocab_size=50), (), "byte-level")
        )
    )


@pytest.fixture(scope="module")
def course_wordpiece():
    config = TrainerConfig(algorithm="wordpiece", flavor="course", vocab_size=70, special_tokens=("[UNK]",))
    return tokenizer_from_trace(train_corpus(HF_COURSE.text, RunConfig(config, (), "bert")))


def test_the_course_bpe_drops_a_and_p_and_says_so(course_bpe):
    text = "A mouse called Petar"
    pieces = encode_pieces(course_bpe, text)
    dropped = [(piece.value, piece.start) for piece in pieces if piece.kind == DROPPED]
    assert dropped == [("A", 0), ("P", 15)]
    # Every token keeps its own character: "e" right after the dropped "P" is at 16, not 15.
    tokens = tokens_only(pieces)
    assert all(text[piece.start : piece.end] == piece.value.replace("Ġ", " ") for piece in tokens)
    assert [piece.start for piece in tokens][-4:] == [16, 17, 18, 19]
    html = token_spans_html(text, pieces)
    assert html.count('class="tok tok-dropped"') == 2 and "dropped: A" in html and "dropped: P" in html
    assert count_note(pieces) == "16 tokens · 2 characters lost (unknown or dropped)"


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_exact_encoding_has_the_librarys_tokens_and_keeps_every_byte_it_can(course_bpe, text):
    library_like = course_bpe.encode(text, add_special_tokens=False)
    exact, dropped = course_bpe.encode_exactly(text)
    assert exact.ids == library_like.ids and exact.tokens == library_like.tokens
    if not dropped:
        assert exact.offsets == library_like.offsets
    # Independently: the tokens' bytes are the text's bytes without those the vocabulary lacks.
    vocab = course_bpe.model.vocab
    kept = bytes(byte for byte in text.encode("utf-8") if BYTE_TO_UNICODE[byte] in vocab)
    assert b"".join(piece.token_bytes for piece in tokens_only(encode_pieces(course_bpe, text))) == kept
    # Every character is under a token or a dropped span, and a dropped one is one we lack.
    covered = set()
    for start, end in exact.offsets + dropped:
        covered.update(range(start, end))
    assert covered == set(range(len(text)))
    for start, end in dropped:
        assert any(BYTE_TO_UNICODE[byte] not in vocab for byte in text[start:end].encode("utf-8"))


def test_a_token_merged_across_a_dropped_character_still_names_it():
    from explorer.pipeline.models import BPEModel

    model = BPEModel({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
    tokens, dropped = model.tokenize_exactly("axb")
    assert [(token.value, token.start, token.end) for token in tokens] == [("ab", 0, 3)]
    assert dropped == [1]
    tokens.clear(), dropped.clear()  # the caller's own lists: the cached answer is unchanged
    assert model.tokenize_exactly("axb") == ([Piece(2, "ab", 0, 3)], [1])
    library_like = model.tokenize("axb")
    assert [(token.value, token.start, token.end) for token in library_like] == [("ab", 0, 2)]


def test_unknown_tokens_show_the_text_they_stand_for(course_wordpiece):
    text = "This is 서울"
    pieces = encode_pieces(course_wordpiece, text)
    unknown = [piece for piece in pieces if piece.kind == UNKNOWN]
    assert [(piece.value, text[piece.start : piece.end]) for piece in unknown] == [("[UNK]", "서울")]
    html = token_spans_html(text, pieces)
    assert (
        escape_text("[UNK]") + '<span class="tok-unk-source"> ← 서울</span>' in html and "tok tok-unk" in html
    )
    assert lost_characters(pieces) == 2


def test_figures_count_lost_characters_and_never_count_a_drop_as_a_token(course_bpe, course_wordpiece):
    sentences = ["A mouse called Petar", "This is 서울"]
    bpe = compute_metrics("bpe", sentences, lambda text: encode_pieces(course_bpe, text))
    assert bpe.lost_characters == 2 + 2  # A, P; 서울 is dropped byte by byte (no symbol for them)
    assert bpe.tokens == sum(len(tokens_only(encode_pieces(course_bpe, s))) for s in sentences)
    wordpiece = compute_metrics("wp", sentences, lambda text: encode_pieces(course_wordpiece, text))
    # "A", "mouse" ("m" only ever continues a word in the corpus), "Petar" and "서울" are unknown.
    assert wordpiece.unknown_tokens == 4 and wordpiece.lost_characters == 1 + 5 + 5 + 2


def test_a_tokenizer_that_may_drop_is_measured_by_our_encoder(course_bpe):
    column = tokenizer_column(course_bpe, "course bpe")
    assert course_bpe.may_drop_characters() and column.encode_batch is None
    body, total = column_html(column, ["A mouse called Petar"])
    assert total == 16 and "dropped: P" in body and "2 characters lost" in body
    library_bpe = tokenizer_from_trace(
        train_corpus(HF_COURSE.text, RunConfig(TrainerConfig(vocab_size=300), (), "byte-level"))
    )
    assert (
        not library_bpe.may_drop_characters() and tokenizer_column(library_bpe, "x").encode_batch is not None
    )


def test_boundary_diff_marks_the_dropped_characters(course_bpe):
    text = "A mouse"
    ours = encode_pieces(course_bpe, text)
    plain = [piece for piece in ours if piece.kind != DROPPED]
    segments = boundary_diff(text, ours, plain)
    first = segments[0]
    assert (first.text, first.a_dropped, first.b_dropped, first.a_tokens) == ("A", True, False, ())


@pytest.fixture(scope="module")
def library_unigram():
    """The library-flavor Unigram on the course's sample: no piece for "A" (its unk piece <unk>)."""
    config = UnigramConfig(vocab_size=60)
    return tokenizer_from_trace(train_corpus(HF_COURSE.text, RunConfig(config, (), "metaspace")))


def unknown_and_source(text, pieces):
    return [(piece.value, text[piece.start : piece.end]) for piece in pieces if piece.kind == UNKNOWN]


def test_a_unigram_unknown_token_shows_its_name_not_its_text(library_unigram):
    # The library's Unigram spells an unknown token as the text it stands for ("A"), the page
    # must name it: "<unk> ← A", as WordPiece's "[UNK] ← 서울".
    text = "Ab b"
    library = LibraryTokenizer.from_str(tokenizer_to_json(library_unigram))
    assert library.encode(text, add_special_tokens=False).tokens[1] == "A"  # what the library gives
    ours = encode_pieces(library_unigram, text)
    assert unknown_and_source(text, ours) == [("<unk>", "A")]
    unknown_id = library_unknown_id(json.loads(tokenizer_to_json(library_unigram)), library)
    through_library = library_pieces(library, False, unknown_id, text)
    assert unknown_and_source(text, through_library) == [("<unk>", "A")]
    batch = library_batch_encoder(tokenizer_to_json(library_unigram))([text])
    assert [text[start:end] for start, end in batch.unknown_spans(0)] == ["A"]
    for pieces in (ours, through_library):
        html = token_spans_html(text, pieces)
        assert escape_text("<unk>") + '<span class="tok-unk-source"> ← A</span>' in html
        assert "tok-group" not in html  # the ▁ Metaspace put before "A" shares no character with it
