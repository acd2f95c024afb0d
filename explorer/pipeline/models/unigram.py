"""Encode one pre-token with a Unigram model: the most likely segmentation (Viterbi), with
character offsets, and the lattice behind it for the lesson pages.

Follows the Hugging Face `tokenizers` Unigram model token for token (0.23.3; Rust
`models/unigram/model.rs` `encode_optimized` and `tokenize`, `serialization.rs`):

- A model is a list of (piece, score) pairs, the score a log-probability; a piece's id is its
  index (a piece listed twice answers to its last id, as the library's hash map does).
- Candidates: at every character position, every piece that starts there (shortest first, as
  the library's trie yields them), plus an unknown-character edge of score
  `min(score) - 10` when no piece of exactly one character starts there.
- Viterbi: for every end position the best-scoring (start, piece); ties keep the candidate seen
  first, i.e. the smallest start. An unreachable position counts as score 0.0, as in the
  library. Needing an unknown edge without `unk_id` is a ValueError, `NoUnknownPiece` (the
  library's "Encountered an unknown token but `unk_id` is missing"), which says where.
- Consecutive tokens whose id is `unk_id` are fused into one (the library's `fuse_unk`, always
  on); a fused string that happens to be a piece gets that piece's id, else `unk_id`, or with
  `byte_fallback` one `<0xXX>` token per UTF-8 byte when every one of them is in the vocabulary
  (each spanning the whole fused string, as in the library).
- Offsets are character offsets into the pre-token; tokens are consecutive.

`lattice(word)` gives every candidate edge, the best path, its total score and the Viterbi table,
for the lattice view and the step-by-step encode panel.

What it does not do: sampling (`alpha`, `nbest_size`, subword regularization), training
(see `explorer.training.unigram.library` and `unigram_course`), pre-tokenization or decoding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

from explorer.pipeline.models.base import CACHE_CAPACITY, CACHE_MAX_WORD_LENGTH
from explorer.tokens import Piece

UNKNOWN_PENALTY = 10.0  # the library's K_UNK_PENALTY: unknown edges score min(score) - 10
# The score of the empty prefix for the course's encode_word, which starts every word at 1 and
# minimizes -log p: maximizing log p from -1 (see explorer.training.unigram.round_history.model_at).
COURSE_START_SCORE = -1.0


class NoUnknownPiece(ValueError):
    """The Viterbi search needs the unknown piece at `position` of a word, and the model has none.
    The table's cells for end positions up to `position` were final by then."""

    def __init__(self, word: str, position: int):
        super().__init__(
            f"Unigram: {word[position]!r} is not in the vocabulary and the model has no unk piece"
        )
        self.position = position


@dataclass(frozen=True)
class LatticeEdge:
    """One candidate piece of a word: characters [start, end), its id and log-probability.
    An unknown-character edge has `unknown=True`, id `unk_id` (None without one)."""

    start: int
    end: int
    piece: str
    id: int | None
    score: float
    unknown: bool = False


@dataclass(frozen=True)
class ViterbiCell:
    """The best segmentation of a word's first `end` characters: its score and last edge."""

    end: int
    score: float
    edge: LatticeEdge | None  # None: no segmentation reaches this position


@dataclass(frozen=True)
class Lattice:
    """Every candidate edge of a word (in the order the library tries them), the Viterbi table
    (one cell per end position 1..len), the best path (unknown edges not fused) and its score."""

    word: str
    edges: tuple[LatticeEdge, ...]
    table: tuple[ViterbiCell, ...]
    best_path: tuple[LatticeEdge, ...]
    best_score: float


def _check_pieces(pieces: object) -> list[tuple[str, float]]:
    if not isinstance(pieces, list | tuple):
        raise ValueError("model.vocab must be a list of [piece, score] pairs")
    checked = []
    for index, entry in enumerate(pieces):
        if not isinstance(entry, list | tuple) or len(entry) != 2:
            raise ValueError(f"model.vocab[{index}] must be a [piece, score] pair, got {entry!r}")
        piece, score = entry
        if not isinstance(piece, str) or isinstance(score, bool) or not isinstance(score, int | float):
            raise ValueError(f"model.vocab[{index}] must be a [string, number] pair, got {entry!r}")
        checked.append((piece, float(score)))
    return checked


