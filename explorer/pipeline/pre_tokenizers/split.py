"""Split with a regex and behavior "Isolated", exactly as the `tokenizers` library does it.

Follows tokenizers/src/pre_tokenizers/split.rs (0.23.3): every match of the pattern is a
pre-token, and so is every stretch of text between two matches (none of the byte-level split
patterns leaves one). The pattern is read by the `regex` module with MULTILINE, so that `$` is the
library's (Oniguruma's Ruby syntax: before any line break); its Unicode classes are corrected to
the library's Unicode version, as ByteLevel's are (patterns.py), on text holding a character
on which the versions differ.

What it does not do: a plain string pattern, the behaviors other than "Isolated", `invert`, or a
pattern read from a tokenizer.json other than the byte-level split patterns, whose matches are
tested against the library's (a tokenizer.json holding any of them is refused, so the app hands it
to the library); choose a pattern (split_patterns.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.pre_tokenizers.base import PreTokenizer
from explorer.pipeline.pre_tokenizers.patterns import UNKNOWN_TO_LIBRARY, VersionedPattern
from explorer.pipeline.pre_tokenizers.regex_tables import UNKNOWN_TO_LIBRARY_REGEX
from explorer.pipeline.pre_tokenizers.split_patterns import LIBRARY_PATTERNS


def _versioned(pattern: str) -> VersionedPattern:
    """`pattern` with MULTILINE, and its form whose Unicode properties leave out the characters
    the library's engine does not know (a set difference on every `\\p{...}`)."""
    exact = pattern
    for prop in sorted(set(_properties(pattern)), key=len, reverse=True):
        exact = exact.replace(prop, f"[{prop}--{UNKNOWN_TO_LIBRARY}]")
    return VersionedPattern(fast=f"(?m){pattern}", exact=f"(?m){exact}", differing=UNKNOWN_TO_LIBRARY_REGEX)


def _properties(pattern: str) -> list[str]:
    """The `\\p{...}` items of `pattern`."""
    found, start = [], pattern.find(r"\p{")
    while start >= 0:
        end = pattern.index("}", start)
        found.append(pattern[start : end + 1])
        start = pattern.find(r"\p{", end)
    return found


class Split(PreTokenizer):
    """The library's Split with a Regex pattern and behavior "Isolated"."""

    hf_type = "Split"
    words_per_piece = True

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._versioned = _versioned(pattern)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of every pre-token: the matches and the stretches between them."""
        spans: list[tuple[int, int]] = []
        last = 0
        for match in self._versioned.for_text(text).finditer(text):
            start, end = match.span()
            if start == end:
                continue
            if start > last:
                spans.append((last, start))
            spans.append((start, end))
            last = end
        if last < len(text):
            spans.append((last, len(text)))
        return spans

    def count_line_words(self, chunks: Iterator[str]) -> Counter[str]:
        # Matches may hold line breaks (`\s*[\r\n]`), so each line is matched on its own, with the
        # pattern form chosen once per chunk of lines (the exact form is right for any text).
        counts: Counter[str] = Counter()
        for chunk in chunks:
            pattern = self._versioned.for_text(chunk)
            for line in chunk.split("\n"):
                pieces = pattern.findall(line) if pattern.groups == 0 else []
                if sum(map(len, pieces)) != len(line):  # text between matches: pieces too
                    pieces = self.words(line)
                counts.update(pieces)
        return counts

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        text = normalized.text
        return [
            Normalized(text[start:end], normalized.alignments[start:end]) for start, end in self.spans(text)
        ]

    def words(self, text: str) -> list[str]:
        return [text[start:end] for start, end in self.spans(text)]

    def to_hf_json(self) -> dict:
        return {"type": "Split", "pattern": {"Regex": self.pattern}, "behavior": "Isolated", "invert": False}

    @classmethod
    def from_hf_json(cls, config: dict) -> Split:
        pattern = config.get("pattern")
        if not isinstance(pattern, dict) or not isinstance(pattern.get("Regex"), str):
            raise ValueError("only a Split with a Regex pattern is supported")
        if config.get("behavior", "Isolated") != "Isolated" or config.get("invert", False):
            raise ValueError("only a Split with behavior 'Isolated' and invert false is supported")
        if pattern["Regex"] not in LIBRARY_PATTERNS.values():
            # Another pattern may use syntax the library's engine (Oniguruma) reads otherwise than
            # the `regex` module does (possessive quantifiers, \h, ...): the library encodes it.
            raise ValueError(
                "only a Split with one of the byte-level split patterns (GPT-2, cl100k, o200k, "
                "Llama 3) is supported"
            )
        return cls(pattern["Regex"])
