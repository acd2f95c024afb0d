"""What the parity tests of pipeline components share: a tokenizer.json document around the stages
under test, the `tokenizers` library's Tokenizer read from it, what the library writes for one of
its own components, the parametrization over (name, ours, library) triples, and the two tests
every stage runs on them (`parity_tests`: chosen examples, then fuzzed text).

Used by tests/parity/test_normalizers.py, test_pre_tokenizers.py, test_metaspace.py and
test_interop.py. Each test file keeps its own assertions (what "the same" means differs
per stage).

What it does not do: compare anything itself, or build our side (explorer.pipeline.tokenizer_json does).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

UNK = "[UNK]"


def word_level(vocab: dict[str, int]) -> dict:
    """A WordLevel model knowing `vocab`, "[UNK]" for the rest: with every pre-token in `vocab`,
    each token is one pre-token, so the tokens and offsets show the pre-tokens."""
    return {"type": "WordLevel", "vocab": vocab, "unk_token": UNK}


def tokenizer_document(
    model: dict,
    normalizer: dict | None = None,
    pre_tokenizer: dict | None = None,
    special_tokens: dict[str, int] | None = None,
) -> str:
    """A tokenizer.json text with these stages (their JSON objects, None for none), `model`, and
    special tokens (content -> id) matched on the raw text."""
    added_tokens = [
        {
            "id": token_id,
            "content": content,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for content, token_id in (special_tokens or {}).items()
    ]
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added_tokens,
            "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer,
            "post_processor": None,
            "decoder": None,
            "model": model,
        }
    )


def library_tokenizer(
    model: dict, normalizer: dict | None = None, pre_tokenizer: dict | None = None
) -> tokenizers.Tokenizer:
    """The library's Tokenizer for `tokenizer_document(model, normalizer, pre_tokenizer)`."""
    return tokenizers.Tokenizer.from_str(tokenizer_document(model, normalizer, pre_tokenizer))


def library_json(stage: str, component: object) -> dict | None:
    """What the library writes in tokenizer.json for one of its components of `stage`
    ("normalizer", "pre_tokenizer", ...)."""
    written = tokenizers.Tokenizer(tokenizers.models.WordLevel({UNK: 0}, unk_token=UNK))
    setattr(written, stage, component)
    return json.loads(written.to_str())[stage]


def each_component(components: list[tuple[str, object, object]]) -> pytest.MarkDecorator:
    """Run a test once per (name, ours, library) triple, named by `name`."""
    return pytest.mark.parametrize(
        ("name", "component", "library"), components, ids=[name for name, _, _ in components]
    )


def parity_tests(
    components: list[tuple[str, object, object]],
    examples: list[str],
    texts: st.SearchStrategy[str],
    assert_matches_library: Callable[[object, object, str], None],
) -> tuple[Callable, Callable]:
    """The two tests every stage runs, for a test module to bind to its own names:
    `assert_matches_library(ours, library, text)` on every example, then on 300 fuzzed texts."""

    @pytest.mark.parametrize("text", examples)
    @each_component(components)
    def test_examples_match_library(name, component, library, text):
        assert_matches_library(component, library, text)

    @each_component(components)
    @settings(max_examples=300, deadline=None)
    @given(text=texts)
    def test_fuzz_matches_library(name, component, library, text):
        assert_matches_library(component, library, text)

    return test_examples_match_library, test_fuzz_matches_library
