"""How a Unigram tokenizer encodes a text, step by step: for every pre-token, the Viterbi table.

The Viterbi search (explorer.pipeline.models.unigram, the library's `encode_optimized`) walks a word left to
right; for every end position it keeps the best score of any segmentation of the characters so far
and the piece that ends there on that segmentation, whose start is the back pointer. Reading the
back pointers from the last position gives the best segmentation. This module lays that out as a
table, one row per end position, the rows on the best path marked:

    end  prefix     best score   piece   starts at   on the best path
    1    ▁          -2.31        ▁       0
    2    ▁T         -6.96        ▁T      0           ✓
    ...

- `viterbi_table(model, word)`: the rows for one word (from `UnigramModel.lattice`).
- `viterbi_steps(tokenizer, text, name)`: the text cut as the tokenizer cuts it (special tokens,
  normalizer, pre-tokenizer), each pre-token with its table and its final tokens (runs of unknown
  characters fused into one token, as `encode` does). A course model before its last round has no
  unknown piece: a word with a character it has no piece for gets its table up to that character
  (no segmentation reaches the positions after it) and the course's encode_word result, `<unk>`,
  with a sentence saying why; the other words keep their tables.

What it does not do: draw (explorer.ui.common.encode_panel), sample segmentations (subword
regularization), or encode BPE / WordPiece step by step (explorer.lessons.encode_steps).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from explorer.drawing.charts import readable_vocab_token
from explorer.drawing.token_html import readable_token
from explorer.drawing.wording import either
from explorer.pipeline.decoders import ByteLevelDecoder
from explorer.pipeline.models.unigram import COURSE_START_SCORE, NoUnknownPiece, UnigramModel
from explorer.pipeline.tokenizer import Tokenizer

COURSE_UNKNOWN = "<unk>"  # what the course's encode_word gives for a word it cannot segment


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
    its final tokens. A special token has no table (`special`). `note`: why the table stops short
    (plain text), for a word a course model cannot segment."""

    word: str
    start: int
    end: int
    rows: tuple[ViterbiRow, ...]
    tokens: tuple[str, ...]
    best_score: float | None
    special: bool = False
    note: str | None = None


@dataclass(frozen=True)
class ViterbiSteps:
    text: str
    tokenizer: str
    words: tuple[WordViterbi, ...]
    byte_level: bool = False  # pieces spelled in GPT-2's byte symbols (a ByteLevel decoder)

    def shown(self, piece: str) -> str:
        """A piece, word or prefix as the page shows it: a byte-level tokenizer's as a byte-level
        BPE's tokens are shown (`charts.readable_vocab_token`: "·legend<0xC3>"), else as the model
        sees it ("▁T")."""
        return readable_vocab_token(piece, True) if self.byte_level else piece

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
            words.append(_word_viterbi(model, piece.text, start, end))
    return ViterbiSteps(text, name, tuple(words), isinstance(tokenizer.decoder, ByteLevelDecoder))


def _word_viterbi(model: UnigramModel, word: str, start: int, end: int) -> WordViterbi:
    try:
        rows = viterbi_table(model, word)
    except NoUnknownPiece as missing:
        if model.start_score != COURSE_START_SCORE:
            raise  # the library cannot encode the text at all
        missing_characters = either(
            [readable_token(char.encode()) for char in model.missing_characters(word)]
        )
        note = (
            f"no piece for {missing_characters} and no unknown piece: "
            f"the course's encode_word gives {COURSE_UNKNOWN}"
        )
        rows = _rows_until(model, word, missing.position)
        return WordViterbi(word, start, end, rows, (COURSE_UNKNOWN,), None, note=note)
    tokens = tuple(token.value for token in model.tokenize(word))
    return WordViterbi(word, start, end, rows, tokens, rows[-1].best_score if rows else None)


def _rows_until(model: UnigramModel, word: str, position: int) -> tuple[ViterbiRow, ...]:
    """The table of a word whose search stopped at `position` (no piece, no unknown piece): the
    rows up to it, final by then (they are the prefix's), none on a best path; no segmentation
    reaches the rows after it."""
    reached = [replace(row, on_best_path=False) for row in viterbi_table(model, word[:position])]
    unreached = [
        ViterbiRow(end, word[:end], None, None, None, None, unknown=False, on_best_path=False)
        for end in range(position + 1, len(word) + 1)
    ]
    return (*reached, *unreached)
