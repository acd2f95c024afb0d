"""`python -m explorer audit`: a vocabulary audit (explorer.measures.audit) of one tokenizer on a
corpus: its unreachable, unused and stepping-stone tokens, its Rényi efficiency, its bytes per
token and how it tokenizes each Unicode script, as a short summary or (`--json`) in full.

The tokenizer is a tokenizer.json (`--tokenizer`), a bundled pretrained one (`--pretrained`), or
a training trace (`--trace`, the tokenizer after `--step K` merges or rounds; the trained one
without it). The corpus is encoded line by line, each line one text, like `compare --corpus`.

What it does not do: compute anything (explorer.measures.audit does), or audit a SentencePiece
`.model` file (only a bundled one, through --pretrained).
"""

from __future__ import annotations

import json

from explorer.cli.common import (
    UserError,
    is_sentencepiece,
    load_our_tokenizer,
    load_pretrained,
    read_json_text,
    read_text,
)
from explorer.drawing.wording import plural

SUMMARY_EXAMPLES = 8  # tokens shown per list in the summary


def add_parser(commands, bundled) -> None:
    audit = commands.add_parser("audit", help="unreachable, unused and stepping-stone tokens on a corpus")
    audit.set_defaults(run=run)
    audit.add_argument("--tokenizer", help="a tokenizer.json")
    audit.add_argument("--pretrained", choices=list(bundled), metavar="NAME", help="a bundled tokenizer")
    audit.add_argument("--trace", help="a trace written by `train --trace`")
    audit.add_argument("--step", type=int, help="with --trace: the tokenizer after K merges (or rounds)")
    audit.add_argument("--corpus", required=True, help="a UTF-8 text file, one text per line (- for stdin)")
    audit.add_argument("--json", action="store_true", help="print the whole audit as JSON")


def run(args) -> int:
    from explorer.measures.audit import audit
    from explorer.training.word_counts import split_lines

    subject = _subject(args)
    lines = split_lines(read_text(args.corpus, "corpus"))
    if not lines:
        raise UserError(f"corpus {args.corpus!r} has no text: nothing to audit")
    try:
        result = audit(subject, lines)
    except ValueError as error:
        raise UserError(str(error)) from None
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print("\n".join(summary_lines(result)))
    return 0


def _subject(args):
    from explorer.measures.audit_subjects import subject_from_pretrained, subject_from_tokenizer

    given = [name for name in ("tokenizer", "pretrained", "trace") if getattr(args, name)]
    if len(given) != 1:
        raise UserError("give exactly one of --tokenizer FILE, --pretrained NAME or --trace FILE")
    if args.step is not None and not args.trace:
        raise UserError("--step K goes with --trace FILE")
    if args.pretrained:
        load_pretrained(args.pretrained)  # a missing package's file: one line, status 2
        return subject_from_pretrained(args.pretrained)
    if args.tokenizer:
        if is_sentencepiece(args.tokenizer):
            raise UserError(
                f"{args.tokenizer}: a SentencePiece model cannot be audited (only tokenizer.json)"
            )
        return subject_from_tokenizer(load_our_tokenizer(args.tokenizer), args.tokenizer)
    from explorer.train import trace_from_json

    try:
        trace = trace_from_json(read_json_text(args.trace, "trace file"))
    except (ValueError, KeyError, TypeError) as error:
        raise UserError(f"{args.trace}: not a training trace ({error})") from None
    if args.step is not None and not 0 <= args.step <= trace.steps:
        raise UserError(f"--step must be between 0 and {trace.steps} (the trace's {trace.step_noun}s)")
    plural = "" if args.step == 1 else "s"
    name = args.trace if args.step is None else f"{args.trace} after {args.step} {trace.step_noun}{plural}"
    return subject_from_tokenizer(trace.tokenizer_at(args.step), name)


def _examples(entries: list[dict]) -> str:
    shown = ", ".join(repr(entry["token"]) for entry in entries[:SUMMARY_EXAMPLES])
    return f" (e.g. {shown}{', ...' if len(entries) > SUMMARY_EXAMPLES else ''})" if entries else ""


def summary_lines(result: dict) -> list[str]:
    """The audit in a few lines: the figures, counts and a few examples of each list."""
    efficiency = result["renyi_efficiency"]
    value = efficiency["value"]
    bytes_per_token = result["bytes_per_token"]
    lines = [
        f"{result['tokenizer']}: {result['vocab_size']:,} ids ({result['ordinary_tokens']:,} ordinary, "
        f"{result['special_tokens']:,} special)",
        f"corpus: {plural(result['lines'], 'line')}, {plural(result['utf8_bytes'], 'byte')}, "
        f"{plural(result['tokens'], 'token')}, "
        + (f"{bytes_per_token:.3f} bytes per token" if bytes_per_token is not None else "no tokens"),
        f"Rényi efficiency (alpha {efficiency['alpha']}): " + ("n/a" if value is None else f"{value:.4f}"),
        f"unreachable: {result['unreachable_count']:,}{_examples(result['unreachable'])}",
        f"unused: {result['unused']['count']:,} of {result['ordinary_tokens']:,} ordinary tokens",
    ]
    stones = result["stepping_stones"]
    if stones is None:
        lines.append(f"stepping stones: n/a ({result['stepping_stones_reason']})")
    else:
        lines.append(f"stepping stones: {len(stones):,}{_examples(stones)}")
    lines.append("scripts (code points / tokens):")
    for script, row in result["scripts"].items():
        lines.append(f"  {script:<24} {row['characters']:>12,} {row['tokens']:>12,}")
    return lines
