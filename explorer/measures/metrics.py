"""How efficiently a tokenizer encodes a set of texts: the usual compression and fertility figures.

What it does: runs an encoder over texts and counts tokens, characters (user-perceived:
explorer.drawing.wording's `character_count`, the count the Compare page's box, counts table and
decoder show for the same text), UTF-8 bytes, words, words
split into several tokens, unknown tokens and the characters no token spells out (under an unknown
token, or dropped by the model: explorer.tokens), then derives characters per token, bytes per
token, fertility (tokens per word), the share of split words and the unknown-token rate. A
tokenizer cannot look efficient by dropping text: the lost characters are counted beside the
ratios. Their names and one-line definitions are explorer.drawing.wording's `METRIC_COLUMNS` and
`METRIC_DEFINITIONS`; every page uses those names.

Word rule: a word is a maximal run of non-whitespace characters (`str.split()` without arguments,
so "don't", "U.S.", "(hello)," are each one word). A token belongs to every word its character span
[start, end) overlaps; a word is split when two or more tokens overlap it. Tokens with an empty
span (added special tokens) overlap no word but still count as tokens.

What it does not do: tokenize, normalise text, or know about a particular library. The encoder is
any callable `text -> [explorer.tokens.Piece]` (their spans and kinds are what counts). Pass an
encoder without a post-processor if [CLS]/[SEP]-style tokens should not count. A corpus is measured
without a `Piece` per token: `encoded_metrics` counts the same figures from an `EncodedTexts`
(ids and spans in arrays, what explorer.compare.encoders' batch encoders give).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np

from explorer.drawing.wording import METRIC_COLUMNS, character_count
from explorer.tokens import DROPPED, UNKNOWN, Piece, lost_characters, tokens_only
from explorer.training.word_counts import WORD

if TYPE_CHECKING:
    import pandas as pd

SPAN_BATCH = 4096  # texts whose spans are held at once in compute_metrics

Encoder = Callable[[str], Sequence[Piece]]


@dataclass(frozen=True)
class TokenizerMetrics:
    """Counts over a set of texts for one tokenizer; the ratios are derived properties.

    A ratio whose denominator is zero (no tokens, no words) is NaN rather than a made-up number.
    """

    name: str
    texts: int
    tokens: int
    characters: int
    utf8_bytes: int
    words: int
    split_words: int
    unknown_tokens: int
    lost_characters: int = 0  # characters no token spells out: unknown or dropped

    @property
    def chars_per_token(self) -> float:
        return ratio(self.characters, self.tokens)

    @property
    def bytes_per_token(self) -> float:
        return ratio(self.utf8_bytes, self.tokens)

    @property
    def fertility(self) -> float:
        """Tokens per word."""
        return ratio(self.tokens, self.words)

    @property
    def split_word_share(self) -> float:
        """Share of words covered by two or more tokens."""
        return ratio(self.split_words, self.words)

    @property
    def unknown_rate(self) -> float:
        """Share of tokens that are the unknown token."""
        return ratio(self.unknown_tokens, self.tokens)


def ratio(numerator: int, denominator: int) -> float:
    """`numerator / denominator`, NaN when the denominator is 0 (no tokens, no words)."""
    return numerator / denominator if denominator else math.nan


def compute_metrics(
    name: str,
    texts: Iterable[str],
    encode: Encoder,
) -> TokenizerMetrics:
    """Encode every text with `encode` and add up the counts behind `TokenizerMetrics`.

    Token and word spans of the texts are laid end to end and the overlaps counted with numpy, so
    a whole book (300,000 tokens) costs tens of milliseconds beyond its encoding; spans are counted
    and dropped every `SPAN_BATCH` texts, so memory stays bounded whatever the number of texts.
    """
    texts_seen = characters = utf8_bytes = unknown_tokens = lost = tokens = words = split_words = 0
    laid_out = 0  # code points of the texts so far: where the next text's spans start
    piece_starts: list[int] = []
    piece_ends: list[int] = []
    word_starts: list[int] = []
    word_ends: list[int] = []
    for text in texts:
        if texts_seen % SPAN_BATCH == 0 and texts_seen:
            tokens += len(piece_starts)
            words += len(word_starts)
            split_words += _split_word_count(piece_starts, piece_ends, word_starts, word_ends)
            piece_starts, piece_ends, word_starts, word_ends = [], [], [], []
        pieces = list(encode(text))
        if any(piece.kind in (UNKNOWN, DROPPED) for piece in pieces):
            lost += lost_characters(pieces)
            unknown_tokens += sum(1 for piece in pieces if piece.kind == UNKNOWN)
            pieces = tokens_only(pieces)  # DROPPED markers are not tokens
        offset = laid_out + texts_seen  # one character of room between texts: no overlap
        laid_out += len(text)
        texts_seen += 1
        characters += character_count(text)
        utf8_bytes += len(text.encode("utf-8", errors="surrogatepass"))
        piece_starts.extend(piece.start + offset for piece in pieces)
        piece_ends.extend(piece.end + offset for piece in pieces)
        for match in WORD.finditer(text):
            word_starts.append(match.start() + offset)
            word_ends.append(match.end() + offset)
    return TokenizerMetrics(
        name=name,
        texts=texts_seen,
        tokens=tokens + len(piece_starts),
        characters=characters,
        utf8_bytes=utf8_bytes,
        words=words + len(word_starts),
        split_words=split_words + _split_word_count(piece_starts, piece_ends, word_starts, word_ends),
        unknown_tokens=unknown_tokens,
        lost_characters=lost,
    )


@dataclass(frozen=True)
class EncodedTexts:
    """The tokens of several texts in flat arrays: what a corpus measurement needs, and no `Piece`
    per token (a megabyte of text is some 300,000 tokens; pieces with their strings are built only
    for the sentences a page draws).

    Text i's tokens are positions `bounds[i]:bounds[i + 1]` of `ids`, `starts` and `ends`;
    starts and ends are character offsets into that text, as `Piece.start` / `Piece.end`.
    `unknown` marks the model's unknown tokens (None: there is none). Every entry is a token:
    there are no `DROPPED` markers (an encoder that may drop characters gives pieces instead).
    """

    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    bounds: np.ndarray
    unknown: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def spans(self, index: int) -> list[tuple[int, int, int]]:
        """(id, start, end) of text `index`'s tokens."""
        part = slice(int(self.bounds[index]), int(self.bounds[index + 1]))
        return list(zip(self.ids[part].tolist(), self.starts[part].tolist(), self.ends[part].tolist()))

    def unknown_spans(self, index: int) -> list[tuple[int, int]]:
        """(start, end) of text `index`'s unknown tokens."""
        if self.unknown is None:
            return []
        part = slice(int(self.bounds[index]), int(self.bounds[index + 1]))
        marked = self.unknown[part]
        return list(zip(self.starts[part][marked].tolist(), self.ends[part][marked].tolist()))

    @classmethod
    def from_pieces(cls, encoded: Sequence[Sequence[Piece]]) -> EncodedTexts:
        """The same tokens from pieces (an encoder without a compact form); no `DROPPED` ones."""
        pieces = list(chain.from_iterable(encoded))
        if any(piece.kind == DROPPED for piece in pieces):
            raise ValueError("EncodedTexts holds tokens only: these pieces mark dropped characters.")
        counts = np.fromiter(map(len, encoded), np.int64, len(encoded))
        unknown = np.fromiter((piece.kind == UNKNOWN for piece in pieces), bool, len(pieces))
        return cls(
            ids=np.fromiter((piece.id for piece in pieces), np.int64, len(pieces)),
            starts=np.fromiter((piece.start for piece in pieces), np.int64, len(pieces)),
            ends=np.fromiter((piece.end for piece in pieces), np.int64, len(pieces)),
            bounds=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            unknown=unknown if unknown.any() else None,
        )


