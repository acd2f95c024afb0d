"""`python -m explorer`: train, encode, compare and audit tokenizers from the command line.

    count INPUT... --out counts.parquet [--reading R] [--text-field F | --text-column C]
          [--pre-tokenizer P] [--split-pattern S] [--normalizer N] [--chunk-mb MB] [--jobs N]
    count --add counts1.parquet counts2.parquet ... --out counts.parquet
    train --counts counts.parquet ... --algorithm ... --vocab-size N --out tokenizer.json
    train CORPUS --algorithm {bpe,wordpiece,unigram} --flavor {library,course} --vocab-size N
          --pre-tokenizer {byte-level,bert,whitespace,whitespace-split,metaspace}
          [--split-pattern {gpt2,cl100k,o200k,llama3}]   (byte-level's regex; gpt2 by default)
          [--normalizer nfd,lowercase] [--min-frequency N] [--special-tokens "A,B"]
          [--continuing-subword-prefix S] [--end-of-word-suffix S]
          [--seed-size N] [--shrinking-factor F] [--max-piece-length N]   (unigram)
          [--max-seconds S] [--max-steps N] [--max-corpus-mb MB] --out tokenizer.json [--trace trace.json]
    encode (--tokenizer tokenizer.json|X.model | --pretrained NAME)
           [--special-tokens] [--steps] [--json] TEXT...
    encode --list-pretrained
    decode (--tokenizer tokenizer.json|X.model | --pretrained NAME) [--json] IDS...
    compare [--tokenizer A.json|X.model ...] [--pretrained NAME ...] (--corpus FILE | TEXT...) [--json]
    audit (--tokenizer tokenizer.json | --pretrained NAME | --trace trace.json [--step K])
          --corpus FILE [--json]

One module per command (train, count, encode, decode, compare, audit), each with
`add_parser(commands, ...)` and `run(args)`; what they share (UserError, reading files, loading
tokenizers) is in `common`.

CORPUS is a path or `-` for stdin; each line is one sequence (like `train_from_iterator(lines)`).
Files must be UTF-8 (explorer/checks/corpus_file.py names what a file looks like otherwise). Unlike the
hosted app, `train` has no size, time or step limit unless asked for one.
Every error a user can cause prints one line on stderr and exits with status 2; never a traceback
(a reader that closes the pipe early, `| head`, ends the command quietly with status 141). Files are
read with a bound (`--max-corpus-mb`, else EXPLORER_CLI_MAX_FILE_MB, 1,000 MB by default), their
first bytes checked before the rest is read; an error no check foresaw is still one line, status 2.
Warnings (`warning: ...`) and notes (`note: ...`) go to stderr too and do not stop anything.
Training's progress goes to stderr after its first second: one line rewritten in place on a
terminal, a plain line per tenth of the run when stderr is redirected (a log file gets lines).
What it does not do: anything the package does not (these modules only parse and print).
"""

from __future__ import annotations

import argparse
import os
import sys

from explorer.cli import audit_command as audit
from explorer.cli import compare_command as compare
from explorer.cli import count_command as count
from explorer.cli import decode_command as decode
from explorer.cli import encode_command as encode
from explorer.cli import train_command as train
from explorer.cli.common import EXIT_USAGE, Parser, UserError

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool whose reader went away


COMMANDS = ("train", "count", "encode", "decode", "compare", "audit")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with `command` (one of COMMANDS), that command's alone: a
    training run does not load the pretrained tokenizers' registry to name them."""
    parser = Parser(prog="python -m explorer", description="Train, encode and compare subword tokenizers.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    wanted = (command,) if command in COMMANDS else COMMANDS
    if "train" in wanted:
        train.add_parser(commands)
    if "count" in wanted:
        count.add_parser(commands)
    if wanted not in (("train",), ("count",)):
        from explorer.pretrained import BUNDLED

        for name, module in (("encode", encode), ("decode", decode), ("compare", compare), ("audit", audit)):
            if name in wanted:
                module.add_parser(commands, BUNDLED)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status (2 for a user's error, printed as one line)."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser(argv[0] if argv else None).parse_args(argv)
        return args.run(args)
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `... | head` closed the pipe: stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit must not fail again
        return EXIT_BROKEN_PIPE
    except MemoryError:
        print("error: out of memory: try a smaller input (or --max-corpus-mb)", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a case no check foresaw: still one line, never a traceback
        print(f"error: {type(error).__name__}: {error} (unexpected: please report it)", file=sys.stderr)
        return EXIT_USAGE
