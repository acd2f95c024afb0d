"""What every command of `python -m explorer` shares: its one kind of error, reading files, parsing
argument values, printing warnings and progress, and loading the tokenizer a command names.

Every JSON file a command reads goes through `read_json_text` (the bounded reader,
explorer.checks.json_text), so a file nested too deep is the same sentence in every command.

`UserError` is a problem with the user's input: `main` prints it as one line and exits with
status 2. Everything here that can fail on a user's input raises it, with a message that already
says everything (hence `from None`: the chained traceback would add nothing).

What it does not do: define commands (explorer.cli.train_command, encode, decode, compare) or parse the
command line (explorer.cli.main).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from array import array
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

EXIT_USAGE = 2
PRE_TOKENIZER_CHOICES = ["byte-level", "bert", "whitespace", "whitespace-split", "metaspace"]  # train, count
# A bound on every file the CLI reads whole (a tokenizer file, a corpus to compare on, stdin; a
# corpus to train on is streamed, explorer.corpora.streaming, and has no bound but --max-corpus-mb):
# far above what a command needs, and what keeps `compare --corpus /dev/urandom`-like input from
# filling memory. EXPLORER_CLI_MAX_FILE_MB overrides it.
DEFAULT_MAX_FILE_MB = 1_000
READ_CHUNK_BYTES = 1 << 20
# Items of a list `write_json_fields` turns into JSON text at a time.
LIST_PART_ITEMS = 1 << 16


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        raise UserError(message)


def max_file_bytes(environ: Mapping[str, str] | None = None) -> int:
    """The most bytes the CLI reads from any one file: EXPLORER_CLI_MAX_FILE_MB, else
    DEFAULT_MAX_FILE_MB (UserError for a value that is not a number above 0)."""
    from explorer.checks import MB

    environ = os.environ if environ is None else environ
    raw = environ.get("EXPLORER_CLI_MAX_FILE_MB", "").strip()
    try:
        megabytes = float(raw) if raw else DEFAULT_MAX_FILE_MB
    except ValueError:
        megabytes = -1.0
    if not 0 < megabytes < math.inf:
        raise UserError(f"EXPLORER_CLI_MAX_FILE_MB must be a number of MB above 0, not {raw!r}")
    return int(megabytes * MB)


def read_bytes(
    source: str, what: str, max_bytes: int | None = None, too_large: str = "", binary: bool = False
) -> bytes:
    """The bytes of a file, or of stdin for "-", read with a bound: at most `max_bytes` (else
    `max_file_bytes()`), and (unless `binary`) its first bytes checked to be text before the rest
    is read, so that a device (/dev/zero) or a binary file is refused at once. UserError naming
    what is wrong otherwise; `too_large` is the sentence for a file over the bound (by default
    it names the bound and EXPLORER_CLI_MAX_FILE_MB)."""
    from explorer.checks import InputError, format_size
    from explorer.checks.corpus_file import START_BYTES, check_upload_start

    max_bytes = max_file_bytes() if max_bytes is None else max_bytes
    chunks: list[bytes] = []
    try:
        stream = sys.stdin.buffer if source == "-" else open(source, "rb")  # noqa: SIM115 (closed below)
        try:
            head = stream.read(START_BYTES)
            if not binary:
                check_upload_start(head, source)
            chunks.append(head)
            total = len(head)
            while total <= max_bytes:
                chunk = stream.read(min(READ_CHUNK_BYTES, max_bytes + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    except InputError as error:
        raise UserError(f"{what} {error}") from None
    except FileNotFoundError:
        raise UserError(f"{what} {source!r} does not exist") from None
    except IsADirectoryError:
        raise UserError(f"{what} {source!r} is a directory, not a file") from None
    except OSError as error:
        raise UserError(f"cannot read {what} {source!r}: {error.strerror or error}") from None
    if total > max_bytes:
        raise UserError(
            too_large
            or f"{what} {source!r} is larger than {format_size(max_bytes)}, the most read from one file: "
            "set EXPLORER_CLI_MAX_FILE_MB to read larger files"
        )
    return b"".join(chunks)


def read_text(source: str, what: str, max_bytes: int | None = None, too_large: str = "") -> str:
    """The UTF-8 text of a file, or of stdin for "-", read by `read_bytes` (within its bound);
    UserError naming what is wrong otherwise."""
    from explorer.checks import InputError, decode_upload

    data = read_bytes(source, what, max_bytes, too_large)
    try:
        return decode_upload(data, source)
    except InputError as error:
        raise UserError(f"{what} {error}") from None


def read_json_text(path: str, what: str) -> str:
    """The text of a JSON file (a tokenizer.json, a trace) read by `read_text`, checked by the
    bounded reader's `check_json_bounds` before any parser recurses into it: every command refuses
    a file nested too deep with the same sentence, never a RecursionError."""
    from explorer.checks import check_json_bounds

    text = read_text(path, what)
    try:
        check_json_bounds(text, "the file")
    except ValueError as error:
        raise UserError(f"{path}: {error}") from None
    return text


def same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path once resolved (`a`, `./a`, a symbolic link to
    it), or one file under two names (a hard link)."""
    if Path(first).resolve() == Path(second).resolve():
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet): two names, two files
        return False


