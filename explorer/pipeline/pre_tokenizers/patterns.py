"""Split patterns that match like the `tokenizers` library's, in the Unicode version it knows,
and fast on the text a corpus usually holds.

The library splits with regular expressions (onig for ByteLevel's GPT-2 pattern, the `regex`
crate for Whitespace; tokenizers/src/utils/onig.rs, pre_tokenizers/whitespace.rs) whose Unicode
classes are version 16.0; the `regex` module used here knows 17.0. A `VersionedPattern` holds one
pattern written three ways and picks, per text, the fastest one that gives the library's pieces:
the standard `re` module with ASCII classes for ASCII text, the `regex` module's own classes
when the text holds none of the characters on which the versions differ (tables.py), and
classes corrected by set operations otherwise.

What it does not do: decide what a pattern is (byte_level.py, whitespace.py write theirs).
"""

from __future__ import annotations

import re
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
    def differing(self) -> regex.Pattern[str] | None:
        ranges = self._sources[2]
        return regex.compile(f"[{class_items(ranges)}]") if ranges else None

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
# [A-Za-z], numbers [0-9], the library's \w [A-Za-z0-9_].
ASCII_SPACE = r"\t\n\x0b\x0c\r "

# In the `regex` module \s is Unicode White_Space, exactly Rust's char::is_whitespace. Characters
# the library's engines do not know are "other" for them: a class to subtract or to add.
UNKNOWN_TO_LIBRARY = f"[{class_items(UNKNOWN_TO_LIBRARY_REGEX)}]"
