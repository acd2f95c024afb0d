"""explorer.pipeline.models against the `tokenizers` library's own models, token for token."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import trainers as hf_trainers

from explorer.pipeline.models import BPEModel, WordPieceModel, model_from_hf_json
from explorer.tokens import Piece

FUZZ = settings(max_examples=250, deadline=None)


def as_triples(tokens, word: str = "") -> list[tuple[int, str, tuple[int, int]]]:
    """Ours (Piece) and the library's (tokenizers.Token) in one comparable shape.

    A library model called directly gives byte offsets into `word`; its Tokenizer turns them
    into the characters holding those bytes, as ours do from the start.
    """
    char_of_byte = [index for index, char in enumerate(word) for _ in char.encode("utf-8")]
    return [
        (t.id, t.value, (t.start, t.end))
        if isinstance(t, Piece)
        else (t.id, t.value, (char_of_byte[t.offsets[0]], char_of_byte[t.offsets[1] - 1] + 1))
        for t in tokens
    ]


def library_json(model) -> dict:
    return json.loads(HFTokenizer(model).to_str())["model"]


# ---------------------------------------------------------------- BPE merge order

LETTERS = {c: i for i, c in enumerate("abcd")} | {"ab": 4, "bc": 5, "cd": 6, "abcd": 7, "aa": 8}


@pytest.mark.parametrize(
    "merges, word, expected",
    [
        ([("b", "c"), ("a", "b"), ("c", "d"), ("ab", "cd")], "abcd", ["a", "bc", "d"]),
        ([("c", "d"), ("a", "b"), ("b", "c"), ("ab", "cd")], "abcd", ["abcd"]),
        ([("a", "a")], "aaaaa", ["aa", "aa", "a"]),
    ],
)
def test_merges_apply_in_rank_order_like_the_library(merges, word, expected):
    ours = BPEModel(LETTERS, merges).tokenize(word)
    assert [t.value for t in ours] == expected
    assert as_triples(ours) == as_triples(hf_models.BPE(LETTERS, merges).tokenize(word), word)


def test_duplicate_pair_keeps_its_later_rank():
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}
    merges = [("a", "b"), ("b", "c"), ("a", "b")]
    model = BPEModel(vocab, merges)
    # (a, b) now ranks after (b, c): "abc" -> a bc, not ab c.
    assert [t.value for t in model.tokenize("abc")] == ["a", "bc"]
    library = hf_models.BPE(vocab, merges)
    assert as_triples(model.tokenize("abc")) == as_triples(library.tokenize("abc"), "abc")
    assert model.to_hf_json()["merges"] == library_json(library)["merges"] == [["b", "c"], ["a", "b"]]


def test_different_pairs_with_the_same_result():
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}
    for merges in (
        [("b", "c"), ("a", "b"), ("ab", "c"), ("a", "bc")],
        [("a", "bc"), ("a", "b"), ("b", "c"), ("ab", "c")],
    ):
        for word in ("abc", "abcabc", "aabcc"):
            assert as_triples(BPEModel(vocab, merges).tokenize(word)) == as_triples(
                hf_models.BPE(vocab, merges).tokenize(word), word
            )


def test_long_word_is_not_quadratic():
    vocab = {"a": 0, "b": 1, "aa": 2, "ab": 3, "aaaa": 4, "abab": 5}
    merges = [("a", "a"), ("a", "b"), ("aa", "aa"), ("ab", "ab")]
    word = ("aab" * 40_000)[:100_000]
    ours = BPEModel(vocab, merges).tokenize(word)
    assert as_triples(ours) == as_triples(hf_models.BPE(vocab, merges).tokenize(word), word)


def test_cache_returns_equal_fresh_lists():
    model = BPEModel(LETTERS, [("a", "b")])
    first = model.tokenize("abab")
    first.clear()
    assert [t.value for t in model.tokenize("abab")] == ["ab", "ab"]


# ---------------------------------------------------------------- BPE unknown characters, prefix, suffix

UNK_VOCAB = {
    "[UNK]": 0,
    "a": 1,
    "b": 2,
    "ab": 3,
    "##a": 4,
    "##b": 5,
    "a</w>": 6,
    "##b</w>": 7,
    "b</w>": 8,
    "##a</w>": 9,
}


@pytest.mark.parametrize("unk_token", [None, "[UNK]"])
@pytest.mark.parametrize("fuse_unk", [False, True])
@FUZZ
@given(word=st.text(alphabet="abxé😀", max_size=12))
def test_unknown_characters_tokenize_like_the_library(unk_token, fuse_unk, word):
    vocab, merges = {"[UNK]": 0, "a": 1, "b": 2, "ab": 3}, [("a", "b")]
    ours = BPEModel(vocab, merges, unk_token=unk_token, fuse_unk=fuse_unk).tokenize(word)
    library = hf_models.BPE(vocab, merges, unk_token=unk_token, fuse_unk=fuse_unk).tokenize(word)
    assert as_triples(ours) == as_triples(library, word)


@pytest.fixture(scope="module")
def decorated_bpe():
    """A BpeTrainer run with prefix and suffix: realistic decorated vocab and merges."""
    corpus = ["the theme thesis then the other brother bathes", "ab aab abab ba bab aba"] * 3
    tokenizer = HFTokenizer(hf_models.BPE(unk_token="[UNK]"))
    trainer = hf_trainers.BpeTrainer(
        vocab_size=80,
        special_tokens=["[UNK]"],
        continuing_subword_prefix="##",
        end_of_word_suffix="</w>",
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer)
    model = json.loads(tokenizer.to_str())["model"]
    return model["vocab"], [tuple(m) for m in model["merges"]]


@pytest.mark.parametrize("unk_token, fuse_unk", [(None, False), ("[UNK]", False), ("[UNK]", True)])
@FUZZ
@given(word=st.text(alphabet="thesiorbaxz", max_size=14))
def test_prefix_and_suffix_tokenize_like_the_library(decorated_bpe, unk_token, fuse_unk, word):
    vocab, merges = decorated_bpe
    options = dict(
        unk_token=unk_token, fuse_unk=fuse_unk, continuing_subword_prefix="##", end_of_word_suffix="</w>"
    )
    ours = BPEModel(vocab, merges, **options).tokenize(word)
    library = hf_models.BPE(vocab, merges, **options).tokenize(word)
    assert as_triples(ours) == as_triples(library, word)


def test_offsets_after_dropped_characters_shift_like_the_library():
    # The library does not count a dropped character's bytes: later offsets land on the
    # characters holding the shifted byte positions ("x" 1 byte, "é" 2, "日" 3 are dropped).
    vocab = {"a": 0, "b": 1, "c": 2}
    ours = BPEModel(vocab, []).tokenize("xé日abc")
    assert [(t.value, t.start, t.end) for t in ours] == [("a", 0, 1), ("b", 1, 2), ("c", 1, 2)]
    assert as_triples(ours) == as_triples(hf_models.BPE(vocab, []).tokenize("xé日abc"), "xé日abc")


def test_first_character_dropped_keeps_the_prefix_on_the_second():
    # The prefix goes on every character but the word's first, even when that first is unknown.
    ours = BPEModel(UNK_VOCAB, [], continuing_subword_prefix="##").tokenize("xab")
    library = hf_models.BPE(UNK_VOCAB, [], continuing_subword_prefix="##").tokenize("xab")
    assert [t.value for t in ours] == ["##a", "##b"]
    assert as_triples(ours) == as_triples(library, "xab")


def test_ignore_merges_takes_whole_words():
    vocab = {"a": 0, "b": 1, "ab": 2, "ba": 3, "aba": 4}
    merges = [("a", "b"), ("b", "a")]
    for ignore in (False, True):
        ours = BPEModel(vocab, merges, ignore_merges=ignore)
        library = hf_models.BPE(vocab, merges, ignore_merges=ignore)
        for word in ("aba", "abab"):
            assert as_triples(ours.tokenize(word)) == as_triples(library.tokenize(word), word)


def test_missing_unk_token_is_a_clear_error():
    model = BPEModel({"a": 0}, [], unk_token="[UNK]")
    assert [t.value for t in model.tokenize("a")] == ["a"]
    with pytest.raises(ValueError, match=r"unk_token '\[UNK\]' is not in the vocabulary"):
        model.tokenize("ab")


def test_merge_out_of_vocabulary_is_a_clear_error():
    with pytest.raises(ValueError, match=r"merge 2 \('a', 'c'\): token 'ac' is not in the vocabulary"):
        BPEModel({"a": 0, "b": 1, "c": 2, "ab": 3}, [("a", "b"), ("a", "c")])


# ---------------------------------------------------------------- BPE json


def test_bpe_json_matches_the_library(decorated_bpe):
    vocab, merges = decorated_bpe
    options = dict(
        unk_token="[UNK]", fuse_unk=True, continuing_subword_prefix="##", end_of_word_suffix="</w>"
    )
    ours = BPEModel(vocab, merges, **options).to_hf_json()
    library = library_json(hf_models.BPE(vocab, merges, **options))
    assert json.dumps(ours) == json.dumps(library)  # same keys in the same order
    again = model_from_hf_json(ours)
    assert again.to_hf_json() == ours


def test_bpe_json_reads_legacy_merge_strings():
    model = model_from_hf_json({"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})
    assert [t.value for t in model.tokenize("abab")] == ["ab", "ab"]


@pytest.mark.parametrize(
    "model, message",
    [
        ({"type": "Foo"}, "model.type 'Foo' is not supported (BPE, WordPiece, Unigram)"),
        ({"type": "BPE", "vocab": [], "merges": []}, "model.vocab must be an object"),
        (
            {"type": "BPE", "vocab": {"a": "0"}, "merges": []},
            "model.vocab['a'] must be a non-negative integer",
        ),
        ({"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]}, "model.merges[0] must be a pair of strings"),
        (
            {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]},
            "model: merge 1 ('a', 'a'): token 'aa' is not in the vocabulary",
        ),
        (
            {"type": "BPE", "vocab": {}, "merges": [], "byte_fallback": True},
            "byte_fallback true is not supported",
        ),
        ({"type": "BPE", "vocab": {}, "merges": [], "dropout": 0.5}, "dropout 0.5 is not supported"),
        (
            {"type": "WordPiece", "vocab": {}, "max_input_chars_per_word": "x"},
            "max_input_chars_per_word must be",
        ),
    ],
)
def test_a_malformed_model_is_a_clear_value_error(model, message):
    with pytest.raises(ValueError) as error:
        model_from_hf_json(model)
    assert message in str(error.value)


# ---------------------------------------------------------------- WordPiece

WP_VOCAB = {
    "[UNK]": 0,
    "a": 1,
    "b": 2,
    "ab": 3,
    "abc": 4,
    "##a": 5,
    "##b": 6,
    "##c": 7,
    "##bc": 8,
    "##abc": 9,
    "c": 10,
    "é": 11,
    "##é": 12,
    "##": 13,
    "###": 14,
}


@pytest.mark.parametrize("max_chars", [100, 5])
@FUZZ
@given(word=st.text(alphabet="abcé#x", max_size=9))
def test_wordpiece_matches_the_library(max_chars, word):
    ours = WordPieceModel(WP_VOCAB, max_input_chars_per_word=max_chars).tokenize(word)
    library = hf_models.WordPiece(WP_VOCAB, unk_token="[UNK]", max_input_chars_per_word=max_chars).tokenize(
        word
    )
    assert as_triples(ours) == as_triples(library, word)


def test_wordpiece_greedy_longest_match_and_limits():
    model = WordPieceModel(WP_VOCAB, max_input_chars_per_word=5)
    assert [t.value for t in model.tokenize("abcab")] == ["abc", "##a", "##b"]
    assert [t.value for t in model.tokenize("abcabc")] == ["[UNK]"]  # 6 characters > 5
    assert [(t.value, t.start, t.end) for t in model.tokenize("abx")] == [("[UNK]", 0, 3)]
    assert model.tokenize("") == []
    # Characters, not bytes, are counted.
    assert [t.value for t in model.tokenize("ééééé")] == ["é", "##é", "##é", "##é", "##é"]


def test_wordpiece_missing_unk_token_is_a_clear_error():
    model = WordPieceModel({"a": 0, "##b": 1})
    assert [t.value for t in model.tokenize("ab")] == ["a", "##b"]
    with pytest.raises(ValueError, match=r"unk_token '\[UNK\]' is not in the vocabulary"):
        model.tokenize("ba")


def test_wordpiece_json_matches_the_library():
    ours = WordPieceModel(
        WP_VOCAB, unk_token="[UNK]", continuing_subword_prefix="##", max_input_chars_per_word=50
    )
    library = library_json(hf_models.WordPiece(WP_VOCAB, unk_token="[UNK]", max_input_chars_per_word=50))
    assert json.dumps(ours.to_hf_json()) == json.dumps(library)
    assert model_from_hf_json(library).to_hf_json() == library
