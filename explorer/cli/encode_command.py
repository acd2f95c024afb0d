"""`python -m explorer encode`: the tokens, ids and offsets a tokenizer gives each TEXT, or with
`--steps` every merge (BPE) or piece found (WordPiece) on the way there; `--list-pretrained` lists
the bundled tokenizers.

The tokenizer is a tokenizer.json read by our reader (explorer.pipeline.tokenizer_json), a SentencePiece
`.model`,
or a bundled pretrained tokenizer (explorer.pretrained). `--special-tokens` makes special-token
text in TEXT ("<|endoftext|>", "[INST]") the model's special tokens instead of ordinary text.

What it does not do: encode (the tokenizers do), or print anything but the encodings.
"""

from __future__ import annotations

import json

from explorer.cli.common import (
    UserError,
    add_tokenizer_options,
    exactly_one_tokenizer,
    is_sentencepiece,
    load_our_tokenizer,
    load_pretrained,
    load_sentencepiece,
)
from explorer.drawing.wording import plural


def add_parser(commands, bundled) -> None:
    encode = commands.add_parser("encode", help="print tokens, ids and offsets")
    encode.set_defaults(run=run)
    add_tokenizer_options(encode, bundled, "a bundled tokenizer (--list-pretrained lists them)")
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


def run(args) -> int:
    if args.list_pretrained:
        return _list_pretrained()
    exactly_one_tokenizer(args)
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
        print(f"{result['tokenizer']}: {plural(len(result['tokens']), 'token')} for {result['text']!r}")
        for piece in result["tokens"]:
            marker = "  (special)" if piece["special"] else ""
            print(f"  {piece['id']:>7}  {piece['start']:>4}:{piece['end']:<4}  {piece['token']}{marker}")
    return 0


def _list_pretrained() -> int:
    from explorer.pretrained import by_family

    for family, infos in by_family().items():
        print(f"{family}:")
        for info in infos:
            print(f"  {info.name:<16} {info.vocab_size:>9,} ids  {info.label}  ({info.models})")
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
    """(the tokenizer's name, one row per token) for `text`."""
    if args.pretrained:
        from explorer.pretrained import info_for

        pieces = load_pretrained(args.pretrained).encode(text, args.special_tokens)
        return info_for(args.pretrained).label, _piece_rows(pieces)
    if is_sentencepiece(args.tokenizer):
        pieces = load_sentencepiece(args.tokenizer).encode(text, args.special_tokens)
        return args.tokenizer, _piece_rows(pieces)
    encoding = load_our_tokenizer(args.tokenizer).encode(text)
    return args.tokenizer, [
        {"id": i, "token": t, "start": s, "end": e, "special": bool(special)}
        for i, t, (s, e), special in zip(
            encoding.ids, encoding.tokens, encoding.offsets, encoding.special_tokens_mask
        )
    ]


def _piece_rows(pieces) -> list[dict]:
    """One row per explorer.tokens.Piece, its bytes shown readably."""
    from explorer.drawing.token_html import readable_token
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
    """`encode --steps`: the steps of each TEXT, as text or JSON."""
    from explorer.lessons.encode_steps import encode_steps, pretrained_encode_steps
    from explorer.lessons.encode_steps.output import steps_text_lines, steps_to_json

    tokenizer = None if args.pretrained else load_our_tokenizer(args.tokenizer)
    results = []
    for text in args.text:
        try:
            if tokenizer is None:
                results.append(pretrained_encode_steps(args.pretrained, text))
            else:
                # Like plain `encode`: the post-processor's [CLS]/[SEP] included.
                results.append(encode_steps(tokenizer, text, args.tokenizer, add_special_tokens=True))
        except ValueError as error:
            raise UserError(str(error)) from None
    if args.json:
        print(json.dumps([steps_to_json(result) for result in results], ensure_ascii=False, indent=1))
        return 0
    for result in results:
        print("\n".join(steps_text_lines(result)))
    return 0
