"""explorer.corpora.inputs and explorer.corpora.streaming: a corpus's files read in chunks give the
counts of their text, whatever the chunk and shard sizes, compression or record format.

- shards of every size added in order equal the whole count, for chunks down to one byte (a chunk
  smaller than a line), on both engines; several inputs count as their concatenation;
- gzip and zstd files count as the text they hold, JSONL and Parquet as their records;
- directories and globs expand in sorted order; every bad input is one sentence;
- Stop while counting; progress in bytes read of the total; memory a few chunks, not the corpus.
"""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc

import pytest
import zstandard

from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting, WordCounts, add_word_counts
from explorer.corpora.inputs import CorpusInput, expand_inputs, reading_of
from explorer.corpora.streaming import CountingStopped, Shard, count_inputs, count_shard, shards
from explorer.training.word_counts import count_corpus
from tests.helpers.engines import built_engines

# Line breaks of both kinds, a "\r" alone, blank lines, multi-byte characters (cut by tiny chunks)
# and no line break at the end.
TEXT = "The cat sat.\r\n\r\nthe cat  ran\n\n naïve 日本語 😀\rend\nlast line, no break"
RECORDS = ["first record\nwith two lines", "", "😀 second\u2028line separator", "the cat sat"]


def settled(counts: WordCounts) -> tuple[list, dict]:
    """What must be equal: the words in order with their counts, and the figures."""
    return list(counts.words.items()), counts.figures


def text_input(tmp_path, text: str = TEXT, name: str = "corpus.txt") -> CorpusInput:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return expand_inputs([str(path)])[0]


@pytest.mark.parametrize("engine", built_engines())
@pytest.mark.parametrize("reading", ["lines", "lines-with-endings"])
def test_shards_of_every_size_add_up_to_the_whole_count(tmp_path, engine, reading):
    counting = Counting(reading=reading)
    inputs = [text_input(tmp_path)]
    whole = count_inputs(inputs, counting, engine=engine)
    for chunk_bytes in (1, 7, 4096):
        assert settled(count_inputs(inputs, counting, engine=engine, chunk_bytes=chunk_bytes)) == settled(
            whole
        )
    for shard_bytes in (1, 3, 7, 20, 1 << 20):
        cut = shards(inputs, shard_bytes)
        assert all(shard.end is None or TEXT.encode()[shard.end - 1] == ord("\n") for shard in cut)
        added = add_word_counts(count_shard(shard, counting, engine=engine) for shard in cut)
        assert settled(added) == settled(whole), shard_bytes
    if reading == "lines":  # today's reading: what count_corpus gives on the text
        assert (list(whole.words.items()), whole.figures) == tuple(
            [list(count_corpus(TEXT, engine=engine)[0].items()), count_corpus(TEXT, engine=engine)[1]]
        )


def test_the_line_readings_keep_or_drop_the_line_endings(tmp_path):
    inputs = [text_input(tmp_path, "a\r\n\nb")]
    with_endings = count_inputs(inputs, Counting(reading="lines-with-endings"), engine="python")
    assert list(with_endings.words) == ["a", "čĊ", "Ċ", "b"]
    assert list(count_inputs(inputs, Counting(reading="lines"), engine="python").words) == ["a", "b"]


@pytest.mark.parametrize("reading", ["lines", "lines-with-endings"])
def test_several_inputs_count_as_their_concatenation(tmp_path, reading):
    parts = ["one two\r\nthree\n", "\n", "four 😀 two\nfive"]
    counting = Counting(reading=reading)
    inputs = [text_input(tmp_path, part, f"{index}.txt") for index, part in enumerate(parts)]
    joined = [text_input(tmp_path, "".join(parts), "joined.txt")]
    assert settled(count_inputs(inputs, counting)) == settled(count_inputs(joined, counting))
    for shard_bytes in (1, 5, 100):  # the shards of several inputs add up to them too
        added = add_word_counts(count_shard(shard, counting) for shard in shards(inputs, shard_bytes))
        assert settled(added) == settled(count_inputs(joined, counting))
    assert count_inputs(inputs, counting).sources == [item.path for item in inputs]


