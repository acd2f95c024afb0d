"""ByteLevel: GPT-2's pre-tokenization, exactly as the `tokenizers` library does it.

Follows tokenizers/src/pre_tokenizers/byte_level.rs (0.23.3): GPT-2's regex
`'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+` (if `use_regex`;
contractions are lowercase only: `IT'S` -> `IT`, `'`, `S`), then every pre-token's UTF-8 bytes
mapped to GPT-2 symbols (`explorer.pipeline.bytelevel`), each byte keeping its character's alignment.
`add_prefix_space` prepends ' ' to text that does not start with one; the space shares the first
character's offsets.

What it does not do: `trim_offsets`, a post-processing option only carried through
tokenizer.json; the library's ByteLevel decoder (explorer/pipeline/decoders.py) and post-processor.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import cast

from explorer.pipeline.bytelevel import text_to_symbols
from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.pre_tokenizers.base import PreToken, PreTokenizer
from explorer.pipeline.pre_tokenizers.patterns import ASCII_SPACE, UNKNOWN_TO_LIBRARY, VersionedPattern
from explorer.pipeline.pre_tokenizers.regex_tables import UNKNOWN_TO_LIBRARY_REGEX

# GPT-2's pattern, with {SPACE} its white space class and {NOT_SPACE} the rest.
_GPT2_TEMPLATE = r"'s|'t|'re|'ve|'m|'ll|'d| ?{L}+| ?{N}+| ?{OTHER}+|{SPACE}+(?!{NOT_SPACE})|{SPACE}+"
# The same for a chunk of lines that keep their endings, with {SPACE} never "\n": white space that
# runs to a "\n" ends its line's sequence, where `\s+(?!\S)` takes it all, break included.
_GPT2_ENDINGS_TEMPLATE = _GPT2_TEMPLATE.replace("|{SPACE}+(?!", r"|{SPACE}*\n|{SPACE}+(?!")


def _gpt2_pattern(space: str, ascii_space: str, template: str = _GPT2_TEMPLATE) -> VersionedPattern:
    """GPT-2's pattern (`template`) with `space` as its white space class (`ascii_space` lists
    the ASCII white space characters of that class, for ASCII text)."""
    unknown = UNKNOWN_TO_LIBRARY
    return VersionedPattern(
        fast=template.format(L=r"\p{L}", N=r"\p{N}", OTHER=r"[^\s\p{L}\p{N}]", SPACE=space, NOT_SPACE=r"\S"),
        exact=template.format(
            L=rf"[\p{{L}}--{unknown}]",
            N=rf"[\p{{N}}--{unknown}]",
            OTHER=rf"[[^\s\p{{L}}\p{{N}}]{unknown}]",
            SPACE=space,
            NOT_SPACE=r"\S",
        ),
        differing=UNKNOWN_TO_LIBRARY_REGEX,
        ascii=template.format(
            L="[A-Za-z]",
            N="[0-9]",
            OTHER=f"[^{ASCII_SPACE}A-Za-z0-9]",
            SPACE=f"[{ascii_space}]",
            NOT_SPACE=f"[^{ASCII_SPACE}]",
        ),
    )


_GPT2_PATTERN = _gpt2_pattern(space=r"\s", ascii_space=ASCII_SPACE)
# The same pattern for a whole corpus whose lines are separate sequences: white space never
# includes "\n", so every match stays inside one line and the pre-tokens equal those of each
# line. The (?!\S) lookahead already treats "\n" like the end of a line.
_GPT2_LINES_PATTERN = _gpt2_pattern(space=r"[^\S\n]", ascii_space=ASCII_SPACE.replace(r"\n", ""))
# For a corpus whose lines keep their endings: every match ends at or before the next "\n", and
# the pieces equal those of each line with its ending.
_GPT2_ENDINGS_PATTERN = _gpt2_pattern(
    space=r"[^\S\n]", ascii_space=ASCII_SPACE.replace(r"\n", ""), template=_GPT2_ENDINGS_TEMPLATE
)


def _byte_symbols(piece: Normalized) -> Normalized:
    """Map a piece to byte-level symbols; every byte keeps its character's alignment."""
    if piece.text.isascii():  # one byte per character: the alignments stay as they are
        return Normalized(text_to_symbols(piece.text), piece.alignments)
    alignments = tuple(
        alignment
        for char, alignment in zip(piece.text, piece.alignments)
        for _ in range(1 if char.isascii() else len(char.encode()))
    )
    return Normalized(text_to_symbols(piece.text), alignments)


