"""Compare's uploaded tokenizers through the app (AppTest): a file over a limit is one sentence
and never parsed; a file within them is parsed in a worker process, not in the server."""

from __future__ import annotations

import explorer.compare
import explorer.compare.uploads
from explorer.session import upload_jobs
from explorer.ui.common.state import Widget as W
from tests.app.helpers import (
    compare_column_bodies,
    joined,
    literal_from_markdown,
    new_app,
    open_compare,
    train,
)

VOCAB_TXT = "\n".join(["[UNK]", "[CLS]", "a", "mouse", "the", "##s", "t", "##o", "##w"]) + "\n"


def test_an_upload_over_the_entry_limit_is_one_sentence_and_is_not_parsed(monkeypatch):
    monkeypatch.setenv("EXPLORER_UPLOAD_TOKENIZER_ENTRIES", "5")
    at = train(new_app())
    open_compare(at)
    asked = []
    monkeypatch.setattr(upload_jobs.serving, "pool", lambda: asked.append(1))  # no job may be asked for
    at.file_uploader(key=W.TOKENIZER_UPLOAD).upload("vocab.txt", VOCAB_TXT.encode(), "text/plain").run()
    assert not at.exception, at.exception
    assert [literal_from_markdown(element.value) for element in at.error] == [
        "Cannot use this upload. vocab.txt: about 9 entries (tokens and merges) is over the limit of 5 "
        "for an uploaded tokenizer on this server"
    ]
    assert asked == []
    assert not any("vocab.txt (uploaded)" in name for name in compare_column_bodies(at))


def test_an_upload_is_parsed_in_a_worker_not_in_the_server(monkeypatch):
    def not_here(files):
        raise AssertionError("the server parsed an upload")

    monkeypatch.setattr(explorer.compare, "read_uploads", not_here)
    monkeypatch.setattr(explorer.compare.uploads, "read_uploads", not_here)
    at = train(new_app())
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).upload("vocab.txt", VOCAB_TXT.encode(), "text/plain").run()
    assert not at.exception, at.exception
    assert not at.error, joined(at, "error")
    assert "vocab.txt (uploaded)" in compare_column_bodies(at)
