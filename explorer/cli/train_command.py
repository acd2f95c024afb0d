"""`python -m explorer train`: train a BPE, WordPiece or Unigram tokenizer on a corpus (files,
directories, globs, stdin; plain, .gz, .zst; JSONL and Parquet records) or on count files, and
write its tokenizer.json (and, on request, the training trace).

The options become the Train page's `Settings`, each one not given at the page's default for the
algorithm (explorer.runs.settings.DEFAULTS: BPE adds <|endoftext|> as id 0, as the app does), and go
through the app's checks of settings (explorer.session.requests) with no limit unless asked for one
(`--max-corpus-mb`, compared with the inputs' size before reading, `--max-seconds`, which stops the
counting too, `--max-steps`). The word counts come from explorer.cli.train_sources: the corpus
streamed, never held whole (progress in bytes read of the total on stderr; the corpus checks'
warnings look at its first piece of text), or `--counts FILE...`, count files (`python -m explorer
count`) added in order with the normalizers, pre-tokenizer and reading they were counted with,
which give the tokenizer and trace of training on the corpora they counted, one after the other.
`--out` / `--trace` are checked, before any work, to be writable and to name neither an input nor
each other. The tokenizer.json is written from the trace (`save_tokenizer` of the history: no
model's table of merges is built). The sentences printed after training are the app's
(explorer.lessons.explain); the summary says the reading the corpus was cut with.

What it does not do: read or count the corpus or the count files (explorer.cli.train_sources and
explorer.corpora do), train (explorer.training), or read tokenizers.
"""

from __future__ import annotations

import gc
import json
import math
import os
import sys
from argparse import Namespace
from dataclasses import replace

from explorer.checks import MB
from explorer.cli.common import (
    PRE_TOKENIZER_CHOICES,
    UserError,
    check_output_path,
    comma_separated,
    positive,
    progress_printer,
    same_file,
    warn,
    write_json_fields,
)
from explorer.cli.train_sources import corpus_inputs, counted_corpus, read_counts
from explorer.corpora.streaming import CHUNK_BYTES
from explorer.drawing.wording import plural
from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS
from explorer.runs.settings import DEFAULTS, Settings, defaults_for


def _pre_tokenizer(args) -> str | None:
    """The run's pre-tokenizer name when one is chosen (None: the algorithm's default), with its
    split pattern when it is byte-level."""
    if args.split_pattern is None:
        return args.pre_tokenizer
    pre_tokenizer = args.pre_tokenizer or defaults_for(args.algorithm).pre_tokenizer
    if pre_tokenizer != "byte-level":
        raise UserError(
            f"--split-pattern is a byte-level setting (use --pre-tokenizer byte-level, not {pre_tokenizer})"
        )
    return BYTE_LEVEL_PRE_TOKENIZERS[args.split_pattern]


def _settings(args) -> Settings:
    """The Train page's `Settings` for these options: an option not given takes the app's default
    for the algorithm (explorer.runs.settings.DEFAULTS, the one source of both), so that the app
    and the command line train the same tokenizer from the same words."""
    given = {
        "flavor": args.flavor,
        "vocab_size": args.vocab_size,
        "pre_tokenizer": _pre_tokenizer(args),
        "normalizers": None if args.normalizer is None else comma_separated(args.normalizer),
        "min_frequency": args.min_frequency,
        "special_tokens": args.special_tokens,
        "prefix": args.continuing_subword_prefix,
        "suffix": args.end_of_word_suffix,
        "seed_size": args.seed_size,
        "shrinking_factor": args.shrinking_factor,
        "max_piece_length": args.max_piece_length,
    }
    return replace(
        defaults_for(args.algorithm), **{key: value for key, value in given.items() if value is not None}
    )


def _per_algorithm(name: str) -> str:
    """A setting's default for each algorithm, as --help states it ("bpe <|endoftext|>, ...")."""
    return ", ".join(
        f"{algorithm} {getattr(settings, name) or 'none'}" for algorithm, settings in DEFAULTS.items()
    )


