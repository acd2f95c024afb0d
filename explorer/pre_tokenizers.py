"""Pre-tokenizers, the second pipeline stage, behaving exactly like the `tokenizers` library's.

A pre-tokenizer cuts (normalized) text into pieces; models then learn and apply merges inside
pieces only. Each component gives, like the library:
- `pre_tokenize(text)`: pieces with their (start, end) character offsets in `text`, as
  `pre_tokenize_str` (so `""` gives `[]`);
- `split(normalized)`: the pieces of a `normalizers.Normalized`, each keeping its alignments, so
  offsets map back through the normalizer to the original text (this is how the pipeline chains);
- `words(text)`: only the pieces, on the fast path used to count words for training.

Components (library semantics, measured with tokenizers 0.23.3):
- ByteLevel: GPT-2's regex `'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+`
  (contractions are lowercase only: `IT'S` -> `IT`, `'`, `S`), then every piece's UTF-8 bytes
  mapped to GPT-2 symbols (`bytelevel`). `add_prefix_space` prepends ' ' to text that does not
  start with one; the space shares the first character's offsets.
- BertPreTokenizer: splits on white space (dropped) and isolates every punctuation character:
  ASCII punctuation and symbols (`$ + < = > ^ \\` | ~`) and Unicode 8.0 P* characters.
- Whitespace: `\\w+|[^\\w\\s]+` with the library's \\w = Alphabetic | Mark | Nd | Pc | Join_Control
  (so `x²` splits in two, combining marks and ZWJ stay inside words).
- WhitespaceSplit: splits on Unicode White_Space (not Python's str.split, which also splits on
  U+001C..U+001F).
- Metaspace: every ' ' (U+0020 only) becomes the replacement character (default '▁', keeping the
  space's offsets); `prepend_scheme` "always" puts one before text that does not start with it,
  "first" only before a piece whose first character is the text's first character (the
  library's `offsets_original().0 == 0`: not after a special token, nor after characters a
  normalizer removed, nor on a piece an earlier pre-tokenizer cut further right), "never" not at
  all; the prepended character shares the first character's offsets. With `split`
  the text is then cut before every replacement character ("▁a▁▁b" -> "▁a", "▁", "▁b").
- Sequence: each pre-tokenizer splits the pieces of the previous one.

Unicode versions: the library's regex engines know Unicode 16.0 and its punctuation table is
Unicode 8.0, while the `regex` module used here knows Unicode 17.0. Small tables, measured against
the library one code point at a time, remove the difference (tests re-check every code point).

`split(normalized, first_part)`: `first_part` is false for the text after a special token, whose
alignments count from the end of that token (only Metaspace's "first" scheme reads it).

Does not: Split, Punctuation, Digits, CharDelimiterSplit, UnicodeScripts; ByteLevel's
`trim_offsets` (a post-processing option, only carried through tokenizer.json).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from collections.abc import Sequence as SequenceOf
from functools import cached_property

import regex

from explorer.bytelevel import text_to_symbols
from explorer.normalizers import Normalized

Piece = tuple[str, tuple[int, int]]
CodePointRanges = tuple[tuple[int, int], ...]

# Letters, numbers and word characters of Unicode 17.0 that the library's regex engines
# (Unicode 16.0) do not know: for them these characters are unassigned, i.e. "other".
_UNKNOWN_TO_LIBRARY_REGEX: CodePointRanges = (
    (0x0558, 0x0558),
    (0x058B, 0x058C),
    (0x05C8, 0x05C9),
    (0x088F, 0x088F),
    (0x0B53, 0x0B54),
    (0x0C5C, 0x0C5C),
    (0x0CDC, 0x0CDC),
    (0x1ACF, 0x1AF0),
    (0x208F, 0x208F),
    (0x209D, 0x209F),
    (0xA7CE, 0xA7CF),
    (0xA7D2, 0xA7D2),
    (0xA7D4, 0xA7D4),
    (0xA7DD, 0xA7DD),
    (0xA7E2, 0xA7E2),
    (0xA7F1, 0xA7F1),
    (0xAB6C, 0xAB6D),
    (0x107BB, 0x107BF),
    (0x10940, 0x10959),
    (0x10EC5, 0x10EC7),
    (0x10ECB, 0x10ECF),
    (0x10ED9, 0x10EEE),
    (0x10EF0, 0x10EFB),
    (0x11B0A, 0x11B0A),
    (0x11B60, 0x11B67),
    (0x11DB0, 0x11DDB),
    (0x11DE0, 0x11DE9),
    (0x11DF0, 0x11DF1),
    (0x1246F, 0x1246F),
    (0x12475, 0x1247F),
    (0x12550, 0x12686),
    (0x16EA0, 0x16EB8),
    (0x16EBB, 0x16ED3),
    (0x16FF2, 0x16FF6),
    (0x187F8, 0x187FF),
    (0x18CD6, 0x18CDA),
    (0x18D09, 0x18D20),
    (0x18D80, 0x18DF2),
    (0x18E00, 0x19191),
    (0x191A0, 0x191D2),
    (0x1B123, 0x1B128),
    (0x1B168, 0x1B168),
    (0x1D127, 0x1D128),
    (0x1D250, 0x1D252),
    (0x1D25B, 0x1D25C),
    (0x1D25F, 0x1D25F),
    (0x1D280, 0x1D281),
    (0x1D6A6, 0x1D6A6),
    (0x1DF1F, 0x1DF24),
    (0x1DF2B, 0x1DF81),
    (0x1DF90, 0x1DF96),
    (0x1DFCD, 0x1DFFF),
    (0x1E6C0, 0x1E6DE),
    (0x1E6E0, 0x1E6F5),
    (0x1E6FE, 0x1E6FF),
    (0x2B73A, 0x2B73F),
    (0x2B81E, 0x2B81E),
    (0x2CEA2, 0x2CEAD),
    (0x323B0, 0x33479),
    (0x3D000, 0x3FC3F),
)

# Punctuation (P*) assigned after Unicode 8.0: BertPreTokenizer does not isolate it.
_PUNCTUATION_AFTER_UNICODE_8: CodePointRanges = (
    (0x061D, 0x061D),
    (0x09FD, 0x09FD),
    (0x0A76, 0x0A76),
    (0x0C77, 0x0C77),
    (0x0C84, 0x0C84),
    (0x1B4E, 0x1B4F),
    (0x1B7D, 0x1B7F),
    (0x2E43, 0x2E4F),
    (0x2E52, 0x2E5D),
    (0x2E60, 0x2E63),
    (0x10D6E, 0x10D6E),
    (0x10EAD, 0x10EAD),
    (0x10ED0, 0x10ED0),
    (0x10F55, 0x10F59),
    (0x10F86, 0x10F89),
    (0x113D4, 0x113D5),
    (0x113D7, 0x113D8),
    (0x1144B, 0x1144F),
    (0x1145A, 0x1145B),
    (0x1145D, 0x1145D),
    (0x11660, 0x1166C),
    (0x116B9, 0x116B9),
    (0x1183B, 0x1183B),
    (0x11944, 0x11946),
    (0x119E2, 0x119E2),
    (0x11A3F, 0x11A46),
    (0x11A9A, 0x11A9C),
    (0x11A9E, 0x11AA2),
    (0x11B00, 0x11B09),
    (0x11BE1, 0x11BE1),
    (0x11C41, 0x11C45),
    (0x11C70, 0x11C71),
    (0x11EF7, 0x11EF8),
    (0x11F43, 0x11F4F),
    (0x11FFF, 0x11FFF),
    (0x12FF1, 0x12FF2),
    (0x16D6D, 0x16D6F),
    (0x16E97, 0x16E9A),
    (0x16FE2, 0x16FE2),
    (0x1E5FF, 0x1E5FF),
    (0x1E95E, 0x1E95F),
)
# Punctuation in Unicode 8.0 that is not any more: U+166D CANADIAN SYLLABICS CHI SIGN (now So),
# U+111C9 SHARADA SANDHI MARK (now Mn).
_PUNCTUATION_ONLY_IN_UNICODE_8: CodePointRanges = ((0x166D, 0x166D), (0x111C9, 0x111C9))


def _class_items(ranges: CodePointRanges) -> str:
    """Character-class items for inclusive code point ranges."""
    return "".join(
        regex.escape(chr(first)) if first == last else f"{regex.escape(chr(first))}-{regex.escape(chr(last))}"
        for first, last in ranges
    )


class _VersionedPattern:
    """One split pattern compiled twice: `fast` with the `regex` module's own Unicode classes,
    `exact` with classes corrected to the library's Unicode versions. The corrections (set
    operations) make matching about twice as slow, so `exact` runs only on text holding one of
    the characters on which the two disagree. Each is compiled on first use (compiling them all
    costs more than pre-tokenizing a megabyte of ASCII text)."""

    def __init__(self, fast: str, exact: str, differing: CodePointRanges, ascii: str | None = None) -> None:
        self._sources = (fast, exact, differing, ascii)

    @cached_property
    def fast(self) -> regex.Pattern[str]:
        return regex.compile(self._sources[0])

    @cached_property
    def exact(self) -> regex.Pattern[str]:
        return regex.compile(f"(?V1){self._sources[1]}")  # V1 enables the -- (difference) set operation

    @cached_property
    def differing(self) -> regex.Pattern[str] | None:
        ranges = self._sources[2]
        return regex.compile(f"[{_class_items(ranges)}]") if ranges else None

    @cached_property
    def ascii(self) -> re.Pattern[str] | None:
        # The same pattern written with ASCII classes for the standard `re` module, which is two
        # to three times faster than `regex` with Unicode properties, for ASCII-only text.
        source = self._sources[3]
        return re.compile(source) if source else None

    def for_text(self, text: str) -> regex.Pattern[str] | re.Pattern[str]:
        # Every differing character is non-ASCII, and str.isascii() costs nothing in CPython.
        if text.isascii():
            return self.ascii or self.fast
        if self.differing is None or self.differing.search(text) is None:
            return self.fast
        return self.exact


# ASCII text: White_Space = [\t\n\x0b\x0c\r ] (Python's `re` \s would add \x1c-\x1f), letters
# [A-Za-z], numbers [0-9], the library's \w [A-Za-z0-9_], punctuation _ASCII_PUNCTUATION below.
_ASCII_SPACE = r"\t\n\x0b\x0c\r "

# \s is Unicode White_Space, exactly Rust's char::is_whitespace.
_UNKNOWN = f"[{_class_items(_UNKNOWN_TO_LIBRARY_REGEX)}]"
_WORD_CHARS = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"  # the library's \w
_GPT2_TEMPLATE = r"'s|'t|'re|'ve|'m|'ll|'d| ?{L}+| ?{N}+| ?{OTHER}+|\s+(?!\S)|\s+"

_GPT2_PATTERN = _VersionedPattern(
    fast=_GPT2_TEMPLATE.format(L=r"\p{L}", N=r"\p{N}", OTHER=r"[^\s\p{L}\p{N}]"),
    exact=_GPT2_TEMPLATE.format(
        L=rf"[\p{{L}}--{_UNKNOWN}]", N=rf"[\p{{N}}--{_UNKNOWN}]", OTHER=rf"[[^\s\p{{L}}\p{{N}}]{_UNKNOWN}]"
    ),
    differing=_UNKNOWN_TO_LIBRARY_REGEX,
    ascii=(
        rf"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^{_ASCII_SPACE}A-Za-z0-9]+"
        rf"|[{_ASCII_SPACE}]+(?![^{_ASCII_SPACE}])|[{_ASCII_SPACE}]+"
    ),
)
# The same pattern for a whole corpus whose lines are separate sequences: white space never
# includes "\n", so every match stays inside one line and the pieces equal those of each line.
# The (?!\S) lookahead already treats "\n" like the end of a line.
_GPT2_LINES_TEMPLATE = _GPT2_TEMPLATE.replace(r"\s+(?!\S)|\s+", r"[^\S\n]+(?!\S)|[^\S\n]+")
_ASCII_SPACE_NO_NEWLINE = r"\t\x0b\x0c\r "
_GPT2_LINES_PATTERN = _VersionedPattern(
    fast=_GPT2_LINES_TEMPLATE.format(L=r"\p{L}", N=r"\p{N}", OTHER=r"[^\s\p{L}\p{N}]"),
    exact=_GPT2_LINES_TEMPLATE.format(
        L=rf"[\p{{L}}--{_UNKNOWN}]", N=rf"[\p{{N}}--{_UNKNOWN}]", OTHER=rf"[[^\s\p{{L}}\p{{N}}]{_UNKNOWN}]"
    ),
    differing=_UNKNOWN_TO_LIBRARY_REGEX,
    ascii=(
        rf"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^{_ASCII_SPACE}A-Za-z0-9]+"
        rf"|[{_ASCII_SPACE_NO_NEWLINE}]+(?![^{_ASCII_SPACE}])|[{_ASCII_SPACE_NO_NEWLINE}]+"
    ),
)

_WHITESPACE_PATTERN = _VersionedPattern(
    fast=rf"[{_WORD_CHARS}]+|[^\s{_WORD_CHARS}]+",
    exact=rf"[[{_WORD_CHARS}]--{_UNKNOWN}]+|[[^\s{_WORD_CHARS}]{_UNKNOWN}]+",
    differing=_UNKNOWN_TO_LIBRARY_REGEX,
    ascii=rf"[A-Za-z0-9_]+|[^{_ASCII_SPACE}A-Za-z0-9_]+",
)

_ASCII_PUNCTUATION = r"\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e"  # Rust's char::is_ascii_punctuation
_BERT_PUNCTUATION = (
    rf"[[[\p{{P}}{_ASCII_PUNCTUATION}]--[{_class_items(_PUNCTUATION_AFTER_UNICODE_8)}]]"
    rf"{_class_items(_PUNCTUATION_ONLY_IN_UNICODE_8)}]"
)
# Runs of neither white space nor punctuation, or one punctuation character.
_BERT_PATTERN = _VersionedPattern(
    fast=rf"[^\s\p{{P}}{_ASCII_PUNCTUATION}]+|[\p{{P}}{_ASCII_PUNCTUATION}]",
    exact=rf"[^\s{_BERT_PUNCTUATION}]+|{_BERT_PUNCTUATION}",
    differing=_PUNCTUATION_AFTER_UNICODE_8 + _PUNCTUATION_ONLY_IN_UNICODE_8,
    ascii=rf"[^{_ASCII_SPACE}{_ASCII_PUNCTUATION}]+|[{_ASCII_PUNCTUATION}]",
)


class PreTokenizer:
    """One pipeline stage. Subclasses implement `split`, `words` and `to_hf_json`."""

    def pre_tokenize(self, text: str) -> list[Piece]:
        pieces = self.split(Normalized.unchanged(text))
        return [(piece.text, piece.original_span(0, len(piece.text))) for piece in pieces]

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        raise NotImplementedError

    def words(self, text: str) -> list[str]:
        return [piece.text for piece in self.split(Normalized.unchanged(text))]

    def count_line_words(self, text: str) -> Counter[str]:
        """Pieces of every line of `text` (each line a separate sequence) with their counts, in
        order of first appearance. Subclasses whose pieces never span a line break do it in one
        pass over the whole text."""
        counts: Counter[str] = Counter()
        for line in text.split("\n"):
            counts.update(self.words(line))
        return counts

    def to_hf_json(self) -> dict:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_hf_json() == self.to_hf_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_hf_json()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_hf_json()})"


class _RegexPieces(PreTokenizer):
    """A pre-tokenizer whose pieces are exactly the matches of one regex."""

    pattern: _VersionedPattern

    def pre_tokenize(self, text: str) -> list[Piece]:
        return [(match.group(), match.span()) for match in self.pattern.for_text(text).finditer(text)]

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        text = normalized.text
        return [
            Normalized(match.group(), normalized.alignments[match.start() : match.end()])
            for match in self.pattern.for_text(text).finditer(text)
        ]

    def words(self, text: str) -> list[str]:
        return self.pattern.for_text(text).findall(text)

    def count_line_words(self, text: str) -> Counter[str]:
        # White space (line breaks included) separates pieces, so no piece spans two lines.
        return Counter(self.words(text))


class BertPreTokenizer(_RegexPieces):
    pattern = _BERT_PATTERN

    def to_hf_json(self) -> dict:
        return {"type": "BertPreTokenizer"}


class Whitespace(_RegexPieces):
    pattern = _WHITESPACE_PATTERN

    def to_hf_json(self) -> dict:
        return {"type": "Whitespace"}


class WhitespaceSplit(_RegexPieces):
    pattern = _VersionedPattern(fast=r"\S+", exact=r"\S+", differing=(), ascii=rf"[^{_ASCII_SPACE}]+")

    def to_hf_json(self) -> dict:
        return {"type": "WhitespaceSplit"}


def _byte_symbols(piece: Normalized) -> Normalized:
    """Map a piece to byte-level symbols; every byte keeps its character's alignment."""
    alignments = tuple(
        alignment
        for char, alignment in zip(piece.text, piece.alignments)
        for _ in range(1 if char.isascii() else len(char.encode()))
    )
    return Normalized(text_to_symbols(piece.text), alignments)


