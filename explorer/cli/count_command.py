"""`python -m explorer count`: count a corpus's pre-tokenized words into a count file, or add count
files into one.

    count INPUT... --out counts.parquet   (files, directories, globs, - for stdin; .gz, .zst, JSONL, Parquet)
    count INPUT... --scheduler tcp://HOST:8786|local:N [--shard-mb MB] --out counts.parquet
    count --add FILE... --out counts.parquet

The inputs are read in chunks and counted as `train` would count them (explorer.corpora.streaming:
never the whole text at once; with `--scheduler`, in shards on a Dask cluster, explorer.corpora.cluster:
the same file), with the settings that decide the words: the pre-tokenizer (its split
pattern), the normalizers and the reading; a count file carries them, so that `train --counts` trains
with them and files counted otherwise are never added together (explorer.corpora.count_files).
`--out` is checked before any work to be writable and to name no input; it is written whole or not
at all (a temporary file renamed), so `count --add total.parquet more.parquet --out total.parquet`
is safe.

What it does not do: train (`train --counts FILE...` does), or read a corpus itself (the corpora
package reads and counts).
"""

from __future__ import annotations

import os
import sys

from explorer.checks import MB
from explorer.cli.common import (
    PRE_TOKENIZER_CHOICES,
    UserError,
    check_output_path,
    comma_separated,
    counting_line,
    positive,
    progress_printer,
    same_file,
)
from explorer.corpora.streaming import CHUNK_BYTES
from explorer.drawing.wording import plural
from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS

# The options that decide how inputs are read and counted: --add adds files counted already.
COUNTING_OPTIONS = (
    "reading",
    "text_field",
    "text_column",
    "pre_tokenizer",
    "split_pattern",
    "normalizer",
    "scheduler",
    "shard_mb",
)


def add_parser(commands) -> None:
    count = commands.add_parser(
        "count", help="count a corpus's words into a count file (Parquet), or add count files together"
    )
    count.set_defaults(run=run)
    count.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="files, directories (every file under them) or globs, in the order given, or - for stdin; "
        "plain text, .gz, .zst, .jsonl (with --text-field) or .parquet (with --text-column)",
    )
    count.add_argument(
        "--add",
        nargs="+",
        metavar="FILE",
        help="add these count files, in this order, instead of counting inputs (they must have been "
        "counted with the same settings); --out may be one of them",
    )
    count.add_argument("--out", required=True, help="the count file to write (Parquet: word, count)")
    count.add_argument(
        "--reading",
        choices=["lines-with-endings", "lines"],  # records: what JSONL and Parquet inputs are
        help="how text files are cut into sequences: lines-with-endings (default: as the library's "
        "Tokenizer.train(files) reads a file), lines (each line without its break, as "
        "train_from_iterator(lines)); JSONL and Parquet are read as records",
    )
    count.add_argument("--text-field", help="the JSON field holding each JSONL record's text")
    count.add_argument("--text-column", help="the column holding each Parquet record's text")
    count.add_argument("--pre-tokenizer", choices=PRE_TOKENIZER_CHOICES, help="default: byte-level")
    count.add_argument(
        "--split-pattern",
        choices=list(BYTE_LEVEL_PRE_TOKENIZERS),
        help="byte-level's pre-tokenization regex: gpt2 (default), cl100k (GPT-4), o200k (GPT-4o), llama3",
    )
    count.add_argument(
        "--normalizer", help="comma-separated: nfd,nfkc,lowercase,strip-accents,bert (default: none)"
    )
    count.add_argument(
        "--chunk-mb",
        type=positive(float),
        default=CHUNK_BYTES / MB,
        help=f"MB of the corpus read at once (default {CHUNK_BYTES / MB:g}): memory holds a few chunks",
    )
    count.add_argument(
        "--jobs",
        type=positive(int),
        default=os.cpu_count() or 1,
        help="threads that count a chunk on the compiled engine (default: the cores; the same counts)",
    )
    count.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="count on a Dask cluster: a scheduler's address (tcp://HOST:8786; its workers must see the "
        "inputs at the same paths) or local:N (N worker processes here); the same count file "
        "(docs/scaling.md)",
    )
    count.add_argument(
        "--shard-mb",
        type=positive(float),
        help="with --scheduler: MB of input per task (default: 4 shards per worker, 16-256 MB)",
    )
    count.add_argument(
        "--engine",
        choices=["auto", "rust", "python"],
        default=None,
        help="the engine that counts (default: $EXPLORER_ENGINE, else auto: Rust when built); both give the "
        "same counts",
    )