class ByteLevel(PreTokenizer):
    """GPT-2 pre-tokenization: the GPT-2 regex (if `use_regex`), then bytes as symbols."""

    hf_type = "ByteLevel"
    hf_fields = ("add_prefix_space", "trim_offsets", "use_regex")
    words_per_piece = True

    def __init__(
        self, add_prefix_space: bool = False, use_regex: bool = True, trim_offsets: bool = True
    ) -> None:
        self.add_prefix_space = add_prefix_space
        self.use_regex = use_regex
        self.trim_offsets = trim_offsets  # not used here: carried for tokenizer.json only

    def _needs_prefix(self, text: str) -> bool:
        return self.add_prefix_space and text != "" and not text.startswith(" ")

    def pre_tokenize(self, text: str) -> list[PreToken]:
        if not self._needs_prefix(text):
            return [(text_to_symbols(piece), span) for piece, span in self._raw_pieces(text)]
        # The prepended space takes the offsets of the first character: shift back by one,
        # clamping the space's own (0, 0) to the first character's (0, 1).
        return [
            (text_to_symbols(piece), (max(start - 1, 0), max(end - 1, 1)))
            for piece, (start, end) in self._raw_pieces(" " + text)
        ]

    def _raw_pieces(self, text: str) -> list[PreToken]:
        if not self.use_regex:
            return [(text, (0, len(text)))] if text else []
        return [(match.group(), match.span()) for match in _GPT2_PATTERN.for_text(text).finditer(text)]

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        if self._needs_prefix(normalized.text):
            # The library's prepend: the space replaces the first character, which is re-inserted
            # after it, so both carry the first character's alignment.
            normalized = Normalized(" " + normalized.text, (normalized.alignments[0], *normalized.alignments))
        pieces = [
            Normalized(piece, normalized.alignments[start:end])
            for piece, (start, end) in self._raw_pieces(normalized.text)
        ]
        return [_byte_symbols(piece) for piece in pieces]

    def words(self, text: str) -> list[str]:
        if self._needs_prefix(text):
            text = " " + text
        pieces = _GPT2_PATTERN.for_text(text).findall(text) if self.use_regex else ([text] if text else [])
        return [text_to_symbols(piece) for piece in pieces]

    def count_line_words(self, chunks: Iterator[str]) -> Counter[str]:
        if self.add_prefix_space or not self.use_regex:
            return super().count_line_words(chunks)
        raw_counts = _GPT2_LINES_PATTERN.count_lines(chunks)
        # Each distinct pre-token is mapped to byte symbols once; the mapping keeps them distinct.
        return Counter({text_to_symbols(piece): count for piece, count in raw_counts.items()})

    def count_lines_with_endings(self, chunks: Iterator[str]) -> Counter[str]:
        if self.add_prefix_space or not self.use_regex:
            return super().count_lines_with_endings(chunks)
        raw_counts = _GPT2_ENDINGS_PATTERN.count_lines(chunks)
        return Counter({text_to_symbols(piece): count for piece, count in raw_counts.items()})

    @classmethod
    def from_hf_json(cls, config: dict) -> ByteLevel:
        # In tokenizer.json a missing add_prefix_space means true (the library's default); the
        # app trains without a prefix space (PRE_TOKENIZERS["byte-level"]).
        return cast(ByteLevel, super().from_hf_json({"add_prefix_space": True} | config))