def test_gzip_and_zstd_files_count_as_the_text_they_hold(tmp_path):
    (tmp_path / "c.txt.gz").write_bytes(gzip.compress(TEXT.encode()))
    (tmp_path / "c.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(TEXT.encode()))
    counting = Counting(reading="lines-with-endings")
    plain = settled(count_inputs([text_input(tmp_path)], counting))
    for name, compression in (("c.txt.gz", "gzip"), ("c.txt.zst", "zstd")):
        [item] = expand_inputs([str(tmp_path / name)])
        assert item.compression == compression
        assert shards([item], 1) == [Shard(item)]  # a compressed file is one shard
        assert settled(count_inputs([item], counting, chunk_bytes=5)) == plain


def records_counts(texts: list[str]) -> WordCounts:
    counter = ChunkCounter(Counting(reading="records"))
    counter.add_records([text for text in texts])
    return counter.result()


def test_jsonl_and_parquet_count_as_their_records(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = [
        json.dumps({"id": index, "text": text}, ensure_ascii=False) for index, text in enumerate(RECORDS)
    ]
    (tmp_path / "r.jsonl").write_text(
        "\r\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:]), encoding="utf-8"
    )
    (tmp_path / "r.jsonl.gz").write_bytes(gzip.compress("\n".join(lines).encode()))
    pq.write_table(pa.table({"id": range(4), "text": RECORDS}), tmp_path / "r.parquet", row_group_size=3)
    expected = settled(records_counts(RECORDS))
    counting = Counting(reading="records")
    for name in ("r.jsonl", "r.jsonl.gz", "r.parquet"):
        inputs = expand_inputs([str(tmp_path / name)], text_field="text", text_column="text")
        assert reading_of(inputs) == "records"
        assert settled(count_inputs(inputs, counting, chunk_bytes=9)) == expected, name
        added = add_word_counts(count_shard(shard, counting) for shard in shards(inputs, 10))
        assert settled(added) == expected, name


def test_directories_and_globs_expand_in_sorted_order(tmp_path):
    for name in ("b/2.txt", "b/10.txt", "a.txt", "b/c/1.txt", "b/.hidden", ".git/x.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    paths = [item.path for item in expand_inputs([str(tmp_path / "b"), str(tmp_path / "*.txt")])]
    assert [path.removeprefix(str(tmp_path) + "/") for path in paths] == [
        "b/10.txt",
        "b/2.txt",
        "b/c/1.txt",
        "a.txt",
    ]
    assert [item.path for item in expand_inputs([str(tmp_path)])][0].endswith("a.txt")


def bad_input_sentence(tmp_path, names: list[str], **fields) -> str:
    with pytest.raises(ValueError) as error:
        inputs = expand_inputs([str(tmp_path / name) if name != "-" else name for name in names], **fields)
        count_inputs(inputs, Counting(reading=reading_of(inputs)))
    message = str(error.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_every_bad_input_is_one_sentence(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "latin1.txt").write_bytes("good line\ncaf\xe9\n".encode("latin-1"))
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": \n')
    (tmp_path / "list.jsonl").write_text('{"text": "a"}\n[1]\n')
    (tmp_path / "nofield.jsonl").write_text('{"text": "a"}\n\n{"body": "b"}\n')
    (tmp_path / "number.jsonl").write_text('{"text": 3}\n')
    (tmp_path / "empty").mkdir()
    (tmp_path / "a.txt").write_text("a\n")
    pq.write_table(pa.table({"text": ["a", None]}), tmp_path / "null.parquet")
    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "numbers.parquet")
    (tmp_path / "fake.txt.gz").write_bytes(b"not gzip at all\n")
    (tmp_path / "utf16.txt").write_bytes("hello\n".encode("utf-16"))
    sentences = {
        ("missing.txt",): "the corpus file '{}/missing.txt' does not exist",
        ("nothing*.txt",): "no file matches '{}/nothing*.txt'",
        ("empty",): "the directory '{}/empty' holds no files",
        (
            "latin1.txt",
        ): "the byte at offset 13 (0xe9, 'é' in Latin-1/Windows-1252) is not part of a UTF-8 character",
        ("bad.jsonl",): "{}/bad.jsonl:2 is not a JSON record",
        ("list.jsonl",): "{}/list.jsonl:2 is a JSON list, not a record with a 'text' field",
        ("nofield.jsonl",): "{}/nofield.jsonl:3 has no 'text' field (its fields: body)",
        ("number.jsonl",): "{}/number.jsonl:1: the field 'text' holds a JSON int, not text",
        ("null.parquet",): "row 1 of the column 'text' of '{}/null.parquet' is null",
        ("numbers.parquet",): "the column 'text' of '{}/numbers.parquet' holds int64, not text",
        ("fake.txt.gz",): "'{}/fake.txt.gz' is not a gzip file",
        ("utf16.txt",): "is not UTF-8: it is UTF-16",
        ("a.txt", "bad.jsonl"): "'{0}/a.txt' is text and '{0}/bad.jsonl' holds records",
        ("-", "-"): "stdin (-) can be read only once",
    }
    for names, sentence in sentences.items():
        assert sentence.format(tmp_path) in bad_input_sentence(
            tmp_path, list(names), text_field="text", text_column="text"
        )
    assert "name the field that holds their text (--text-field)" in bad_input_sentence(
        tmp_path, ["bad.jsonl"]
    )
    no_column = bad_input_sentence(tmp_path, ["null.parquet"])
    assert "name the column that holds its text (--text-column)" in no_column
    assert "has no column 'body' (its columns: text)" in bad_input_sentence(
        tmp_path, ["null.parquet"], text_column="body"
    )


def test_a_chunk_becomes_text_a_piece_of_whole_lines_at_a_time(tmp_path, monkeypatch):
    counting = Counting(reading="lines-with-endings")
    whole = settled(count_inputs([text_input(tmp_path)], counting))
    handed: list[str] = []
    add_text = ChunkCounter.add_text
    monkeypatch.setattr(
        ChunkCounter, "add_text", lambda counter, text: handed.append(text) or add_text(counter, text)
    )
    monkeypatch.setattr("explorer.corpora.streaming.DECODE_BYTES", 5)
    assert settled(count_inputs([text_input(tmp_path)], counting)) == whole
    assert "".join(handed) == TEXT and len(handed) > 1
    for piece in handed[:-1]:  # whole lines, cut at the first break at or after 5 bytes
        assert piece.endswith("\n") and len(piece[:-1].rpartition("\n")[0].encode()) < 5
    bad = text_input(tmp_path, "", "latin1.txt")
    bad_path = tmp_path / "latin1.txt"
    bad_path.write_bytes(b"good line\n" * 10 + "caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match="the byte at offset 103 "):
        count_inputs([bad], counting)


class Stdin:
    """sys.stdin with a binary buffer, as a pipe gives it."""

    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


def test_stdin_is_read_in_chunks_with_an_unknown_total(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stdin", Stdin(TEXT.encode()))
    seen = []
    inputs = expand_inputs(["-"])
    assert inputs == [CorpusInput("-")] and shards(inputs, 1) == [Shard(inputs[0])]
    counting = Counting(reading="lines-with-endings")
    counted = count_inputs(
        inputs, counting, chunk_bytes=8, progress=lambda done, total: seen.append((done, total))
    )
    assert settled(counted) == settled(count_inputs([text_input(tmp_path)], counting))
    assert seen[-1] == (len(TEXT.encode()), None) and all(total is None for _, total in seen)


def test_stop_while_counting_and_progress_in_bytes_of_the_total(tmp_path):
    (tmp_path / "big.txt.gz").write_bytes(gzip.compress((TEXT + "\n").encode() * 200))
    inputs = [text_input(tmp_path), *expand_inputs([str(tmp_path / "big.txt.gz")])]
    total = sum(item.size or 0 for item in inputs)
    seen: list[tuple[int, int | None]] = []
    count_inputs(inputs, Counting(), chunk_bytes=64, progress=lambda done, whole: seen.append((done, whole)))
    assert seen[-1] == (total, total)  # compressed bytes, all of them, of the files' size on disk
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    asked = []

    def stop_at_third() -> bool:
        asked.append(1)
        return len(asked) == 3

    with pytest.raises(CountingStopped):
        count_inputs(inputs, Counting(), chunk_bytes=64, should_stop=stop_at_third)
    assert len(asked) == 3  # no chunk was counted after Stop


def test_counting_holds_a_few_chunks_not_the_corpus(tmp_path):
    # 10 MB counted on the Python engine in chunks of 512 KB (long words: the counting is fast).
    line = "".join(f"{chr(97 + index % 26) * 300} {index % 7}\n" for index in range(2000)).encode()
    path = tmp_path / "large.txt"
    with path.open("wb") as file:
        while file.tell() < 10 << 20:
            file.write(line)
    chunk_bytes = 512 << 10
    tracemalloc.start()
    try:
        counted = count_inputs(
            expand_inputs([str(path)]), Counting(), engine="python", chunk_bytes=chunk_bytes
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counted.figures["utf8_bytes"] > 9 << 20
    assert peak < 6 * chunk_bytes, f"peak {peak:,} bytes for chunks of {chunk_bytes:,}"