def add_parser(commands) -> None:
    train = commands.add_parser("train", help="train a tokenizer on a corpus and write tokenizer.json")
    train.set_defaults(run=run)
    train.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="corpus files, directories (every file under them, sorted), globs, or - for stdin; "
        "plain text, .gz or .zst; .jsonl and .parquet records",
    )
    train.add_argument(
        "--counts",
        nargs="+",
        metavar="FILE",
        help="train from count files (`python -m explorer count`) instead of a corpus, added in the order "
        "given; the normalizers, pre-tokenizer and reading are theirs",
    )
    train.add_argument(
        "--reading",
        choices=["lines-with-endings", "lines"],
        help="how text files are cut into sequences: lines-with-endings (default: each line keeps its "
        "ending, as tokenizers' Tokenizer.train(files) reads a file) or lines (one per line, breaks "
        "removed, empty lines dropped: train_from_iterator(lines), the app's reading); JSONL and "
        "Parquet records are one sequence each",
    )
    train.add_argument("--text-field", help="the JSON field that holds each JSONL record's text")
    train.add_argument("--text-column", help="the Parquet column that holds each record's text")
    train.add_argument(
        "--chunk-mb",
        type=positive(float),
        default=CHUNK_BYTES / MB,
        help=f"MB of the corpus read at once (default {CHUNK_BYTES / MB:g}): memory holds a few chunks",
    )
    train.add_argument("--algorithm", choices=["bpe", "wordpiece", "unigram"], default="bpe")
    train.add_argument("--flavor", choices=["library", "course"], help="default: library")
    train.add_argument("--vocab-size", type=int, required=True)
    train.add_argument(
        "--pre-tokenizer",
        choices=PRE_TOKENIZER_CHOICES,
        help=f"default, as in the app: {_per_algorithm('pre_tokenizer')}",
    )
    train.add_argument(
        "--split-pattern",
        choices=list(BYTE_LEVEL_PRE_TOKENIZERS),
        help="byte-level's pre-tokenization regex: gpt2 (default), cl100k (GPT-4), o200k (GPT-4o), llama3",
    )
    train.add_argument("--normalizer", help="comma-separated: nfd,nfkc,lowercase,strip-accents,bert")
    train.add_argument("--min-frequency", type=int, help="default: 0")
    train.add_argument(
        "--special-tokens",
        help=f'comma-separated; "" for none; default, as in the app: {_per_algorithm("special_tokens")}',
    )
    train.add_argument("--continuing-subword-prefix", default=None)
    train.add_argument("--end-of-word-suffix", default=None)
    train.add_argument(
        "--seed-size", type=positive(int), help="unigram: seed pieces (library 1,000,000; course 300)"
    )
    train.add_argument(
        "--shrinking-factor", type=float, help="unigram library: share of pieces kept per round (0.75)"
    )
    train.add_argument(
        "--max-piece-length", type=positive(int), help="unigram: longest piece (library 16; course none)"
    )
    train.add_argument("--max-seconds", type=positive(float), help="stop training after this many seconds")
    train.add_argument("--max-steps", type=positive(int), help="stop training after this many merges")
    train.add_argument(
        "--max-corpus-mb", type=positive(float), help="refuse a corpus larger than this (MB on disk)"
    )
    train.add_argument(
        "--jobs",
        type=positive(int),
        default=os.cpu_count() or 1,
        help="processes that count the corpus's words (default: the cores; the counts are the same)",
    )
    train.add_argument(
        "--engine",
        choices=["auto", "rust", "python"],
        default=None,
        help="the engine that trains BPE, WordPiece and the library's Unigram (default: $EXPLORER_ENGINE, "
        "else auto: Rust when built); both give the same tokenizer and trace",
    )
    train.add_argument("--out", required=True, help="where to write tokenizer.json")
    train.add_argument("--trace", help="also write the training trace as JSON")
    train.add_argument(
        "--print-code",
        action="store_true",
        help="print a Python program that trains this tokenizer (plain `tokenizers` code for the library "
        "flavor, the explorer package's API for the course's), then train and write --out as usual",
    )
    train.add_argument(
        "--json", action="store_true", help="print a summary of the run as JSON (steps, vocab, engine ...)"
    )


