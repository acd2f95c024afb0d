"""Unicode normalization (canonical/compatibility decomposition, canonical composition) as the
`tokenizers` library does it, as a stream of changes that keeps every character's alignment.

Follows the crate the library normalizes with, `unicode-normalization-alignments` (its
`Decompositions` and `Recompositions` iterators; used by tokenizers/src/normalizers/unicode.rs),
with Python's `unicodedata` corrected to the crate's Unicode 9.0 tables (character_classes.py):
- NFD / NFKC work on the whole string (canonical reordering and composition cross character
  boundaries, `e + U+0301 + U+0323` -> `e + U+0323 + U+0301`); alignments follow positions, not
  characters, as in the crate.
- `normalize_str_fast` gives the same text without alignments, through `unicodedata.normalize`
  wherever that agrees with the library (almost everywhere), for whole corpora.

What it does not do: NFC or NFKD (the components here need only NFD and NFKC), or lone
surrogates (the library cannot receive them from Python).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import cache
from typing import Literal

from explorer.pipeline.normalizers.character_classes import (
    unicodedata_would_differ_regex,
    unknown_to_unicode_9,
)
from explorer.pipeline.normalizers.normalized import Change


def _combining_class(char: str) -> int:
    return 0 if ord(char) in unknown_to_unicode_9() else unicodedata.combining(char)


@cache
def _decomposition(char: str, compatibility: bool) -> str:
    """Full (recursive) decomposition of one character; unicodedata keeps it in table order."""
    if ord(char) in unknown_to_unicode_9():
        return char
    return unicodedata.normalize("NFKD" if compatibility else "NFD", char)


def decompose(text: str, compatibility: bool) -> list[Change]:
    """Decompose every character (first piece change 0, the others inserted with change 1), then
    stable-sort each run of non-starters by combining class, changes travelling with their
    characters."""
    stream: list[Change] = []
    for char in text:
        pieces = _decomposition(char, compatibility)
        stream.append((pieces[0], 0))
        stream.extend((piece, 1) for piece in pieces[1:])
    index = 0
    while index < len(stream):
        if _combining_class(stream[index][0]) == 0:
            index += 1
            continue
        run_end = index
        while run_end < len(stream) and _combining_class(stream[run_end][0]) != 0:
            run_end += 1
        if run_end - index > 1:
            stream[index:run_end] = sorted(stream[index:run_end], key=lambda item: _combining_class(item[0]))
        index = run_end
    return stream


_HANGUL_S_BASE, _HANGUL_L_BASE, _HANGUL_V_BASE, _HANGUL_T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_HANGUL_L_COUNT, _HANGUL_V_COUNT, _HANGUL_T_COUNT = 19, 21, 28
_HANGUL_S_COUNT = _HANGUL_L_COUNT * _HANGUL_V_COUNT * _HANGUL_T_COUNT


@cache
def _composition_pairs() -> dict[tuple[str, str], str]:
    """(first, second) -> primary composite. unicodedata has no exclusion list, so a canonical
    pair counts only when NFC really recomposes it."""
    pairs: dict[tuple[str, str], str] = {}
    unknown = unknown_to_unicode_9()
    for code_point in range(0x20000):
        decomposition = unicodedata.decomposition(chr(code_point))
        if not decomposition or decomposition.startswith("<") or code_point in unknown:
            continue
        parts = decomposition.split()
        if len(parts) != 2:
            continue
        first, second = chr(int(parts[0], 16)), chr(int(parts[1], 16))
        if unicodedata.normalize("NFC", first + second) == chr(code_point):
            pairs[(first, second)] = chr(code_point)
    return pairs


def _compose(first: str, second: str) -> str | None:
    lead, follow = ord(first), ord(second)
    if 0 <= lead - _HANGUL_L_BASE < _HANGUL_L_COUNT and 0 <= follow - _HANGUL_V_BASE < _HANGUL_V_COUNT:
        syllable = (lead - _HANGUL_L_BASE) * _HANGUL_V_COUNT + (follow - _HANGUL_V_BASE)
        return chr(_HANGUL_S_BASE + syllable * _HANGUL_T_COUNT)
    syllable = lead - _HANGUL_S_BASE
    is_lv_syllable = 0 <= syllable < _HANGUL_S_COUNT and syllable % _HANGUL_T_COUNT == 0
    if is_lv_syllable and 0 < follow - _HANGUL_T_BASE < _HANGUL_T_COUNT:
        return chr(lead + follow - _HANGUL_T_BASE)
    return _composition_pairs().get((first, second))


def recompose(decomposed: list[Change]) -> list[Change]:
    """The crate's Recompositions iterator: canonical composition where a composite absorbs the
    change of what it absorbs (composee change + absorbed change - 1)."""
    output: list[Change] = []
    blocked: list[Change] = []  # characters after the composee that did not compose with it
    composee: Change | None = None
    last_class: int | None = None  # combining class of the last blocked character
    for char, change in decomposed:
        char_class = _combining_class(char)
        if composee is None:
            if char_class != 0:
                output.append((char, change))
            else:
                composee = (char, change)
            continue
        if last_class is not None and last_class >= char_class:
            # `char` is blocked from the composee.
            if char_class == 0:
                output.append(composee)
                output.extend(blocked)
                blocked.clear()
                composee, last_class = (char, change), None
            else:
                blocked.append((char, change))
                last_class = char_class
            continue
        composite = _compose(composee[0], char)
        if composite is not None:
            composee = (composite, composee[1] + change - 1)
        elif last_class is None and char_class == 0:
            output.append(composee)
            composee = (char, change)
        else:
            blocked.append((char, change))
            last_class = char_class
    if composee is not None:
        output.append(composee)
    output.extend(blocked)
    return output


def normalize_str_fast(
    form: Literal["NFC", "NFD", "NFKC", "NFKD"], text: str, exact: Callable[[str], str]
) -> str:
    """unicodedata.normalize where it agrees with the library, `exact` (slow) where it may not.
    Space and line feed are starters that neither reorder nor compose with anything, so
    normalization never acts across them: only the runs between them that hold a risky character
    need the exact path."""
    if text.isascii():
        return text  # ASCII is NFD, NFKC and free of risky characters
    risky = unicodedata_would_differ_regex()
    pieces: list[str] = []
    done = 0
    while (match := risky.search(text, done)) is not None:
        run_start = max(text.rfind(" ", done, match.start()), text.rfind("\n", done, match.start())) + 1
        run_start = max(run_start, done)
        run_ends = [
            index for index in (text.find(" ", match.end()), text.find("\n", match.end())) if index != -1
        ]
        run_end = min(run_ends, default=len(text))
        pieces.append(unicodedata.normalize(form, text[done:run_start]))
        pieces.append(exact(text[run_start:run_end]))
        done = run_end
    pieces.append(unicodedata.normalize(form, text[done:]))
    return "".join(pieces)
