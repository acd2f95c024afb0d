"""What every command of `python -m explorer` shares: its one kind of error, reading files, parsing
argument values, printing warnings and progress, and loading the tokenizer a command names.

`UserError` is a problem with the user's input: `main` prints it as one line and exits with
status 2. Everything here that can fail on a user's input raises it, with a message that already
says everything (hence `from None`: the chained traceback would add nothing).

What it does not do: define commands (explorer.cli.train, encode, decode, compare) or parse the
command line (explorer.cli.main).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

EXIT_USAGE = 2


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        raise UserError(message)


def read_text(source: str, what: str) -> str:
    """The UTF-8 text of a file, or of stdin for "-"; UserError naming what is wrong otherwise."""
    from explorer.checks import InputError, decode_upload

    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except FileNotFoundError:
        raise UserError(f"{what} {source!r} does not exist") from None
    except IsADirectoryError:
        raise UserError(f"{what} {source!r} is a directory, not a file") from None
    except OSError as error:
        raise UserError(f"cannot read {what} {source!r}: {error.strerror}") from None
    try:
        return decode_upload(data, source)
    except InputError as error:
        raise UserError(f"{what} {error}") from None


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


def progress_printer(unit: str = "merges"):
    """(report(step, planned), finish()): a progress line on stderr, shown only after a second."""
    started = time.perf_counter()
    shown = [False]

    def report(step: int, planned: int) -> None:
        if time.perf_counter() - started > 1.0:
            shown[0] = True
            print(f"\rtraining: {step:,}/{planned:,} {unit}", end="", file=sys.stderr, flush=True)

    def finish() -> None:
        if shown[0]:
            print(file=sys.stderr)

    return report, finish


def load_our_tokenizer(path: str):
    """A tokenizer.json read by our reader (explorer.hf_json)."""
    from explorer.hf_json import tokenizer_from_json

    try:
        return tokenizer_from_json(read_text(path, "tokenizer file"))
    except ValueError as error:
        raise UserError(f"{path}: {error}") from None


def is_sentencepiece(path: str) -> bool:
    from explorer.compare.uploads import is_sentencepiece_name

    return is_sentencepiece_name(path)


def load_sentencepiece(path: str):
    """A SentencePiece `.model` file."""
    from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"cannot read tokenizer file {path!r}: {error.strerror}") from None
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


def exactly_one_tokenizer(args) -> None:
    """A command that encodes or decodes with one tokenizer gets a file or a bundled name."""
    if bool(args.tokenizer) == bool(args.pretrained):
        raise UserError("give exactly one of --tokenizer FILE or --pretrained NAME")
