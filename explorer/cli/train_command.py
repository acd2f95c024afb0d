"""`python -m explorer train`: train a BPE, WordPiece or Unigram tokenizer on a corpus file and write
its tokenizer.json (and, on request, the training trace).

The options become the Train page's `Settings`, each one not given at the page's default for the
algorithm (explorer.runs.settings.DEFAULTS: BPE adds <|endoftext|> as id 0, as the app does), and go
through the app's checks (explorer.session.requests) with no limit unless asked for one
(`--max-corpus-mb`, `--max-seconds`, `--max-steps`); the corpus is read with a bound all the same
(explorer.cli.common.read_bytes), and `--out` / `--trace` are checked, before any work, to be
writable and to name neither the corpus nor each other. The sentences printed after training are
the app's (explorer.lessons.explain).

What it does not do: train (explorer.train.train_corpus does), or read tokenizers.
"""

from __future__ import annotations

import gc
import json
import math
import os
import sys
from argparse import Namespace
from dataclasses import replace

from explorer.cli.common import (
    PRE_TOKENIZER_CHOICES,
    UserError,
    check_output_path,
    comma_separated,
    positive,
    progress_printer,
    read_text,
    same_file,
    warn,
    write_json_fields,
)
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
    train.add_argument("corpus", nargs="?", help="corpus file, or - for stdin; one sequence per line")
    train.add_argument(
        "--counts",
        nargs="+",
        metavar="FILE",
        help="train from count files (`python -m explorer count`) instead of a corpus, added in the order "
        "given; the normalizers, pre-tokenizer and reading are theirs",
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
        "--max-corpus-mb", type=positive(float), help="refuse a corpus larger than this (MB of UTF-8)"
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
    from explorer.checks import Limits
    from explorer.run_config import MAX_SYMBOLS
    from explorer.session.requests import asked_settings, request_training
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
    if (args.corpus is None) == (args.counts is None):
        raise UserError("give a corpus to train on, or --counts FILE... (count files), not both")
    _refuse_overwriting(args)
    check_output_path(args.out, "--out")
    if args.trace:
        check_output_path(args.trace, "--trace", "trace.json")
    if args.counts:
        return _train_counted(args, limits)
    if args.max_corpus_mb:
        # Read up to twice the limit: a corpus just over it is measured (check_corpus says by how
        # much); an endless stream is cut off there.
        text = read_text(
            args.corpus,
            "corpus",
            2 * limits.max_corpus_bytes,
            f"The corpus {args.corpus!r} is more than twice the limit of "
            f"--max-corpus-mb {args.max_corpus_mb:g}: train on a part of it, or raise --max-corpus-mb.",
        )
    else:
        text = read_text(args.corpus, "corpus")
    _refuse_other_algorithms_options(args)
    # The Train page's settings, checks and sentences (explorer.session.requests), in its order.
    asked = asked_settings(_settings(args), limits)
    request = request_training(text, asked, limits)
    if request.errors:
        raise UserError(" ".join(request.errors))
    config, warnings = request.config, request.check.warnings
    # Held in a list that training empties: once its words are counted, the corpus text (four
    # bytes a character when it holds one emoji) is freed before the merges start.
    corpus = [text]
    if args.print_code:
        _print_code(args, config, text)
    del text
    return _train(args, _text_counter(args, corpus, config), config, warnings)


def _refuse_other_algorithms_options(args) -> None:
    """UserError for a setting the chosen algorithm does not have."""
    if args.algorithm == "unigram":
        _refuse_merge_options(args)
    else:
        unigram_only = [flag for flag, value in _unigram_options(args).items() if value is not None]
        if unigram_only:
            raise UserError(f"{unigram_only[0]} is a Unigram setting (use --algorithm unigram)")


def _train_counted(args, limits) -> int:
    """`train --counts FILE...`: train on the words of count files, added in order, with the
    settings they were counted with (options that say otherwise are refused); the same tokenizer
    and trace as training on the corpora they counted, one after the other."""
    from explorer.corpora.count_files import read_count_files
    from explorer.session.requests import asked_settings, check_settings

    if args.print_code:
        raise UserError(
            "--print-code writes a program that trains on the corpus text: train on the corpus to get it"
        )
    if args.max_corpus_mb:
        raise UserError("--max-corpus-mb limits a corpus read as text: count files are not, leave it out")
    _refuse_other_algorithms_options(args)
    try:
        counts = read_count_files(args.counts)
    except ValueError as error:
        raise UserError(str(error)) from None
    _refuse_contradicting_options(args, counts.counting)
    if not counts.words:
        raise UserError("the count files hold no words: the corpora they counted were empty")
    # The Train page's settings and checks, with the count files' normalizers and pre-tokenizer.
    settings = replace(
        _settings(
            Namespace(**{**vars(args), "pre_tokenizer": None, "split_pattern": None, "normalizer": None})
        ),
        pre_tokenizer=counts.counting.pre_tokenizer,
        normalizers=counts.counting.normalizers,
    )
    check, config = check_settings(asked_settings(settings, limits), limits)
    if check.errors:
        raise UserError(" ".join(check.errors))
    assert config is not None  # no error: check_settings made it
    config = replace(config, reading=counts.counting.reading)

    return _train(args, lambda: (counts.words, counts.figures), config, check.warnings)


def _refuse_contradicting_options(args, counting) -> None:
    """UserError naming the first of --pre-tokenizer, --split-pattern, --normalizer, --reading that
    is given and says otherwise than the count files' settings (`counting`)."""
    family = (
        "byte-level"
        if counting.pre_tokenizer in BYTE_LEVEL_PRE_TOKENIZERS.values()
        else counting.pre_tokenizer
    )
    given = [
        ("--pre-tokenizer", args.pre_tokenizer, family),
        (
            "--split-pattern",
            args.split_pattern and BYTE_LEVEL_PRE_TOKENIZERS[args.split_pattern],
            counting.pre_tokenizer,
        ),
        (
            "--normalizer",
            None if args.normalizer is None else comma_separated(args.normalizer),
            counting.normalizers,
        ),
        ("--reading", getattr(args, "reading", None), counting.reading),
    ]
    for flag, value, counted in given:
        if value is not None and value != counted:
            raise UserError(
                f"{flag} {getattr(args, flag[2:].replace('-', '_'))} says otherwise than the count files, "
                f"counted with {counting.describe()}: leave {flag} out, or count the corpora again with it"
            )


def _train(args, count, config, warnings) -> int:
    """Train `config` on the words `count()` gives, write the outputs and say how it went."""
    from explorer.checks import Budget
    from explorer.lessons.explain import (
        explain_vocab_size,
        initial_vocabulary_text,
        special_token_notes,
        stop_reason_text,
    )

    if args.algorithm == "unigram":
        return _train_unigram(args, count, config, warnings)
    warn(warnings)
    report, finish = progress_printer()
    budget = Budget(args.max_seconds, args.max_steps, progress=report)
    trace = _train_and_write(args, count, config, budget, finish, max_steps=budget.step_limit)
    print(
        f"{plural(trace.steps, 'merge')}, vocab {len(trace.vocab):,}, stopped: {stop_reason_text(trace)}, "
        f"{trace.seconds:.2f} s ({trace.engine} engine) -> {args.out}",
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


def _refuse_overwriting(args) -> None:
    """UserError, before any work, when --out or --trace names the corpus or the other output
    (`same_file`): writing it would destroy the corpus, or the trace would replace the tokenizer."""
    # (the name, its path, what writing over it destroys)
    named = [("the corpus", args.corpus, "the corpus"), ("--out", args.out, "the tokenizer")]
    named += [("a count file", path, "that count file") for path in args.counts or ()]
    for flag, path in (("--out", args.out), ("--trace", args.trace)):
        for name, other, lost in named:
            if (
                path is not None
                and other is not None
                and name != flag
                and other != "-"
                and same_file(path, other)
            ):
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


def _print_code(args, config, text: str) -> None:
    """--print-code: the program that trains this run, on stdout, before training. It names the
    corpus by its path (a placeholder for stdin) and its hash."""
    from explorer.reproduce import CorpusSource, training_program

    source = (
        CorpusSource.from_pasted(text) if args.corpus == "-" else CorpusSource.from_file(args.corpus, text)
    )
    print(training_program(config, source), flush=True)


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


def _train_unigram(args, count, config, warnings) -> int:
    """`train --algorithm unigram`: the same outputs, a RoundHistory."""
    from explorer.checks import Budget
    from explorer.lessons.explain import explain_unigram_size, stop_reason_text

    warn(warnings)
    report, finish = progress_printer("rounds")
    budget = Budget(args.max_seconds, None, progress=report)
    trace = _train_and_write(args, count, config, budget, finish)
    stopped = stop_reason_text(trace)
    if trace.stop_reason == "stopped" and budget.stopped_by:
        stopped = f"stopped by {budget.stopped_by}"
    print(
        f"{plural(len(trace.seeds), 'seed piece')}, {plural(len(trace.rounds), 'round')}, "
        f"vocab {len(trace.vocab):,}, "
        f"stopped: {stopped}, {trace.seconds:.2f} s ({trace.engine} engine) -> {args.out}",
        file=sys.stderr,
    )
    print(explain_unigram_size(trace, budget.stopped_by), file=sys.stderr)
    _print_json(args, trace, rounds=len(trace.rounds), seed_pieces=len(trace.seeds))
    return 0


def _text_counter(args, corpus: list[str], config):
    """What counts the words of the text in `corpus` (which it empties, so that the text is freed)."""

    def count():
        from explorer.training.word_counts import count_corpus

        return count_corpus(
            corpus.pop(), config.normalizers, config.pre_tokenizer, args.jobs, engine=args.engine
        )

    return count


def _train_and_write(args, count, config, budget, finish, **stop):
    """Count the words (`count()`: the word counts and the corpus figures), train, then write the
    tokenizer to `args.out` (and the trace to `args.trace`)."""
    from explorer.pipeline.tokenizer_json import save_tokenizer
    from explorer.train import tokenizer_from_trace
    from explorer.training.trainers import train_counted

    # Training builds millions of small containers and no reference cycles: the cyclic garbage
    # collector would only walk them again and again (5-6% of the instructions). A one-shot
    # process can switch it off; the app, whose trainings run beside other visitors' scripts in
    # threads, does not.
    gc.disable()
    try:
        counted = count()
        trace = train_counted(
            *counted, config, progress=budget.progress, should_stop=budget.should_stop, **stop
        )
        tokenizer = tokenizer_from_trace(trace)
    except ValueError as error:
        raise UserError(str(error)) from None
    finally:
        gc.enable()
        finish()
    try:
        save_tokenizer(tokenizer, args.out)
    except OSError as error:
        raise UserError(f"cannot write --out {args.out!r}: {error.strerror or error}") from None
    del tokenizer  # written: its tables need not stay beside the trace's JSON
    if args.trace:
        write_json_fields(args.trace, trace.json_fields(), "--trace")
    return trace
