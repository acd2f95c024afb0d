"""Random and adversarial text through what reads a visitor's input (issue 20): the decode box's
`parse_ids`, JSON read within bounds, and the upload readers never raise anything but the
ValueError their page turns into one sentence (read_uploads: nothing at all)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.checks import load_json
from explorer.compare.readers import UploadedFile
from explorer.compare.uploads import read_uploads
from explorer.pretrained import parse_ids

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PIECES = st.sampled_from(["[", "]", "{", "}", '"', "\\", ",", ":", "1", "-1", " ", "\n", '{"a":', "null"])
ADVERSARIAL = st.one_of(
    st.text(max_size=200),
    st.lists(PIECES, max_size=300).map("".join),
    st.tuples(st.sampled_from("[{"), st.integers(0, 5_000)).map(lambda pair: pair[0] * pair[1]),
)
NAMES = st.sampled_from(["tokenizer.json", "vocab.json", "merges.txt", "vocab.txt", "x.model", "a.bin"])


@FUZZ
@given(text=ADVERSARIAL)
def test_the_decode_box_answers_any_text_with_ids_or_a_value_error(text):
    try:
        ids = parse_ids(text)
    except ValueError as error:
        assert str(error)
    else:
        assert ids and all(isinstance(i, int) for i in ids)


@FUZZ
@given(text=ADVERSARIAL)
def test_bounded_json_raises_only_value_errors(text):
    try:
        load_json(text, "The text")
    except ValueError as error:  # JSONDecodeError and InputError are ValueErrors
        assert str(error)


@FUZZ
@given(files=st.lists(st.tuples(NAMES, ADVERSARIAL), min_size=1, max_size=3))
def test_the_upload_readers_never_raise(files):
    uploads = [UploadedFile(name, text.encode("utf-8", "surrogatepass")) for name, text in files]
    found, errors = read_uploads(uploads)
    assert len(found) + len(errors) >= 1
    assert all(isinstance(message, str) and message for message in errors)


def test_the_issue_20_decode_box_input_is_a_value_error():
    with pytest.raises(ValueError, match="levels deep"):
        parse_ids("[" * 2_000)
