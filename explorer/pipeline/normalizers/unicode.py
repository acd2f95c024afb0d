"""The Unicode normalization forms as normalizers: NFD and NFKC.

Follows the `tokenizers` library's tokenizers/src/normalizers/unicode.rs (0.23.3), which
normalizes with Unicode 9.0 tables: characters assigned later that have a decomposition or a
combining class are plain starters there (the algorithm and the corrections: unicode_forms.py).

What it does not do: NFC, NFKD or Nmt (the library has them; no tokenizer this app builds or
loads uses them yet).
"""

from __future__ import annotations

from explorer.pipeline.normalizers.base import Normalizer
from explorer.pipeline.normalizers.normalized import Normalized, apply_changes
from explorer.pipeline.normalizers.unicode_forms import decompose, normalize_str_fast, recompose


class NFD(Normalizer):
    """Canonical decomposition (Unicode 9.0 tables, like the library)."""

    hf_type = "NFD"

    def transform(self, normalized: Normalized) -> Normalized:
        if normalized.text.isascii():
            return normalized
        return apply_changes(normalized, decompose(normalized.text, compatibility=False))

    def normalize_str(self, text: str) -> str:
        return normalize_str_fast("NFD", text, lambda line: self.normalize(line).text)


class NFKC(Normalizer):
    """Compatibility decomposition then canonical composition (Unicode 9.0 tables)."""

    hf_type = "NFKC"

    def transform(self, normalized: Normalized) -> Normalized:
        if normalized.text.isascii():
            return normalized
        return apply_changes(normalized, recompose(decompose(normalized.text, compatibility=True)))

    def normalize_str(self, text: str) -> str:
        return normalize_str_fast("NFKC", text, lambda line: self.normalize(line).text)
