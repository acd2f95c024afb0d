"""Character spans for the tokens of pretrained tokenizers, which encode into `explorer.tokens.Piece`.

- `pieces_from_token_bytes`: spans for byte-level tokens whose bytes add up to the text's UTF-8;
  a token holding part of a character gets the whole character's span (as the `tokenizers`
  library reports offsets).
- `split_at_special_tokens`: the text cut into ordinary stretches and special-token matches,
  longest match first, as tiktoken and the `tokenizers` library find them.
- `normalize_with_spans`: Unicode normalization (Qwen encodes NFC text) that remembers which
  characters of the original each normalized character came from.

What it does not do: encode anything (the backends do), or draw anything (explorer.drawing.token_html does).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Literal

from explorer.pipeline.bytelevel import bytes_to_symbols
from explorer.tokens import Piece

_SURROGATE = re.compile("[\ud800-\udfff]")
NormalForm = Literal["NFC", "NFD", "NFKC", "NFKD"]  # the forms `unicodedata.normalize` takes


def replace_surrogates(text: str) -> str:
    """Replace every surrogate code point with U+FFFD, keeping the length of `text`.

    A Python str can hold lone surrogates, which have no UTF-8 form. tiktoken replaces them too
    (via a UTF-16 round trip, which may also join a pair and shorten the text); doing it one code
    point for one here keeps character offsets valid for the caller's original string.
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


def byte_to_char_index(text: str) -> list[int]:
    """For each byte of `text`'s UTF-8, the index of the character it belongs to."""
    owners: list[int] = []
    for char_index, char in enumerate(text):
        owners.extend([char_index] * len(char.encode("utf-8")))
    return owners


def pieces_from_token_bytes(text: str, token_ids: list[int], token_bytes: list[bytes]) -> list[Piece]:
    """Attach character spans to tokens whose bytes, concatenated, are `text`'s UTF-8; each
    piece's value spells its bytes in GPT-2's byte symbols.

    Offsets: a token covers the bytes [b, b + len(token)) where b is the sum of the lengths of
    the tokens before it; its start is the character owning byte b, its end is one past the
    character owning its last byte. So a partial character is widened to the whole character.
    """
    owners = byte_to_char_index(text)
    if sum(len(b) for b in token_bytes) != len(owners):
        raise ValueError("The token bytes do not add up to the text's UTF-8 bytes.")
    pieces = []
    byte_offset = 0
    for token_id, piece_bytes in zip(token_ids, token_bytes, strict=True):
        start = owners[byte_offset]
        end = owners[byte_offset + len(piece_bytes) - 1] + 1
        pieces.append(Piece(token_id, bytes_to_symbols(piece_bytes), start, end, piece_bytes))
        byte_offset += len(piece_bytes)
    return pieces


def shifted(pieces: list[Piece], offset: int) -> list[Piece]:
    """The same pieces with their spans moved `offset` characters to the right."""
    if not offset:
        return pieces
    return [piece._replace(start=piece.start + offset, end=piece.end + offset) for piece in pieces]


def special_token_pattern(special_tokens: Mapping[str, int]) -> re.Pattern | None:
    """One regex matching any of the special tokens, longer ones first ("<|a|>" before "<|a")."""
    if not special_tokens:
        return None
    ordered = sorted(special_tokens, key=lambda token: (-len(token), token))
    return re.compile("|".join(re.escape(token) for token in ordered))


def split_at_special_tokens(
    text: str, special_tokens: Mapping[str, int], pattern: re.Pattern | None = None
) -> list[tuple[int, int, int | None]]:
    """`text` as (start, end, special id or None) stretches, in order, covering all of it.

    Leftmost match wins, then the longest, as in tiktoken (whose special tokens never overlap in
    practice) and the `tokenizers` library's added-token matcher.
    """
    pattern = pattern or special_token_pattern(special_tokens)
    if pattern is None:
        return [(0, len(text), None)] if text else []
    stretches: list[tuple[int, int, int | None]] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() > position:
            stretches.append((position, match.start(), None))
        stretches.append((match.start(), match.end(), special_tokens[match.group()]))
        position = match.end()
    if position < len(text):
        stretches.append((position, len(text), None))
    return stretches


def normalize_with_spans(text: str, form: NormalForm) -> tuple[str, list[tuple[int, int]] | None]:
    """`unicodedata.normalize(form, text)` and, for each of its characters, the span of original
    characters it came from (None when the text is already normalized: spans are the identity).

    Normalization only acts within a starter and the combining marks after it (and a few starter
    pairs such as Hangul jamo), so the text is cut before every starter, each cut is kept only
    where normalizing the two sides apart gives what normalizing them together gives, and each
    normalized chunk maps to its original chunk. If the joined chunks ever differ from the whole
    text normalized at once, the whole text becomes one chunk: coarse spans, never wrong ones.
    """
    if unicodedata.is_normalized(form, text):
        return text, None
    normalize = unicodedata.normalize
    cuts = [0] + [i for i in range(1, len(text)) if unicodedata.combining(text[i]) == 0] + [len(text)]
    chunks: list[tuple[int, int]] = []
    start, end = cuts[0], cuts[1]
    for following in cuts[2:]:
        if normalize(form, text[start:following]) == normalize(form, text[start:end]) + normalize(
            form, text[end:following]
        ):
            chunks.append((start, end))
            start = end
        end = following
    chunks.append((start, end))
    normalized_chunks = [normalize(form, text[a:b]) for a, b in chunks]
    normalized = "".join(normalized_chunks)
    if normalized != normalize(form, text):
        normalized = normalize(form, text)
        return normalized, [(0, len(text))] * len(normalized)
    spans = [span for span, part in zip(chunks, normalized_chunks) for _ in part]
    return normalized, spans


def map_spans(pieces: list[Piece], spans: list[tuple[int, int]] | None) -> list[Piece]:
    """Pieces over a normalized text moved back onto the original (see `normalize_with_spans`)."""
    if spans is None:
        return pieces
    return [piece._replace(start=spans[piece.start][0], end=spans[piece.end - 1][1]) for piece in pieces]
