"""Reading a corpus's inputs in chunks and counting their words, never holding the whole text.

A text input (plain, gzip or zstd) is read as binary chunks of about `chunk_bytes`, each cut just
after its last "\\n" (the rest is carried into the next, so a line longer than a chunk still arrives
whole), decoded as strict UTF-8 and handed to the counter (`explorer.corpora.counter.ChunkCounter`)
as whole lines; the input's last line goes on its own, with or without a line break, so that the
next input starts a new line. A JSONL input is read the same way and each line parsed as a record;
a Parquet input is read in batches of its text column. Memory is the distinct words and a few
chunks, whatever the corpus's size, on both engines.

`shards(inputs, shard_bytes)` cuts the inputs into `Shard`s that count apart (a byte range of a
plain file, cut just after a "\\n"; a compressed or Parquet file, or stdin, whole), and
`count_shard` counts one: the counts of all shards added in order (`add_word_counts`) are
`count_inputs(inputs)`, word for word, in the same order, with the same figures; several inputs
count as their concatenation when each ends with a line break.

`count_inputs` reports its progress as bytes read of the total on disk (compressed bytes for a
compressed file; the total is None with stdin) and asks `should_stop()` between chunks, raising
`CountingStopped` when it says yes.

Every problem with a file's content is a ValueError of one sentence naming the file and where:
bytes that are not UTF-8 (their offset), a JSONL line that is not a record with a text field
(file:line), a Parquet value that is null or not text (its row).

What it does not do: find the inputs (explorer.corpora.inputs), count words (the counter), or train.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from explorer.checks import InputError
from explorer.checks.corpus_file import check_upload_start
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting, WordCounts
from explorer.corpora.inputs import STDIN, CorpusInput, total_size

# Read at once: memory holds a few of these, not the corpus. Training BPE 32,000 on 100 MB of prose
# through the CLI peaked at 72 MB with chunks of 4 MB, 125 MB with 1 MB and 162 MB with 16 MB.
CHUNK_BYTES = 4 << 20
# A chunk's bytes become text a piece of about this size at a time: a str takes up to 4 bytes a
# character (one character above U+FFFF is enough), and the compiled counter's UTF-8 view of it
# one more, so a chunk decoded whole was 24 MB, a piece is 6. At least 1 MB, so that the compiled
# counter still gives its freed memory back after each piece (engine/src/lib.rs TRIM_BYTES).
DECODE_BYTES = 1 << 20
_SCAN_BYTES = 1 << 16  # what is read at a time while looking for a line break to cut a shard at
_UTF8_BOM = "\ufeff"
_PARQUET_BATCH_ROWS = 1 << 16  # the most rows of a Parquet batch


class CountingStopped(Exception):
    """`should_stop()` said yes while the inputs were being counted."""


@dataclass(frozen=True)
class Shard:
    """A part of an input that counts on its own: bytes `start` to `end` (None: to the end) of a
    plain file, `start` 0 (or just after a "\\n") and `end` just after a "\\n"."""

    input: CorpusInput
    start: int = 0
    end: int | None = None

    def describe(self) -> str:
        if self.start == 0 and self.end is None:
            return self.input.describe()
        end = "end" if self.end is None else f"{self.end:,}"
        return f"{self.input.describe()} bytes {self.start:,}-{end}"


def shards(inputs: list[CorpusInput], shard_bytes: int) -> list[Shard]:
    """The inputs cut into shards of about `shard_bytes` (more: up to the next line break), in
    order. A compressed or Parquet file, and stdin, is one shard."""
    if shard_bytes < 1:
        raise ValueError("a shard must hold at least one byte")
    cut: list[Shard] = []
    for item in inputs:
        size = item.size
        if size is None or item.compression or item.kind == "parquet" or size <= shard_bytes:
            cut.append(Shard(item))
            continue
        with _opened(item) as file:
            start = 0
            while start < size:
                end = _line_end_after(file, start + shard_bytes, size)
                cut.append(Shard(item, start, None if end >= size else end))
                start = end
    return cut


def _line_end_after(file: BinaryIO, target: int, size: int) -> int:
    """The first position at or after `target` just after a "\\n" (`size` when there is none)."""
    if target >= size:
        return size
    file.seek(target - 1)
    position = target - 1
    while block := file.read(_SCAN_BYTES):
        found = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)
    return size


def count_shard(shard: Shard, counting: Counting, *, engine: str | None = None) -> WordCounts:
    """The word counts of one shard."""
    return _count([shard], counting, jobs=1, engine=engine)


def count_inputs(
    inputs: list[CorpusInput],
    counting: Counting,
    *,
    jobs: int = 1,
    engine: str | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    first_text: Callable[[str], None] | None = None,
) -> WordCounts:
    """The word counts of the inputs, in order, read in chunks of `chunk_bytes`: the counts of
    their concatenation. `progress(bytes_read, total_bytes)` after each chunk; `should_stop()`
    before each (CountingStopped when it says yes); `first_text(text)` once, with the first chunk
    of text (not of records), for checks that look at a sample of the corpus."""
    return _count(
        [Shard(item) for item in inputs],
        counting,
        jobs=jobs,
        engine=engine,
        progress=progress,
        should_stop=should_stop,
        chunk_bytes=chunk_bytes,
        total=total_size(inputs),
        first_text=first_text,
    )


def _count(
    parts: list[Shard],
    counting: Counting,
    *,
    jobs: int,
    engine: str | None,
    progress: Callable[[int, int | None], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    total: int | None = None,
    first_text: Callable[[str], None] | None = None,
) -> WordCounts:
    if chunk_bytes < 1:
        raise ValueError("a chunk must hold at least one byte")
    counter = ChunkCounter(counting, jobs=jobs, engine=engine)
    done = 0  # bytes of the shards read before this one
    for shard in parts:
        _check_reading(shard.input, counting.reading)
        read = 0
        for piece, read in _pieces(shard, counting.reading, chunk_bytes):
            if should_stop is not None and should_stop():
                raise CountingStopped(f"stopped while counting {shard.input.describe()}")
            if isinstance(piece, str):
                if first_text is not None:
                    first_text(piece)
                    first_text = None
                counter.add_text(piece)
            else:
                counter.add_records(piece)
            del piece  # counted: gone before the next piece is decoded
            if progress is not None:
                progress(done + read, total)
        done += read
    counts = counter.result()
    counts.sources = [shard.describe() for shard in parts]
    return counts


def _check_reading(item: CorpusInput, reading: str) -> None:
    if item.is_records != (reading == "records"):
        raise ValueError(
            f"{item.describe()!r} holds {'records' if item.is_records else 'text'}: "
            f"it cannot be read with the reading {reading!r}"
        )


def _pieces(shard: Shard, reading: str, chunk_bytes: int) -> Iterator[tuple[str | list[str], int]]:
    """(text of whole lines, or a list of records' texts; bytes of the input read so far)."""
    if shard.input.kind == "parquet":
        yield from _parquet_batches(shard.input, chunk_bytes)
        return
    lines = _text_chunks(shard, chunk_bytes, strip_bom=reading == "lines")
    if shard.input.kind == "jsonl":
        yield from _jsonl_records(shard, lines)
    else:
        yield from lines


@contextmanager
def _opened(item: CorpusInput) -> Iterator[BinaryIO]:
    """The raw bytes of an input (stdin: its binary stream, left open)."""
    if item.path == STDIN:
        yield sys.stdin.buffer
        return
    try:
        file = open(item.path, "rb")  # noqa: SIM115 (closed below)
    except OSError as error:
        raise ValueError(f"cannot read {item.path!r}: {error.strerror or error}") from None
    with file:
        yield file


def _text_chunks(shard: Shard, chunk_bytes: int, strip_bom: bool) -> Iterator[tuple[str, int]]:
    """(text, bytes of the input read so far) for each chunk of whole lines of the shard; the
    last may lack its line break."""
    item = shard.input
    with _opened(item) as raw:
        if shard.start:
            raw.seek(shard.start)
        stream = _decompressed(raw, item)
        left = None if shard.end is None else shard.end - shard.start
        pending = bytearray()
        offset = shard.start  # of `pending`'s first byte
        first = shard.start == 0
        read = 0  # bytes read from the stream (decompressed)
        while left is None or left > 0:
            block = _read(stream, item, chunk_bytes if left is None else min(chunk_bytes, left))
            if not block:
                break
            read += len(block)
            if left is not None:
                left -= len(block)
            if first:
                _check_start(block, item)
                first = False
            pending += block
            del block  # in `pending` now: one copy of the chunk, not two
            cut = pending.rfind(b"\n") + 1
            if cut:
                position = _position(raw, item, shard, read)
                yield from _decoded_pieces(pending, cut, offset, item, strip_bom, position)
                del pending[:cut]
                offset += cut
        if pending:
            position = _position(raw, item, shard, read)
            yield from _decoded_pieces(pending, len(pending), offset, item, strip_bom, position)


def _without_bom(text: str, offset: int, strip_bom: bool) -> str:
    """The reading "lines" (today's, the app's) drops a byte order mark at the start of a file, as
    the app's upload does; `Tokenizer.train(files)` keeps it (it is the character U+FEFF)."""
    return text[1:] if strip_bom and offset == 0 and text.startswith(_UTF8_BOM) else text


def _position(raw: BinaryIO, item: CorpusInput, shard: Shard, read: int) -> int:
    """Bytes of the input on disk read so far: `read` (the bytes read from `raw`), or for a
    compressed file the compressed bytes its decompressor has taken."""
    return raw.tell() - shard.start if item.compression else read


def _decompressed(raw: BinaryIO, item: CorpusInput) -> BinaryIO:
    if item.compression == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if item.compression == "zstd":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=False)
    return raw


