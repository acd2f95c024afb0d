"""Encode one pre-token with a WordPiece model, with character offsets.

Follows the Hugging Face `tokenizers` WordPiece model token for token (0.23.3; Rust
`models/wordpiece/mod.rs`): greedy longest-match-first, `continuing_subword_prefix` on every piece
but the first; the whole pre-token becomes the unk token when some position cannot be matched or
when it is longer than `max_input_chars_per_word` characters.

What it does not do: training (see `explorer.training.bpe`), normalization, pre-tokenization or
decoding (see `explorer.pipeline.tokenizer`).
"""

from __future__ import annotations

from explorer.pipeline.models.base import ordered_vocab, reverse_vocab, vocab_from_json
from explorer.tokens import Piece


class WordPieceModel:
    """A WordPiece model: a vocab, greedy longest-match-first encoding."""

    type_name = "WordPiece"

    def __init__(
        self,
        vocab: dict[str, int],
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
    ):
        self.vocab = dict(vocab)
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self._id_to_token = reverse_vocab(self.vocab)
        # No substring longer than the longest token can match: bounds the greedy search.
        self._longest_token = max((len(token) for token in self.vocab), default=0)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self._id_to_token.get(token_id)

    def _unk(self, word: str) -> list[Piece]:
        # Like the library, a missing unk token only fails when it is needed.
        unk_id = self.vocab.get(self.unk_token)
        if unk_id is None:
            raise ValueError(
                f"WordPiece: unk_token {self.unk_token!r} is not in the vocabulary, so {word!r} "
                "cannot be encoded; add it to the vocabulary (e.g. as a special token)"
            )
        return [Piece(unk_id, self.unk_token, 0, len(word))]

    def tokenize_exactly(self, word: str) -> tuple[list[Piece], list[int]]:
        """`tokenize`, whose offsets are exact already; WordPiece never drops a character (a word
        it cannot match becomes one unk token)."""
        return self.tokenize(word), []

    def tokenize(self, word: str) -> list[Piece]:
        if len(word) > self.max_input_chars_per_word:
            return self._unk(word)
        prefix = self.continuing_subword_prefix
        tokens = []
        start = 0
        while start < len(word):
            end = min(len(word), start + self._longest_token)
            while end > start:
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                piece_id = self.vocab.get(piece)
                if piece_id is not None:
                    tokens.append(Piece(piece_id, piece, start, end))
                    break
                end -= 1
            if end == start:
                return self._unk(word)
            start = end
        return tokens

    def to_hf_json(self) -> dict:
        return {
            "type": "WordPiece",
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": ordered_vocab(self._id_to_token),
        }

    @classmethod
    def from_hf_json(cls, d: dict) -> WordPieceModel:
        where = "model"
        unk_token = d.get("unk_token", "[UNK]")
        prefix = d.get("continuing_subword_prefix", "##")
        max_chars = d.get("max_input_chars_per_word", 100)
        for key, value in (("unk_token", unk_token), ("continuing_subword_prefix", prefix)):
            if not isinstance(value, str):
                raise ValueError(f"{where}.{key} must be a string, got {value!r}")
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
            raise ValueError(
                f"{where}.max_input_chars_per_word must be a non-negative integer, got {max_chars!r}"
            )
        return cls(vocab_from_json(d.get("vocab", {}), f"{where}.vocab"), unk_token, prefix, max_chars)
