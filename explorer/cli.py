"""`python -m explorer`: train, encode and compare tokenizers from the command line.

    train CORPUS --algorithm {bpe,wordpiece,unigram} --flavor {library,course} --vocab-size N
          --pre-tokenizer {byte-level,bert,whitespace,whitespace-split,metaspace}
          [--normalizer nfd,lowercase] [--min-frequency N] [--special-tokens "A,B"]
          [--continuing-subword-prefix S] [--end-of-word-suffix S]
          [--seed-size N] [--shrinking-factor F] [--max-piece-length N]   (unigram)
          [--max-seconds S] [--max-steps N] [--max-corpus-mb MB] --out tokenizer.json [--trace trace.json]
    encode (--tokenizer tokenizer.json|X.model | --pretrained NAME) [--special-tokens] [--steps] [--json] TEXT...
    encode --list-pretrained
    decode (--tokenizer tokenizer.json|X.model | --pretrained NAME) [--json] IDS...
    compare [--tokenizer A.json ...] [--pretrained NAME ...] (--corpus FILE | TEXT...) [--json]

IDS are comma- or space-separated numbers, or a JSON list ("[1, 2, 3]"); ids a tokenizer does not
have are named in a warning and left out of the text. `--special-tokens` makes special-token text
in TEXT ("<|endoftext|>", "[INST]") the model's special tokens instead of ordinary text.

CORPUS is a path or `-` for stdin; each line is one sequence (like `train_from_iterator(lines)`).
Files must be UTF-8 (explorer/checks/uploads.py names what a file looks like otherwise). Unlike the hosted
app, `train` has no size, time or step limit unless asked for one.
Every error a user can cause prints one line on stderr and exits with status 2; never a traceback.
Warnings (`warning: ...`) and notes (`note: ...`) go to stderr too and do not stop anything.
What it does not do: anything the package does not (this module only parses and prints).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import math
import sys
import time
from pathlib import Path

EXIT_USAGE = 2


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line instead of usage + message
        raise UserError(message)


def _read_text(source: str, what: str) -> str:
    from explorer.checks import InputError, decode_upload

    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except FileNotFoundError:
        raise UserError(f"{what} {source!r} does not exist")
    except IsADirectoryError:
        raise UserError(f"{what} {source!r} is a directory, not a file")
    except OSError as error:
        raise UserError(f"cannot read {what} {source!r}: {error.strerror}")
    try:
        return decode_upload(data, source)
    except InputError as error:
        raise UserError(f"{what} {error}")


def _positive(kind):
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


def _warn(lines, label: str = "warning") -> None:
    for line in lines:
        print(f"{label}: {line}", file=sys.stderr)


def _csv(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _progress_printer(unit: str = "merges"):
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


def _train(args) -> int:
    from explorer.checks import Budget, Limits, check_corpus, check_special_tokens, check_vocab_size
    from explorer.explain import explain_vocab_size, special_token_notes
    from explorer.hf_json import save_tokenizer
    from explorer.pipeline import tokenizer_from_trace, train_corpus
    from explorer.run_config import MAX_SYMBOLS, RunConfig, TrainerConfig
    from explorer.trainers import STOP_REASONS

    # A local tool: no limit unless asked (TrainerConfig still bounds the vocab size).
    limits = Limits(
        max_corpus_mb=args.max_corpus_mb or math.inf,
        max_seconds=math.inf,
        max_steps=math.inf,
        max_vocab=MAX_SYMBOLS - 1,
    )
    text = _read_text(args.corpus, "corpus")
    corpus_check = check_corpus(text, limits)
    if corpus_check.errors:
        raise UserError(" ".join(corpus_check.errors))
    default_pre_tokenizer = {"bpe": "byte-level", "wordpiece": "bert", "unigram": "metaspace"}[args.algorithm]
    pre_tokenizer = args.pre_tokenizer or default_pre_tokenizer
    special_tokens = _csv(args.special_tokens)
    tokens_check = check_special_tokens(special_tokens, pre_tokenizer)
    if tokens_check.errors:
        raise UserError(" ".join(tokens_check.errors))
    if args.algorithm == "unigram":
        return _train_unigram(
            args, text, limits, pre_tokenizer, special_tokens, corpus_check.warnings + tokens_check.warnings
        )
    unigram_only = [flag for flag, value in _unigram_options(args).items() if value is not None]
    if unigram_only:
        raise UserError(f"{unigram_only[0]} is a Unigram setting (use --algorithm unigram)")
    try:
        check_vocab_size(args.vocab_size, limits)
        trainer = TrainerConfig(
            algorithm=args.algorithm,
            flavor=args.flavor,
            vocab_size=args.vocab_size,
            min_frequency=args.min_frequency,
            special_tokens=special_tokens,
            continuing_subword_prefix=args.continuing_subword_prefix,
            end_of_word_suffix=args.end_of_word_suffix,
        )
        run = RunConfig(trainer, _csv(args.normalizer), pre_tokenizer)
    except ValueError as error:  # InputError included
        raise UserError(str(error))
    _warn(corpus_check.warnings + tokens_check.warnings)
    report, finish = _progress_printer()
    budget = Budget(args.max_seconds, args.max_steps, progress=report)
    # Training builds millions of small containers and no reference cycles: the cyclic garbage
    # collector would only walk them again and again (5-6% of the instructions). A one-shot
    # process can switch it off; the app, whose trainings run beside other visitors' scripts in
    # threads, does not.
    gc.disable()
    try:
        trace = train_corpus(
            text, run, progress=budget.progress, should_stop=budget.should_stop, max_steps=budget.step_limit
        )
    except ValueError as error:
        raise UserError(str(error))
    finally:
        gc.enable()
        finish()
    save_tokenizer(tokenizer_from_trace(trace), args.out)
    if args.trace:
        Path(args.trace).write_text(trace.to_json(), encoding="utf-8")
    print(
        f"{trace.steps:,} merges, vocab {len(trace.vocab):,}, stopped: {STOP_REASONS[trace.stop_reason]}, "
        f"{trace.seconds:.2f} s -> {args.out}",
        file=sys.stderr,
    )
    print(explain_vocab_size(trace, args.vocab_size, budget.stop_cause(trace)), file=sys.stderr)
    _warn(special_token_notes(trace), "note")
    return 0


def _unigram_options(args) -> dict:
    return {
        "--seed-size": args.seed_size,
        "--shrinking-factor": args.shrinking_factor,
        "--max-piece-length": args.max_piece_length,
    }


def _train_unigram(args, text: str, limits, pre_tokenizer: str, special_tokens, warnings) -> int:
    """`train --algorithm unigram`: the same checks and outputs, a UnigramTrace."""
    from explorer.checks import Budget, check_vocab_size
    from explorer.hf_json import save_tokenizer
    from explorer.pipeline import tokenizer_from_trace, train_corpus
    from explorer.run_config import RunConfig, UnigramConfig
    from explorer.trainers.unigram import UNIGRAM_STOP_REASONS

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
    try:
        check_vocab_size(args.vocab_size, limits)
        trainer = UnigramConfig(
            flavor=args.flavor,
            vocab_size=args.vocab_size,
            seed_size=args.seed_size,
            shrinking_factor=0.75 if args.shrinking_factor is None else args.shrinking_factor,
            max_piece_length=args.max_piece_length,
            special_tokens=special_tokens,
        )
        run = RunConfig(trainer, _csv(args.normalizer), pre_tokenizer)
    except ValueError as error:  # InputError included
        raise UserError(str(error))
    _warn(warnings)
    report, finish = _progress_printer("rounds")
    budget = Budget(args.max_seconds, None, progress=report)
    gc.disable()  # see _train
    try:
        trace = train_corpus(text, run, progress=budget.progress, should_stop=budget.should_stop)
        tokenizer = tokenizer_from_trace(trace)
    except ValueError as error:
        raise UserError(str(error))
    finally:
        gc.enable()
        finish()
    save_tokenizer(tokenizer, args.out)
    if args.trace:
        Path(args.trace).write_text(trace.to_json(), encoding="utf-8")
    stopped = UNIGRAM_STOP_REASONS[trace.stop_reason]
    if trace.stop_reason == "stopped" and budget.stopped_by:
        stopped = f"stopped by {budget.stopped_by}"
    print(
        f"{len(trace.seeds):,} seed pieces, {len(trace.rounds):,} rounds, vocab {len(trace.vocab):,}, "
        f"stopped: {stopped}, {trace.seconds:.2f} s -> {args.out}",
        file=sys.stderr,
    )
    return 0


def _load_our_tokenizer(path: str):
    from explorer.hf_json import tokenizer_from_json

    try:
        return tokenizer_from_json(_read_text(path, "tokenizer file"))
    except ValueError as error:
        raise UserError(f"{path}: {error}")


def _is_sentencepiece(path: str) -> bool:
    from explorer.compare.uploads import is_sentencepiece_name

    return is_sentencepiece_name(path)


def _load_sentencepiece(path: str):
    from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UserError(f"cannot read tokenizer file {path!r}: {error.strerror}")
    try:
        return SentencePieceTokenizer.from_bytes(data, path)
    except ValueError as error:
        raise UserError(f"{path}: {error}")


def _pretrained(name: str):
    from explorer.pretrained import PretrainedDataError, load_tokenizer

    try:
        return load_tokenizer(name)
    except PretrainedDataError as error:
        raise UserError(str(error))


def _piece_rows(pieces) -> list[dict]:
    from explorer.render import readable_token
    from explorer.tokens import SPECIAL

    return [
        {
            "id": p.id,
            "token": readable_token(p.token_bytes),
            "start": p.start,
            "end": p.end,
            "special": p.kind == SPECIAL,
        }
        for p in pieces
    ]


def _encode_steps(args) -> int:
    from explorer.encode_steps import encode_steps, pretrained_encode_steps
    from explorer.encode_steps_output import steps_text_lines, steps_to_json

    tokenizer = None if args.pretrained else _load_our_tokenizer(args.tokenizer)
    results = []
    for text in args.text:
        try:
            if tokenizer is None:
                results.append(pretrained_encode_steps(args.pretrained, text))
            else:
                # Like plain `encode`: the post-processor's [CLS]/[SEP] included.
                results.append(encode_steps(tokenizer, text, args.tokenizer, add_special_tokens=True))
        except ValueError as error:
            raise UserError(str(error))
    if args.json:
        print(json.dumps([steps_to_json(result) for result in results], ensure_ascii=False, indent=1))
        return 0
    for result in results:
        print("\n".join(steps_text_lines(result)))
    return 0


def _check_text_is_utf8(texts: list[str]) -> None:
    """Bytes that are not UTF-8 reach argv as lone surrogates, which no tokenizer.json pipeline can
    encode (the pretrained ones read them as U+FFFD, like tiktoken)."""
    for text in texts:
        bad = next((char for char in text if "\udc80" <= char <= "\udcff"), None)
        if bad is not None:
            raise UserError(
                f"TEXT {text!r} is not UTF-8 (it holds the byte 0x{ord(bad) - 0xDC00:02X}); pass UTF-8 text"
            )


def _pieces_for(args, text: str) -> tuple[str, list[dict]]:
    if args.pretrained:
        from explorer.pretrained import info_for

        return info_for(args.pretrained).label, _piece_rows(
            _pretrained(args.pretrained).encode(text, args.special_tokens)
        )
    if _is_sentencepiece(args.tokenizer):
        return args.tokenizer, _piece_rows(
            _load_sentencepiece(args.tokenizer).encode(text, args.special_tokens)
        )
    encoding = _load_our_tokenizer(args.tokenizer).encode(text)
    return args.tokenizer, [
        {"id": i, "token": t, "start": s, "end": e, "special": bool(special)}
        for i, t, (s, e), special in zip(
            encoding.ids, encoding.tokens, encoding.offsets, encoding.special_tokens_mask
        )
    ]


def _list_pretrained() -> int:
    from explorer.pretrained import by_family

    for family, infos in by_family().items():
        print(f"{family}:")
        for info in infos:
            print(f"  {info.name:<16} {info.vocab_size:>9,} ids  {info.label}  ({info.models})")
    return 0


def _encode(args) -> int:
    if args.list_pretrained:
        return _list_pretrained()
    if bool(args.tokenizer) == bool(args.pretrained):
        raise UserError("give exactly one of --tokenizer FILE or --pretrained NAME")
    if not args.text:
        raise UserError("nothing to encode: give some TEXT")
    if args.tokenizer:
        _check_text_is_utf8(args.text)
    if args.steps:
        return _encode_steps(args)
    results = []
    for text in args.text:
        name, pieces = _pieces_for(args, text)
        results.append({"text": text, "tokenizer": name, "tokens": pieces})
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=1))
        return 0
    for result in results:
        print(f"{result['tokenizer']}: {len(result['tokens'])} tokens for {result['text']!r}")
        for piece in result["tokens"]:
            marker = "  (special)" if piece["special"] else ""
            print(f"  {piece['id']:>7}  {piece['start']:>4}:{piece['end']:<4}  {piece['token']}{marker}")
    return 0


def _library_decoding(path: str, ids: list[int]):
    """Decode with the `tokenizers` library, which reads any tokenizer.json (ours included)."""
    import tokenizers

    from explorer.pretrained import DecodedToken, Decoding
    from explorer.pretrained.decoding import UNUSED, out_of_range

    try:
        library = tokenizers.Tokenizer.from_str(_read_text(path, "tokenizer file"))
    except Exception as error:  # the library raises plain Exceptions with serde's message
        raise UserError(f"{path}: the tokenizers library cannot read it ({str(error).splitlines()[0]})")
    size = library.get_vocab_size(with_added_tokens=True)
    tokens = []
    for token_id in ids:
        token = library.id_to_token(token_id) if 0 <= token_id < 2**32 else None
        if token is None:
            problem = out_of_range(size) if not 0 <= token_id < size else UNUSED
            tokens.append(DecodedToken(token_id, b"", problem=problem))
        else:
            tokens.append(DecodedToken(token_id, token.encode("utf-8", errors="surrogatepass")))
    text = library.decode([t.id for t in tokens if not t.problem], skip_special_tokens=False)
    return Decoding(text, tuple(tokens))


def _decode(args) -> int:
    from explorer.pretrained import info_for, parse_ids
    from explorer.render import readable_token

    if bool(args.tokenizer) == bool(args.pretrained):
        raise UserError("give exactly one of --tokenizer FILE or --pretrained NAME")
    try:
        ids = parse_ids(" ".join(args.ids))
    except ValueError as error:
        raise UserError(str(error))
    if args.pretrained:
        name, decoding = info_for(args.pretrained).label, _pretrained(args.pretrained).decode(ids)
    elif _is_sentencepiece(args.tokenizer):
        name, decoding = args.tokenizer, _load_sentencepiece(args.tokenizer).decode(ids)
    else:
        name, decoding = args.tokenizer, _library_decoding(args.tokenizer, ids)
    rows = [
        {"id": t.id, "token": readable_token(t.token_bytes), "special": t.special, "problem": t.problem}
        for t in decoding.tokens
    ]
    if args.json:
        print(
            json.dumps(
                {"tokenizer": name, "text": decoding.text, "tokens": rows, "problems": decoding.problems},
                ensure_ascii=False,
                indent=1,
            )
        )
    else:
        print(f"{name}: {len(ids)} ids -> {decoding.text!r}")
        for row in rows:
            shown = (
                f"({row['problem']})"
                if row["problem"]
                else row["token"] + ("  (special)" if row["special"] else "")
            )
            print(f"  {row['id']:>7}  {shown}")
    _warn(decoding.problems)
    return 0


def _compare(args) -> int:
    from explorer.metrics import compute_metrics, metrics_table
    from explorer.pipeline import encode_pieces
    from explorer.pretrained import encode_pretrained, info_for

    if args.corpus:
        from explorer.corpus import split_lines

        texts = split_lines(_read_text(args.corpus, "corpus"))
    else:
        texts = list(args.text)
    if not texts:
        raise UserError("nothing to compare on: give --corpus FILE or some TEXT")
    if not args.tokenizer and not args.pretrained:
        raise UserError("give at least one --tokenizer FILE or --pretrained NAME")
    results = []
    for path in args.tokenizer:
        tokenizer = _load_our_tokenizer(path)
        results.append(compute_metrics(path, texts, functools.partial(encode_pieces, tokenizer)))
    for name in args.pretrained:
        results.append(
            compute_metrics(info_for(name).label, texts, lambda t, n=name: encode_pretrained(n, t))
        )
    table = metrics_table(results)
    if args.json:
        print(table.to_json(orient="records", force_ascii=False, indent=1))
    else:
        print(table.to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from explorer.pretrained import BUNDLED

    parser = _Parser(prog="python -m explorer", description="Train, encode and compare subword tokenizers.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    train = commands.add_parser("train", help="train a tokenizer on a corpus and write tokenizer.json")
    train.add_argument("corpus", help="corpus file, or - for stdin; one sequence per line")
    train.add_argument("--algorithm", choices=["bpe", "wordpiece", "unigram"], default="bpe")
    train.add_argument("--flavor", choices=["library", "course"], default="library")
    train.add_argument("--vocab-size", type=int, required=True)
    train.add_argument(
        "--pre-tokenizer", choices=["byte-level", "bert", "whitespace", "whitespace-split", "metaspace"]
    )
    train.add_argument(
        "--normalizer", default="", help="comma-separated: nfd,nfkc,lowercase,strip-accents,bert"
    )
    train.add_argument("--min-frequency", type=int, default=0)
    train.add_argument("--special-tokens", default=None, help='comma-separated; "" for none')
    train.add_argument("--continuing-subword-prefix", default=None)
    train.add_argument("--end-of-word-suffix", default=None)
    train.add_argument(
        "--seed-size", type=_positive(int), help="unigram: seed pieces (library 1,000,000; course 300)"
    )
    train.add_argument(
        "--shrinking-factor", type=float, help="unigram library: share of pieces kept per round (0.75)"
    )
    train.add_argument(
        "--max-piece-length", type=_positive(int), help="unigram: longest piece (library 16; course none)"
    )
    train.add_argument("--max-seconds", type=_positive(float), help="stop training after this many seconds")
    train.add_argument("--max-steps", type=_positive(int), help="stop training after this many merges")
    train.add_argument(
        "--max-corpus-mb", type=_positive(float), help="refuse a corpus larger than this (MB of UTF-8)"
    )
    train.add_argument("--out", required=True, help="where to write tokenizer.json")
    train.add_argument("--trace", help="also write the training trace as JSON")

    encode = commands.add_parser("encode", help="print tokens, ids and offsets")
    encode.add_argument("--tokenizer", help="a tokenizer.json, or a SentencePiece .model")
    encode.add_argument(
        "--pretrained",
        choices=list(BUNDLED),
        metavar="NAME",
        help="a bundled tokenizer (--list-pretrained lists them)",
    )
    encode.add_argument("--list-pretrained", action="store_true", help="list the bundled tokenizers and exit")
    encode.add_argument(
        "--special-tokens",
        action="store_true",
        help='special-token text such as "<|endoftext|>" becomes the special token',
    )
    encode.add_argument("--json", action="store_true")
    encode.add_argument(
        "--steps",
        action="store_true",
        help="show every merge (BPE) or every piece found (WordPiece), pre-token by pre-token",
    )
    encode.add_argument("text", nargs="*")

    decode = commands.add_parser("decode", help="turn token ids back into text")
    decode.add_argument("--tokenizer", help="a tokenizer.json, or a SentencePiece .model")
    decode.add_argument("--pretrained", choices=list(BUNDLED), metavar="NAME")
    decode.add_argument("--json", action="store_true")
    decode.add_argument("ids", nargs="+", help='ids, comma or space separated, or a JSON list "[1, 2]"')

    compare = commands.add_parser("compare", help="metrics table for several tokenizers")
    compare.add_argument("--tokenizer", action="append", default=[])
    compare.add_argument("--pretrained", action="append", default=[], choices=list(BUNDLED), metavar="NAME")
    compare.add_argument("--corpus")
    compare.add_argument("--json", action="store_true")
    compare.add_argument("text", nargs="*")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "train":
            if args.special_tokens is None:
                args.special_tokens = (
                    "[PAD],[UNK],[CLS],[SEP],[MASK]" if args.algorithm == "wordpiece" else ""
                )
            return _train(args)
        if args.command == "encode":
            return _encode(args)
        if args.command == "decode":
            return _decode(args)
        return _compare(args)
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
