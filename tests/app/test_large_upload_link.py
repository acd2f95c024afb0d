"""The link of a run trained on a text upload over the run store's bound (`serving.STORED_CORPUS_BYTES`,
lowered here to 1,000 bytes: the path is the same as a 5 MB file's, at a fraction of its time): the
run is stored without its corpus, and its link, opened in a fresh session, shows its summary and its
other pages (the views that need running text on a sample), with a note that the file is not kept
and that training other settings needs it again."""

from __future__ import annotations

import html

import pytest

from explorer.session import serving
from explorer.session.linked_corpus import REUPLOAD
from explorer.ui.common.state import Widget as W
from explorer.views.stand_in_text import no_running_text
from tests.app.helpers import (
    COMPARE,
    MERGES,
    TRAIN,
    VOCABULARY,
    compare_settled,
    html_bodies,
    joined,
    metrics,
    new_app,
    query,
    run_of,
    texts,
    train,
)

# Many distinct words, so that a small vocabulary still has merges to learn from them.
TEXT = "".join(
    f"line {index} holds words w{index} v{index * 7 % 1_009} and u{index % 97}\n" for index in range(400)
)
BOUND = 1_000


@pytest.fixture
def trained(monkeypatch):
    """A session that uploaded TEXT (over BOUND) and trained BPE 300 on it."""
    monkeypatch.setattr(serving, "STORED_CORPUS_BYTES", BOUND)
    assert len(TEXT.encode()) > 10 * BOUND
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("big.txt", TEXT.encode(), "text/plain").run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    train(at)
    run = run_of(at)
    assert run is not None and not run.from_counts, joined(at, "error")
    entry = serving.store().get(run.store_key)
    assert entry is not None and entry.corpus is None and entry.meta["from_counts"]
    return at


def test_a_large_uploads_link_shows_its_run_in_a_fresh_session(trained):
    run, shown = run_of(trained), metrics(trained)
    reopened = new_app(query(trained))
    again = run_of(reopened)
    assert again is not None and again.store_key == run.store_key and again.from_counts
    # The link is the truth: the fresh session shows the run's summary, as the session that trained it.
    assert not any("changed since run" in caption for caption in texts(reopened, "caption"))
    assert metrics(reopened) == shown and not joined(reopened, "error")
    assert query(reopened) == query(trained)
    note = f"The corpus of run #{again.number} is an uploaded file ({again.distinct_words:,} distinct words)."
    assert any(f"{note} {REUPLOAD}" in body for body in map(html.unescape, html_bodies(reopened)))
    # Its other pages, those that need running text on a sample (explorer.views.stand_in_text).
    for page, on_a_sample in ((MERGES, None), (VOCABULARY, "audit"), (COMPARE, "measure")):
        reopened.switch_page(page).run()
        if page == COMPARE:
            compare_settled(reopened)
        assert not reopened.exception and not joined(reopened, "error")
        assert run_of(reopened) is again and query(reopened)["run"] == run.store_key
        assert on_a_sample is None or no_running_text(on_a_sample) in texts(reopened, "info")
    reopened.switch_page(TRAIN).run()
    assert metrics(reopened) == shown and query(reopened) == query(trained)


def test_a_large_uploads_link_asks_for_the_file_again_to_train_other_settings(trained):
    reopened = new_app(query(trained))
    reopened.number_input(key=W.VOCAB_NUMBER).set_value(320).run()
    assert "run" not in query(reopened)  # the form no longer says what trained the run shown
    reopened.button(key=W.TRAIN).click().run()
    assert REUPLOAD in joined(reopened, "error") and not reopened.exception
    assert run_of(reopened).store_key == run_of(trained).store_key