class ByteLevel(PreTokenizer):
    """GPT-2 pre-tokenization: the GPT-2 regex (if `use_regex`), then bytes as symbols."""

    def __init__(
        self, add_prefix_space: bool = False, use_regex: bool = True, trim_offsets: bool = True
    ) -> None:
        self.add_prefix_space = add_prefix_space
        self.use_regex = use_regex
        self.trim_offsets = trim_offsets  # not used here: carried for tokenizer.json only

    def _needs_prefix(self, text: str) -> bool:
        return self.add_prefix_space and text != "" and not text.startswith(" ")

    def pre_tokenize(self, text: str) -> list[Piece]:
        if not self._needs_prefix(text):
            return [(text_to_symbols(piece), span) for piece, span in self._raw_pieces(text)]
        # The prepended space takes the offsets of the first character: shift back by one,
        # clamping the space's own (0, 0) to the first character's (0, 1).
        return [
            (text_to_symbols(piece), (max(start - 1, 0), max(end - 1, 1)))
            for piece, (start, end) in self._raw_pieces(" " + text)
        ]

    def _raw_pieces(self, text: str) -> list[Piece]:
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

    def count_line_words(self, text: str) -> Counter[str]:
        if self.add_prefix_space or not self.use_regex:
            return super().count_line_words(text)
        raw_counts = Counter(_GPT2_LINES_PATTERN.for_text(text).findall(text))
        # Each distinct piece is mapped to byte symbols once; the mapping keeps pieces distinct.
        return Counter({text_to_symbols(piece): count for piece, count in raw_counts.items()})

    def to_hf_json(self) -> dict:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": self.trim_offsets,
            "use_regex": self.use_regex,
        }


