"""How a Unigram tokenizer encodes a text, step by step: for every pre-token, the Viterbi table.

The Viterbi search (explorer.models.unigram, the library's `encode_optimized`) walks a word left to
right; for every end position it keeps the best score of any segmentation of the characters so far
and the piece that ends there on that segmentation, whose start is the back pointer. Reading the
back pointers from the last position gives the best segmentation. This module lays that out as a
table, one row per end position, the rows on the best path marked:

    end  prefix     best score   piece   starts at   on the best path
    1    ▁          -2.31        ▁       0
    2    ▁T         -6.96        ▁T      0           ✓
    ...

- `viterbi_table(model, word)`: the rows for one word (from `UnigramModel.lattice`).
- `path_from_table(rows)`: the (start, end) spans the back pointers give, last row first.
- `viterbi_steps(tokenizer, text, name)`: the text cut as the tokenizer cuts it (special tokens,
  normalizer, pre-tokenizer), each pre-token with its table and its final tokens (runs of unknown
  characters fused into one token, as `encode` does).

What it does not do: draw (explorer.ui.encode_panel), sample segmentations (subword
regularization), or encode BPE / WordPiece step by step (explorer.encode_steps).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.models.unigram import UnigramModel
from explorer.tokenizer import Tokenizer


@dataclass(frozen=True)
class ViterbiRow:
    """The best segmentation of the word's first `end` characters: its score, and the piece that
    ends it, which starts at `start` (the back pointer). `piece` None: no segmentation reaches it."""

    end: int
    prefix: str
    best_score: float | None
    piece: str | None
    piece_id: int | None
    start: int | None
    unknown: bool
    on_best_path: bool


@dataclass(frozen=True)
class WordViterbi:
    """One pre-token: its text as the model sees it, its span in the text, its Viterbi table and
    its final tokens. A special token has no table (`special`)."""

    word: str
    start: int
    end: int
    rows: tuple[ViterbiRow, ...]
    tokens: tuple[str, ...]
    best_score: float | None
    special: bool = False


@dataclass(frozen=True)
class ViterbiSteps:
    text: str
    tokenizer: str
    words: tuple[WordViterbi, ...]

    def tokens(self) -> list[str]:
        """The tokens of the whole text, as `encode` gives them (no post-processor)."""
        return [token for word in self.words for token in word.tokens]


def viterbi_table(model: UnigramModel, word: str) -> tuple[ViterbiRow, ...]:
    """One row per end position 1..len(word) (ValueError when a character is unknown and the
    model has no unk piece)."""
    lattice = model.lattice(word)
    on_path = {edge.end for edge in lattice.best_path}
    rows = []
    for cell in lattice.table:
        edge = cell.edge
        rows.append(
            ViterbiRow(
                end=cell.end,
                prefix=word[: cell.end],
                best_score=None if edge is None else cell.score,
                piece=None if edge is None else edge.piece,
                piece_id=None if edge is None else edge.id,
                start=None if edge is None else edge.start,
                unknown=edge is not None and edge.unknown,
                on_best_path=cell.end in on_path,
            )
        )
    return tuple(rows)


def path_from_table(rows: tuple[ViterbiRow, ...] | list[ViterbiRow]) -> list[tuple[int, int]]:
    """The best segmentation's (start, end) spans, read from the back pointers (unknown
    characters one span each, not fused)."""
    by_end = {row.end: row for row in rows}
    spans = []
    end = len(rows)
    while end > 0:
        row = by_end[end]
        if row.start is None:
            raise ValueError(f"no segmentation reaches position {end}")
        spans.append((row.start, end))
        end = row.start
    return spans[::-1]


def viterbi_steps(tokenizer: Tokenizer, text: str, name: str = "tokenizer") -> ViterbiSteps:
    """`tokenizer.encode(text)` (a Unigram tokenizer) with the Viterbi table of every pre-token."""
    model = tokenizer.model
    if not isinstance(model, UnigramModel):
        raise ValueError(f"{name} is not a Unigram tokenizer")
    words = []
    for part, part_start, part_end, is_special in tokenizer.split_special_tokens(text):
        if is_special:
            words.append(WordViterbi(part, part_start, part_end, (), (part,), None, special=True))
            continue
        for piece in tokenizer.pre_tokenize(part, first_part=part_start == 0):
            spans = piece.alignments  # a prepended "▁" comes from nowhere: (0, 0)
            start = part_start + min((a for a, _ in spans), default=0)
            end = part_start + max((b for _, b in spans), default=0)
            rows = viterbi_table(model, piece.text)
            tokens = tuple(token.value for token in model.tokenize(piece.text))
            best = rows[-1].best_score if rows else None
            words.append(WordViterbi(piece.text, start, end, rows, tokens, best))
    return ViterbiSteps(text, name, tuple(words))
