"""Where `python -m explorer train` gets its word counts: a corpus streamed and counted
(`corpus_inputs`, `counted_corpus`), or count files read (`read_counts`).

- `corpus_inputs`: the inputs the names stand for and their reading, the size on disk checked
  against --max-corpus-mb before anything is read.
- `counted_corpus`: the inputs' word counts (explorer.corpora.streaming), progress in bytes on
  stderr, stopped by --max-seconds (and, for stdin, --max-corpus-mb); the corpus checks' warnings
  on its first piece of text.
- `read_counts`: `train --counts FILE...`, the count files added in order
  (explorer.corpora.count_files); an option that only a corpus takes, or that says otherwise than
  the files' normalizers, pre-tokenizer or reading, is refused in one sentence.

What it does not do: parse the options or turn them into settings (explorer.cli.train_command),
train, or write anything.
"""

from __future__ import annotations

from explorer.checks import MB
from explorer.cli.common import UserError, comma_separated, counting_line, progress_printer, warn
from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS


def corpus_inputs(args, limits):
    """(the inputs the names stand for, the reading), the inputs' size checked against
    --max-corpus-mb before anything is read."""
    from explorer.checks import format_size
    from explorer.corpora.inputs import expand_inputs, reading_of, total_size

    try:
        inputs = expand_inputs(args.inputs, text_field=args.text_field, text_column=args.text_column)
        reading = reading_of(inputs, args.reading)
    except ValueError as error:
        raise UserError(str(error)) from None
    size = total_size(inputs)
    if size is not None and size > limits.max_corpus_bytes:
        raise UserError(
            f"The corpus is {format_size(size)} on disk; the limit of --max-corpus-mb is "
            f"{format_size(limits.max_corpus_bytes)}: train on a part of it, or raise --max-corpus-mb."
        )
    return inputs, reading


def counted_corpus(args, inputs, config, budget, limits, warnings):
    """The word counts of the inputs, with progress in bytes on stderr; stopped by --max-seconds
    (UserError) and, for stdin, by --max-corpus-mb; the settings' `warnings` printed first, the
    corpus checks' warnings on its first chunk of text as it comes."""
    from explorer.checks import check_corpus, format_size
    from explorer.corpora.counting import Counting
    from explorer.corpora.streaming import CountingStopped, count_inputs

    report, finish = progress_printer(line=counting_line)
    read = [0]

    def progress(done: int, total: int | None) -> None:
        read[0] = done
        if done > limits.max_corpus_bytes:  # stdin: its size is known only as it is read
            raise UserError(
                f"The corpus on stdin is more than --max-corpus-mb {args.max_corpus_mb:g}: "
                "train on a part of it, or raise --max-corpus-mb."
            )
        report(done, total)

    def first_text(text: str) -> None:
        warn(check_corpus(text, limits).warnings)

    warn(warnings)
    try:
        counts = count_inputs(
            inputs,
            Counting.of(config),
            jobs=args.jobs,
            engine=args.engine,
            progress=progress,
            should_stop=budget.should_stop,
            chunk_bytes=max(1, int(args.chunk_mb * MB)),
            first_text=first_text,
        )
    except CountingStopped:
        raise UserError(
            f"Stopped by {budget.stopped_by} while counting the corpus, {format_size(read[0])} into it: "
            "nothing was trained; raise --max-seconds or train on a part of the corpus."
        ) from None
    except ValueError as error:
        raise UserError(str(error)) from None
    finally:
        finish()
    if not counts.figures["words"]:
        what = "only white space" if counts.figures["characters"] else "no text"
        raise UserError(f"The corpus is empty: it has {what}.")
    return counts


def read_counts(args):
    """`train --counts FILE...`: the count files' word counts added in order (options that only
    reading a corpus takes refused)."""
    from explorer.corpora.count_files import read_count_files

    if args.print_code:
        raise UserError("--print-code writes a program that trains on the corpus: count files have no text")
    if args.max_corpus_mb:
        raise UserError("--max-corpus-mb limits a corpus read as text: count files are not, leave it out")
    if args.text_field is not None or args.text_column is not None:
        raise UserError(
            "--text-field and --text-column are for records: count files hold words, leave out both"
        )
    try:
        counted = read_count_files(args.counts)
    except ValueError as error:
        raise UserError(str(error)) from None
    _refuse_contradicting_options(args, counted.counting)
    if not counted.words:
        raise UserError("The count files hold no words: the corpora they counted were empty.")
    return counted


def _refuse_contradicting_options(args, counting) -> None:
    """UserError naming the first of --pre-tokenizer, --split-pattern, --normalizer, --reading that
    is given and says otherwise than the count files' settings (`counting`)."""
    byte_level = counting.pre_tokenizer in BYTE_LEVEL_PRE_TOKENIZERS.values()
    pattern = args.split_pattern and BYTE_LEVEL_PRE_TOKENIZERS[args.split_pattern]
    normalizers = None if args.normalizer is None else comma_separated(args.normalizer)
    given = [
        ("--pre-tokenizer", args.pre_tokenizer, "byte-level" if byte_level else counting.pre_tokenizer),
        ("--split-pattern", pattern, counting.pre_tokenizer),
        ("--normalizer", normalizers, counting.normalizers),
        ("--reading", args.reading, counting.reading),
    ]
    for flag, value, counted in given:
        if value is not None and value != counted:
            raise UserError(
                f"{flag} {getattr(args, flag[2:].replace('-', '_'))} says otherwise than the count files, "
                f"counted with {counting.describe()}: leave {flag} out, or count the corpora again with it"
            )
