"""Tokenizer metrics on small cases computed by hand."""

import math

import pytest

from explorer.measures.metrics import (
    WHITESPACE,
    EncodedTexts,
    TokenizerMetrics,
    compute_metrics,
    encoded_metrics,
    metrics_table,
)
from explorer.tokens import DROPPED, UNKNOWN, Piece
from explorer.training.word_counts import WORD


def fixed_cuts(*cuts):
    """An encoder cutting the text at the given character offsets (token id = position)."""

    def encode(text):
        bounds = [0, *cuts, len(text)]
        return [
            Piece(index, text[start:end], start, end)
            for index, (start, end) in enumerate(zip(bounds, bounds[1:]))
        ]

    return encode


def test_a_token_counts_for_every_word_it_overlaps():
    # "ab cd": tokens "ab c" and "d" -> word "ab" has 1 token, word "cd" has 2: one split word.
    assert compute_metrics("toy", ["ab cd"], fixed_cuts(4)).split_words == 1
    # One token over both words splits neither; three tokens on one word split it once.
    assert compute_metrics("toy", ["ab cd"], fixed_cuts()).split_words == 0
    assert compute_metrics("toy", ["abc"], fixed_cuts(1, 2)).split_words == 1


def test_empty_span_tokens_overlap_no_word():
    pieces = [Piece(101, "[CLS]", 0, 0), Piece(7, "ab", 0, 2)]
    metrics = compute_metrics("toy", ["ab"], lambda text: pieces)
    assert (metrics.tokens, metrics.split_words) == (2, 0)


def test_metrics_equal_a_hand_computed_example():
    # "héllo world" = 11 characters, 12 UTF-8 bytes, 2 words.
    # Cuts: "hé" | "llo" | " " | "wor" | "ld" -> 5 tokens; "héllo" and "world" both split.
    metrics = compute_metrics("toy", ["héllo world"], fixed_cuts(2, 5, 6, 9))
    assert metrics == TokenizerMetrics(
        name="toy", texts=1, tokens=5, characters=11, utf8_bytes=12,
        words=2, split_words=2, unknown_tokens=0,
    )  # fmt: skip
    assert metrics.chars_per_token == pytest.approx(11 / 5)
    assert metrics.bytes_per_token == pytest.approx(12 / 5)
    assert metrics.fertility == pytest.approx(5 / 2)
    assert metrics.split_word_share == 1.0
    assert metrics.unknown_rate == 0.0


def test_counts_add_up_over_texts():
    # "a b" -> ["a", " b"]: 2 tokens, 2 words, none split.
    # "cd"  -> ["c", "d"]: 2 tokens, 1 word, split.
    def encode(text):
        return fixed_cuts(1)(text)

    metrics = compute_metrics("toy", ["a b", "cd"], encode)
    assert (metrics.texts, metrics.tokens, metrics.words, metrics.split_words) == (2, 4, 3, 1)
    assert metrics.split_word_share == pytest.approx(1 / 3)
    assert metrics.fertility == pytest.approx(4 / 3)


def test_unknown_tokens_are_the_pieces_their_encoder_marks_unknown():
    def encode(text):
        return [
            Piece(0, "[UNK]", 0, 1, kind=UNKNOWN),
            Piece(5, "b", 1, 2),
            Piece(0, "[UNK]", 2, 3, kind=UNKNOWN),
            Piece(6, "d", 3, 4),
        ]

    metrics = compute_metrics("toy", ["abcd"], encode)
    assert metrics.unknown_tokens == 2 and metrics.lost_characters == 2
    assert metrics.unknown_rate == 0.5


def test_empty_input_gives_nan_ratios_not_errors():
    metrics = compute_metrics("toy", [""], fixed_cuts())
    assert metrics.tokens == 1  # fixed_cuts yields one empty piece for ""
    assert math.isnan(metrics.fertility)
    assert math.isnan(compute_metrics("toy", [], fixed_cuts()).chars_per_token)


def test_table_has_one_row_per_tokenizer():
    coarse = compute_metrics("coarse", ["ab cd"], fixed_cuts())
    fine = compute_metrics("fine", ["ab cd"], fixed_cuts(1, 2, 3, 4))
    table = metrics_table([coarse, fine])
    assert list(table.index) == ["coarse", "fine"]
    assert table.loc["fine", "tokens"] == 5
    assert table.loc["coarse", "characters / token"] == 5.0
    assert table.loc["fine", "words split"] == 1.0
    assert table.loc["coarse", "words split"] == 0.0


# ---------------------------------------------------------------- a corpus, from arrays


def test_whitespace_is_what_words_stop_at_in_all_of_unicode():
    assert list(WHITESPACE) == [code for code in range(0x110000) if WORD.fullmatch(chr(code)) is None]


def test_encoded_metrics_count_what_compute_metrics_counts():
    """Same figures from arrays: overlapping and empty spans, unknown tokens (one under another),
    non-ASCII whitespace, lone surrogates, empty texts, and texts repeated (`times`)."""

    def encode(text):
        pieces = fixed_cuts(*range(1, len(text), 2))(text)
        if len(text) > 3:  # an unknown token over the first two characters, one inside it
            pieces[0] = Piece(0, "[UNK]", 0, 2, kind=UNKNOWN)
            pieces.insert(1, Piece(0, "[UNK]", 1, 2, kind=UNKNOWN))
        return [Piece(9, "[CLS]", 0, 0), *pieces]

    texts = ["ab cd", "héllo\u00a0wörld", "x\u3000y z", "lone \ud800 s", "", " ", "a\x1cb", "abc def"]
    times = [1, 3, 2, 1, 4, 1, 2, 5]
    repeated = [text for text, count in zip(texts, times) for _ in range(count)]
    encoded = EncodedTexts.from_pieces([encode(text) for text in texts])
    assert encoded.unknown is not None
    assert encoded_metrics("toy", texts, encoded, times) == compute_metrics("toy", repeated, encode)
    assert encoded_metrics("toy", texts, encoded) == compute_metrics("toy", texts, encode)
    nothing = EncodedTexts.from_pieces([])
    assert encoded_metrics("toy", [], nothing) == compute_metrics("toy", [], encode)


def test_encoded_texts_hold_no_dropped_markers():
    with pytest.raises(ValueError):
        EncodedTexts.from_pieces([[Piece(-1, "P", 0, 1, b"P", DROPPED)]])


def test_split_words_are_those_two_or_more_spans_overlap_whatever_their_order():
    import random

    from explorer.measures.metrics import _split_words

    rng = random.Random(1)
    for _ in range(300):
        text = "".join(rng.choice("ab  ") for _ in range(rng.randint(1, 30)))
        words = [match.span() for match in WORD.finditer(text)]
        spans = sorted((a, rng.randint(a, len(text))) for a in (rng.randint(0, len(text)) for _ in range(12)))
        if rng.random() < 0.5:
            rng.shuffle(spans)  # overlapping, nested and empty spans, in any order
        expected = [sum(1 for s, e in spans if s < e and s < we and e > ws) >= 2 for ws, we in words]
        got = _split_words([s for s, _ in spans], [e for _, e in spans], *zip(*words) if words else ([], []))
        assert list(got) == expected, (text, spans)
