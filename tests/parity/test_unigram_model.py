"""explorer.pipeline.models.unigram against the `tokenizers` library's Unigram model, token for token: ties,
unknown characters (fused), byte fallback, offsets, errors, tokenizer.json in and out."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models

from explorer.pipeline.decoders import MetaspaceDecoder
from explorer.pipeline.json_numbers import library_float, library_float_text, library_json_float
from explorer.pipeline.models import UnigramModel, model_from_hf_json
from explorer.pipeline.pre_tokenizers import Metaspace
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pipeline.tokenizer_json import tokenizer_from_json, tokenizer_to_json
from tests.reference.course_corpus import COURSE_CORPUS

FUZZ = settings(max_examples=300, deadline=None)
ALPHABET = "abcé▁"


def library_triples(model: hf_models.Unigram, word: str) -> list[tuple[int, str, tuple[int, int]]]:
    """The library model gives byte offsets; turn them into character offsets."""
    char_of_byte = [index for index, char in enumerate(word) for _ in char.encode("utf-8")]
    return [
        (token.id, token.value, (char_of_byte[token.offsets[0]], char_of_byte[token.offsets[1] - 1] + 1))
        for token in model.tokenize(word)
    ]


def our_triples(model: UnigramModel, word: str) -> list[tuple[int, str, tuple[int, int]]]:
    return [(token.id, token.value, (token.start, token.end)) for token in model.tokenize(word)]


# Scores from a small set make exact ties frequent.
scores = st.sampled_from([-1.0, -2.0, -2.5, -3.0, -0.5, -4.25, -1.5])
pieces = st.lists(
    st.tuples(st.text(st.sampled_from(ALPHABET), min_size=1, max_size=4), scores), min_size=1, max_size=14
)
words = st.text(st.sampled_from(ALPHABET + "xy"), max_size=12)


@st.composite
def models(draw):
    vocab = draw(pieces)
    if draw(st.booleans()):
        vocab.insert(draw(st.integers(0, len(vocab))), ("<unk>", draw(scores)))
    unk_id = next((index for index, (piece, _) in enumerate(vocab) if piece == "<unk>"), None)
    byte_fallback = draw(st.booleans())
    if byte_fallback:
        vocab += [
            (f"<0x{byte:02X}>", -6.0) for byte in draw(st.sets(st.sampled_from(b"xy\xc3\xa9"), max_size=4))
        ]
    return vocab, unk_id, byte_fallback


@FUZZ
@given(model=models(), word=words)
def test_tokens_match_the_library(model, word):
    vocab, unk_id, byte_fallback = model
    library = hf_models.Unigram(vocab, unk_id, byte_fallback)
    ours = UnigramModel(vocab, unk_id, byte_fallback)
    try:
        expected = library_triples(library, word)
    except Exception as error:
        assert "unk_id" in str(error)
        with pytest.raises(ValueError, match="no unk piece"):
            ours.tokenize(word)
        return
    assert our_triples(ours, word) == expected


@FUZZ
@given(model=models(), word=words.filter(bool))
def test_lattice_agrees_with_the_encoding(model, word):
    vocab, unk_id, _ = model
    ours = UnigramModel(vocab, unk_id)
    try:
        spans = ours.segment(word)
    except ValueError:
        return
    lattice = ours.lattice(word)
    # The best path covers the word; fusing its unknown runs gives the encoding.
    assert [edge.start for edge in lattice.best_path][0] == 0
    assert all(a.end == b.start for a, b in zip(lattice.best_path, lattice.best_path[1:]))
    assert lattice.best_path[-1].end == len(word)
    total = 0.0
    for edge in lattice.best_path:
        total = edge.score + total
    assert lattice.best_score == total == lattice.table[-1].score
    assert set(lattice.best_path) <= set(lattice.edges)
    assert len(lattice.table) == len(word)
    assert all(cell.edge is None or cell.edge.end == cell.end for cell in lattice.table)
    assert spans[0][0] == 0 and spans[-1][1] == len(word)


def test_the_librarys_documented_example_tokenizes_as_documented():
    """The library's own doc example (model.rs): "abcdacdxx" -> abcd a cd xx."""
    vocab = [
        ("<unk>", 0.0),
        ("a", 0.0),
        ("b", 0.0),
        ("c", 0.0),
        ("d", 0.0),
        ("cd", 1.0),
        ("ab", 2.0),
        ("abc", 5.0),
        ("abcd", 10.0),
    ]
    ours = UnigramModel(vocab, 0)
    assert [token.value for token in ours.tokenize("abcdacdxx")] == ["abcd", "a", "cd", "xx"]
    assert our_triples(ours, "abcdacdxx") == library_triples(hf_models.Unigram(vocab, 0, False), "abcdacdxx")


