"""Lowercase, character by character, as the `tokenizers` library lowercases.

Follows `Lowercase` in tokenizers/src/normalizers/utils.rs (0.23.3), which applies Rust's
`char::to_lowercase` to each character on its own: no final sigma (`ΟΔΟΣ` -> `οδοσ`), and `İ`
becomes two characters, `i + U+0307`, both aligned to the `İ`. Rust's standard library knows a
newer Unicode than Python 3.11: a few later characters have lowercase mappings that
`unicodedata` does not know yet (tables.LOWERCASE_NEWER_THAN_PYTHON). BertNormalizer lowercases
with the same functions.

What it does not do: language-specific casing (Turkish dotless i, Lithuanian), or case folding.
"""

from __future__ import annotations

from explorer.pipeline.normalizers.base import Normalizer
from explorer.pipeline.normalizers.character_classes import LOWERCASE_NEWER_REGEX
from explorer.pipeline.normalizers.normalized import Change, Normalized, apply_changes
from explorer.pipeline.normalizers.unicode_tables import LOWERCASE_NEWER_THAN_PYTHON


def lowercase_str(text: str) -> str:
    """Lowercase character by character, as Rust's char::to_lowercase. str.lower() differs only
    in giving a final sigma 'ς', so 'Σ' is lowered on its own."""
    if "Σ" in text:
        lowered = "σ".join(part.lower() for part in text.split("Σ"))
    else:
        lowered = text.lower()
    if not lowered.isascii() and LOWERCASE_NEWER_REGEX.search(lowered):
        lowered = lowered.translate(LOWERCASE_NEWER_THAN_PYTHON)
    return lowered


def _lowercase_char(char: str) -> str:
    return LOWERCASE_NEWER_THAN_PYTHON.get(ord(char)) or char.lower()


def lowercase_aligned(normalized: Normalized) -> Normalized:
    """`lowercase_str` keeping alignments: a character lowered to several shares its alignment."""
    text = normalized.text
    lowered = lowercase_str(text)
    if lowered == text:
        return normalized
    if len(lowered) == len(text):
        # One character for one: alignments are unchanged.
        return Normalized(lowered, normalized.alignments)
    changes: list[Change] = []
    for char in text:
        pieces = _lowercase_char(char)
        changes.append((pieces[0], 0))
        changes.extend((piece, 1) for piece in pieces[1:])
    return apply_changes(normalized, changes)


class Lowercase(Normalizer):
    """Per-character lowercase: no final sigma, 'İ' -> 'i' + U+0307."""

    hf_type = "Lowercase"

    def transform(self, normalized: Normalized) -> Normalized:
        return lowercase_aligned(normalized)

    def normalize_str(self, text: str) -> str:
        return lowercase_str(text)
