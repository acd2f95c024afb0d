"""Token ids back to text for any Compare column: our tokenizers, uploads the `tokenizers` library
reads, and (through explorer.pretrained) the bundled ones, all as one `Decoding`.

- `tokenizer_decoder(tok)`: one of ours (a run, an upload our readers read). The text is the
  tokenizer's own `decode` with special tokens kept (as `tokenizers` with
  `skip_special_tokens=False`); each token's bytes are its byte-level bytes, or its spelling.
- `library_decoder(library)`: a tokenizer.json only the `tokenizers` library reads.
- `decoded_pieces(decoding)`: the decoded tokens as `explorer.tokens.Piece`s, with their spans in
  the decoded text where their bytes add up to it; ids without a token are left out
  (`Decoding.problems` names them).
- `shown_text(decoding)`: the text with a byte that is no whole character as `<0xF0>`, never "�".
- `decoded_note(decoding)`: '3 tokens · 5 characters.', characters counted as everywhere on the
  page (explorer.drawing.wording.character_count).
- `decoding_html(decoding)`: that text (escaped, white space kept) and the tokens, those holding
  parts of one character grouped into it as on every other byte-level display.

The bundled tokenizers decode through `explorer.pretrained.decode`, SentencePiece models through
their own `decode`; both give the same `Decoding`.

What it does not do: parse pasted ids (explorer.pretrained.parse_ids) or import streamlit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from explorer.drawing.token_html import escape_text, pieces_html, text_with_byte_escapes, token_spans_html
from explorer.drawing.wording import character_count, plural
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pipeline.decoders import ByteLevelDecoder
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pretrained.decoding import UNUSED, DecodedToken, Decoding, out_of_range
from explorer.pretrained.pieces import pieces_from_token_bytes
from explorer.tokens import SPECIAL, TOKEN, Piece

Decoder = Callable[[Sequence[int]], Decoding]


def _spelled_bytes(token: str, byte_level: bool) -> bytes:
    if byte_level:
        try:
            return symbols_to_bytes(token)
        except ValueError:  # a special token such as "<|endoftext|>" is its own text
            pass
    return token.encode("utf-8", errors="surrogatepass")


def tokenizer_decoder(tok: Tokenizer) -> Decoder:
    """Decode ids with one of our tokenizers; an id it has no token for is named, not raised."""
    byte_level = isinstance(tok.decoder, ByteLevelDecoder)
    size = tok.vocab_size()

    def decode(ids: Sequence[int]) -> Decoding:
        tokens = []
        for token_id in ids:
            token = tok.id_to_token(token_id) if 0 <= token_id else None
            if token is None:
                problem = out_of_range(size) if not 0 <= token_id < size else UNUSED
                tokens.append(DecodedToken(token_id, b"", problem=problem))
                continue
            special = token in tok.special_token_ids
            spelled = token.encode("utf-8") if special else _spelled_bytes(token, byte_level)
            tokens.append(DecodedToken(token_id, spelled, special=special))
        text = tok.decode([t.id for t in tokens if not t.problem], skip_special_tokens=False)
        return Decoding(text, tuple(tokens))

    return decode


def library_decoder(library, byte_level: bool) -> Decoder:
    """Decode ids with a `tokenizers.Tokenizer` (special tokens kept in the text)."""
    size = library.get_vocab_size(with_added_tokens=True)
    special_texts = {token.content for token in library.get_added_tokens_decoder().values() if token.special}

    def decode(ids: Sequence[int]) -> Decoding:
        tokens = []
        for token_id in ids:
            token = library.id_to_token(token_id) if 0 <= token_id < 2**32 else None
            if token is None:
                problem = out_of_range(size) if not 0 <= token_id < size else UNUSED
                tokens.append(DecodedToken(token_id, b"", problem=problem))
                continue
            special = token in special_texts
            spelled = token.encode("utf-8") if special else _spelled_bytes(token, byte_level)
            tokens.append(DecodedToken(token_id, spelled, special=special))
        text = library.decode([t.id for t in tokens if not t.problem], skip_special_tokens=False)
        return Decoding(text, tuple(tokens))

    return decode


SPACE_MARKER = "▁".encode()  # SentencePiece's and Metaspace's space, as a token spells it


def decoded_pieces(decoding: Decoding) -> tuple[str | None, list[Piece]]:
    r"""The decoded tokens that have one, as pieces (what the token drawers draw), and the text
    their spans point into; ids without a token are left out (`Decoding.problems` names them).

    Where the tokens' bytes add up to the decoded text (byte-level vocabularies), or do once each
    "▁" is a space (SentencePiece, whose decoder also drops the first space), each piece carries its
    span in that text, so that tokens holding parts of one character can be grouped into it.
    Elsewhere (WordPiece's "##", a decoder that changes the text) the text is None and the
    spans are empty.

    >>> gpt2_bytes = [DecodedToken(40, b"I"), DecodedToken(447, b"\xe2\x80"), DecodedToken(247, b"\x99")]
    >>> text, pieces = decoded_pieces(Decoding("I’", tuple(gpt2_bytes)))
    >>> text, [(piece.start, piece.end) for piece in pieces]
    ('I’', [(0, 1), (1, 2), (1, 2)])
    """
    tokens = [token for token in decoding.tokens if not token.problem]
    kinds = [SPECIAL if token.special else TOKEN for token in tokens]
    spelled = [token.token_bytes for token in tokens]
    if all(spelled):
        spaced = [spelling.replace(SPACE_MARKER, b" ") for spelling in spelled]
        for surface, text in (
            (spelled, decoding.text),
            (spaced, decoding.text),
            (spaced, " " + decoding.text),
        ):
            if b"".join(surface) != text.encode("utf-8", "surrogatepass"):
                continue
            try:
                spanned = pieces_from_token_bytes(text, [token.id for token in tokens], surface)
            except ValueError:  # a surrogate in the text: it has no UTF-8 of its own
                break
            return text, [
                piece._replace(token_bytes=spelling, kind=kind)
                for piece, spelling, kind in zip(spanned, spelled, kinds)
            ]
    return None, [Piece(token.id, "", 0, 0, token.token_bytes, kind) for token, kind in zip(tokens, kinds)]


def shown_text(decoding: Decoding) -> str:
    r"""The decoded text as the page shows it: a byte that is no whole character (a lone
    `<0xF0>` of an emoji cut short) written `<0xF0>` as in the token row, never "�".

    Where the text has a "�" and the tokens' bytes (as in `decoded_pieces`) decode to the text,
    the text is rebuilt from those bytes; elsewhere it is the decoder's text.

    >>> shown_text(Decoding(" \ufffd", (DecodedToken(12520, b" \xf0\x9f"),)))
    ' <0xF0><0x9F>'
    """
    text = decoding.text
    tokens = [token for token in decoding.tokens if not token.problem]
    if "\ufffd" not in text or not tokens or not all(token.token_bytes for token in tokens):
        return text
    spelled = [token.token_bytes for token in tokens]
    spaced = [spelling.replace(SPACE_MARKER, b" ") for spelling in spelled]
    for surface, lead in ((spelled, ""), (spaced, ""), (spaced, " ")):
        data = b"".join(surface)
        if data.decode("utf-8", errors="replace") == lead + text:
            return text_with_byte_escapes(data)[len(lead) :]
    return text


def decoded_note(decoding: Decoding) -> str:
    r"""How many tokens the ids gave and how many characters their text has, counted as the box
    counts a typed text (user-perceived characters, line breaks not counted).

    >>> decoded_note(Decoding("👍🏽 ok\n", (DecodedToken(1, b"x"), DecodedToken(2, b"", problem="unused"))))
    '1 token · 4 characters.'
    """
    tokens = len(decoding.tokens) - len(decoding.problems)
    return f"{plural(tokens, 'token')} · {plural(character_count(decoding.text), 'character')}."


def decoding_html(decoding: Decoding, show_ids: bool = False) -> str:
    """The decoded text (escaped; white space as typed) above its tokens: grouped into the
    characters they share (`render.token_spans_html`) where the pieces have spans in the text,
    side by side (`render.pieces_html`) elsewhere."""
    spanned_text, pieces = decoded_pieces(decoding)
    if spanned_text is not None:
        tokens = token_spans_html(spanned_text, pieces, show_ids=show_ids)
    else:
        tokens = pieces_html(pieces, show_ids=show_ids)
    return (
        f'<div class="decoded"><pre class="decoded-text">{escape_text(shown_text(decoding))}</pre>'
        f'<div class="decoded-tokens">{tokens}</div></div>'
    )