def test_ties_keep_the_smallest_start():
    """ "pug" with p+ug and pu+g equally likely: the last token starting first wins, p + ug."""
    vocab = [("<unk>", 0.0), ("p", -1.0), ("u", -1.0), ("g", -1.0), ("pu", -1.5), ("ug", -1.5)]
    assert [token.value for token in UnigramModel(vocab, 0).tokenize("pug")] == ["p", "ug"]


def test_the_lattice_of_a_word_has_its_edges_scores_and_best_path():
    vocab = [("<unk>", 0.0), ("u", -1.0), ("n", -2.0), ("un", -1.5), ("h", -3.0)]
    lattice = UnigramModel(vocab, 0).lattice("unhx")
    assert [(edge.start, edge.end, edge.piece) for edge in lattice.edges] == [
        (0, 1, "u"),
        (0, 2, "un"),
        (1, 2, "n"),
        (2, 3, "h"),
        (3, 4, "x"),
    ]
    assert lattice.edges[-1].unknown and lattice.edges[-1].score == -13.0
    assert [edge.piece for edge in lattice.best_path] == ["un", "h", "x"]
    assert lattice.best_score == -17.5
    assert [cell.score for cell in lattice.table] == [-1.0, -1.5, -4.5, -17.5]


def test_model_errors_are_clear():
    with pytest.raises(ValueError, match="empty"):
        UnigramModel([], unk_id=0)
    with pytest.raises(ValueError, match="unk_id 3"):
        UnigramModel([("a", -1.0)], unk_id=3)
    with pytest.raises(ValueError, match="cannot hold"):
        UnigramModel([("a", math.nan)]).to_hf_json()


@pytest.mark.parametrize(
    "model, message",
    [
        ({"type": "Unigram", "unk_id": 0}, "needs a vocab"),
        ({"type": "Unigram", "vocab": [["a", "x"]]}, r"vocab\[0\]"),
        ({"type": "Unigram", "vocab": [["a"]]}, r"vocab\[0\]"),
        ({"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": 1}, "unk_id 1"),
        ({"type": "Unigram", "vocab": [["a", -1.0]], "unk_id": "0"}, "unk_id"),
        ({"type": "Unigram", "vocab": [["a", -1.0]], "byte_fallback": 1}, "byte_fallback"),
        ({"type": "Unigram", "vocab": [], "unk_id": 0}, "empty"),
    ],
)
def test_malformed_json_is_a_clear_error(model, message):
    with pytest.raises(ValueError, match=message):
        model_from_hf_json(model)


def library_unigram(text_lines: list[str], vocab_size: int, special_tokens: list[str]) -> HFTokenizer:
    from tokenizers import pre_tokenizers, trainers

    tokenizer = HFTokenizer(hf_models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=special_tokens, unk_token="<unk>", show_progress=False
    )
    tokenizer.train_from_iterator(text_lines, trainer)
    return tokenizer


CORPUS = COURSE_CORPUS * 3

texts = st.lists(
    st.one_of(
        st.sampled_from(["This", " is", "token", "ization", "  ", "<unk>", "中", "é", "\n", ".", "Q"]),
        st.text(max_size=4),
    ),
    max_size=8,
).map("".join)


@pytest.fixture(scope="module")
def trained_pair():
    """The library's file, read by us and by the library (the library reads some of its own
    numbers back one ulp off, see explorer/pipeline/json_numbers.py: both must read the same)."""
    document = library_unigram(CORPUS, 60, ["<unk>", "<s>"]).to_str()
    return tokenizer_from_json(document), HFTokenizer.from_str(document)


def assert_encodes_and_decodes_like(ours: Tokenizer, library: HFTokenizer, text: str, expected) -> None:
    """Our encoding of `text` is the library's (`expected`): ids, tokens, offsets; and so is its decoding."""
    encoding = ours.encode(text)
    assert (encoding.ids, encoding.tokens, encoding.offsets) == (
        expected.ids,
        expected.tokens,
        expected.offsets,
    )
    assert ours.decode(encoding.ids) == library.decode(expected.ids)


