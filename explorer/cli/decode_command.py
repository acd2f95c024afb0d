"""`python -m explorer decode`: turn token ids back into text, naming each id's token.

IDS are comma- or space-separated numbers, or a JSON list ("[1, 2, 3]"); ids a tokenizer does not
have are named in a warning and left out of the text. A tokenizer.json is decoded by the
`tokenizers` library (which reads any tokenizer.json, ours included); a SentencePiece `.model` and
the bundled tokenizers by explorer.pretrained.

What it does not do: encode, or decode with our own decoders (explorer.pipeline.decoders).
"""

from __future__ import annotations

import json

from explorer.cli.common import (
    UserError,
    add_tokenizer_options,
    exactly_one_tokenizer,
    is_sentencepiece,
    load_pretrained,
    load_sentencepiece,
    read_json_text,
    warn,
)


def add_parser(commands, bundled) -> None:
    decode = commands.add_parser("decode", help="turn token ids back into text")
    decode.set_defaults(run=run)
    add_tokenizer_options(decode, bundled)
    decode.add_argument("--json", action="store_true")
    decode.add_argument("ids", nargs="+", help='ids, comma or space separated, or a JSON list "[1, 2]"')


def run(args) -> int:
    from explorer.drawing.token_html import readable_token
    from explorer.pretrained import info_for, parse_ids

    exactly_one_tokenizer(args)
    try:
        ids = parse_ids(" ".join(args.ids))
    except ValueError as error:
        raise UserError(str(error)) from None
    if args.pretrained:
        name, decoding = info_for(args.pretrained).label, load_pretrained(args.pretrained).decode(ids)
    elif is_sentencepiece(args.tokenizer):
        name, decoding = args.tokenizer, load_sentencepiece(args.tokenizer).decode(ids)
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
    warn(decoding.problems)
    return 0


def _library_decoding(path: str, ids: list[int]):
    """Decode with the `tokenizers` library, which reads any tokenizer.json (ours included), as the
    Compare page decodes an upload (`compare.decode.library_decoder`)."""
    import tokenizers

    from explorer.compare.decode import library_decoder
    from explorer.compare.encoders import mentions_byte_level

    text = read_json_text(path, "tokenizer file")  # bounded before any parser recurses into it
    try:
        library = tokenizers.Tokenizer.from_str(text)
    except Exception as error:  # the library raises plain Exceptions with serde's message
        reason = str(error).splitlines()[0]
        raise UserError(f"{path}: the tokenizers library cannot read it ({reason})") from None
    return library_decoder(library, mentions_byte_level(json.loads(text)))(ids)
