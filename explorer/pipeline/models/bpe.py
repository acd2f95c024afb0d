"""Encode one pre-token with a BPE model, with character offsets.

Follows the Hugging Face `tokenizers` BPE model token for token (0.23.3; Rust sources
`models/bpe/model.rs`, `models/bpe/word.rs`): one symbol per character (`continuing_subword_prefix`
on every character but the first, `end_of_word_suffix` on the last), unknown characters dropped, or
one unk token each, or one per run with `fuse_unk`; then merges, lowest rank first and leftmost
among equal ranks (`bpe_word.merge_all`).

Offsets are character offsets into the pre-token. The library counts bytes and converts them to
characters; ours are the same, including its quirk after a dropped unknown character (see
`BPEModel._merge_word`).

What it does not do: BPE dropout or `byte_fallback` (reading a model that uses them is a
ValueError), training (see `explorer.training.bpe`), normalization, pre-tokenization or decoding
(see `explorer.pipeline.tokenizer`).
"""

from __future__ import annotations

from explorer.pipeline.models.base import (
    CACHE_CAPACITY,
    CACHE_MAX_WORD_LENGTH,
    bool_field,
    optional_str,
    ordered_vocab,
    reverse_vocab,
    vocab_from_json,
)
from explorer.pipeline.models.bpe_word import merge_all
from explorer.tokens import Piece


def _strip_prefix_bytes(token: str, prefix_byte_length: int) -> str | None:
    """`&b[prefix_len..]` in Rust: drop that many *bytes*, whether or not they are the prefix.

    None where Rust would panic (token too short, or the cut falls inside a character).
    """
    data = token.encode("utf-8")
    if len(data) < prefix_byte_length:
        return None
    try:
        return data[prefix_byte_length:].decode("utf-8")
    except UnicodeDecodeError:
        return None


