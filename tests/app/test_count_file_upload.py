"""A count file (`python -m explorer count`'s Parquet) uploaded on the Train page: read and checked in
a worker, its settings shown and fixed in the form, trained from its counts in a worker, its whole
history explorable (Merge history, Vocabulary with an audit on a sample, Compare's columns and live
box), and its link reopening the run in a fresh session. A foreign Parquet file, or a count file
made with settings the form does not offer, is one sentence."""

from __future__ import annotations

import html
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.checks import Limits, format_size
from explorer.corpora.count_files import METADATA_KEY, write_count_file
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.samples import SAMPLES
from explorer.session import serving
from explorer.session.count_uploads import REUPLOAD, CountFile
from explorer.train import train_corpus
from explorer.ui.common.state import AUDIT_JOBS, UPLOADED_CORPUS
from explorer.ui.common.state import Widget as W
from explorer.views.stand_in_text import no_running_text
from tests.app.helpers import (
    COMPARE,
    MERGES,
    TRAIN,
    VOCABULARY,
    collect,
    column_token_counts,
    compare_settled,
    html_bodies,
    joined,
    metrics,
    new_app,
    query,
    run_of,
    session_value,
    texts,
    train,
    type_compare_text,
)

TEXT = SAMPLES["multilingual"].text
COUNTING = Counting(("nfkc",), "byte-level-cl100k", "lines-with-endings")


def count_file_bytes(tmp_path, counting: Counting = COUNTING) -> bytes:
    """A count file of TEXT as `python -m explorer count --reading lines-with-endings` writes it."""
    counter = ChunkCounter(counting)
    counter.add_text(TEXT)
    path = tmp_path / "counts.parquet"
    write_count_file(path, counter.result())
    return path.read_bytes()