class Metaspace(PreTokenizer):
    """SentencePiece's convention: spaces become '▁', and every piece starts at a '▁'."""

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

    def count_line_words(self, text: str) -> Counter[str]:
        # Every line is a sequence of its own, so "first" prepends to each line like "always".
        text = text.replace(" ", self.replacement)
        if self.prepend_scheme != "never":
            text = self._line_start.sub(self.replacement, text)
        return Counter(self._line_pieces.findall(text))

    def to_hf_json(self) -> dict:
        return {
            "type": "Metaspace",
            "replacement": self.replacement,
            "prepend_scheme": self.prepend_scheme,
            "split": self.split_at_replacement,
        }

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


class Sequence(PreTokenizer):
    """Each pre-tokenizer splits every piece of the previous one."""

    def __init__(self, pre_tokenizers: SequenceOf[PreTokenizer]) -> None:
        self.pre_tokenizers = tuple(pre_tokenizers)

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        pieces = [normalized] if normalized.text else []
        for pre_tokenizer in self.pre_tokenizers:
            pieces = [smaller for piece in pieces for smaller in pre_tokenizer.split(piece, first_part)]
        return pieces

    def to_hf_json(self) -> dict:
        return {"type": "Sequence", "pretokenizers": [step.to_hf_json() for step in self.pre_tokenizers]}


