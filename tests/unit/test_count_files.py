"""Count files (explorer.corpora.count_files): what is written is read back, word for word and in
order; what others read (pandas, pyarrow) is a plain table; every bad or foreign file is one
sentence naming it."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.corpora import count_files
from explorer.corpora.count_files import METADATA_KEY, read_count_files, write_count_file
from explorer.corpora.counting import Counting, WordCounts
from explorer.run_config import LARGEST_COUNT
from explorer.samples import HF_COURSE
from explorer.training.word_counts import count_corpus


def _counts(
    text: str = HF_COURSE.text, counting: Counting | None = None, source: str = "course"
) -> WordCounts:
    counting = counting or Counting()
    words, figures = count_corpus(text, counting.normalizers, counting.pre_tokenizer)
    assert figures is not None
    return WordCounts(words, figures, counting, [source])


def _same(left: WordCounts, right: WordCounts) -> None:
    assert list(left.words.items()) == list(right.words.items())  # the order too
    assert (left.figures, left.counting, left.sources) == (right.figures, right.counting, right.sources)


def test_a_count_file_reads_back_as_it_was_written(tmp_path):
    counts = _counts(counting=Counting(("nfkc", "lowercase"), "byte-level-cl100k", "lines"))
    write_count_file(tmp_path / "c.parquet", counts)
    _same(read_count_files([tmp_path / "c.parquet"]), counts)
    with open(tmp_path / "c.parquet", "rb") as file:  # an open binary file (an upload) reads the same
        _same(read_count_files([io.BytesIO(file.read())]), counts)


def test_a_count_file_is_a_plain_table_with_its_settings_in_one_metadata_key(tmp_path):
    counts = _counts()
    write_count_file(tmp_path / "c.parquet", counts)
    table = pq.read_table(tmp_path / "c.parquet")
    assert table.schema.names == ["word", "count"]
    assert table.column("word").to_pylist()[:3] == list(counts.words)[:3]
    frame = table.to_pandas()
    assert frame["count"].sum() == sum(counts.words.values())
    metadata = json.loads(table.schema.metadata[METADATA_KEY])
    assert metadata == {
        "format": "explorer-word-counts",
        "version": 1,
        "counting": {"normalizers": [], "pre_tokenizer": "byte-level", "reading": "lines"},
        "figures": counts.figures,
        "sources": ["course"],
    }


def test_big_counts_are_written_in_row_groups_and_read_back_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(count_files, "ROW_GROUP_ROWS", 7)
    counts = _counts()
    write_count_file(tmp_path / "c.parquet", counts)
    assert pq.ParquetFile(tmp_path / "c.parquet").num_row_groups == -(-len(counts.words) // 7)
    _same(read_count_files([tmp_path / "c.parquet"]), counts)


def test_count_files_add_up_in_order_as_their_concatenated_corpora(tmp_path):
    first, second = "the cat sat\non the mat\n", "a dog ran\nthe dog sat\n"
    write_count_file(tmp_path / "1.parquet", _counts(first, source="1"))
    write_count_file(tmp_path / "2.parquet", _counts(second, source="2"))
    added = read_count_files([tmp_path / "1.parquet", tmp_path / "2.parquet"])
    whole = _counts(first + second)
    assert list(added.words.items()) == list(whole.words.items())
    assert added.figures == whole.figures and added.sources == ["1", "2"]


def test_count_files_of_different_settings_are_refused_naming_both(tmp_path):
    write_count_file(tmp_path / "a.parquet", _counts())
    write_count_file(tmp_path / "b.parquet", _counts(counting=Counting(("lowercase",), "byte-level")))
    with pytest.raises(
        ValueError, match=r"^the count file '.*b\.parquet' was counted with other settings"
    ) as error:
        read_count_files([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    assert "a.parquet" in str(error.value) and str(error.value).count(". ") == 0


def test_writing_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path):
    write_count_file(tmp_path / "c.parquet", _counts("one two\n"))
    write_count_file(tmp_path / "c.parquet", _counts())
    assert [path.name for path in tmp_path.iterdir()] == ["c.parquet"]
    _same(read_count_files([tmp_path / "c.parquet"]), _counts())


def test_a_word_utf8_cannot_hold_is_one_sentence_and_leaves_no_file(tmp_path):
    counts = WordCounts(
        {"a\ud800": 1},
        dict.fromkeys(("lines", "characters", "utf8_bytes", "words"), 1),
        Counting("", "whitespace"),
    )
    with pytest.raises(ValueError, match="lone surrogate"):
        write_count_file(tmp_path / "c.parquet", counts)
    assert list(tmp_path.iterdir()) == []


def _parquet(path, words, counts, metadata: dict | None | str = "valid", word_type=None, count_type=None):
    word_type, count_type = word_type or pa.string(), count_type or pa.int64()
    schema = pa.schema([("word", word_type), ("count", count_type)])
    if metadata == "valid":
        metadata = count_files._metadata(_counts("a\n"))
    if metadata is not None:
        schema = schema.with_metadata({METADATA_KEY: json.dumps(metadata)})
    pq.write_table(pa.table([pa.array(words, word_type), pa.array(counts, count_type)], schema=schema), path)
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda path: path.write_bytes(b"word\tcount\nthe\t3\n"),
            "is not a count file: it is not a Parquet file",
        ),
        (lambda path: _parquet(path, ["a"], [1], None), "is not a count file: it is Parquet, but without"),
        (
            lambda path: _parquet(path, ["a"], [1], {**count_files._metadata(_counts("a\n")), "version": 9}),
            "is not a count file of this version",
        ),
        (lambda path: _parquet(path, ["a"], [1], [1, 2]), "is damaged: its metadata is not a JSON object"),
        (
            lambda path: _parquet(path, ["a"], [1], count_type=pa.int32()),
            "its columns are word .string., count .int32.",
        ),
        (
            lambda path: _parquet(
                path,
                ["a"],
                [1],
                {**count_files._metadata(_counts("a\n")), "counting": {"pre_tokenizer": "nope"}},
            ),
            "holds settings this explorer cannot use .unknown pre-tokenizer 'nope'",
        ),
        (
            lambda path: _parquet(
                path, ["a"], [1], {**count_files._metadata(_counts("a\n")), "figures": {"lines": -1}}
            ),
            "is damaged: its figures are not",
        ),
        (lambda path: _parquet(path, ["a", None], [1, 2]), "has a row without a word or a count"),
        (lambda path: _parquet(path, ["a", "b"], [1, 0]), "a count is not between 1 and"),
        (lambda path: _parquet(path, ["a", "b"], [1, LARGEST_COUNT + 1]), "a count is not between 1 and"),
        (lambda path: _parquet(path, ["a", ""], [1, 2]), "it has an empty word"),
        (lambda path: _parquet(path, ["a", "b", "a"], [1, 2, 3]), "a word appears in more than one row"),
    ],
)
def test_a_bad_or_foreign_file_is_one_sentence_naming_it(tmp_path, make, message):
    path = tmp_path / "bad.parquet"
    make(path)
    with pytest.raises(ValueError, match=message) as error:
        read_count_files([path])
    assert "'" + str(path) + "'" in str(error.value)
    assert "\n" not in str(error.value)


def test_a_missing_file_or_a_directory_is_one_sentence(tmp_path):
    with pytest.raises(ValueError, match="the count file '.*missing.parquet' does not exist"):
        read_count_files([tmp_path / "missing.parquet"])
    with pytest.raises(ValueError, match="is a directory, not a file"):
        read_count_files([tmp_path])
    with pytest.raises(ValueError, match="no count files to read"):
        read_count_files([])


def test_a_count_file_gets_the_permissions_of_any_new_file(tmp_path):
    """Not the owner-only permissions of a temporary file: others may read what `count` writes."""
    (tmp_path / "plain").write_bytes(b"")
    write_count_file(tmp_path / "c.parquet", _counts())
    assert (tmp_path / "c.parquet").stat().st_mode == (tmp_path / "plain").stat().st_mode
