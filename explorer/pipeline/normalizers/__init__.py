"""Normalizers, the first pipeline stage, behaving exactly like the `tokenizers` library's.

Each component rewrites text and records, for every output character, the span of the ORIGINAL
text it comes from (`Normalized.alignments`, normalized.py), so token offsets mapped back through
`Normalized.original_span` agree with `Tokenizer.encode(...).offsets`. `normalize(text)` tracks
alignments; `normalize_str(text)` gives the same text without them, on a fast path for whole
corpora.

Follows tokenizers/src/normalizers/ (0.23.3), one file per idea as there:
- base.py: the `Normalizer` interface, `Identity` (what an empty `build_normalizer([])` returns),
  `Sequence`, and `normalizer_from_hf_json`;
- unicode.py: NFD, NFKC (the algorithm: unicode_forms.py); lowercase.py: Lowercase;
  strip.py: StripAccents; bert.py: BertNormalizer;
- normalized.py: `Normalized` and the library's change bookkeeping;
- tables.py, character_classes.py: Python's `unicodedata` (14.0 on Python 3.11) corrected to the
  Unicode versions the library mixes (9.0 for NFD/NFKC/StripAccents, 8.0 for BertNormalizer's
  categories, Rust's newer lowercase mappings), measured character by character.

This module keeps the app's own names for them (`NORMALIZERS`: "nfd", "nfkc", "lowercase",
"strip-accents", "bert") and `build_normalizer`.

What it does not do: NFC, NFKD, Replace, Prepend, Strip, Nmt, Precompiled or ByteLevel
normalizers; lone surrogates (the library cannot receive them from Python).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence as SequenceOf

from explorer.pipeline.normalizers.base import Identity, Normalizer, Sequence, normalizer_from_hf_json
from explorer.pipeline.normalizers.bert import BertNormalizer
from explorer.pipeline.normalizers.lowercase import Lowercase
from explorer.pipeline.normalizers.normalized import Normalized
from explorer.pipeline.normalizers.strip import StripAccents
from explorer.pipeline.normalizers.unicode import NFD, NFKC

__all__ = [
    "NFD",
    "NFKC",
    "NORMALIZERS",
    "BertNormalizer",
    "Identity",
    "Lowercase",
    "Normalized",
    "Normalizer",
    "Sequence",
    "StripAccents",
    "build_normalizer",
    "normalizer_from_hf_json",
]

NORMALIZERS: dict[str, Callable[[], Normalizer]] = {
    "nfd": NFD,
    "nfkc": NFKC,
    "lowercase": Lowercase,
    "strip-accents": StripAccents,
    "bert": BertNormalizer,
}


def build_normalizer(names: SequenceOf[str]) -> Normalizer:
    """The normalizer for registry names applied in order: [] -> Identity, one name -> that
    component, several -> a Sequence."""
    if isinstance(names, str):
        names = [names]
    unknown = [name for name in names if name not in NORMALIZERS]
    if unknown:
        raise ValueError(f"unknown normalizer {unknown[0]!r}; choose from: {', '.join(NORMALIZERS)}")
    components = [NORMALIZERS[name]() for name in names]
    if not components:
        return Identity()
    return components[0] if len(components) == 1 else Sequence(components)