def _read(stream: BinaryIO, item: CorpusInput, size: int) -> bytes:
    errors: tuple[type[BaseException], ...] = (OSError, EOFError)  # gzip.BadGzipFile is an OSError
    if item.compression == "zstd":
        import zstandard

        errors += (zstandard.ZstdError,)
    try:
        return stream.read(size)
    except errors as error:
        what = f"a {item.compression} file" if item.compression else "a readable file"
        raise ValueError(f"{item.describe()!r} is not {what}: {error}") from None


def _check_start(block: bytes, item: CorpusInput) -> None:
    """The first bytes of a file show it is no UTF-8 text (UTF-16, a PDF, gzip under a .txt name,
    binary data): the sentence the app's upload gives."""
    try:
        check_upload_start(block, item.describe())
    except InputError as error:
        raise ValueError(str(error)) from None


def _decoded_pieces(
    data: bytearray, end: int, offset: int, item: CorpusInput, strip_bom: bool, position: int
) -> Iterator[tuple[str, int]]:
    """(text, `position`) for each piece of `data[:end]` (whole lines, `offset` its first byte's in
    the input) of about `DECODE_BYTES`, cut just after a "\n" (so never inside a character). No
    name here holds a piece once it is yielded: the next is decoded after the caller let go."""
    start = 0
    while start < end:
        stop = data.find(b"\n", start + DECODE_BYTES - 1, end) + 1 or end
        yield _without_bom(_decoded(data, start, stop, offset, item), offset + start, strip_bom), position
        start = stop


