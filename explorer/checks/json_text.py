"""JSON that a visitor pastes or uploads, or a user of the CLI names, read within a depth and a size
bound: `load_json(text, what)`.

Python's `json` recurses once per nested array or object, so "[" repeated a few thousand times is
a RecursionError (and a tokenizer.json whose normalizer is a Sequence nested 400 deep overflows
the readers that walk it). `check_json_bounds` refuses such text before it is parsed: a linear scan
that counts "[" and "{" outside strings, and the text's length.

- MAX_JSON_DEPTH = 128: serde_json's recursion limit, so anything the `tokenizers` library reads we
  read too (a real tokenizer.json is nested about 6 deep).
- MAX_JSON_CHARACTERS = 100,000,000: above the 50 MB upload limit and the largest tokenizer.json
  files published (about 35 MB); callers with a smaller input pass their own bound.

Both raise `InputError` (a ValueError) with one sentence; `load_json` lets `json.JSONDecodeError`
through, so each caller words its own "not valid JSON" message as before.

What it does not do: read files (the CLI bounds its reads itself), or check what the JSON holds.
"""

from __future__ import annotations

import json
import re

from explorer.checks.limits import InputError

MAX_JSON_DEPTH = 128
MAX_JSON_CHARACTERS = 100_000_000

# A string (its closing quote optional: an unterminated one runs to the end), or one bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{\]}]', re.DOTALL)


def json_depth_exceeds(text: str, max_depth: int) -> bool:
    """Whether arrays and objects nest deeper than `max_depth` in `text`, brackets inside strings
    not counted: '[[1], {"a": "[[["}]' is 2 deep. Stops at the first level too deep.

    >>> json_depth_exceeds('[[1], {"a": "[[["}]', 2), json_depth_exceeds("[[[]]]", 2)
    (False, True)
    """
    if text.count("[") + text.count("{") <= max_depth:
        return False  # cannot be deeper than the number of brackets it opens
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif char in "]}":
            depth = max(0, depth - 1)
    return False


def check_json_bounds(
    text: str, what: str, max_depth: int = MAX_JSON_DEPTH, max_characters: int = MAX_JSON_CHARACTERS
) -> None:
    """InputError when `text` is longer than `max_characters` or nests deeper than `max_depth`."""
    if len(text) > max_characters:
        raise InputError(f"{what} is {len(text):,} characters long: at most {max_characters:,} are read.")
    if json_depth_exceeds(text, max_depth):
        raise InputError(
            f"{what} nests arrays and objects more than {max_depth} levels deep, which is not read."
        )


def load_json(
    text: str,
    what: str,
    max_depth: int = MAX_JSON_DEPTH,
    max_characters: int = MAX_JSON_CHARACTERS,
    **loads_options,
):
    """`json.loads(text, **loads_options)` after `check_json_bounds`; JSONDecodeError as json raises it."""
    check_json_bounds(text, what, max_depth, max_characters)
    return json.loads(text, **loads_options)