class BPEModel:
    """A byte-pair-encoding model: a vocab and an ordered list of merges."""

    type_name = "BPE"

    def __init__(
        self,
        vocab: dict[str, int],
        merges: list[tuple[str, str]],
        unk_token: str | None = None,
        fuse_unk: bool = False,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        ignore_merges: bool = False,
    ):
        self.vocab = dict(vocab)
        self.unk_token = unk_token
        self.fuse_unk = fuse_unk
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.ignore_merges = ignore_merges
        self._id_to_token = reverse_vocab(self.vocab)
        self.merge_map = self._build_merge_map(merges)
        self._cache: dict[str, tuple[Piece, ...]] = {}
        self._exact_cache: dict[str, tuple[tuple[Piece, ...], tuple[int, ...]]] = {}

    def _build_merge_map(self, merges: list[tuple[str, str]]) -> dict[tuple[int, int], tuple[int, int]]:
        """(left id, right id) -> (rank, merged id), like `BpeBuilder::build`.

        A pair listed twice keeps its *later* rank: the library collects into a hash map, so the
        later entry overwrites the earlier one.
        """
        prefix_byte_length = (
            len(self.continuing_subword_prefix.encode("utf-8")) if self.continuing_subword_prefix else 0
        )
        vocab = self.vocab
        merge_map: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, pair in enumerate(merges):
            # The usual merge (two known strings) in a few dict lookups; anything else is checked
            # one step at a time below, for the sentence that says what is wrong with it.
            try:
                left, right = pair
                right_rest = _strip_prefix_bytes(right, prefix_byte_length) if prefix_byte_length else right
                if type(left) is str and type(right) is str and right_rest is not None:
                    merge_map[(vocab[left], vocab[right])] = (rank, vocab[left + right_rest])
                    continue
            except (ValueError, TypeError, KeyError, AttributeError):
                pass
            self._explain_merge(rank + 1, pair, prefix_byte_length)
        return merge_map

    def _explain_merge(self, number: int, pair, prefix_byte_length: int) -> None:
        """Raise the ValueError that says why merge `number` (counted from 1, like merges.txt
        lines) cannot be built."""
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not all(isinstance(side, str) for side in pair)
        ):
            raise ValueError(f"merge {number} must be a pair of strings, got {pair!r}")
        left, right = pair
        right_rest = _strip_prefix_bytes(right, prefix_byte_length)
        if right_rest is None:
            raise ValueError(
                f"merge {number} ({left!r}, {right!r}): {right!r} cannot lose the "
                f"{self.continuing_subword_prefix!r} prefix's {prefix_byte_length} bytes"
            )
        for token in (left, right, left + right_rest):
            if token not in self.vocab:
                raise ValueError(
                    f"merge {number} ({left!r}, {right!r}): token {token!r} is not in the vocabulary"
                )
        raise AssertionError(f"merge {number} ({left!r}, {right!r}) is valid")  # pragma: no cover

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in rank order, one per pair (what the library writes back)."""
        by_rank = sorted(self.merge_map.items(), key=lambda item: item[1][0])
        return [(self._id_to_token[left], self._id_to_token[right]) for (left, right), _ in by_rank]

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self._id_to_token.get(token_id)

    def tokenize(self, word: str) -> list[Piece]:
        if not word:
            return []
        if self.ignore_merges and word in self.vocab:
            return [Piece(self.vocab[word], word, 0, len(word))]
        tokens = self._cache.get(word)
        if tokens is None:
            tokens = self._merge_word(word)
            if len(word) < CACHE_MAX_WORD_LENGTH and len(self._cache) < CACHE_CAPACITY:
                self._cache[word] = tokens
        return list(tokens)

    def _initial_symbols(self, word: str) -> tuple[list[int], list[int]]:
        """Symbol ids and UTF-8 byte lengths before any merge (`BPE::merge_word`)."""
        prefix, suffix = self.continuing_subword_prefix, self.end_of_word_suffix
        ascii_word = word.isascii()
        ids: list[int] = []
        lengths: list[int] = []
        pending_unk: list[int] | None = None  # [unk id, length] not yet added
        last = len(word) - 1
        for position, char in enumerate(word):
            symbol = char
            if prefix and position > 0:
                symbol = prefix + symbol
            if suffix and position == last:
                symbol = symbol + suffix
            symbol_id = self.vocab.get(symbol)
            byte_length = 1 if ascii_word else len(char.encode("utf-8"))
            if symbol_id is not None:
                if pending_unk is not None:
                    ids.append(pending_unk[0])
                    lengths.append(pending_unk[1])
                    pending_unk = None
                ids.append(symbol_id)
                lengths.append(byte_length)
            elif self.unk_token is not None:
                if pending_unk is not None and self.fuse_unk:
                    pending_unk[1] += byte_length
                    continue
                if pending_unk is not None:
                    ids.append(pending_unk[0])
                    lengths.append(pending_unk[1])
                pending_unk = [self._unk_id(), byte_length]
            # else: no unk token, the character is silently dropped
        if pending_unk is not None:
            ids.append(pending_unk[0])
            lengths.append(pending_unk[1])
        return ids, lengths

    def _unk_id(self) -> int:
        unk_id = None if self.unk_token is None else self.vocab.get(self.unk_token)
        if unk_id is None:
            raise ValueError(
                f"BPE: unk_token {self.unk_token!r} is not in the vocabulary; add it, or use "
                "unk_token=None to drop unknown characters"
            )
        return unk_id

    def tokenize_exactly(self, word: str) -> tuple[list[Piece], list[int]]:
        """`tokenize` with offsets that count every character, and the positions of the characters
        it drops (not in the vocabulary, and no unk token), in order.

        `tokenize` gives the library's offsets, which do not count a dropped character (so the
        offsets after one shift left): right for parity, wrong for drawing the text. Here every
        symbol keeps the characters it came from; a token spans its first symbol's first character
        to its last symbol's last character (so a token merged across a dropped character spans
        it too: the dropped position says what is missing). Cached as `tokenize` is: a corpus
        measured with this encoder (one that may drop characters) repeats its words.
        """
        cached = self._exact_cache.get(word)
        if cached is None:
            tokens, dropped = self._tokenize_exactly(word)
            cached = (tuple(tokens), tuple(dropped))
            if len(word) < CACHE_MAX_WORD_LENGTH and len(self._exact_cache) < CACHE_CAPACITY:
                self._exact_cache[word] = cached
        return list(cached[0]), list(cached[1])

    def _tokenize_exactly(self, word: str) -> tuple[list[Piece], list[int]]:
        if not word:
            return [], []
        prefix, suffix, vocab = self.continuing_subword_prefix, self.end_of_word_suffix, self.vocab
        ids: list[int] = []
        spans: list[list[int]] = []  # [first character, end] of each symbol
        dropped: list[int] = []
        last = len(word) - 1
        for position, char in enumerate(word):
            symbol = (prefix + char if prefix and position else char) + (
                suffix if suffix and position == last else ""
            )
            symbol_id = vocab.get(symbol)
            if symbol_id is None and self.unk_token is None:
                dropped.append(position)
                continue
            if symbol_id is None:
                symbol_id = self._unk_id()
                if (
                    self.fuse_unk
                    and ids
                    and ids[-1] == symbol_id
                    and spans[-1][1] == position
                    and vocab.get(self._symbol_of(word, spans[-1][0])) is None
                ):
                    spans[-1][1] = position + 1  # one unk token for the run of unknown characters
                    continue
            ids.append(symbol_id)
            spans.append([position, position + 1])
        lengths = [1] * len(ids)
        merge_all(ids, lengths, self.merge_map.get)
        kept = [index for index, length in enumerate(lengths) if length]
        tokens = []
        for order, index in enumerate(kept):
            last_symbol = kept[order + 1] - 1 if order + 1 < len(kept) else len(ids) - 1
            tokens.append(
                Piece(ids[index], self._id_to_token[ids[index]], spans[index][0], spans[last_symbol][1])
            )
        return tokens, dropped

    def _symbol_of(self, word: str, position: int) -> str:
        """The initial symbol of the character at `position`: decorated like `_initial_symbols`."""
        prefix, suffix = self.continuing_subword_prefix, self.end_of_word_suffix
        symbol = prefix + word[position] if prefix and position else word[position]
        return symbol + suffix if suffix and position == len(word) - 1 else symbol

    def _merge_word(self, word: str) -> tuple[Piece, ...]:
        ids, lengths = self._initial_symbols(word)
        merge_all(ids, lengths, self.merge_map.get)
        # Offsets are counted in bytes from 0 over the symbols left, as in the library, then
        # turned into the characters holding those bytes. This only differs from counting
        # characters after a dropped unknown character: the library does not count its bytes,
        # so later offsets shift left ("xab" with "x" unknown: "a" at (0, 1), "b" at (1, 2)).
        char_of_byte = (
            None
            if word.isascii()
            else [index for index, char in enumerate(word) for _ in range(len(char.encode("utf-8")))]
        )
        tokens = []
        start = 0
        for symbol_id, length in zip(ids, lengths):
            if length == 0:  # absorbed by its left neighbour
                continue
            end = start + length
            if char_of_byte is None:
                char_span = (start, end)
            else:
                char_span = (char_of_byte[start], char_of_byte[end - 1] + 1)
            tokens.append(Piece(symbol_id, self._id_to_token[symbol_id], *char_span))
            start = end
        return tuple(tokens)

    def to_hf_json(self) -> dict:
        return {
            "type": "BPE",
            "dropout": None,
            "unk_token": self.unk_token,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "end_of_word_suffix": self.end_of_word_suffix,
            "fuse_unk": self.fuse_unk,
            "byte_fallback": False,
            "ignore_merges": self.ignore_merges,
            "vocab": ordered_vocab(self._id_to_token),
            "merges": [list(pair) for pair in self.merges],
        }

    @classmethod
    def from_hf_json(cls, d: dict) -> BPEModel:
        where = "model"
        if d.get("dropout") not in (None, 0, 0.0):
            raise ValueError(f"{where}.dropout {d['dropout']!r} is not supported (only null)")
        if bool_field(d, "byte_fallback", where):
            raise ValueError(f"{where}.byte_fallback true is not supported")
        raw_merges = d.get("merges", [])
        if not isinstance(raw_merges, list):
            raise ValueError(f"{where}.merges must be a list")
        merges = []
        for rank, merge in enumerate(raw_merges):
            # The library reads both ["a", "b"] and the older "a b" form.
            if isinstance(merge, str):
                merge = merge.split(" ")
            if not isinstance(merge, list) or len(merge) != 2 or not all(isinstance(s, str) for s in merge):
                raise ValueError(f"{where}.merges[{rank}] must be a pair of strings, got {merge!r}")
            merges.append((merge[0], merge[1]))
        try:
            return cls(
                vocab_from_json(d.get("vocab", {}), f"{where}.vocab"),
                merges,
                unk_token=optional_str(d, "unk_token", where),
                fuse_unk=bool_field(d, "fuse_unk", where),
                continuing_subword_prefix=optional_str(d, "continuing_subword_prefix", where),
                end_of_word_suffix=optional_str(d, "end_of_word_suffix", where),
                ignore_merges=bool_field(d, "ignore_merges", where),
            )
        except ValueError as error:
            if str(error).startswith(where):
                raise
            raise ValueError(f"{where}: {error}") from None
