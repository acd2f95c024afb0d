"""Split patterns that match like the `tokenizers` library's, in the Unicode version it knows,
and fast on the text a corpus usually holds.

The library splits with regular expressions (onig for ByteLevel's GPT-2 pattern, the `regex`
crate for Whitespace; tokenizers/src/utils/onig.rs, pre_tokenizers/whitespace.rs) whose Unicode
classes are version 16.0; the `regex` module used here knows 17.0. A `VersionedPattern` holds one
pattern written three ways and picks, per text, the fastest one that gives the library's pieces:
the standard `re` module with ASCII classes for ASCII text, the `regex` module's own classes
when the text holds none of the characters on which the versions differ (regex_tables.py), and
classes corrected by set operations otherwise. `count_lines` counts the pre-tokens of a corpus
given in chunks of whole lines, each chunk with its own fastest form: a code corpus with a few
non-ASCII characters is matched by `re` except around them, and no list of every pre-token of the
corpus is ever built.

What it does not do: decide what a pattern is (byte_level.py, whitespace.py write theirs), or cut
a corpus into chunks (explorer.training.word_counts does).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import cached_property

import regex

from explorer.pipeline.pre_tokenizers.regex_tables import UNKNOWN_TO_LIBRARY_REGEX, CodePointRanges


def class_items(ranges: CodePointRanges) -> str:
    """Character-class items for inclusive code point ranges."""
    return "".join(
        regex.escape(chr(first)) if first == last else f"{regex.escape(chr(first))}-{regex.escape(chr(last))}"
        for first, last in ranges
    )


class VersionedPattern:
    """One split pattern in up to three forms: `fast` with the `regex` module's own Unicode
    classes, `exact` with classes corrected to the library's Unicode versions, `ascii` for the
    standard `re` module. The corrections (set operations) make matching about twice as slow, so
    `exact` runs only on text holding one of the characters on which the two disagree. Each is
    compiled on first use (compiling them all costs more than pre-tokenizing a megabyte of ASCII
    text)."""

    def __init__(self, fast: str, exact: str, differing: CodePointRanges, ascii: str | None = None) -> None:
        self._sources = (fast, exact, differing, ascii)

    @cached_property
    def fast(self) -> regex.Pattern[str]:
        return regex.compile(self._sources[0])

    @cached_property
    def exact(self) -> regex.Pattern[str]:
        return regex.compile(f"(?V1){self._sources[1]}")  # V1 enables the -- (difference) set operation

    @cached_property
    def differing(self) -> frozenset[str]:
        """The characters on which the `regex` module's Unicode version and the library's differ."""
        return frozenset(chr(code) for first, last in self._sources[2] for code in range(first, last + 1))

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
        # set(text) is one pass in C (about 9 ms per MB); a regex search for a class of 17,000
        # characters took 110 ms per MB.
        if self.differing.isdisjoint(set(text)):
            return self.fast
        return self.exact

    def count_lines(self, chunks: Iterator[str]) -> Counter[str]:
        """The matches in `chunks` (each a run of whole lines) with their counts, in order of first
        appearance, for a pattern whose matches never run past a line break."""
        counts: Counter[str] = Counter()
        for chunk in chunks:
            counts.update(self.for_text(chunk).findall(chunk))
        return counts


# ASCII text: White_Space = [\t\n\x0b\x0c\r ] (Python's `re` \s would add \x1c-\x1f), letters
# [A-Za-z], numbers [0-9], the library's \w [A-Za-z0-9_].
ASCII_SPACE = r"\t\n\x0b\x0c\r "

# In the `regex` module \s is Unicode White_Space, exactly Rust's char::is_whitespace. Characters
# the library's engines do not know are "other" for them: a class to subtract or to add.
UNKNOWN_TO_LIBRARY = f"[{class_items(UNKNOWN_TO_LIBRARY_REGEX)}]"