def check_output_path(path: str, what: str, example: str = "tokenizer.json") -> None:
    """UserError unless `path` can be written: its folder exists, it is not a folder, and opening
    it for writing works (tried without changing it; a file created by the try is removed). Called
    before training, so a typo in --out does not cost a training run."""
    target = Path(path)
    if target.is_dir():
        raise UserError(f"{what} {path!r} is a directory: give a file name, such as {target / example}")
    folder = target.parent
    if not folder.is_dir():
        raise UserError(f"cannot write {what} {path!r}: the folder {str(folder)!r} does not exist")
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as error:
        raise UserError(f"cannot write {what} {path!r}: {error.strerror or error}") from None
    if not existed:
        target.unlink(missing_ok=True)


def _is_list(value) -> bool:
    """Whether `value` is written as a JSON array: a list, or a sequence of values (a trace's
    words and counts held by the compiled engine, an array of counts)."""
    return (
        isinstance(value, Sequence) and not isinstance(value, str | bytes | tuple) or isinstance(value, array)
    )


def write_json_fields(path: str, data: dict, what: str) -> None:
    """Write `data` as `json.dumps(data, ensure_ascii=False, separators=(",", ":"))` would, one
    field at a time (the fields of a nested object too), each `Packed` column packed as its turn
    comes and written in parts (a trace's `json_fields()`), each list `LIST_PART_ITEMS` items at a
    time: the same bytes as its `to_json()`, without the whole text in memory at once (a
    32,000-merge trace is 10 MB of JSON, its candidates 7 MB of it, and the text would be held
    three times over: the values, the JSON string and its bytes; its words and counts grow with
    the corpus's distinct words)."""
    from explorer.training.packing import Packed

    def write_object(stream, value: dict) -> None:
        stream.write(b"{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                stream.write(b",")
            if isinstance(item, Packed) or isinstance(item, dict) and item or _is_list(item):
                stream.write(json.dumps(key, ensure_ascii=False).encode("utf-8") + b":")
                if isinstance(item, Packed):
                    stream.writelines(item.json_parts())
                elif _is_list(item):
                    write_list(stream, item)
                else:
                    write_object(stream, item)
            else:
                field = json.dumps({key: item}, ensure_ascii=False, separators=(",", ":"))[1:-1]
                stream.write(field.encode("utf-8"))
        stream.write(b"}")

    def write_list(stream, items: Sequence) -> None:
        stream.write(b"[")
        for start in range(0, len(items), LIST_PART_ITEMS):
            if start:
                stream.write(b",")
            part = json.dumps(
                list(items[start : start + LIST_PART_ITEMS]), ensure_ascii=False, separators=(",", ":")
            )
            stream.write(part[1:-1].encode("utf-8"))
        stream.write(b"]")

    try:
        with open(path, "wb") as stream:
            write_object(stream, data)
    except OSError as error:
        raise UserError(f"cannot write {what} {path!r}: {error.strerror or error}") from None


def positive(kind):
    """An argparse type: a number of `kind` (int or float) above 0 and finite."""

    def parse(value: str):
        try:
            number = kind(value)
        except ValueError:
            number = None
        if number is None or not number > 0 or number == float("inf"):
            raise argparse.ArgumentTypeError(
                f"must be a {'whole ' if kind is int else ''}number above 0, not {value!r}"
            )
        return number

    return parse


def comma_separated(value: str) -> tuple[str, ...]:
    """'a, b,,c' -> ('a', 'b', 'c')."""
    return tuple(part.strip() for part in value.split(",") if part.strip())


def warn(lines, label: str = "warning") -> None:
    """Each line on stderr as 'warning: ...' (or another label); nothing stops."""
    for line in lines:
        print(f"{label}: {line}", file=sys.stderr)


def progress_printer(unit: str = "merges", line: Callable[[int, int | None], str] | None = None):
    """(report(step, planned), finish()): progress on stderr, shown once a second has passed, as
    `line(step, planned)` (by default "training: 120/1,000 merges"; `planned` None: unknown). On a
    terminal, one line rewritten in place (`\r`); redirected (a log file, a pipe), a plain line
    each time another tenth of the planned steps is done: at most eleven lines, where `\r` updates
    would be one line of a thousand in the file (one line when the plan is unknown)."""
    stream = sys.stderr
    in_place = stream.isatty()
    started = time.perf_counter()
    shown = False
    last_tenth = -1  # redirected: the tenth of the planned steps last printed

    def report(step: int, planned: int | None) -> None:
        nonlocal shown, last_tenth
        if time.perf_counter() - started <= 1.0:
            return
        text = line(step, planned) if line is not None else f"training: {step:,}/{planned or 0:,} {unit}"
        if in_place:
            shown = True
            print(f"\r{text}", end="", file=stream, flush=True)
            return
        tenth = step * 10 // planned if planned else 10
        if tenth > last_tenth:
            last_tenth = tenth
            print(text, file=stream, flush=True)

    def finish() -> None:
        if shown:
            print(file=stream)

    return report, finish


def counting_line(done: int, total: int | None) -> str:
    """Counting's progress in bytes of the total, in the total's unit.

    >>> counting_line(1_200_000_000, 10_000_000_000), counting_line(3_500_000, None)
    ('counting: 1.2 of 10.0 GB (12%)', 'counting: 3.5 MB read')
    """
    unit, scale = next(
        ((name, size) for name, size in (("GB", 10**9), ("MB", 10**6)) if (total or done) >= size / 10),
        ("KB", 10**3),
    )
    if total is None:
        return f"counting: {done / scale:.1f} {unit} read"
    return f"counting: {done / scale:.1f} of {total / scale:.1f} {unit} ({done * 100 // max(1, total)}%)"


def load_our_tokenizer(path: str):
    """A tokenizer.json read by our reader (explorer.pipeline.tokenizer_json)."""
    from explorer.pipeline.tokenizer_json import tokenizer_from_json

    try:
        return tokenizer_from_json(read_json_text(path, "tokenizer file"))
    except ValueError as error:
        raise UserError(f"{path}: {error}") from None


def is_sentencepiece(path: str) -> bool:
    from explorer.compare.uploads import is_sentencepiece_name

    return is_sentencepiece_name(path)


def load_sentencepiece(path: str):
    """A SentencePiece `.model` file."""
    from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

    data = read_bytes(path, "tokenizer file", binary=True)
    try:
        return SentencePieceTokenizer.from_bytes(data, path)
    except ValueError as error:
        raise UserError(f"{path}: {error}") from None


def load_pretrained(name: str):
    """A bundled pretrained tokenizer (explorer.pretrained.BUNDLED)."""
    from explorer.pretrained import PretrainedDataError, load_tokenizer

    try:
        return load_tokenizer(name)
    except PretrainedDataError as error:
        raise UserError(str(error)) from None


def add_tokenizer_options(
    parser: argparse.ArgumentParser, bundled, pretrained_help: str | None = None
) -> None:
    """`--tokenizer FILE` (a tokenizer.json or a SentencePiece .model) and `--pretrained NAME` (one
    of `bundled`), for a command that encodes or decodes with one of them (`exactly_one_tokenizer`)."""
    parser.add_argument("--tokenizer", help="a tokenizer.json, or a SentencePiece .model")
    parser.add_argument("--pretrained", choices=list(bundled), metavar="NAME", help=pretrained_help)


def exactly_one_tokenizer(args) -> None:
    """A command that encodes or decodes with one tokenizer gets a file or a bundled name."""
    if bool(args.tokenizer) == bool(args.pretrained):
        raise UserError("give exactly one of --tokenizer FILE or --pretrained NAME")