def pre_tokenizer_from_hf_json(config: dict) -> PreTokenizer:
    """The component for a tokenizer.json `pre_tokenizer` entry."""
    kind = config.get("type")
    if kind == "Sequence":
        return Sequence([pre_tokenizer_from_hf_json(item) for item in config["pretokenizers"]])
    if kind == "Metaspace":
        return Metaspace.from_hf_json(config)
    if kind == "ByteLevel":
        return ByteLevel(
            add_prefix_space=config.get("add_prefix_space", True),
            use_regex=config.get("use_regex", True),
            trim_offsets=config.get("trim_offsets", True),
        )
    simple = {
        "BertPreTokenizer": BertPreTokenizer,
        "Whitespace": Whitespace,
        "WhitespaceSplit": WhitespaceSplit,
    }
    if kind in simple:
        return simple[kind]()
    raise ValueError(
        f"unsupported pre-tokenizer type {kind!r}; supported: {', '.join(['ByteLevel', 'Metaspace', *simple, 'Sequence'])}"
    )


PRE_TOKENIZERS: dict[str, Callable[[], PreTokenizer]] = {
    # Training uses GPT-2's byte-level pre-tokenizer without a prefix space.
    "byte-level": lambda: ByteLevel(add_prefix_space=False),
    "bert": BertPreTokenizer,
    "whitespace": Whitespace,
    "whitespace-split": WhitespaceSplit,
    # SentencePiece's (XLNet, T5, ALBERT): '▁' for spaces and before every line.
    "metaspace": Metaspace,
}


def build_pre_tokenizer(name: str) -> PreTokenizer:
    if name not in PRE_TOKENIZERS:
        raise ValueError(f"unknown pre-tokenizer {name!r}; choose from: {', '.join(PRE_TOKENIZERS)}")
    return PRE_TOKENIZERS[name]()