def run(args) -> int:
    from explorer.checks import Budget, Limits
    from explorer.lessons.explain import (
        explain_vocab_size,
        initial_vocabulary_text,
        special_token_notes,
        stop_reason_text,
    )
    from explorer.run_config import MAX_SYMBOLS
    from explorer.session.requests import asked_settings, check_settings
    from explorer.training import engines

    if args.engine is not None:  # what bpe.train reads when no engine is passed to it
        os.environ[engines.ENGINE_VARIABLE] = args.engine
    try:
        engines.resolve()
    except ValueError as error:
        raise UserError(str(error)) from None
    # A local tool: no limit unless asked (TrainerConfig still bounds the vocab size).
    limits = Limits(
        max_corpus_mb=args.max_corpus_mb or math.inf,
        max_seconds=math.inf,
        max_steps=math.inf,
        max_vocab=MAX_SYMBOLS - 1,
    )
    if bool(args.inputs) == bool(args.counts):
        raise UserError("give a corpus to train on, or --counts FILE... (count files), not both")
    inputs, reading = corpus_inputs(args, limits) if args.inputs else ([], None)
    _refuse_overwriting(args, inputs)
    check_output_path(args.out, "--out")
    if args.trace:
        check_output_path(args.trace, "--trace", "trace.json")
    unigram = args.algorithm == "unigram"  # asked once: rounds, not merges, from here on
    if unigram:
        _refuse_merge_options(args)
    else:
        unigram_only = [flag for flag, value in _unigram_options(args).items() if value is not None]
        if unigram_only:
            raise UserError(f"{unigram_only[0]} is a Unigram setting (use --algorithm unigram)")
    counted = read_counts(args) if args.counts else None
    settings = _settings(args) if counted is None else _counted_settings(args, counted.counting)
    # The Train page's settings and checks (explorer.session.requests), in its order.
    check, config = check_settings(asked_settings(settings, limits), limits)
    if check.errors or config is None:
        raise UserError(" ".join(check.errors))
    config = replace(config, reading=reading if counted is None else counted.counting.reading)
    if args.print_code:
        _print_code(config, inputs)
    unit = "rounds" if unigram else "merges"
    report, finish = progress_printer(unit)
    budget = Budget(args.max_seconds, None if unit == "rounds" else args.max_steps, progress=report)
    # Counting and training build millions of small containers and no reference cycles: the cyclic
    # garbage collector would only walk them again and again (5-6% of the instructions). A
    # one-shot process can switch it off (`_train_and_write` switches it on again); the app, whose
    # trainings run beside other visitors' scripts in threads, does not.
    gc.disable()
    if counted is None:
        counts = [counted_corpus(args, inputs, config, budget, limits, check.warnings)]
    else:
        warn(check.warnings)
        counts = [counted]
        del counted  # held in `counts` alone, which training empties
    if unigram:
        return _train_unigram(args, counts, config, budget, finish)
    trace = _train_and_write(args, counts, config, budget, finish, max_steps=budget.step_limit)
    print(
        f"{plural(trace.steps, 'merge')}, vocab {len(trace.vocab):,}, stopped: {stop_reason_text(trace)}, "
        f"{trace.seconds:.2f} s ({trace.engine} engine), reading {config.reading} -> {args.out}",
        file=sys.stderr,
    )
    print(f"{initial_vocabulary_text(trace)}.", file=sys.stderr)
    print(
        explain_vocab_size(trace, args.vocab_size, budget.stop_cause(trace.stop_reason, trace.steps)),
        file=sys.stderr,
    )
    warn(special_token_notes(trace), "note")
    _print_json(args, trace, merges=trace.steps)
    return 0


def _counted_settings(args, counting) -> Settings:
    """The Train page's `Settings` for these options with the count files' normalizers and
    pre-tokenizer (`train_sources.read_counts` has refused options that say otherwise)."""
    without = Namespace(**{**vars(args), "pre_tokenizer": None, "split_pattern": None, "normalizer": None})
    return replace(_settings(without), pre_tokenizer=counting.pre_tokenizer, normalizers=counting.normalizers)


def _refuse_overwriting(args, inputs) -> None:
    """UserError, before any work, when --out or --trace names an input (a corpus, a count file) or
    the other output (`same_file`): writing it would destroy the corpus, or the trace would replace
    the tokenizer."""
    # (the name, its path, what writing over it destroys)
    named = [("the corpus", item.path, "the corpus") for item in inputs if item.path != "-"]
    named += [("a count file", path, "that count file") for path in args.counts or ()]
    named.append(("--out", args.out, "the tokenizer"))
    for flag, path in (("--out", args.out), ("--trace", args.trace)):
        for name, other, lost in named:
            if path is not None and name != flag and same_file(path, other):
                raise UserError(
                    f"{flag} {path!r} is the same file as {name}: writing it would overwrite {lost}; "
                    f"give {flag} another file name."
                )


