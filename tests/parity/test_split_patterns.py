"""Byte-level BPE trained with the split pattern of GPT-2, GPT-4 (cl100k), GPT-4o (o200k) or
Llama 3, against the `tokenizers` library trained with
`Sequence([Split(Regex(pattern), "isolated"), ByteLevel(add_prefix_space=False, use_regex=False)])`:
the same merges, vocabulary and encodings; the exported tokenizer.json loads in the library and
encodes the same; the pre-tokens differ between patterns where they should."""

from __future__ import annotations

import json

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre_tokenizers
from tokenizers import trainers as hf_trainers

from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS, build_pre_tokenizer
from explorer.pipeline.pre_tokenizers.regex_tables import UNKNOWN_TO_LIBRARY_REGEX
from explorer.pipeline.pre_tokenizers.split_patterns import LIBRARY_PATTERNS, SPLIT_PATTERNS
from explorer.pipeline.tokenizer_json import tokenizer_from_json, tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.train import tokenizer_from_trace, train_corpus
from explorer.training.word_counts import split_lines

SPECIALS = ["<|endoftext|>"]
VOCAB_SIZE = 400

CORPORA = {
    "english": (
        "I'm sure it's fine, isn't it? We'll see. THEY'RE HERE and You've WON'T.\n"
        "On 2026-11-26 we paid 12345 dollars, then 678 more; 3.14159 and 1,000,000.\n"
        "Don't stop: she'd said they'd go, but I'LL stay.\n"
    )
    * 6,
    "code": (
        "def count(items):\n    total = 0\n    for item in items:\n        total += item  # add\n"
        "    return total\n\nif __name__ == '__main__':\n\tprint(count([1, 22, 333, 4444]))\n"
        "x = {'a': 1}  \n  \n"
    )
    * 6,
    "mixed": (
        "日本語のテキストと中文文本 mixed with emoji 😀👍🏽🎉 and naïve café.\n"
        "Ünïcödé ΟΔΟΣ ὁδός İstanbul 12345678 ١٢٣٤٥ x² 🇫🇷🇫🇷\n"
    )
    * 6,
}
TEXTS = [
    "It's 12345 o'clock on 2026-11-26, isn't it?",
    "def f(x):\n    return x  \n\n\tpass\r\n",
    "日本語 😀👍🏽 naïve  café  \n  \n",
    "  leading and trailing spaces   ",
]


