"""The Train page while it is busy (a large upload makes every script run slow): a setting changed
meanwhile is never dropped.

The browser sends every widget's value with every message. A callback that changes another widget
(the vocabulary slider and number kept in sync, an algorithm's pre-tokenizer and special tokens)
changes it on the server; the browser learns of it only when a script run that draws that widget
reaches it. A visitor who types and clicks while the page is busy sends messages that still hold the
other widget's old value: these tests send those messages as the browser does (the old value set
back on the element) and check that what trains is what the visitor set. `busy` makes every run end
before its output reaches the browser, as a run interrupted by the visitor's next message does.
"""

from __future__ import annotations

import contextlib
from unittest import mock

import pytest

from explorer.ui.common import state
from explorer.ui.common.state import CURRENT_RUN
from explorer.ui.common.state import Widget as W
from tests.app.helpers import click, new_app, session_value

OVER_THE_LIMIT = ("\n".join(f"uploaded line {index} with some words" for index in range(80))).encode()


@pytest.fixture
def over_the_limit(monkeypatch):
    """A session whose upload is over the corpus limit (1 KB): the page offers the first 1 KB and a
    random sample of lines (the Python engine's limit: the compiled engine trains a whole upload)."""
    monkeypatch.setenv("EXPLORER_ENGINE", "python")
    monkeypatch.setenv("EXPLORER_MAX_CORPUS_MB", "0.001")
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("big.txt", OVER_THE_LIMIT, "text/plain").run()
    return at


def busy() -> contextlib.AbstractContextManager:
    """Within it, every script run ends before its output reaches the browser."""
    return mock.patch.object(state, "script_finished", lambda: None)


def as_the_browser_showed_bpe(at) -> None:
    """The settings a callback changed for Unigram, as the browser still shows them (BPE's, with the
    slider at 600), on the next message's elements."""
    at.selectbox(key=W.PRE_TOKENIZER).set_value("byte-level")
    at.text_input(key=W.SPECIAL_TOKENS).set_value("<|endoftext|>")
    at.slider(key=W.VOCAB_SLIDER).set_value(600)


def trained_settings(at):
    return session_value(at, CURRENT_RUN).settings


def test_an_exact_size_typed_is_trained_when_the_click_still_holds_the_old_slider(over_the_limit):
    at = over_the_limit
    at.number_input(key=W.VOCAB_NUMBER).set_value(320).run()
    at.slider(key=W.VOCAB_SLIDER).set_value(1000)  # the slider as the browser still showed it ...
    click(at, W.TRAIN_PREFIX)  # ... sent with the click on "Train on the first 1.0 KB"
    assert trained_settings(at).vocab_size == 320
    assert at.slider(key=W.VOCAB_SLIDER).value == 320


def test_an_algorithm_and_size_set_while_busy_are_trained_with_that_algorithms_settings(over_the_limit):
    at = over_the_limit
    at.slider(key=W.VOCAB_SLIDER).set_value(600).run()
    with busy():
        at.radio(key=W.ALGORITHM).set_value("unigram").run()
        as_the_browser_showed_bpe(at)
        at.number_input(key=W.VOCAB_NUMBER).set_value(80).run()  # the size typed ...
    as_the_browser_showed_bpe(at)
    click(at, W.TRAIN_SAMPLE)  # ... then "Train on a random sample", before the browser knew
    settings = trained_settings(at)
    assert (settings.algorithm, settings.vocab_size) == ("unigram", 80)
    assert (settings.pre_tokenizer, settings.special_tokens) == ("metaspace", "")
