"""What an encoded text is made of: `Piece`, one token with its span in the text, and its kind.

Every encoder of the app (our tokenizers, tiktoken's, the `tokenizers` library's) gives pieces with
`id`, `start`, `end` (character offsets into the text given to it) and, when known, `token_bytes`;
renderers and metrics read nothing else. `kind` says what a piece stands for; `DROPPED` pieces are
not tokens at all but the markers of characters that no token represents, so that nothing
disappears silently from a display or a figure.

What it does not do: encode (explorer.pipeline, explorer.pretrained) or draw (explorer.render).
"""

from __future__ import annotations

from dataclasses import dataclass

# What a piece of an encoded text is (`Piece.kind`).
TOKEN = "token"  # an ordinary token of the model
SPECIAL = "special"  # a special token written in the text, cut out before anything else
UNKNOWN = "unknown"  # the model's unknown token: it stands for text the vocabulary cannot spell
DROPPED = "dropped"  # not a token: a character the model drops without a trace (BPE without unk)


@dataclass(frozen=True)
class Piece:
    """One token of an encoded text, in the shape renderers and metrics take; or, with kind
    `DROPPED`, a character of the text that no token represents (id -1, value the character)."""

    id: int
    value: str
    start: int
    end: int
    token_bytes: bytes | None  # the token's own bytes when they are known exactly (byte-level)
    kind: str = TOKEN


def tokens_only(pieces):
    """The pieces that are tokens (what a token count counts): without the `DROPPED` markers."""
    return [piece for piece in pieces if getattr(piece, "kind", TOKEN) != DROPPED]


def kind_of(piece) -> str:
    """A piece's kind; pieces of encoders that know no kinds (tiktoken's) are plain tokens."""
    return getattr(piece, "kind", TOKEN)


def is_unknown(piece, unknown_token: int | str | None = None) -> bool:
    """Whether `piece` is the unknown token: by its kind, or by `unknown_token` given as an id
    (int) or as the token's text (str) for encoders that set no kind."""
    if kind_of(piece) == UNKNOWN:
        return True
    if unknown_token is None:
        return False
    if isinstance(unknown_token, int):
        return getattr(piece, "id", None) == unknown_token
    # Our pieces call the token's text `value`; other pieces may say `token`.
    token_text = getattr(piece, "value", getattr(piece, "token", None))
    if token_text is not None:
        return token_text == unknown_token
    return getattr(piece, "token_bytes", None) == unknown_token.encode("utf-8")


def lost_characters(pieces, unknown_token: int | str | None = None) -> int:
    """How many characters of the text no token spells out: those an unknown token stands for
    and those dropped (`DROPPED` markers), each character counted once.

    >>> lost_characters([Piece(5, "[UNK]", 0, 2, None, UNKNOWN), Piece(7, "a", 2, 3, None), Piece(-1, "P", 3, 4, b"P", DROPPED)])
    3
    """
    lost: set[int] = set()
    for piece in pieces:
        if kind_of(piece) == DROPPED or is_unknown(piece, unknown_token):
            lost.update(range(piece.start, piece.end))
    return len(lost)
