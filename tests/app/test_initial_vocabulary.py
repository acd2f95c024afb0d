"""The Train page's summary names every special token a run added to its initial vocabulary
(issue 50: 'Initial vocabulary 257' did not say which token made the 257th), the line the command
line prints too (explorer.lessons.explain.initial_vocabulary_text), typed tokens kept literal."""

from __future__ import annotations

import pytest

from tests.app.helpers import new_app, texts, train


@pytest.mark.parametrize(
    ("link", "named"),
    [
        ({}, "Initial vocabulary 257: 256 byte symbols + <|endoftext|>"),
        ({"special_tokens": ""}, "Initial vocabulary 256: 256 byte symbols"),
        (
            {"special_tokens": "<|endoftext|>,**x**<b>"},
            "Initial vocabulary 258: 256 byte symbols + <|endoftext|> + **x**<b>",
        ),
    ],
)
def test_the_summary_names_the_special_tokens_the_run_added(link, named):
    at = train(new_app({"sample": "hf-course", "vocab_size": "300", **link}))
    assert not at.exception, at.exception
    captions = texts(at, "caption")
    assert any(caption.startswith(f"{named}. ") for caption in captions), captions
    size, parts = named.removeprefix("Initial vocabulary ").split(": ")
    # The size sentence names them too (when the run added any).
    added = f" ({parts})" if "+" in parts else ""
    assert f"Reached the 300 tokens asked for: {size} to start with{added}, plus" in " ".join(
        texts(at, "info")
    )
