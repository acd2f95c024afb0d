"""Normalized text that remembers where every character comes from, and the library's way of
changing it.

Follows the `tokenizers` library's `NormalizedString` (tokenizers/src/tokenizer/normalizer.rs,
0.23.3): every output character keeps the span of the ORIGINAL text it comes from
(`Normalized.alignments`). A component emits its output as `(char, change)` pairs, as
`NormalizedString::transform` takes them: change 0 replaces the next input character, 1 inserts
a character (it inherits the alignment of the character before it) and -n replaces the next
character and drops the n after it. So token offsets mapped back through
`Normalized.original_span` agree with the library's `Tokenizer.encode(...).offsets`.

What it does not do: byte offsets (everything here counts characters), or any normalization of
its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

Alignment = tuple[int, int]
Change = tuple[str, int]  # (output character, change) as in NormalizedString::transform


@dataclass(frozen=True)
class Normalized:
    """Normalized text plus, for each of its characters, the original (start, end) it comes from."""

    text: str
    alignments: tuple[Alignment, ...]

    @classmethod
    def unchanged(cls, text: str) -> Normalized:
        return cls(text, tuple((index, index + 1) for index in range(len(text))))

    def original_span(self, start: int, end: int) -> Alignment:
        """The original span of normalized characters [start, end), as the library converts
        token offsets: first character's start to last character's end."""
        if start >= end:
            return (start, end)  # the library returns an empty range untouched
        return (self.alignments[start][0], self.alignments[end - 1][1])


def apply_changes(current: Normalized, changes: Iterable[Change], initial_offset: int = 0) -> Normalized:
    """The library's NormalizedString::transform, in character units: `initial_offset` input
    characters are dropped first, then each change consumes input characters."""
    old = current.alignments
    position = initial_offset  # index of the next input character to be replaced
    chars: list[str] = []
    alignments: list[Alignment] = []
    for char, change in changes:
        chars.append(char)
        if change > 0:
            # An inserted character shares the alignment of the input character before it.
            alignments.append(old[position - 1] if position >= 1 else (0, 0))
        else:
            alignments.append(old[position])
            position += 1 - change
    return Normalized("".join(chars), tuple(alignments))


def _filter_changes(text: str, keep: Callable[[str], bool]) -> tuple[list[Change], int]:
    """The library's NormalizedString::filter: each kept character absorbs the removed ones after
    it (change -n); removed characters at the very start become the initial offset."""
    changes: list[Change] = []
    removed = 0
    removed_at_start = 0
    last_kept: str | None = None
    for char in text:
        if keep(char):
            if last_kept is None:
                removed_at_start = removed
            else:
                changes.append((last_kept, -removed))
            last_kept = char
            removed = 0
        else:
            removed += 1
    if last_kept is not None:
        changes.append((last_kept, -removed))
    return changes, removed_at_start


def remove_chars(normalized: Normalized, removed: re.Pattern[str]) -> Normalized:
    """The library's filter, for characters matched by `removed`."""
    if removed.search(normalized.text) is None:
        return normalized
    changes, removed_at_start = _filter_changes(normalized.text, lambda char: removed.match(char) is None)
    return apply_changes(normalized, changes, removed_at_start)
