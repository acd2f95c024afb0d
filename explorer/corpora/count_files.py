"""Count files: a corpus's word counts (`counting.WordCounts`) on disk, as Parquet.

A count file is a Parquet file with two columns, `word` (string) and `count` (int64), one row per
distinct pre-tokenized word in order of first appearance (the order that decides the trainers'
ties), written in row groups of `ROW_GROUP_ROWS` rows and compressed with zstd. Everything else is
one key of the file's key-value metadata, `METADATA_KEY`, whose value is JSON:

    {"format": "explorer-word-counts", "version": 1,
     "counting": {"normalizers": [], "pre_tokenizer": "byte-level", "reading": "lines"},
     "figures": {"lines": ..., "characters": ..., "utf8_bytes": ..., "words": ...},
     "sources": ["corpus.txt (5,242,880 bytes)", ...]}

Parquet because the field reads it: pandas (`pd.read_parquet`), DuckDB (`FROM 'counts.parquet'`),
Polars and pyarrow open it as a table of words and counts with no code of ours, and it is small
(a column of similar strings compresses well). Byte-level words are stored as the trainers consume
them, in GPT-2's byte symbols ("Ġthe"), so that a file made anywhere trains the same merges.

`write_count_file` writes a temporary file beside the target and renames it: a reader never sees
half a file. `read_count_files` checks every file before it trusts it (the format's name and
version, the columns and their types, counts above 0 and at most `LARGEST_COUNT`, words non-empty
and unique, the settings known), first the settings of all of them (so that mixed settings are
refused before any rows are read), then adds their rows in order (`counting.add_word_counts`).
`read_count_header` reads a file's settings and figures alone (its footer), as a listing does.
Each problem is a ValueError of one sentence naming the file.

What it does not do: count a corpus (explorer.corpora.streaming) or train.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator, Sequence
from contextlib import suppress
from itertools import islice
from typing import BinaryIO

from explorer.corpora.counting import Counting, WordCounts, add_word_counts
from explorer.run_config import LARGEST_COUNT
from explorer.training.word_counts import FIGURES

FORMAT = "explorer-word-counts"
VERSION = 1
METADATA_KEY = b"explorer.word_counts"
# Rows per row group: a reader holds one group at a time (about 20-40 MB of words), and a group is
# large enough that Parquet's per-group overhead stays negligible.
ROW_GROUP_ROWS = 1 << 20

CountSource = str | os.PathLike | BinaryIO


def write_count_file(path: str | os.PathLike, counts: WordCounts) -> None:
    """Write `counts` to `path` as a count file: into a temporary file beside it, renamed over
    `path` once complete. ValueError (one sentence) for a word Parquet cannot hold."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("word", pa.string()), ("count", pa.int64())]).with_metadata(
        {METADATA_KEY: json.dumps(_metadata(counts), ensure_ascii=False)}
    )
    # Beside the target (one filesystem: the rename is atomic), created as any file is (the umask's
    # permissions, not mkstemp's owner-only ones).
    folder, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(8)}.tmp")
    try:
        with pq.ParquetWriter(temporary, schema, compression="zstd") as writer:
            # A dict's keys and values iterate in the same order: one group of each at a time.
            words_left, counts_left = iter(counts.words), iter(counts.words.values())
            while words := list(islice(words_left, ROW_GROUP_ROWS)):
                word_counts = list(islice(counts_left, ROW_GROUP_ROWS))
                try:
                    columns = [pa.array(words, pa.string()), pa.array(word_counts, pa.int64())]
                except (UnicodeEncodeError, pa.ArrowInvalid):
                    raise ValueError(
                        "a word holds a character UTF-8 cannot encode (a lone surrogate): "
                        "it cannot be written to a count file"
                    ) from None
                writer.write_table(pa.Table.from_arrays(columns, schema=schema))
        os.replace(temporary, path)
    finally:
        with suppress(FileNotFoundError):
            os.remove(temporary)


def _metadata(counts: WordCounts) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "counting": counts.counting.to_dict(),
        "figures": {name: int(counts.figures.get(name, 0)) for name in FIGURES},
        "sources": list(counts.sources),
    }


def read_count_files(sources: Sequence[CountSource]) -> WordCounts:
    """The word counts of the count files `sources` (paths or binary files), added in their order:
    those of the concatenated corpora. ValueError, one sentence naming the file, for a file that is
    not a count file or is damaged, and for files counted with different settings."""
    if not sources:
        raise ValueError("no count files to read")
    headers = [_header(source) for source in sources]
    first_name, first = headers[0][0], headers[0][1]["counting"]
    for name, metadata in headers[1:]:
        if metadata["counting"] != first:
            raise ValueError(
                f"the count file {name} was counted with other settings "
                f"({metadata['counting'].describe()}) than {first_name} ({first.describe()}): "
                "count files add up only when made with the same settings"
            )
    parts = (
        _read_rows(source, name, metadata) for source, (name, metadata) in zip(sources, headers, strict=True)
    )
    # One file is its own total: add_word_counts would copy its words (as long again as reading them).
    return next(parts) if len(sources) == 1 else add_word_counts(parts)