def upload(at, name: str, data: bytes):
    at.file_uploader(key=W.UPLOAD).upload(name, data, "application/octet-stream").run()
    assert not at.exception, at.exception
    return at


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One session that uploaded a count file and trained it, shared by the tests that read it (in
    file order: the Train page, then the other pages, then its link)."""
    at = upload(new_app(), "counts.parquet", count_file_bytes(tmp_path_factory.mktemp("counts")))
    at.number_input(key=W.VOCAB_NUMBER).set_value(400).run()
    return train(at)


def test_a_count_files_settings_are_shown_fixed_and_it_trains_from_its_counts(trained):
    at = trained
    upload_read = session_value(at, UPLOADED_CORPUS)
    assert isinstance(upload_read.corpus.counts, CountFile)
    counts = upload_read.corpus.counts
    note = (
        f"Using the uploaded count file 'counts.parquet' ({format_size(counts.size)}, "
        f"{counts.distinct_words:,} distinct words from {counts.figures['lines']:,} lines "
        "(nfkc, pre-tokenizer byte-level-cl100k, reading lines-with-endings))"
    )
    assert any(note in body for body in map(html.unescape, html_bodies(at)))
    assert any("come from the count file" in caption for caption in texts(at, "caption"))
    assert at.selectbox(key=W.PRE_TOKENIZER).disabled and at.multiselect(key=W.NORMALIZERS).disabled
    assert at.selectbox(key=W.SPLIT_PATTERN).value == "cl100k"
    run = run_of(at)
    assert run is not None and run.from_counts, joined(at, "error")
    assert run.settings.reading == "lines-with-endings" and run.settings.normalizers == ("nfkc",)
    expected = train_corpus(TEXT, run.settings.run_config(Limits()))  # the text, read as the file was
    assert run.history.merge_strings() == expected.merge_strings()
    assert "Merges learned" in metrics(at)
    assert query(at)["reading"] == "lines-with-endings"
    entry = serving.store().get(run.store_key)
    assert entry is not None and entry.corpus is None and entry.meta["count_file"]["size"] > 0


def test_a_count_files_run_is_explorable_on_every_page(trained):
    at = trained
    at.switch_page(MERGES).run()
    assert not at.exception and not joined(at, "error")
    at.switch_page(VOCABULARY).run()
    assert no_running_text("audit") in texts(at, "info")
    collect(at, AUDIT_JOBS)
    assert "Tokens" in metrics(at) and not joined(at, "error")
    at.switch_page(COMPARE).run()
    compare_settled(at)
    assert no_running_text("measure") in texts(at, "info")
    type_compare_text(at, "Hello, world: a sentence the live box encodes.")
    assert all(count > 0 for count in column_token_counts(at)) and not joined(at, "error")


def test_a_count_files_link_reopens_its_run_in_a_fresh_session(trained):
    run = run_of(trained)
    trained.switch_page(TRAIN).run()  # the Train page's link (the tests before went to other pages)
    shown = metrics(trained)
    reopened = new_app(query(trained))
    again = run_of(reopened)
    assert again is not None and again.store_key == run.store_key and again.from_counts
    assert again.settings == run.settings
    # The link is the truth: the fresh session shows the run's summary, as the session that trained it.
    assert not any("changed since run" in caption for caption in texts(reopened, "caption"))
    assert metrics(reopened) == shown and not joined(reopened, "error")
    assert query(reopened) == query(trained)
    assert at_least_the_count_files_settings_fixed(reopened)
    for page in (MERGES, VOCABULARY, COMPARE):
        reopened.switch_page(page).run()
        assert not reopened.exception and not joined(reopened, "error")
        assert run_of(reopened) is again and query(reopened)["run"] == run.store_key
    reopened.switch_page(TRAIN).run()
    assert metrics(reopened) == shown and query(reopened) == query(trained)


def test_a_count_files_link_asks_for_the_file_again_to_train_other_settings(trained):
    trained.switch_page(TRAIN).run()
    reopened = new_app(query(trained))
    assert any("is an uploaded count file" in note for note in map(html.unescape, html_bodies(reopened)))
    reopened.number_input(key=W.VOCAB_NUMBER).set_value(350).run()
    assert "run" not in query(reopened)  # the form no longer says what trained the run shown
    reopened.button(key=W.TRAIN).click().run()
    assert REUPLOAD in joined(reopened, "error") and not reopened.exception
    assert run_of(reopened).store_key == run_of(trained).store_key


def at_least_the_count_files_settings_fixed(at) -> bool:
    """The form says what the count file's words were made with, and that they cannot change."""
    return (
        at.selectbox(key=W.PRE_TOKENIZER).disabled
        and at.selectbox(key=W.SPLIT_PATTERN).value == "cl100k"
        and at.multiselect(key=W.NORMALIZERS).value == ["nfkc"]
    )


def test_a_foreign_parquet_file_is_one_sentence():
    buffer = io.BytesIO()
    pq.write_table(pa.table({"text": ["a line"]}), buffer)
    at = upload(new_app(), "table.parquet", buffer.getvalue())
    assert "'table.parquet' is not a count file" in joined(at, "error")
    assert run_of(at) is None


def test_a_count_file_with_settings_the_form_cannot_take_is_one_sentence(tmp_path):
    data = count_file_bytes(tmp_path, Counting((), "whitespace", "lines"))
    table = pq.read_table(io.BytesIO(data))
    metadata = json.loads(table.schema.metadata[METADATA_KEY])
    metadata["counting"]["pre_tokenizer"] = "punctuation"  # a pre-tokenizer this app lacks
    buffer = io.BytesIO()
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata)}), buffer)
    at = upload(new_app(), "other.parquet", buffer.getvalue())
    errors = joined(at, "error")
    assert "'other.parquet'" in errors and "punctuation" in errors and "Traceback" not in errors


def test_without_a_store_a_count_files_run_is_made_from_its_trace(tmp_path, monkeypatch):
    monkeypatch.setattr(serving, "_store", [None])  # no store: the worker sends the trace back
    at = upload(new_app(), "counts.parquet", count_file_bytes(tmp_path))
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    run = run_of(train(at))
    assert run is not None and run.from_counts and not joined(at, "error")
    assert run.origin["count_file"]["size"] > 0 and run.settings.reading == "lines-with-endings"