# Every character `str.isspace` calls whitespace, which is what `WORD`'s \S+ stops at (checked
# against all of Unicode by tests/unit/test_metrics.py).
WHITESPACE = (
    *range(9, 14),
    *range(28, 33),
    133,
    160,
    5760,
    *range(8192, 8203),
    8232,
    8233,
    8239,
    8287,
    12288,
)
_ASCII_SPACE = np.zeros(128, dtype=bool)
_ASCII_SPACE[[code for code in WHITESPACE if code < 128]] = True


def _words_and_bytes(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Start and end character offsets of `WORD.finditer(text)`'s words, with numpy, and the
    UTF-8 length of each character (surrogates 3, as "surrogatepass" writes them; None when the
    text is ASCII: all 1)."""
    if text.isascii():
        space, utf8 = _ASCII_SPACE[np.frombuffer(text.encode("ascii"), np.uint8)], None
    else:
        codes = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), np.uint32)
        space = np.isin(codes, WHITESPACE)
        utf8 = 1 + (codes >= 0x80).astype(np.int64) + (codes >= 0x800) + (codes >= 0x10000)
    change = np.diff((~space).astype(np.int8), prepend=np.int8(0), append=np.int8(0))
    return np.flatnonzero(change == 1), np.flatnonzero(change == -1), utf8


def encoded_metrics(
    name: str, texts: Sequence[str], encoded: EncodedTexts, times: Sequence[int] | None = None
) -> TokenizerMetrics:
    """`compute_metrics` of `texts`, each `times[i]` times (once without `times`), from their
    tokens in `encoded`: the same figures, counted in arrays.

    The texts are laid end to end one character apart, as `compute_metrics` lays them, here by
    joining them with a line break: a word never crosses it, so the joined text's words are the
    texts' words.
    """
    count = len(texts)
    if len(encoded) != count:
        raise ValueError(f"{len(encoded)} encoded texts for {count} texts")
    weights = np.ones(count, np.int64) if times is None else np.asarray(times, np.int64)
    lengths = np.fromiter(map(len, texts), np.int64, count)
    base = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.int64)
    counts = np.diff(encoded.bounds)
    owner = np.repeat(np.arange(count), counts)
    word_starts, word_ends, char_bytes = _words_and_bytes("\n".join(texts))
    utf8 = lengths
    if char_bytes is not None:  # each text's characters' bytes: the sum up to its end less up to its start
        upto = np.concatenate(([0], np.cumsum(char_bytes)))
        utf8 = upto[base + lengths] - upto[base]
    word_owner = np.searchsorted(base, word_starts, side="right") - 1
    split = _split_words(encoded.starts + base[owner], encoded.ends + base[owner], word_starts, word_ends)
    unknown_tokens = lost = 0
    if encoded.unknown is not None and encoded.unknown.any():
        per_text = np.bincount(owner[encoded.unknown], minlength=count)
        unknown_tokens = int(per_text @ weights)
        for index in np.flatnonzero(per_text).tolist():
            covered = {char for start, end in encoded.unknown_spans(index) for char in range(start, end)}
            lost += len(covered) * int(weights[index])
    return TokenizerMetrics(
        name=name,
        texts=int(weights.sum()),
        tokens=int(counts @ weights),
        characters=int(np.fromiter(map(character_count, texts), np.int64, count) @ weights),
        utf8_bytes=int(utf8 @ weights),
        words=int(np.bincount(word_owner, minlength=count) @ weights),
        split_words=int(np.bincount(word_owner[split], minlength=count) @ weights),
        unknown_tokens=unknown_tokens,
        lost_characters=lost,
    )


def add_metrics(parts: Sequence[TokenizerMetrics], name: str) -> TokenizerMetrics:
    """The metrics of several disjoint sets of texts taken together (every count adds up)."""
    return TokenizerMetrics(
        name=name,
        texts=sum(part.texts for part in parts),
        tokens=sum(part.tokens for part in parts),
        characters=sum(part.characters for part in parts),
        utf8_bytes=sum(part.utf8_bytes for part in parts),
        words=sum(part.words for part in parts),
        split_words=sum(part.split_words for part in parts),
        unknown_tokens=sum(part.unknown_tokens for part in parts),
        lost_characters=sum(part.lost_characters for part in parts),
    )


def _split_word_count(piece_starts, piece_ends, word_starts, word_ends) -> int:
    """How many words two or more pieces overlap (spans are half-open; words sorted, disjoint)."""
    if not word_starts or not piece_starts:
        return 0
    return int(_split_words(piece_starts, piece_ends, word_starts, word_ends).sum())


def _split_words(piece_starts, piece_ends, word_starts, word_ends) -> np.ndarray:
    """For each word, whether two or more pieces overlap it (spans half-open; words sorted, disjoint).

    A piece [s, e) overlaps a word [ws, we) when s < we and e > ws. A piece with e <= ws has
    s < we too (s < e <= ws < we), so the pieces overlapping a word are those starting before
    its end less those ending at or before its start: two searches per word."""
    starts, ends = np.asarray(piece_starts, dtype=np.int64), np.asarray(piece_ends, dtype=np.int64)
    spans = ends > starts  # empty spans (added special tokens) overlap nothing
    if not spans.all():
        starts, ends = starts[spans], ends[spans]
    if len(starts) > 1 and (starts[1:] < starts[:-1]).any():
        starts = np.sort(starts)
    if len(ends) > 1 and (ends[1:] < ends[:-1]).any():
        ends = np.sort(ends)
    overlapping = np.searchsorted(starts, word_ends, side="left") - np.searchsorted(
        ends, word_starts, side="right"
    )
    return overlapping >= 2


def metrics_table(metrics: Iterable[TokenizerMetrics]) -> pd.DataFrame:
    """One row per tokenizer (indexed by name), one column per figure in `METRIC_COLUMNS`."""
    rows = {m.name: {label: getattr(m, field) for field, label in METRIC_COLUMNS.items()} for m in metrics}
    import pandas as pd  # here: a worker measuring a corpus needs the figures, not a table

    table = pd.DataFrame.from_dict(rows, orient="index", columns=list(METRIC_COLUMNS.values()))
    table.index.name = "tokenizer"
    return table
