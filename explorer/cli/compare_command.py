"""`python -m explorer compare`: one metrics table (explorer.measures.metrics) for several tokenizers on the
same texts: tokenizer.json files, SentencePiece `.model` files and bundled pretrained tokenizers, on a
corpus file or on TEXT (one or the other: TEXT beside --corpus is refused, not ignored).

What it does not do: compute the metrics (explorer.measures.metrics does), or compare boundaries token by
token (the app's compare page, explorer.compare).
"""

from __future__ import annotations

import functools

from explorer.cli.common import UserError, is_sentencepiece, load_our_tokenizer, load_sentencepiece, read_text


def add_parser(commands, bundled) -> None:
    compare = commands.add_parser("compare", help="metrics table for several tokenizers")
    compare.set_defaults(run=run)
    compare.add_argument(
        "--tokenizer", action="append", default=[], help="a tokenizer.json, or a SentencePiece .model"
    )
    compare.add_argument("--pretrained", action="append", default=[], choices=list(bundled), metavar="NAME")
    compare.add_argument("--corpus")
    compare.add_argument("--json", action="store_true")
    compare.add_argument("text", nargs="*")


def run(args) -> int:
    from explorer.measures.metrics import compute_metrics, metrics_table
    from explorer.pretrained import encode_pretrained, info_for
    from explorer.train import encode_pieces

    if args.corpus and args.text:
        raise UserError(
            "give --corpus FILE or TEXT, not both: compare on one of them (put the TEXT in the file, "
            "one per line, to measure both)"
        )
    if args.corpus:
        from explorer.training.word_counts import split_lines

        texts = split_lines(read_text(args.corpus, "corpus"))
    else:
        texts = list(args.text)
    if not texts:
        raise UserError("nothing to compare on: give --corpus FILE or some TEXT")
    if not args.tokenizer and not args.pretrained:
        raise UserError("give at least one --tokenizer FILE or --pretrained NAME")
    results = []
    for path in args.tokenizer:
        if is_sentencepiece(path):  # as `encode` reads it; special-token text stays ordinary text
            encoder = load_sentencepiece(path).encode
        else:
            encoder = functools.partial(encode_pieces, load_our_tokenizer(path))
        results.append(compute_metrics(path, texts, encoder))
    for name in args.pretrained:
        results.append(
            compute_metrics(info_for(name).label, texts, functools.partial(encode_pretrained, name))
        )
    table = metrics_table(results).reset_index()  # the tokenizer's name a column, printed with its row
    if args.json:
        print(table.to_json(orient="records", force_ascii=False, indent=1))
    else:
        print(table.to_string(index=False))
    return 0
