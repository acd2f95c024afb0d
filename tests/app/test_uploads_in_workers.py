"""Compare's uploaded tokenizers through the app (AppTest): a file over a limit is one sentence
and never parsed; a file within them is parsed in a worker process, not in the server; a
tokenizer.json only the tokenizers library reads is encoded and decoded in workers too."""

from __future__ import annotations

import json
import re
import threading

import tokenizers

import explorer.compare
import explorer.compare.uploads
from explorer.session import upload_jobs
from explorer.ui.common.state import Widget as W
from tests.app.helpers import (
    compare_column_bodies,
    html_bodies,
    joined,
    literal_from_markdown,
    new_app,
    open_compare,
    train,
    type_compare_text,
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


def test_a_library_only_upload_is_never_parsed_in_the_server_yet_encodes_and_decodes(monkeypatch):
    """Issue 50: a WordLevel tokenizer.json (only the tokenizers library reads it) was parsed by
    `tokenizers.Tokenizer.from_str` in the server when its column was first drawn, holding the GIL
    for seconds. Its live column and the decode panel now ask a worker: this process (the server's)
    never parses the file, by the library or as JSON."""
    library = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({"[UNK]": 0, "the": 1, "mouse": 2}, unk_token="[UNK]")
    )
    library.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    text = library.to_str()
    parsed_here: list[str] = []
    real_tokenizer, real_loads = tokenizers.Tokenizer, json.loads

    class Recording:  # tokenizers.Tokenizer, its parses of the upload noted
        def __getattr__(self, name):
            return getattr(real_tokenizer, name)

        def from_str(self, json_text):
            if json_text == text:
                parsed_here.append(f"from_str in {threading.current_thread().name}")
            return real_tokenizer.from_str(json_text)

    def loads(json_text, *args, **kwargs):
        if json_text == text:
            parsed_here.append(f"json.loads in {threading.current_thread().name}")
        return real_loads(json_text, *args, **kwargs)

    monkeypatch.setattr(tokenizers, "Tokenizer", Recording())
    monkeypatch.setattr(json, "loads", loads)
    at = train(new_app())
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).upload("wordlevel.json", text.encode(), "application/json").run()
    assert not at.exception, at.exception
    type_compare_text(at, "the mouse xyz")
    column = compare_column_bodies(at)["wordlevel.json (uploaded)"]
    assert re.findall(r'title="id (\d+)&#58;', column) == ["1", "2", "0"]  # the, mouse, [UNK]
    (key,) = [key for key in at.selectbox(key=W.DECODE_COLUMN).options if "wordlevel" in key]
    at.selectbox(key=W.DECODE_COLUMN).set_value(key).run()
    at.text_area(key=W.DECODE_IDS).set_value("2, 1").run()
    assert not at.exception and not at.error, joined(at, "error")
    decoded = next(body for body in html_bodies(at) if 'class="decoded"' in body)
    assert "mouse" in decoded and "the" in decoded
    assert parsed_here == []
