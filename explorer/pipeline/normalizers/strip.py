"""StripAccents: removes every mark, as the `tokenizers` library does.

Follows `StripAccents` in tokenizers/src/normalizers/strip.rs (0.23.3): it drops every character
that is a Mark (Mn, Mc and Me) in Unicode 9.0, its alignment absorbed by the character before it
(`NormalizedString::filter`), and decomposes nothing itself, so `Café` stays `Café` unless NFD
comes first. Marks assigned after Unicode 9.0 are kept (character_classes.py).

What it does not do: the library's `Strip` (white space at either end), or decomposition.
"""

from __future__ import annotations

from explorer.pipeline.normalizers.base import Normalizer
from explorer.pipeline.normalizers.character_classes import unicode_9_marks_regex
from explorer.pipeline.normalizers.normalized import Normalized, remove_chars


class StripAccents(Normalizer):
    """Removes every Unicode 9.0 mark (Mn, Mc, Me). It does not decompose: put NFD first."""

    hf_type = "StripAccents"

    def transform(self, normalized: Normalized) -> Normalized:
        if normalized.text.isascii():
            return normalized
        return remove_chars(normalized, unicode_9_marks_regex())

    def normalize_str(self, text: str) -> str:
        return text if text.isascii() else unicode_9_marks_regex().sub("", text)