def read_count_header(source: CountSource) -> tuple[Counting, dict[str, int]]:
    """A count file's settings and corpus figures, from its metadata alone (Parquet's footer: no
    row is read, nor checked); ValueError, one sentence naming the file, for a file that is not a
    count file of this version."""
    metadata = _header(source)[1]
    return metadata["counting"], metadata["figures"]


def _name(source: CountSource) -> str:
    name = source if isinstance(source, str | os.PathLike) else getattr(source, "name", None)
    return repr(os.fspath(name)) if name is not None else "(unnamed)"


def _header(source: CountSource) -> tuple[str, dict]:
    """The file's name (for sentences) and its metadata, checked: format, version, settings,
    figures, sources, columns and their types."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = _name(source)
    if isinstance(source, str | os.PathLike) and os.path.isdir(source):
        raise ValueError(f"the count file {name} is a directory, not a file")
    try:
        schema = pq.read_schema(source)
    except FileNotFoundError:
        raise ValueError(f"the count file {name} does not exist") from None
    except (pa.ArrowException, OSError) as error:
        if isinstance(error, PermissionError):
            raise ValueError(f"cannot read the count file {name}: permission denied") from None
        raise ValueError(f"{name} is not a count file: it is not a Parquet file") from None
    finally:
        if not isinstance(source, str | os.PathLike):
            source.seek(0)
    raw = (schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise ValueError(
            f"{name} is not a count file: it is Parquet, but without the {METADATA_KEY.decode()} metadata "
            "that `python -m explorer count` writes"
        )
    try:
        metadata = json.loads(raw)
        if not isinstance(metadata, dict):
            raise TypeError
    except (ValueError, TypeError):
        raise ValueError(f"the count file {name} is damaged: its metadata is not a JSON object") from None
    if metadata.get("format") != FORMAT or metadata.get("version") != VERSION:
        raise ValueError(
            f"{name} is not a count file of this version (format {metadata.get('format')!r}, version "
            f"{metadata.get('version')!r}; this explorer reads {FORMAT!r} version {VERSION})"
        )
    types = {field.name: field.type for field in schema}
    if (
        list(types) != ["word", "count"]
        or types["word"] not in (pa.string(), pa.large_string())
        or types["count"] != pa.int64()
    ):
        found = ", ".join(f"{column} ({kind})" for column, kind in types.items())
        raise ValueError(
            f"the count file {name} is damaged: its columns are {found}, not word (string) and count (int64)"
        )
    try:
        counting = Counting.from_dict(metadata["counting"])  # known names only
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"the count file {name} holds settings this explorer cannot use ({error})") from None
    figures, sources = metadata.get("figures"), metadata.get("sources")
    if (
        not isinstance(figures, dict)
        or set(figures) != set(FIGURES)
        or not all(type(value) is int and value >= 0 for value in figures.values())
        or not isinstance(sources, list)
        or not all(isinstance(item, str) for item in sources)
    ):
        raise ValueError(
            f"the count file {name} is damaged: its figures are not {', '.join(FIGURES)} as counts, "
            "or its sources not a list of names"
        )
    return name, {"counting": counting, "figures": {key: figures[key] for key in FIGURES}, "sources": sources}


def _read_rows(source: CountSource, name: str, metadata: dict) -> WordCounts:
    """The file's rows as a dict word -> count, checked row group by row group."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    words: dict[str, int] = {}
    rows = 0
    try:
        with pq.ParquetFile(source) as parquet:
            for group in _row_groups(parquet):
                word, count = group.column("word"), group.column("count")
                if word.null_count or count.null_count:
                    raise ValueError(
                        f"the count file {name} is damaged: it has a row without a word or a count"
                    )
                if len(group) and (pc.min(count).as_py() < 1 or pc.max(count).as_py() > LARGEST_COUNT):
                    raise ValueError(
                        f"the count file {name} is damaged: a count is not between 1 and {LARGEST_COUNT:,}"
                    )
                if len(group) and pc.min(pc.binary_length(word)).as_py() == 0:
                    raise ValueError(f"the count file {name} is damaged: it has an empty word")
                words.update(zip(word.to_pylist(), count.to_numpy().tolist(), strict=True))
                rows += len(group)
    except (pa.ArrowException, OSError) as error:
        raise ValueError(f"cannot read the count file {name}: it is damaged ({error})") from None
    if len(words) != rows:
        raise ValueError(f"the count file {name} is damaged: a word appears in more than one row")
    return WordCounts(words, metadata["figures"], metadata["counting"], metadata["sources"])


def _row_groups(parquet) -> Iterator:
    for index in range(parquet.num_row_groups):
        yield parquet.read_row_group(index, columns=["word", "count"])