class UnigramModel:
    """A Unigram language model over pieces: encodes a word as its most likely segmentation."""

    type_name = "Unigram"

    def __init__(
        self,
        pieces: list[tuple[str, float]],
        unk_id: int | None = None,
        byte_fallback: bool = False,
        start_score: float = 0.0,
    ):
        # `start_score`: the score of the empty prefix, 0 in the library; the course's
        # encode_word starts at 1 (see training/unigram/round_history). Not part of tokenizer.json.
        self.start_score = start_score
        self.pieces = [(piece, float(score)) for piece, score in pieces]
        if unk_id is not None:
            if not self.pieces:
                raise ValueError("Unigram: the vocabulary is empty but the unk piece must be in it")
            if not 0 <= unk_id < len(self.pieces):
                raise ValueError(f"Unigram: unk_id {unk_id} is not an index of the {len(self.pieces)} pieces")
        self.unk_id = unk_id
        self.byte_fallback = byte_fallback
        self.vocab = {piece: index for index, piece in enumerate(self.pieces_only())}
        self.scores = [score for _, score in self.pieces]
        # NaN scores (the trainer's <UNK> while training) never win the comparison, as in Rust.
        self.min_score = min((score for score in self.scores if score == score), default=math.inf)
        self.unk_score = self.min_score - UNKNOWN_PENALTY
        # The empty piece is never matched: the library's trie yields prefixes of one byte or more.
        self._longest = max((len(piece) for piece in self.vocab), default=0)
        self._cache: dict[str, tuple[Piece, ...]] = {}

    def pieces_only(self) -> list[str]:
        return [piece for piece, _ in self.pieces]

    @property
    def unk_token(self) -> str | None:
        return None if self.unk_id is None else self.pieces[self.unk_id][0]

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def missing_characters(self, word: str) -> list[str]:
        """The characters of `word` that are no piece of the vocabulary, in order, each once."""
        return list(dict.fromkeys(char for char in word if char not in self.vocab))

    def id_to_token(self, token_id: int) -> str | None:
        return self.pieces[token_id][0] if 0 <= token_id < len(self.pieces) else None

    # -- the lattice and the Viterbi search

    def candidates(self, word: str, start: int) -> list[LatticeEdge]:
        """The edges starting at `start`, in the library's order: pieces shortest first, then
        the unknown edge if no one-character piece starts here."""
        edges = []
        limit = min(len(word), start + self._longest)
        for end in range(start + 1, limit + 1):
            piece_id = self.vocab.get(word[start:end])
            if piece_id is not None:
                edges.append(LatticeEdge(start, end, word[start:end], piece_id, self.scores[piece_id]))
        if not edges or edges[0].end != start + 1:
            edges.append(
                LatticeEdge(start, start + 1, word[start], self.unk_id, self.unk_score, unknown=True)
            )
        return edges

    def _viterbi(self, word: str) -> tuple[list[float], list[LatticeEdge], list[LatticeEdge]]:
        """Best score and last edge for every end position, and every edge tried. Every end
        1..len(word) has its edge (index 0 holds None, and is never read): each position has a
        one-character candidate, and an unknown one without an id raises NoUnknownPiece."""
        length = len(word)
        best_score = [0.0] * (length + 1)
        best_score[0] = self.start_score
        best_edge: list[LatticeEdge | None] = [None] * (length + 1)
        tried = []
        for start in range(length):
            till_here = best_score[start]
            for edge in self.candidates(word, start):
                tried.append(edge)
                score = edge.score + till_here
                if best_edge[edge.end] is None or score > best_score[edge.end]:
                    if edge.id is None:
                        raise NoUnknownPiece(word, start)
                    best_score[edge.end] = score
                    best_edge[edge.end] = edge
        return best_score, cast("list[LatticeEdge]", best_edge), tried

    def lattice(self, word: str) -> Lattice:
        best_score, best_edge, tried = self._viterbi(word)
        path = []
        end = len(word)
        while end > 0:
            edge = best_edge[end]
            path.append(edge)
            end = edge.start
        path.reverse()
        table = tuple(ViterbiCell(end, best_score[end], best_edge[end]) for end in range(1, len(word) + 1))
        return Lattice(word, tuple(tried), table, tuple(path), best_score[len(word)])

    def _best_starts(self, word: str) -> tuple[list[int], list[int | None]]:
        """`_viterbi`'s best path without its explanation: for every end position the start and
        id of its best edge, the same candidates in the same order (pieces shortest first, then
        the unknown edge), with no edge object made (encoding a corpus runs this per word)."""
        length, vocab, scores, longest = len(word), self.vocab, self.scores, self._longest
        best_score = [0.0] * (length + 1)
        best_score[0] = self.start_score
        best_start = [-1] * (length + 1)  # -1: no edge ends here yet
        best_id: list[int | None] = [None] * (length + 1)
        for start in range(length):
            till_here = best_score[start]
            single = False  # a piece of exactly one character starts here
            for end in range(start + 1, min(length, start + longest) + 1):
                piece_id = vocab.get(word[start:end])
                if piece_id is not None:
                    single = single or end == start + 1
                    score = scores[piece_id] + till_here
                    if best_start[end] < 0 or score > best_score[end]:
                        best_score[end], best_start[end], best_id[end] = score, start, piece_id
            if not single:
                score = self.unk_score + till_here
                if best_start[start + 1] < 0 or score > best_score[start + 1]:
                    if self.unk_id is None:
                        raise NoUnknownPiece(word, start)
                    best_score[start + 1], best_start[start + 1], best_id[start + 1] = (
                        score,
                        start,
                        self.unk_id,
                    )
        return best_start, best_id

    def segment(self, word: str) -> list[tuple[int, int]]:
        """The (start, end) spans of the tokens, unknown runs fused."""
        spans: list[tuple[int, int]] = []
        best_start, best_id = self._best_starts(word)
        end = len(word)
        fused_end = None  # end of a run of unk tokens being fused, walking backwards
        while end > 0:
            start = best_start[end]
            if best_id[end] == self.unk_id:
                if fused_end is None:
                    fused_end = end
            else:
                if fused_end is not None:
                    spans.append((end, fused_end))
                    fused_end = None
                spans.append((start, end))
            end = start
        if fused_end is not None:
            spans.append((0, fused_end))
        spans.reverse()
        return spans

    def tokenize_exactly(self, word: str) -> tuple[list[Piece], list[int]]:
        """`tokenize`, whose offsets are exact already; a Unigram model never drops a character
        (an unknown one becomes the unk token, runs of them one)."""
        return self.tokenize(word), []

    def tokenize(self, word: str) -> list[Piece]:
        if not word:
            return []
        tokens = self._cache.get(word)
        if tokens is None:
            tokens = tuple(self._tokens(word))
            if len(word) < CACHE_MAX_WORD_LENGTH and len(self._cache) < CACHE_CAPACITY:
                self._cache[word] = tokens
        return list(tokens)

    def _tokens(self, word: str) -> list[Piece]:
        tokens = []
        for start, end in self.segment(word):
            text = word[start:end]
            token_id = self.vocab.get(text)
            if token_id is not None:
                tokens.append(Piece(token_id, text, start, end))
                continue
            byte_tokens = self._byte_tokens(text, start, end) if self.byte_fallback else None
            if byte_tokens is not None:
                tokens.extend(byte_tokens)
            else:
                # An unknown span: the model has an unk id, or _viterbi raised NoUnknownPiece.
                tokens.append(Piece(cast(int, self.unk_id), text, start, end))
        return tokens

    def _byte_tokens(self, text: str, start: int, end: int) -> list[Piece] | None:
        names = [f"<0x{byte:02X}>" for byte in text.encode("utf-8")]
        if not all(name in self.vocab for name in names):
            return None
        return [Piece(self.vocab[name], name, start, end) for name in names]

    # -- tokenizer.json

    def to_hf_json(self) -> dict:
        for piece, score in self.pieces:
            if not math.isfinite(score):
                raise ValueError(
                    f"Unigram: the score of {piece!r} is {score}, which tokenizer.json cannot hold"
                )
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [[piece, score] for piece, score in self.pieces],
            "byte_fallback": self.byte_fallback,
        }

    @classmethod
    def from_hf_json(cls, d: dict) -> UnigramModel:
        if "vocab" not in d:
            raise ValueError("model: a Unigram model needs a vocab")
        pieces = _check_pieces(d["vocab"])
        for piece, score in pieces:
            if not math.isfinite(score):
                raise ValueError(f"model.vocab: the score of {piece!r} must be a finite number")
        unk_id = d.get("unk_id")
        if unk_id is not None and (isinstance(unk_id, bool) or not isinstance(unk_id, int) or unk_id < 0):
            raise ValueError(f"model.unk_id must be a non-negative integer or null, got {unk_id!r}")
        byte_fallback = d.get("byte_fallback", False)
        if not isinstance(byte_fallback, bool):
            raise ValueError(f"model.byte_fallback must be true or false, got {byte_fallback!r}")
        try:
            return cls(pieces, unk_id, byte_fallback)
        except ValueError as error:
            raise ValueError(f"model: {error}") from None
