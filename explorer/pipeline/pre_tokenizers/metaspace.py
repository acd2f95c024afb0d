"""Metaspace: SentencePiece's convention for spaces, exactly as the `tokenizers` library does it.

Follows tokenizers/src/pre_tokenizers/metaspace.rs (0.23.3): every ' ' (U+0020 only) becomes the
replacement character (default '▁', keeping the space's offsets); `prepend_scheme` "always" puts
one before text that does not start with it, "first" only before a pre-token whose first
character is the text's first character (the library's `offsets_original().0 == 0`: not after a
special token, nor after characters a normalizer removed, nor on a piece an earlier
pre-tokenizer cut further right), "never" not at all; the prepended character shares the first
character's offsets. With `split` the text is then cut before every replacement character
("▁a▁▁b" -> "▁a", "▁", "▁b"). The same struct is the library's Metaspace decoder
(`MetaspaceDecoder` in explorer/pipeline/decoders.py reads its fields through `Metaspace.from_hf_json`).

What it does not do: SentencePiece's own normalization (the library's Precompiled normalizer);
white space other than U+0020 stays as it is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import cast

from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.pre_tokenizers.base import PreTokenizer


class Metaspace(PreTokenizer):
    """SentencePiece's convention: spaces become '▁', and every piece starts at a '▁'."""

    hf_type = "Metaspace"
    hf_fields = ("replacement", "prepend_scheme")  # then "split", see to_hf_json

    PREPEND_SCHEMES = ("always", "first", "never")

    def __init__(self, replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> None:
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise ValueError(f"the Metaspace replacement must be one character, not {replacement!r}")
        if prepend_scheme not in self.PREPEND_SCHEMES:
            raise ValueError(
                f"prepend_scheme must be one of {', '.join(self.PREPEND_SCHEMES)}, not {prepend_scheme!r}"
            )
        if not isinstance(split, bool):
            raise ValueError(f"split must be true or false, not {split!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_at_replacement = split
        mark = re.escape(replacement)
        # Pieces start at every replacement character (the library's MergedWithNext split).
        self._pieces = re.compile(f"{mark}[^{mark}]*|[^{mark}]+")
        self._line_pieces = re.compile(f"{mark}[^{mark}\\n]*|[^{mark}\\n]+" if split else "[^\\n]+")
        self._line_start = re.compile(f"^(?=[^{mark}\\n])", re.MULTILINE)

    def _prepends(self, text: str, starts_text: bool) -> bool:
        if not text or text.startswith(self.replacement):
            return False
        return self.prepend_scheme == "always" or (self.prepend_scheme == "first" and starts_text)

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        # Each space is replaced one for one, so it keeps its own alignment.
        text = normalized.text.replace(" ", self.replacement)
        alignments = normalized.alignments
        # The library slices every normalized part, so a part whose first characters the
        # normalizer dropped does not start at offset 0 any more.
        starts_text = first_part and bool(alignments) and alignments[0][0] == 0
        if self._prepends(text, starts_text):
            # The library's prepend: the first character's alignment is shared by both.
            text = self.replacement + text
            alignments = (alignments[0], *alignments)
        if not text:
            return []
        if not self.split_at_replacement:
            return [Normalized(text, alignments)]
        return [
            Normalized(match.group(), alignments[match.start() : match.end()])
            for match in self._pieces.finditer(text)
        ]

    def words(self, text: str) -> list[str]:
        text = text.replace(" ", self.replacement)
        if self._prepends(text, True):
            text = self.replacement + text
        if not self.split_at_replacement:
            return [text] if text else []
        return self._pieces.findall(text)

    def count_line_words(self, chunks: Iterator[str]) -> Counter[str]:
        # Every line is a sequence of its own, so "first" prepends to each line like "always".
        counts: Counter[str] = Counter()
        for chunk in chunks:  # each chunk starts a line
            chunk = chunk.replace(" ", self.replacement)
            if self.prepend_scheme != "never":
                chunk = self._line_start.sub(self.replacement, chunk)
            counts.update(self._line_pieces.findall(chunk))
        return counts

    def to_hf_json(self) -> dict:
        # Here `split` is the method; the field it writes is `split_at_replacement`.
        fields = cast(dict, super().to_hf_json())  # Component's: always a dict
        return {**fields, "split": self.split_at_replacement}

    @classmethod
    def from_hf_json(cls, config: dict) -> Metaspace:
        """Like the library: `prepend_scheme` defaults to "always", `split` to true; the older
        `add_prefix_space: false` must come with `prepend_scheme: "never"`."""
        prepend_scheme = config.get("prepend_scheme", "always")
        add_prefix_space = config.get("add_prefix_space")
        if add_prefix_space is False:
            if prepend_scheme != "never":
                raise ValueError(
                    "Metaspace: add_prefix_space false does not match the declared prepend_scheme"
                )
        return cls(config.get("replacement", "▁"), prepend_scheme, config.get("split", True))
