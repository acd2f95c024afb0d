"""Metaspace, pre-tokenizer and decoder, against the `tokenizers` library beyond what
tests/parity/test_pre_tokenizers.py checks for every component: the "first" scheme after special tokens
and normalizers (whole tokenizers, offsets included), corpus counting, the decoder, and the
tokenizer.json forms the library accepts or refuses."""

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders as hf_decoders

from explorer.pipeline import pre_tokenizers as ours
from explorer.pipeline.components import component_from_hf_json
from explorer.pipeline.decoders import MetaspaceDecoder
from explorer.pipeline.normalizers import BertNormalizer
from explorer.pipeline.tokenizer_json import tokenizer_from_json
from tests.helpers.component_parity import library_json, tokenizer_document

FUZZ = settings(max_examples=200, deadline=None)
SCHEMES = ["always", "first", "never"]
SPECIAL = "[S]"

pieces = st.sampled_from([" ", "  ", "▁", "a", "bc", "Hé", "\x00", "\t", "\n", "_", SPECIAL, "中"])
texts = st.lists(st.one_of(pieces, st.text(max_size=3)), max_size=10).map("".join)


def tokenizer_json(pre_tokenizer: dict, normalizer: dict | None, alphabet: str) -> str:
    """Characters as a BPE vocab without merges: one token per character, so the tokens show the
    pieces' characters and the offsets show their alignments."""
    vocab = {char: index for index, char in enumerate(sorted(set(alphabet) | {"▁", "_"}))}
    vocab[SPECIAL] = len(vocab)
    model = {"type": "BPE", "vocab": vocab, "merges": []}
    return tokenizer_document(model, normalizer, pre_tokenizer, special_tokens={SPECIAL: vocab[SPECIAL]})


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("normalizer", [None, BertNormalizer()], ids=["plain", "bert-normalizer"])
@FUZZ
@given(text=texts)
def test_whole_tokenizer_matches_the_library(scheme, normalizer, text):
    """Special tokens cut the text: with "first" only the leading part gets a '▁'; a normalizer
    that drops leading characters does not stop it."""
    pre_tokenizer = ours.Metaspace(prepend_scheme=scheme).to_hf_json()
    if normalizer is None:
        document = tokenizer_json(pre_tokenizer, None, text)
    else:
        document = tokenizer_json(pre_tokenizer, normalizer.to_hf_json(), normalizer.normalize_str(text))
    library = HFTokenizer.from_str(document).encode(text)
    encoding = tokenizer_from_json(document).encode(text)
    assert (encoding.tokens, encoding.offsets) == (library.tokens, library.offsets)


@pytest.mark.parametrize("scheme", SCHEMES)
@FUZZ
@given(text=texts)
def test_first_scheme_in_a_sequence_matches_the_library(scheme, text):
    pre_tokenizer = ours.Sequence(
        [ours.WhitespaceSplit(), ours.Metaspace(prepend_scheme=scheme)]
    ).to_hf_json()
    document = tokenizer_json(pre_tokenizer, None, text)
    library = HFTokenizer.from_str(document).encode(text)
    encoding = tokenizer_from_json(document).encode(text)
    assert (encoding.tokens, encoding.offsets) == (library.tokens, library.offsets)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("split", [True, False])
@FUZZ
@given(lines=st.lists(texts, max_size=5))
def test_counting_a_corpus_is_counting_each_line(scheme, split, lines):
    metaspace = ours.Metaspace(prepend_scheme=scheme, split=split)
    text = "\n".join(lines)
    expected = Counter(word for line in text.split("\n") for word in metaspace.words(line))
    assert metaspace.count_line_words(iter([text])) == expected


def test_documented_pieces():
    assert ours.Metaspace().words("Hello  world") == ["▁Hello", "▁", "▁world"]
    assert ours.Metaspace().pre_tokenize(" a") == [("▁a", (0, 2))]
    assert ours.Metaspace().pre_tokenize("ab") == [("▁ab", (0, 2))]
    assert ours.Metaspace(prepend_scheme="never").words("a b") == ["a", "▁b"]
    assert ours.Metaspace(split=False).words("a b") == ["▁a▁b"]
    assert ours.Metaspace().words("") == []


@pytest.mark.parametrize("scheme", SCHEMES)
@FUZZ
@given(tokens=st.lists(st.one_of(pieces, st.text(max_size=4)), max_size=6))
def test_decoder_matches_the_library(scheme, tokens):
    library = hf_decoders.Metaspace(prepend_scheme=scheme)
    assert MetaspaceDecoder(prepend_scheme=scheme).decode(tokens) == library.decode(tokens)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_decoder_json_is_what_the_library_writes(scheme):
    written = library_json(
        "decoder", hf_decoders.Metaspace(replacement="_", prepend_scheme=scheme, split=False)
    )
    decoder = MetaspaceDecoder("_", scheme, split=False)
    assert decoder.to_hf_json() == written
    assert component_from_hf_json("decoder", written).to_hf_json() == written


LEGACY_FORMS = [
    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True, "str_rep": "▁"},
    {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "never"},
    {"type": "Metaspace", "replacement": "_", "prepend_scheme": "first"},
    {"type": "Metaspace", "replacement": "▁", "split": False},
]


@pytest.mark.parametrize("form", LEGACY_FORMS, ids=range(len(LEGACY_FORMS)))
def test_older_forms_read_as_the_library_reads_them(form):
    document = tokenizer_json(form, None, "ab")
    library = json.loads(HFTokenizer.from_str(document).to_str())["pre_tokenizer"]
    assert ours.pre_tokenizer_from_hf_json(form).to_hf_json() == library
    assert component_from_hf_json("decoder", form).to_hf_json() == library


@pytest.mark.parametrize(
    "form",
    [
        {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False},  # scheme defaults to "always"
        {"type": "Metaspace", "replacement": "▁▁"},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes"},
    ],
    ids=["prefix-mismatch", "two-characters", "unknown-scheme"],
)
def test_forms_the_library_refuses_are_clear_errors(form):
    with pytest.raises(Exception):  # noqa: B017 (the library raises plain Exceptions)
        HFTokenizer.from_str(tokenizer_json(form, None, "ab"))
    with pytest.raises(ValueError, match="Metaspace|prepend_scheme|replacement"):
        ours.pre_tokenizer_from_hf_json(form)
    with pytest.raises(ValueError, match="decoder"):
        component_from_hf_json("decoder", form)