def library_pre_tokenizer(split_pattern: str) -> hf_pre_tokenizers.PreTokenizer:
    return hf_pre_tokenizers.Sequence(
        [
            hf_pre_tokenizers.Split(Regex(LIBRARY_PATTERNS[split_pattern]), behavior="isolated"),
            hf_pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def library_trained(split_pattern: str, corpus: str) -> HFTokenizer:
    tokenizer = HFTokenizer(hf_models.BPE())
    tokenizer.pre_tokenizer = library_pre_tokenizer(split_pattern)
    trainer = hf_trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=SPECIALS,
        initial_alphabet=hf_pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(split_lines(corpus), trainer)
    return tokenizer


def ours_trained(split_pattern: str, corpus: str):
    config = RunConfig(
        trainer=TrainerConfig(vocab_size=VOCAB_SIZE, special_tokens=tuple(SPECIALS)),
        pre_tokenizer=BYTE_LEVEL_PRE_TOKENIZERS[split_pattern],
    )
    return train_corpus(corpus, config)


@pytest.mark.parametrize("corpus_name", sorted(CORPORA))
@pytest.mark.parametrize("split_pattern", sorted(SPLIT_PATTERNS))
def test_training_and_encoding_equal_the_library(split_pattern, corpus_name):
    corpus = CORPORA[corpus_name]
    library = library_trained(split_pattern, corpus)
    trace = ours_trained(split_pattern, corpus)
    assert trace.config.is_byte_level
    model = json.loads(library.to_str())["model"]
    assert trace.token_ids() == model["vocab"]
    assert trace.model_merges() == [tuple(merge) for merge in model["merges"]]

    ours = tokenizer_from_trace(trace)
    for text in [*TEXTS, corpus[:300]]:
        expected = library.encode(text)
        encoding = ours.encode(text)
        assert (encoding.tokens, encoding.ids, encoding.offsets) == (
            expected.tokens,
            expected.ids,
            expected.offsets,
        )

    # The exported tokenizer.json holds Split + ByteLevel(use_regex=False); the library loads it
    # and encodes like ours, and our reader gives back a tokenizer that encodes the same.
    exported = tokenizer_to_json(ours)
    steps = json.loads(exported)["pre_tokenizer"]
    if split_pattern != "gpt2":
        assert [step["type"] for step in steps["pretokenizers"]] == ["Split", "ByteLevel"]
        assert steps["pretokenizers"][1]["use_regex"] is False
    loaded, read_back = HFTokenizer.from_str(exported), tokenizer_from_json(exported)
    for text in TEXTS:
        encoding = ours.encode(text)
        assert loaded.encode(text).ids == encoding.ids
        assert read_back.encode(text).ids == encoding.ids
        assert loaded.decode(encoding.ids) == text


# Lines of text where the patterns differ: contractions in any case, digits, spaces, code.
lines = st.lists(
    st.one_of(
        st.text(max_size=6),
        st.sampled_from(
            ["'s", "'S", "'ll", "'LL", "'re", " ", "  ", "\t", "\r", "é", "😀", "中文", "x²", "١٢"]
        ),
        st.text(alphabet="aZ09 '.-_(){}\t", max_size=12),
    ),
    max_size=8,
).map("".join)


@pytest.mark.parametrize("split_pattern", sorted(SPLIT_PATTERNS))
@settings(max_examples=200, deadline=None)
@given(text=st.one_of(lines, lines.map(lambda line: line + "\n" + line)))
def test_our_pre_tokens_equal_the_library_split(split_pattern, text):
    library = library_pre_tokenizer(split_pattern)
    ours = build_pre_tokenizer(BYTE_LEVEL_PRE_TOKENIZERS[split_pattern])
    assert ours.pre_tokenize(text) == library.pre_tokenize_str(text)


@pytest.mark.parametrize("split_pattern", sorted(SPLIT_PATTERNS))
@settings(max_examples=200, deadline=None)
@given(text=lines.filter(lambda line: "\n" not in line))
def test_the_library_spelling_splits_a_line_like_the_package_pattern(split_pattern, text):
    # The package's spelling (tiktoken's possessive quantifiers) read by the `regex` module as
    # tiktoken reads it; for GPT-2 tiktoken's spelling against ByteLevel's.
    package = regex.compile(SPLIT_PATTERNS[split_pattern])
    assert regex.findall(LIBRARY_PATTERNS[split_pattern], text) == package.findall(text)


def digit_runs(pre_tokens: list[tuple[str, tuple[int, int]]]) -> list[int]:
    """The lengths of the pre-tokens made of digits only."""
    return [len(token) for token, _ in pre_tokens if token.isdigit()]


def test_the_pattern_decides_how_numbers_split():
    text = "On 2026-11-26 we paid 1234567 dollars."
    numbers = [match.group() for match in regex.finditer(r"\d+", text)]
    gpt2 = build_pre_tokenizer(BYTE_LEVEL_PRE_TOKENIZERS["gpt2"]).pre_tokenize(text)
    cl100k = build_pre_tokenizer(BYTE_LEVEL_PRE_TOKENIZERS["cl100k"]).pre_tokenize(text)
    # GPT-2 keeps every number whole (after its space, "Ġ1234567"); cl100k cuts it into groups of
    # at most three digits, from the left.
    assert max(len(number) for number in numbers) > 3
    assert [token.lstrip("Ġ") for token, _ in gpt2 if token.lstrip("Ġ").isdigit()] == numbers
    assert max(digit_runs(cl100k)) == 3
    expected_groups = [len(number[i : i + 3]) for number in numbers for i in range(0, len(number), 3)]
    assert digit_runs(cl100k) == expected_groups


@pytest.mark.parametrize("split_pattern", sorted(SPLIT_PATTERNS))
def test_characters_the_library_does_not_know_split_as_the_library_splits_them(split_pattern):
    # Letters, marks and numbers of Unicode 17.0, unassigned in the library's Unicode 16.0.
    unknown = [chr(first) for first, _ in UNKNOWN_TO_LIBRARY_REGEX]
    assert any(regex.match(r"[\p{L}\p{N}\p{M}]", char) for char in unknown)
    library = library_pre_tokenizer(split_pattern)
    ours = build_pre_tokenizer(BYTE_LEVEL_PRE_TOKENIZERS[split_pattern])
    for char in unknown:
        text = f"a{char}b 1{char}2 {char}{char}x'S"
        assert ours.pre_tokenize(text) == library.pre_tokenize_str(text)