def run(args) -> int:
    if bool(args.inputs) == bool(args.add):
        raise UserError("give inputs to count, or --add FILE... (count files to add), not both")
    check_output_path(args.out, "--out", "counts.parquet")
    if args.add:
        given = [name for name in COUNTING_OPTIONS if getattr(args, name) is not None]
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise UserError(f"{flag} is for counting inputs: --add adds count files as they were counted")
        counts = _added(args.add)
    else:
        counts = _counted_inputs(args)
    from explorer.corpora.count_files import write_count_file

    try:
        write_count_file(args.out, counts)
    except ValueError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write --out {args.out!r}: {error.strerror or error}") from None
    figures = counts.figures
    print(
        f"{plural(len(counts.words), 'distinct word')}, {plural(figures['words'], 'word')} in "
        f"{plural(figures['lines'], 'line')} ({counts.counting.describe()}) -> {args.out}",
        file=sys.stderr,
    )
    return 0


def _added(names: list[str]):
    """The count files' counts added in order."""
    from explorer.corpora.count_files import read_count_files

    try:
        return read_count_files(names)
    except ValueError as error:
        raise UserError(str(error)) from None


def _counted_inputs(args):
    """The inputs' word counts, with the settings the options ask for."""
    from explorer.corpora.counting import Counting
    from explorer.corpora.inputs import expand_inputs, reading_of
    from explorer.training import engines

    try:
        engines.resolve(args.engine)
        inputs = expand_inputs(args.inputs, text_field=args.text_field, text_column=args.text_column)
        counting = Counting(
            () if args.normalizer is None else comma_separated(args.normalizer),
            _pre_tokenizer(args),
            reading_of(inputs, args.reading),
        )
    except ValueError as error:
        raise UserError(str(error)) from None
    for item in inputs:
        if item.path != "-" and same_file(args.out, item.path):
            raise UserError(
                f"--out {args.out!r} is the same file as the input {item.path!r}: writing it would overwrite "
                "the corpus; give --out another file name."
            )
    return _count(inputs, counting, args, max(1, int(args.chunk_mb * MB)))


def _pre_tokenizer(args) -> str:
    """The pre-tokenizer's name (byte-level's with its split pattern)."""
    pre_tokenizer = args.pre_tokenizer or "byte-level"
    if args.split_pattern is None:
        return pre_tokenizer
    if pre_tokenizer != "byte-level":
        raise UserError(
            f"--split-pattern is a byte-level setting (use --pre-tokenizer byte-level, not {pre_tokenizer})"
        )
    return BYTE_LEVEL_PRE_TOKENIZERS[args.split_pattern]


def _count(inputs, counting, args, chunk_bytes: int):
    """Count `inputs` in this process (or on the Dask cluster of --scheduler), its progress on
    stderr as bytes read of the total (on a cluster: shards counted of all, and their bytes)."""
    from explorer.corpora.streaming import count_inputs

    if args.scheduler is None and args.shard_mb is not None:
        raise UserError("--shard-mb cuts the inputs for a cluster: give --scheduler too")
    try:
        if args.scheduler is not None:
            return _count_on_cluster(inputs, counting, args)
        report, finish = progress_printer(line=counting_line)
        try:
            return count_inputs(
                inputs, counting, jobs=args.jobs, engine=args.engine, progress=report, chunk_bytes=chunk_bytes
            )
        finally:
            finish()
    except ValueError as error:
        raise UserError(str(error)) from None


def _count_on_cluster(inputs, counting, args):
    from explorer.corpora.cluster import count_on_cluster

    shards = [0, 0]  # counted, all

    def line(done: int, total: int | None) -> str:
        return f"{counting_line(done, total)}, {shards[0]:,} of {shards[1]:,} shards on {args.scheduler}"

    report, finish = progress_printer(line=line)

    def progress(shards_done: int, shards_total: int, bytes_done: int, total_bytes: int) -> None:
        shards[:] = [shards_done, shards_total]
        report(bytes_done, total_bytes)

    try:
        return count_on_cluster(
            inputs,
            counting,
            args.scheduler,
            shard_bytes=int(args.shard_mb * MB) if args.shard_mb else None,
            engine=args.engine,
            progress=progress,
        )
    finally:
        finish()