@FUZZ
@given(text=texts)
def test_library_trained_tokenizer_encodes_and_decodes_the_same(trained_pair, text):
    ours, library = trained_pair
    expected = library.encode(text)
    assert_encodes_and_decodes_like(ours, library, text, expected)


def test_the_library_reads_what_we_write_as_its_own_file(trained_pair):
    ours, library = trained_pair
    assert HFTokenizer.from_str(tokenizer_to_json(ours)).to_str() == library.to_str()
    assert json.loads(tokenizer_to_json(ours), parse_float=library_json_float) == json.loads(
        library.to_str(), parse_float=library_json_float
    )


@FUZZ
@given(model=models(), text=texts)
def test_our_tokenizer_json_loads_in_the_library_and_encodes_the_same(model, text):
    vocab, unk_id, byte_fallback = model
    ours = Tokenizer(
        None, Metaspace(), UnigramModel(vocab, unk_id, byte_fallback), decoder=MetaspaceDecoder()
    )
    library = HFTokenizer.from_str(tokenizer_to_json(ours))
    try:
        expected = library.encode(text)
    except Exception:
        with pytest.raises(ValueError):
            ours.encode(text)
        return
    assert_encodes_and_decodes_like(ours, library, text, expected)
    assert json.loads(library.to_str())["model"] == ours.model.to_hf_json()


# ---------------------------------------------------------------- numbers as the library reads them

number_texts = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.floats(min_value=-40, max_value=0).map(lambda value: f"{value:.17g}"),
    st.floats(min_value=-40, max_value=0).map(lambda value: f"{value:.22e}"),
    st.integers(-(10**25), 10**25).map(str),
    st.tuples(st.integers(0, 10**21), st.integers(-330, 30)).map(lambda parts: f"{parts[0]}e{parts[1]}"),
)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(number_texts, min_size=1, max_size=80))
def test_numbers_are_read_as_the_library_reads_them(texts):
    vocab = ",".join(f'["p{index}",{text}]' for index, text in enumerate(texts))
    document = (
        '{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,'
        '"pre_tokenizer":null,"post_processor":null,"decoder":null,'
        '"model":{"type":"Unigram","unk_id":null,"vocab":[' + vocab + '],"byte_fallback":false}}'
    )
    try:
        library = HFTokenizer.from_str(document)
    except Exception:
        with pytest.raises(ValueError):
            tokenizer_from_json(document)
        return
    held = [score for _, score in json.loads(library.to_str())["model"]["vocab"]]
    assert [score for _, score in tokenizer_from_json(document).model.pieces] == held


def test_an_integer_too_long_for_64_bits_is_read_as_the_library_reads_it():
    """serde_json scales the first 20 digits by a power of ten: 1 ulp from the nearest double."""
    text = "283352087234368835158016"
    document = (
        '{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,'
        '"pre_tokenizer":null,"post_processor":null,"decoder":null,"model":{"type":"Unigram",'
        f'"unk_id":null,"vocab":[["a",{text}],["b",-{text}]],"byte_fallback":false}}}}'
    )
    held = [score for _, score in json.loads(HFTokenizer.from_str(document).to_str())["model"]["vocab"]]
    assert held[0] != float(int(text))  # the case that matters: not the nearest double
    assert [score for _, score in tokenizer_from_json(document).model.pieces] == held


@settings(max_examples=300, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_every_readable_score_is_written_to_be_read_back_exactly(value):
    held = library_float(value)
    assert library_json_float(library_float_text(held)) == held


def test_a_piece_listed_twice_counts_twice_like_the_library():
    """Unigram's vocab size is its list's length: an added token gets the id after the list."""
    library = HFTokenizer(
        hf_models.Unigram([("<unk>", 0.0), ("a", -1.0), ("a", -2.0), ("b", -1.5)], 0, False)
    )
    library.add_special_tokens(["[X]"])
    ours = tokenizer_from_json(library.to_str())
    assert (ours.vocab_size(), ours.token_to_id("[X]"), ours.token_to_id("a")) == (
        library.get_vocab_size(),
        library.token_to_id("[X]"),
        library.token_to_id("a"),
    )
    assert ours.encode("ab[X]").ids == library.encode("ab[X]").ids
