"""EXPLORER_CORPORA_DIR: a host's corpus files and count files listed beside the samples on the Train
page, read where they are (streamed into the counter in a worker), never copied into the run store; the run's
link reopens it, a changed file is a new corpus, and a folder that cannot be read is one sentence."""

from __future__ import annotations

import gzip
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.checks import Limits
from explorer.corpora.count_files import write_count_file
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.session import serving
from explorer.session.host_corpora import host_corpora
from explorer.train import train_corpus
from explorer.ui.common.state import Widget as W
from tests.app.helpers import joined, metrics, new_app, query, run_of, train

TEXT = "".join(f"the host keeps line {index} of its corpus, words w{index % 13}\n" for index in range(300))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "corpus.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "more.txt.gz").write_bytes(gzip.compress(b"zipped lines\n"))
    (tmp_path / ".hidden.txt").write_text("not listed\n")
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "deeper.txt").write_text("not listed: the folder is not read recursively\n")
    monkeypatch.setenv("EXPLORER_CORPORA_DIR", str(tmp_path))
    return tmp_path


def test_the_folder_lists_its_text_files_by_name_not_recursively(folder):
    corpora, problem = host_corpora()
    assert problem is None
    assert [corpus.name for corpus in corpora] == ["corpus.txt", "more.txt.gz"]


def test_a_folder_that_cannot_be_read_is_one_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CORPORA_DIR", str(tmp_path / "missing"))
    at = new_app()
    assert "corpora folder" in joined(at, "warning") and "none is listed" in joined(at, "warning")


def test_a_host_file_trains_where_it_is_and_its_link_reopens_it(folder):
    at = new_app()
    picker = at.selectbox(key=W.SAMPLE)
    assert picker.options[-2:] == [
        "corpus.txt (on the server, 14.4 KB)",
        "more.txt.gz (on the server, 0.0 KB)",
    ]
    picker.set_value("host:corpus.txt").run()
    assert not at.exception, at.exception
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    train(at)
    run = run_of(at)
    assert run is not None and run.from_counts and "Merges learned" in metrics(at), joined(at, "error")
    expected = train_corpus(TEXT, run.settings.run_config(Limits()))
    assert run.history.merge_strings() == expected.merge_strings()  # counted as streamed = as the text
    entry = serving.store().get(run.store_key)
    assert entry is not None and entry.corpus is None  # the run is kept, the corpus is not
    assert entry.meta["host_file"]["name"] == "corpus.txt"

    reopened = new_app(query(at))
    again = run_of(reopened)
    assert again is not None and again.store_key == run.store_key and again.from_counts
    assert "Merges learned" in metrics(reopened)

    with open(folder / "corpus.txt", "a", encoding="utf-8") as changed:
        changed.write("one more line\n")
    os.utime(folder / "corpus.txt", ns=(1, 1))
    changed_session = new_app()
    changed_session.selectbox(key=W.SAMPLE).set_value("host:corpus.txt").run()
    changed_session.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    train(changed_session)
    assert run_of(changed_session).store_key != run.store_key  # a changed file is a new corpus


def test_a_host_count_file_is_listed_trains_where_it_is_and_its_link_reopens_it(folder):
    counter = ChunkCounter(Counting(("lowercase",), "whitespace", "lines-with-endings"))
    counter.add_text(TEXT)
    write_count_file(folder / "counts.parquet", counter.result())
    pq.write_table(pa.table({"text": ["a Parquet corpus, not a count file"]}), folder / "table.parquet")
    assert [corpus.name for corpus in host_corpora()[0]] == ["corpus.txt", "counts.parquet", "more.txt.gz"]

    at = new_app()
    at.selectbox(key=W.SAMPLE).set_value("host:counts.parquet").run()
    assert not at.exception, at.exception
    assert (
        at.selectbox(key=W.PRE_TOKENIZER).disabled and at.selectbox(key=W.PRE_TOKENIZER).value == "whitespace"
    )
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    train(at)
    run = run_of(at)
    assert run is not None and run.from_counts and "Merges learned" in metrics(at), joined(at, "error")
    assert run.settings.reading == "lines-with-endings" and run.settings.normalizers == ("lowercase",)
    expected = train_corpus(TEXT, run.settings.run_config(Limits()))
    assert run.history.merge_strings() == expected.merge_strings()
    entry = serving.store().get(run.store_key)
    assert entry is not None and entry.corpus is None and entry.meta["host_file"]["name"] == "counts.parquet"

    reopened = new_app(query(at))
    again = run_of(reopened)
    assert again is not None and again.store_key == run.store_key and again.from_counts
