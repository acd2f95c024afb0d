"""A Compare link that names more stored uploads than a session keeps opens only what a session
keeps (`upload_checks.SESSION_UPLOADS`, within `Limits.max_session_uploads_mb`), and says so: it
used to load every upload it named (up to 40) into each visitor's session."""

from __future__ import annotations

from explorer.compare.upload_checks import SESSION_UPLOADS
from explorer.ui.common import state
from explorer.ui.common.state import Widget as W
from tests.app.helpers import COMPARE, new_app, open_compare, query, session_value, texts
from tests.app.test_serving import train_pasted, words


def vocab_txt(index: int) -> bytes:
    """A small WordPiece vocab.txt of its own (its own content: its own key)."""
    tokens = [
        "[UNK]",
        "[CLS]",
        "[SEP]",
        *"abcdefghijklmnopqrstuvwxyz",
        f"word{index}",
        *(f"##{c}" for c in "aeiou"),
    ]
    return "\n".join(tokens).encode() + b"\n"


def test_a_link_naming_eight_uploads_opens_the_last_four_with_a_sentence():
    at = train_pasted(new_app(), words(200, seed=31))
    open_compare(at)
    files = [(f"vocab-{index}.txt", vocab_txt(index), "text/plain") for index in range(8)]
    at.file_uploader(key=W.TOKENIZER_UPLOAD).set_value(files).run()
    assert not at.exception, at.exception
    held = session_value(at, state.UPLOADED_TOKENIZERS)
    assert len(held) == SESSION_UPLOADS  # the uploader's session: the last four
    assert len(texts(at, "warning")) == 8 - SESSION_UPLOADS  # each one dropped, with a word
    link = query(at)
    others = [key for key in link["cols"].split(",") if not key.startswith("upload:")]
    dropped_keys = _stored_keys_of_all_eight(at, files)
    link["cols"] = ",".join([*others, *dropped_keys])
    elsewhere = new_app(link, COMPARE)
    opened = session_value(elsewhere, state.UPLOADED_TOKENIZERS)
    assert len(opened) == SESSION_UPLOADS and list(opened) == dropped_keys[-SESSION_UPLOADS:]
    said = " ".join(texts(elsewhere, "caption"))
    assert f"This link names 8 uploaded tokenizers; a session keeps {SESSION_UPLOADS}" in said


def _stored_keys_of_all_eight(at, files) -> list[str]:
    """The keys of all eight uploads, in upload order (the store keeps every one)."""
    from explorer.compare import UploadedFile
    from explorer.compare.readers import vocab_txt_upload
    from explorer.session import serving

    return [serving.upload_key(vocab_txt_upload(UploadedFile(name, data)).key) for name, data, _ in files]