def _print_json(args, trace, **figures) -> None:
    """With --json: the run's summary on stdout, one JSON object."""
    if args.json:
        summary = {
            "algorithm": trace.algorithm,
            "flavor": trace.config.flavor,
            **figures,
            "vocab_size": len(trace.vocab),
            "special_tokens": list(trace.special_tokens),
            "stop_reason": trace.stop_reason,
            "seconds": round(trace.seconds, 3),
            "engine": trace.engine,
            "reading": trace.config.reading,
            "out": args.out,
            "trace": args.trace,
        }
        print(json.dumps(summary, ensure_ascii=False))


def _unigram_options(args) -> dict:
    return {
        "--seed-size": args.seed_size,
        "--shrinking-factor": args.shrinking_factor,
        "--max-piece-length": args.max_piece_length,
    }


def _print_code(config, inputs) -> None:
    """--print-code: the program that trains this run, on stdout, before training. It names the
    inputs by their paths (stdin by a placeholder file) and reads them with the run's reading."""
    from dataclasses import replace as replaced

    from explorer.corpora.inputs import STDIN
    from explorer.reproduce import CorpusFiles, training_program
    from explorer.reproduce.corpus_source import PLACEHOLDER

    named = tuple(replaced(item, path=PLACEHOLDER) if item.path == STDIN else item for item in inputs)
    print(training_program(config, CorpusFiles(named, config.reading)), flush=True)


def _refuse_merge_options(args) -> None:
    """UserError when a Unigram run is given a setting of merges."""
    if args.max_steps is not None:
        raise UserError("--max-steps counts merges; a Unigram run has rounds: use --max-seconds")
    if (
        args.min_frequency
        or args.continuing_subword_prefix is not None
        or args.end_of_word_suffix is not None
    ):
        raise UserError(
            "--min-frequency, --continuing-subword-prefix and --end-of-word-suffix are BPE/WordPiece settings"
        )


def _train_unigram(args, counts: list, config, budget, finish) -> int:
    """`train --algorithm unigram`: the same outputs, a RoundHistory."""
    from explorer.lessons.explain import explain_unigram_size, stop_reason_text

    trace = _train_and_write(args, counts, config, budget, finish)
    stopped = stop_reason_text(trace)
    if trace.stop_reason == "stopped" and budget.stopped_by:
        stopped = f"stopped by {budget.stopped_by}"
    print(
        f"{plural(len(trace.seeds), 'seed piece')}, {plural(len(trace.rounds), 'round')}, "
        f"vocab {len(trace.vocab):,}, stopped: {stopped}, {trace.seconds:.2f} s "
        f"({trace.engine} engine), reading {config.reading} -> {args.out}",
        file=sys.stderr,
    )
    print(explain_unigram_size(trace, budget.stopped_by), file=sys.stderr)
    _print_json(args, trace, rounds=len(trace.rounds), seed_pieces=len(trace.seeds))
    return 0


def _train_and_write(args, counts: list, config, budget, finish, **stop):
    """Train on the word counts in `counts` (which it empties, handing their words over: the
    trainer's own lists are then their only copy), then write the tokenizer to `args.out` (and
    the trace to `args.trace`)."""
    from explorer.training.memory import release_free_memory
    from explorer.training.trainers import train_counted

    try:
        counted = counts.pop()
        trace = train_counted(
            counted.hand_over(),
            counted.figures,
            config,
            progress=budget.progress,
            should_stop=budget.should_stop,
            **stop,
        )
        del counted
    except ValueError as error:
        raise UserError(str(error)) from None
    finally:
        gc.enable()
        finish()
    try:
        trace.save_tokenizer(args.out)
    except OSError as error:
        raise UserError(f"cannot write --out {args.out!r}: {error.strerror or error}") from None
    except ValueError as error:
        raise UserError(str(error)) from None
    release_free_memory()  # the tokenizer's tables, freed: not kept beside the trace's JSON
    if args.trace:
        write_json_fields(args.trace, trace.json_fields(), "--trace")
    return trace
