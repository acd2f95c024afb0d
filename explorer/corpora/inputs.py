"""A corpus's inputs: the files (and stdin) that names on a command line stand for, each with what
it holds and how it is compressed, and the reading (`explorer.run_config.READINGS`) they ask for.

`expand_inputs(names)` turns names into `CorpusInput`s, in the order given: a file is itself, a
directory is every file under it (recursively, sorted by path; hidden files and folders, whose
names start with ".", left out), a glob is its matches (sorted), "-" is stdin. A file's kind comes
from its name: `.jsonl` / `.ndjson` records (their text in a JSON field), `.parquet` records (their
text in a column), anything else plain text; `.gz` and `.zst` after it say how it is compressed.
`reading_of(inputs, asked)` is the reading a run uses: records for JSONL and Parquet, else the
one asked for (by default each line with its ending, as `tokenizers`' `Tokenizer.train(files)`
reads a file).

Every input a user can get wrong is a ValueError of one sentence: a name that matches nothing, a
directory without files, records without their field or column, text mixed with records.

What it does not do: read the files (explorer.corpora.streaming does), or check that a file is
UTF-8 (the reader does, as it reads).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path

KINDS = ("text", "jsonl", "parquet")
COMPRESSIONS = {".gz": "gzip", ".zst": "zstd"}
RECORD_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
STDIN = "-"
# The reading of text files when none is asked for: what `Tokenizer.train(files)` does.
DEFAULT_TEXT_READING = "lines-with-endings"


@dataclass(frozen=True)
class CorpusInput:
    """One input of a corpus: a file (or stdin, path "-"), what it holds, how it is compressed,
    its size in bytes on disk (None for stdin or a pipe: unknown), and for records the JSON field or
    Parquet column that holds each record's text."""

    path: str
    kind: str = "text"
    compression: str | None = None
    size: int | None = None
    field: str | None = None

    @property
    def is_records(self) -> bool:
        return self.kind != "text"

    def describe(self) -> str:
        """The input as a sentence names it."""
        return "stdin" if self.path == STDIN else self.path


def kind_of(path: str) -> tuple[str, str | None]:
    """(kind, compression) of a file, from its name: "c.jsonl.gz" -> ("jsonl", "gzip")."""
    name = Path(path.lower())
    compression = COMPRESSIONS.get(name.suffix)
    if compression is not None:
        name = name.with_suffix("")
    return RECORD_SUFFIXES.get(name.suffix, "text"), compression


def expand_inputs(
    names: list[str], *, text_field: str | None = None, text_column: str | None = None
) -> list[CorpusInput]:
    """The inputs that `names` stand for, in order (directories and globs expanded, sorted); a
    ValueError of one sentence for a name that is no input."""
    if not names:
        raise ValueError("no corpus given: name one or more files, directories or globs (- for stdin)")
    if names.count(STDIN) > 1:
        raise ValueError("stdin (-) can be read only once: name it once")
    inputs = []
    for name in names:
        for path in _paths(name):
            inputs.append(_input(path, text_field, text_column))
    return inputs


def _paths(name: str) -> list[str]:
    """The files a name stands for."""
    if name == STDIN or os.path.isfile(name):
        return [name]
    if os.path.exists(name) and not os.path.isdir(name):  # a pipe (`<(zcat c.gz)`) or a device
        return [name]
    if os.path.isdir(name):
        found = sorted(
            os.path.join(folder, file)
            for folder, folders, files in os.walk(name)
            for file in files
            if not file.startswith(".")
            and not any(part.startswith(".") for part in Path(folder).relative_to(name).parts)
        )
        if not found:
            raise ValueError(f"the directory {name!r} holds no files")
        return found
    if glob.has_magic(name):
        matches = sorted(path for path in glob.glob(name, recursive=True) if os.path.isfile(path))
        if not matches:
            raise ValueError(f"no file matches {name!r}")
        return matches
    raise ValueError(f"the corpus file {name!r} does not exist")


def _input(path: str, text_field: str | None, text_column: str | None) -> CorpusInput:
    if path == STDIN:
        return CorpusInput(STDIN)
    kind, compression = kind_of(path)
    field = None
    if kind == "jsonl":
        if not text_field:
            raise ValueError(
                f"{path!r} holds JSON records: name the field that holds their text (--text-field)"
            )
        field = text_field
    elif kind == "parquet":
        if compression is not None:
            raise ValueError(f"{path!r} is a compressed Parquet file: decompress it first")
        if not text_column:
            raise ValueError(
                f"{path!r} is a Parquet file: name the column that holds its text (--text-column)"
            )
        field = text_column
    size = os.path.getsize(path) if os.path.isfile(path) else None  # a pipe's size is unknown
    return CorpusInput(path, kind, compression, size, field)


def total_size(inputs: list[CorpusInput]) -> int | None:
    """The inputs' size on disk in bytes (None when one is stdin: unknown before it is read)."""
    sizes = [item.size for item in inputs]
    return None if None in sizes else sum(size for size in sizes if size is not None)


def reading_of(inputs: list[CorpusInput], asked: str | None = None) -> str:
    """The reading of a run on `inputs`: "records" for JSONL and Parquet, else `asked` (None:
    `DEFAULT_TEXT_READING`). A ValueError of one sentence for text mixed with records, or a line
    reading asked of records."""
    records = [item for item in inputs if item.is_records]
    if not records:
        if asked == "records":
            raise ValueError("the reading 'records' is for JSONL and Parquet files; these inputs are text")
        return asked or DEFAULT_TEXT_READING
    text = [item for item in inputs if not item.is_records]
    if text:
        raise ValueError(
            f"{text[0].describe()!r} is text and {records[0].describe()!r} holds records: "
            "train on one kind of input at a time"
        )
    if asked not in (None, "records"):
        raise ValueError(f"JSONL and Parquet records are read as records, one sequence each, not {asked!r}")
    return "records"
