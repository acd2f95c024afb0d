"""Turning a list of token ids back into text: parsing what a person pasted, and the result shape.

- `parse_ids("15339, 1917")`, `parse_ids("15339 1917")`, `parse_ids("[15339, 1917]")`: the ids, or
  a ValueError saying which part is not an id. Pasted text is read within bounds (MAX_ID_CHARACTERS,
  and a JSON list nested at most MAX_ID_DEPTH deep), so no paste can exhaust the parser.
- `Decoding`: the text and one `DecodedToken` per id, each either the token's bytes (and whether
  it is special) or a `problem` naming why it has none ("out of range", "unused id"), so a
  pasted list with a bad id still shows everything else.

What it does not do: know any vocabulary (each backend's `decode` fills these in).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from explorer.checks.json_text import load_json

MAX_IDS = 100_000  # a pasted list longer than this is refused with a message, not decoded
MAX_ID_CHARACTERS = 2_000_000  # pasted text longer than this is refused before it is read (20 per id)
MAX_ID_DIGITS = 20  # more digits than 2**64 has: no vocabulary's id, refused before int() reads it
MAX_ID_DEPTH = 2  # a JSON list of ids is one level; one more lets "[[1]]" get its own sentence


@dataclass(frozen=True)
class DecodedToken:
    id: int
    token_bytes: bytes  # b"" when `problem` is set
    special: bool = False
    problem: str = ""  # why the id has no token: out of range, or an id the vocabulary does not use


@dataclass(frozen=True)
class Decoding:
    text: str
    tokens: tuple[DecodedToken, ...]

    @property
    def problems(self) -> list[str]:
        """One line per id that has no token, e.g. "id 999999: out of range (ids are 0-50256)"."""
        return [f"id {token.id}: {token.problem}" for token in self.tokens if token.problem]


def out_of_range(vocab_size: int) -> str:
    return f"out of range (ids are 0-{vocab_size - 1})"


UNUSED = "unused id (no token has it)"


def parse_ids(text: str) -> list[int]:
    """Token ids from "1, 2 3", "1\\n2" or a JSON list "[1, 2, 3]"; ValueError for anything else."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("No token ids given: paste numbers separated by commas or spaces, or a JSON list.")
    if len(stripped) > MAX_ID_CHARACTERS:
        raise ValueError(
            f"{len(stripped):,} characters of ids: paste at most {MAX_ID_CHARACTERS:,} "
            f"(and at most {MAX_IDS:,} ids) at once."
        )
    too_long = re.search(rf"\d{{{MAX_ID_DIGITS + 1},}}", stripped)
    if too_long is not None:
        digits = too_long.group()
        raise ValueError(
            f"{digits[:MAX_ID_DIGITS]}... ({len(digits):,} digits) is not a token id: "
            f"ids have at most {MAX_ID_DIGITS} digits."
        )
    if stripped.startswith("["):
        try:
            values = load_json(stripped, "The list of ids", MAX_ID_DEPTH, MAX_ID_CHARACTERS)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"Not a valid JSON list of ids ({error.msg} at character {error.pos + 1})."
            ) from None
        if not isinstance(values, list):
            raise ValueError("Not a JSON list of ids.")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{json.dumps(value)[:40]} is not a token id: ids are whole numbers.")
        ids = values
    else:
        parts = [part for part in re.split(r"[\s,]+", stripped) if part]
        ids = []
        for part in parts:
            if not re.fullmatch(r"[+-]?\d+", part):
                raise ValueError(
                    f"{part[:40]!r} is not a token id: ids are whole numbers, separated by commas or spaces."
                )
            ids.append(int(part))
    if not ids:
        raise ValueError("No token ids given: the list is empty.")
    if len(ids) > MAX_IDS:
        raise ValueError(f"{len(ids):,} ids: decode at most {MAX_IDS:,} at once.")
    return ids
