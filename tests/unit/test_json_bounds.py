"""JSON from visitors and CLI users is read within a depth and a size bound (explorer.checks.json_text):
pasted ids, uploaded tokenizer.json / vocab.json files and tokenizer.json read by our reader all
answer nesting that would exhaust Python's recursion with one sentence, never a RecursionError."""

import json

import pytest

from explorer.checks import MAX_JSON_DEPTH, InputError, check_json_bounds, load_json
from explorer.checks.json_text import json_depth_exceeds
from explorer.compare.readers import UploadedFile
from explorer.compare.uploads import read_uploads
from explorer.pipeline.tokenizer_json import bpe_from_vocab_merges, tokenizer_from_json
from explorer.pretrained import parse_ids
from explorer.pretrained.decoding import MAX_ID_CHARACTERS

DEEP_ARRAY = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["[[[[", "{{{{"]', 1),  # brackets inside strings do not count
        ('["a \\" [[[["]', 1),  # nor after an escaped quote
        ('"unterminated [[[[', 0),
    ],
)
def test_depth_counts_only_brackets_outside_strings(text, depth):
    assert not json_depth_exceeds(text, depth)
    if depth:
        assert json_depth_exceeds(text, depth - 1)


def test_too_deep_or_too_long_is_one_sentence():
    with pytest.raises(InputError, match="more than 128 levels deep"):
        check_json_bounds(DEEP_ARRAY, "The file")
    with pytest.raises(InputError, match="at most 10 are read"):
        load_json("[1, 2, 3, 4]", "The list", max_characters=10)
    assert load_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "x") is not None


def test_invalid_json_still_raises_json_decode_error_for_the_callers_own_message():
    with pytest.raises(json.JSONDecodeError):
        load_json("[1, 2", "The list")


@pytest.mark.parametrize("pasted", ["[" * 2_000, "[" * 100_000, DEEP_ARRAY, "[[[1]]]", "[" * 2_000 + "1"])
def test_pasted_ids_nested_deep_are_a_value_error(pasted):
    with pytest.raises(ValueError, match="levels deep"):
        parse_ids(pasted)


def test_pasted_ids_longer_than_the_bound_are_refused_before_parsing():
    with pytest.raises(ValueError, match=f"paste at most {MAX_ID_CHARACTERS:,}"):
        parse_ids("1 " * MAX_ID_CHARACTERS)


def test_a_flat_json_list_of_ids_still_parses():
    assert parse_ids("[15496, 995]") == [15496, 995]
    with pytest.raises(ValueError, match="is not a token id"):
        parse_ids("[[1]]")


def sequence_normalizer(depth: int) -> dict:
    normalizer = {"type": "Lowercase"}
    for _ in range(depth):
        normalizer = {"type": "Sequence", "normalizers": [normalizer]}
    return normalizer


def tokenizer_json_with_normalizer(normalizer: dict) -> str:
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": normalizer,
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": None,
            "model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"},
        }
    )


@pytest.mark.parametrize("text", [DEEP_ARRAY, tokenizer_json_with_normalizer(sequence_normalizer(400))])
def test_our_tokenizer_json_reader_refuses_deep_nesting_with_a_value_error(text):
    with pytest.raises(ValueError, match="^tokenizer.json: the file nests arrays and objects more than 128"):
        tokenizer_from_json(text)


def test_a_vocab_json_nested_deep_is_a_value_error():
    with pytest.raises(ValueError, match="vocab.json nests arrays"):
        bpe_from_vocab_merges(DEEP_ARRAY, "#version: 0.2\n")


@pytest.mark.parametrize(
    "files",
    [
        [UploadedFile("tokenizer.json", DEEP_ARRAY.encode())],
        [UploadedFile("tokenizer.json", tokenizer_json_with_normalizer(sequence_normalizer(400)).encode())],
        [UploadedFile("vocab.json", DEEP_ARRAY.encode()), UploadedFile("merges.txt", b"#version: 0.2\n")],
    ],
)
def test_an_upload_nested_deep_is_one_message_naming_the_file(files):
    found, errors = read_uploads(files)
    assert found == []
    assert errors[0].startswith(f"{files[0].name} nests arrays and objects more than 128")