def _decoded(data: bytearray, start: int, end: int, offset: int, item: CorpusInput) -> str:
    try:
        with memoryview(data) as view:  # decoded in place: no copy of the chunk's bytes
            return str(view[start:end], "utf-8")
    except UnicodeDecodeError as error:
        where = "of its decompressed text " if item.compression else ""
        bad = start + error.start  # in `data`
        byte = data[bad]
        latin1 = bytes([byte]).decode("cp1252", errors="replace")
        raise ValueError(
            f"{item.describe()!r} is not UTF-8 text: the byte at offset {offset + bad:,} {where}"
            f"(0x{byte:02x}, {latin1!r} in Latin-1/Windows-1252) is not part of a UTF-8 character; "
            "save it as UTF-8"
        ) from None


def _jsonl_records(shard: Shard, chunks: Iterator[tuple[str, int]]) -> Iterator[tuple[list[str], int]]:
    """Each chunk's records' texts: a line (cut at "\n" only: a JSON string may hold U+2028,
    which `str.splitlines` would cut at) is one JSON object whose field holds a string; blank
    lines are skipped."""
    item = shard.input
    field = item.field or ""
    before = 0  # lines before the chunk's first, counted from the shard's start
    for text, read in chunks:
        lines = text.split("\n")
        if not lines[-1]:
            lines.pop()
        texts = [
            _record_text(line, field, item, _where(shard, before + index))
            for index, line in enumerate(lines, start=1)
            if line.strip()
        ]
        before += len(lines)
        yield texts, read


def _where(shard: Shard, number: int) -> str:
    where = f"{shard.input.describe()}:{number}"
    return (
        where if shard.start == 0 else f"line {number} after byte {shard.start:,} of {shard.input.describe()}"
    )


def _record_text(line: str, field: str, item: CorpusInput, where: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"{where} is not a JSON record: {error.msg}") from None
    if not isinstance(record, dict):
        raise ValueError(f"{where} is a JSON {type(record).__name__}, not a record with a {field!r} field")
    if field not in record:
        raise ValueError(
            f"{where} has no {field!r} field (its fields: {', '.join(map(str, record)) or 'none'})"
        )
    text = record[field]
    if not isinstance(text, str):
        raise ValueError(f"{where}: the field {field!r} holds {_json_kind(text)}, not text")
    return text


def _json_kind(value) -> str:
    return "null" if value is None else f"a JSON {type(value).__name__}"


def _parquet_batches(item: CorpusInput, chunk_bytes: int) -> Iterator[tuple[list[str], int]]:
    """The texts of a Parquet file's column, in batches of about `chunk_bytes` on disk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    column = item.field or ""
    try:
        parquet = pq.ParquetFile(item.path)
    except (OSError, pa.ArrowException) as error:
        raise ValueError(f"{item.path!r} is not a Parquet file: {error}") from None
    with parquet:
        names = parquet.schema_arrow.names
        if column not in names:
            raise ValueError(f"{item.path!r} has no column {column!r} (its columns: {', '.join(names)})")
        kind = parquet.schema_arrow.field(column).type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)):
            raise ValueError(f"the column {column!r} of {item.path!r} holds {kind}, not text")
        rows = parquet.metadata.num_rows
        size = item.size or 0
        per_row = max(1, size // max(1, rows))
        batch_rows = max(1, min(_PARQUET_BATCH_ROWS, chunk_bytes // per_row))
        done = 0
        for batch in parquet.iter_batches(batch_size=batch_rows, columns=[column]):
            values = batch.column(0)
            if values.null_count:
                first_null = values.is_null().to_pylist().index(True)
                raise ValueError(
                    f"row {done + first_null:,} of the column {column!r} of {item.path!r} is null"
                )
            done += len(values)
            yield values.to_pylist(), size * done // max(1, rows)
