"""What an encoded text is made of: `Piece`, one token with its span in the text, and its kind.

Every encoder of the app gives pieces: our models and tokenizers, the pretrained ones (tiktoken,
SentencePiece, the `tokenizers` library); every renderer and metric takes them. (The batch
encoders that measure a whole corpus give the same ids and spans in arrays instead,
`explorer.measures.metrics.EncodedTexts`: no `Piece` per token.) `kind` says what a piece stands
for, set by the encoder that knows (ours: `explorer.train.encode_pieces`); `DROPPED` pieces are
not tokens at all but the markers of characters that no token represents, so that nothing
disappears silently from a display or a figure.

What it does not do: encode (explorer.train, explorer.pretrained) or draw (explorer.drawing.token_html).
"""

from __future__ import annotations

from typing import NamedTuple

# What a piece of an encoded text is (`Piece.kind`).
TOKEN = "token"  # an ordinary token of the model
SPECIAL = "special"  # a special token written in the text, cut out before anything else
UNKNOWN = "unknown"  # the model's unknown token: it stands for text the vocabulary cannot spell
DROPPED = "dropped"  # not a token: a character the model drops without a trace (BPE without unk)


class Piece(NamedTuple):
    """One token of an encoded text; or, with kind `DROPPED`, a character of the text that no
    token represents (id -1, value the character).

    `value` is the token as its vocabulary spells it ("Ġthe", "##ing", "▁the"; for tiktoken's
    encodings, GPT-2's byte symbols, as the `tokenizers` library spells the same vocabularies).
    `start`/`end` are character offsets into the encoded text: a token holding part of a
    character covers that whole character. `token_bytes` are the token's own bytes when they are
    known exactly (byte-level tokens; SentencePiece pieces as spelled, see explorer.pretrained).
    A NamedTuple, not a dataclass: a corpus measurement makes hundreds of thousands of them."""

    id: int
    value: str
    start: int
    end: int
    token_bytes: bytes | None = None
    kind: str = TOKEN


def tokens_only(pieces):
    """The pieces that are tokens (what a token count counts): without the `DROPPED` markers."""
    return [piece for piece in pieces if piece.kind != DROPPED]


def lost_characters(pieces) -> int:
    """How many characters of the text no token spells out: those an unknown token stands for
    and those dropped (`DROPPED` markers), each character counted once.

    >>> unknown, dropped = Piece(5, "[UNK]", 0, 2, kind=UNKNOWN), Piece(-1, "P", 3, 4, b"P", DROPPED)
    >>> lost_characters([unknown, Piece(7, "a", 2, 3), dropped])
    3
    """
    lost: set[int] = set()
    for piece in pieces:
        if piece.kind in (DROPPED, UNKNOWN):
            lost.update(range(piece.start, piece.end))
    return len(lost)
