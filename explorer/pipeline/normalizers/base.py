"""The normalizer interface, the two normalizers that only compose others (Identity, Sequence),
and the reader of a tokenizer.json `normalizer` entry.

Follows the `tokenizers` library (0.23.3): `Normalizer::normalize(&mut NormalizedString)` in
tokenizers/src/tokenizer/mod.rs, `Sequence` in tokenizers/src/normalizers/utils.rs, and
`"normalizer": null` for no normalizer.

What it does not do: normalize text itself (the components in this package do).
"""

from __future__ import annotations

from collections.abc import Sequence as SequenceOf
from typing import cast

from explorer.pipeline.components import Component, component_from_hf_json
from explorer.pipeline.normalizers.normalized import Normalized


class Normalizer(Component):
    """One pipeline stage. Subclasses implement `transform` and `to_hf_json` (or `hf_type` and
    `hf_fields`), and override `normalize_str` with a fast path when they have one."""

    stage = "normalizer"

    def normalize(self, text: str) -> Normalized:
        return self.transform(Normalized.unchanged(text))

    def transform(self, normalized: Normalized) -> Normalized:
        """Normalize already-normalized text, composing alignments (used by Sequence)."""
        raise NotImplementedError

    def normalize_str(self, text: str) -> str:
        """The text of `normalize(text)`, without tracking alignments."""
        return self.normalize(text).text


class Identity(Normalizer):
    """No normalization. The library has no such component: tokenizer.json says
    `"normalizer": null`, so `to_hf_json()` is None."""

    def transform(self, normalized: Normalized) -> Normalized:
        return normalized

    def normalize_str(self, text: str) -> str:
        return text

    def to_hf_json(self) -> None:
        return None


class Sequence(Normalizer):
    """Applies normalizers in order; alignments compose through all of them."""

    hf_type = "Sequence"

    def __init__(self, normalizers: SequenceOf[Normalizer]) -> None:
        self.normalizers = tuple(normalizers)

    def transform(self, normalized: Normalized) -> Normalized:
        for normalizer in self.normalizers:
            normalized = normalizer.transform(normalized)
        return normalized

    def normalize_str(self, text: str) -> str:
        for normalizer in self.normalizers:
            text = normalizer.normalize_str(text)
        return text

    def to_hf_json(self) -> dict:
        # An Identity inside a Sequence has no JSON form of its own: it is simply left out.
        parts = [normalizer.to_hf_json() for normalizer in self.normalizers]
        return {"type": "Sequence", "normalizers": [part for part in parts if part is not None]}

    @classmethod
    def from_hf_json(cls, config: dict) -> Sequence:
        return cls([normalizer_from_hf_json(item) for item in config["normalizers"]])


def normalizer_from_hf_json(config: dict | None) -> Normalizer:
    """The component for a tokenizer.json `normalizer` entry (None means no normalizer: Identity)."""
    return (
        Identity() if config is None else cast(Normalizer, component_from_hf_json(Normalizer.stage, config))
    )
