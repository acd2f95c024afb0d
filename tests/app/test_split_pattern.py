"""The byte-level split pattern on the Train page: offered under the byte-level pre-tokenizer only,
trained with, written into the link, and a fresh session on that link reproduces the run."""

from __future__ import annotations

from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS, build_pre_tokenizer
from explorer.ui.common.state import Widget as W
from tests.app.helpers import metrics, new_app, query, run_of, train

CORPUS = "Paid 12345 on 2026-11-26, it's 678.\nWe'll pay 9876543 more on 2027-01-02.\n" * 3


def digit_tokens(at) -> list[str]:
    """The vocabulary's tokens made of digits only."""
    return [token for token in run_of(at).history.vocab if token.isdigit()]


def test_the_split_pattern_is_offered_under_byte_level_trains_and_the_link_reproduces_it():
    at = new_app()
    assert at.selectbox(key=W.PRE_TOKENIZER).value == "byte-level"
    assert at.selectbox(key=W.SPLIT_PATTERN).value == "gpt2"
    assert "pre_tokenizer" not in query(at)  # the default link is unchanged
    at.text_area(key=W.CORPUS).set_value(CORPUS).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    at.selectbox(key=W.SPLIT_PATTERN).set_value("cl100k").run()
    train(at)
    assert not at.exception, at.exception
    config = run_of(at).history.config
    assert config.pre_tokenizer == BYTE_LEVEL_PRE_TOKENIZERS["cl100k"] and config.is_byte_level
    # No token holds more than three digits: cl100k never puts four digits in one pre-token, where
    # GPT-2's keeps whole numbers (after their space, "Ġ12345").
    longest_number = max(
        len(token.lstrip("Ġ"))
        for line in CORPUS.splitlines()
        for token, _ in build_pre_tokenizer("byte-level").pre_tokenize(line)
        if token.lstrip("Ġ").isdigit()
    )
    assert longest_number > 3 and max(len(token) for token in digit_tokens(at)) <= 3
    assert query(at)["pre_tokenizer"] == BYTE_LEVEL_PRE_TOKENIZERS["cl100k"]

    elsewhere = new_app(query(at))
    assert elsewhere.selectbox(key=W.PRE_TOKENIZER).value == "byte-level"
    assert elsewhere.selectbox(key=W.SPLIT_PATTERN).value == "cl100k"
    assert metrics(elsewhere)["Final vocabulary size"] == metrics(at)["Final vocabulary size"]
    assert run_of(elsewhere).history.vocab == run_of(at).history.vocab
    assert query(elsewhere) == query(at)

    # Another pre-tokenizer has no split pattern.
    at.selectbox(key=W.PRE_TOKENIZER).set_value("whitespace").run()
    assert not [box for box in at.selectbox if box.key == W.SPLIT_PATTERN]
    assert query(at)["pre_tokenizer"] == "whitespace"
