"""What a step-by-step encoding records: the pieces of a pre-token after each step, the steps, the
pre-tokens and the whole text (plain frozen dataclasses, the vocabulary of every other module of
explorer.lessons.encode_steps).

Offsets (`start`, `end`) are exactly `encode`'s, including the library's shift after a dropped
character (see `BPEModel._merge_word`); `source_span` and `source` say which characters of the
input a piece really stands for.

What it does not do: encode (explorer.lessons.encode_steps.bpe, wordpiece, tiktoken_bpe), or write or draw
anything (explorer.lessons.encode_steps.output, render).
"""

from __future__ import annotations

from dataclasses import dataclass

# Piece kinds: a vocabulary token, the unknown token, a special token, a character the model
# dropped, and (WordPiece) the rest of the word not matched yet.
PIECE_KINDS = ("token", "unk", "special", "dropped", "rest")
# Step kinds: the initial split; a BPE merge; the whole pre-token looked up at once; a WordPiece
# prefix or ## continuation found; the word becoming the unknown token.
STEP_KINDS = ("start", "merge", "whole-word", "prefix", "continuation", "no-match", "too-long")


@dataclass(frozen=True)
class StepPiece:
    """One piece of a pre-token at some step.

    `value` is the token as the vocabulary spells it ('Ġis', '##s', '[UNK]'; for tiktoken its
    bytes made readable); `id` is None for dropped characters and the unmatched rest.
    `start`/`end` are character offsets into the input as `encode` reports them; `source_span`
    is the input's characters the piece stands for and `source` their text.
    """

    value: str
    id: int | None
    start: int
    end: int
    kind: str = "token"
    source: str = ""
    source_span: tuple[int, int] = (0, 0)
    token_bytes: bytes | None = None

    @property
    def is_token(self) -> bool:
        """True for what `encode` outputs (tokens, unknown and special tokens)."""
        return self.kind in ("token", "unk", "special")


@dataclass(frozen=True)
class Step:
    """One step and the pieces after it.

    BPE merge: `pair` (the two pieces' values), `merged` (the new token), `rank` (0-based rank
    of the merge in the model; tiktoken: the merged token's rank), `pair_positions` (indices of
    the two pieces in the previous step's pieces). WordPiece: `merged` is the piece found,
    `word_span` its (start, end) characters in the pre-token, `tried` the longer candidates looked
    up in vain (longest first); for "no-match" `word_span` is (position, position). "whole-word":
    `merged` is the pre-token's own token, the only piece.
    """

    kind: str
    pieces: tuple[StepPiece, ...]
    pair: tuple[str, str] | None = None
    merged: str | None = None
    rank: int | None = None
    pair_positions: tuple[int, int] | None = None
    word_span: tuple[int, int] | None = None
    tried: tuple[str, ...] = ()


@dataclass(frozen=True)
class PreTokenSteps:
    """One pre-token: its text as the model sees it, its span in the input, steps, final tokens.

    `final` equals what `encode` gives for this pre-token. `steps` is empty for special tokens and
    for pre-tokens over the bounds (then `note` says why). `dropped` lists the characters the
    model dropped, also when steps are not recorded.
    """

    text: str
    start: int
    end: int
    steps: tuple[Step, ...]
    final: tuple[StepPiece, ...]
    token_bytes: bytes | None = None
    special: bool = False
    dropped: tuple[StepPiece, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class EncodeSteps:
    """A text encoded step by step, pre-token by pre-token."""

    text: str
    tokenizer: str
    model: str  # "BPE", "WordPiece" or "BPE (tiktoken)"
    byte_level: bool
    pre_tokens: tuple[PreTokenSteps, ...]

    def final_pieces(self) -> list[StepPiece]:
        """The tokens of the whole text, as `encode` gives them."""
        return [piece for pre_token in self.pre_tokens for piece in pre_token.final]

    def unrepresented(self) -> list[StepPiece]:
        """What the tokenizer cannot represent, in text order: dropped characters and unknown
        tokens (each with the characters it stands for in `source`)."""
        pieces = [
            piece
            for pre_token in self.pre_tokens
            for piece in (*pre_token.dropped, *pre_token.final)
            if piece.kind in ("dropped", "unk")
        ]
        return sorted(pieces, key=lambda piece: piece.source_span)

    @property
    def notes(self) -> list[str]:
        """One sentence per pre-token whose steps are not shown, saying why."""
        return [
            f"pre-token {_shortened(pre_token.text)!r} ({pre_token.start}:{pre_token.end}): {pre_token.note}"
            for pre_token in self.pre_tokens
            if pre_token.note and not pre_token.special
        ]


def _shortened(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
