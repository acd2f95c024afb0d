"""The Compare page's counts at a glance: one row per tokenizer with its token count, characters
per token, the difference to the first tokenizer, and its ids and tokens ready to copy.

`count_rows(names, encodings, sentences)` takes every column's pieces for every sentence (one list
of `explorer.tokens.Piece`s per sentence, or None for a column that failed) and gives `CountRow`s.
What a copy button copies (`CountRow.ids_json`, `CountRow.tokens_json`): for one sentence, the
JSON list of its ids (the `ids` of `python -m explorer encode --json`), the tokens as the
vocabulary spells them; for several sentences, one such list per sentence.

What it does not do: encode (the columns do), or draw (explorer.ui.compare.live_columns).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.drawing.wording import character_count
from explorer.tokens import Piece, tokens_only


@dataclass(frozen=True)
class CountRow:
    """One tokenizer's counts for the sentences; `tokens` is None when it could not encode them."""

    name: str
    tokens: int | None
    characters: int
    ids: tuple[tuple[int, ...], ...] = ()
    token_strings: tuple[tuple[str, ...], ...] = ()

    @property
    def characters_per_token(self) -> float | None:
        return self.characters / self.tokens if self.tokens else None

    @property
    def ids_json(self) -> str:
        return _one_or_many(self.ids)

    @property
    def tokens_json(self) -> str:
        return _one_or_many(self.token_strings)


def _one_or_many(lists: Sequence[Sequence]) -> str:
    """A JSON list for one sentence, a list of lists for several.

    >>> _one_or_many([(1, 2)]), _one_or_many([(1,), (2, 3)])
    ('[1, 2]', '[[1], [2, 3]]')
    """
    value = list(lists[0]) if len(lists) == 1 else [list(one) for one in lists]
    return json.dumps(value, ensure_ascii=False)


def count_rows(
    names: Sequence[str], encodings: Sequence[Sequence[Sequence[Piece]] | None], sentences: Sequence[str]
) -> list[CountRow]:
    """One CountRow per column: `encodings[i]` holds column i's pieces for each sentence (None: it
    failed). Characters are the sentences' user-perceived characters (`character_count`), the
    number the box above them shows."""
    characters = sum(character_count(sentence) for sentence in sentences)
    rows = []
    for name, pieces_per_sentence in zip(names, encodings):
        if pieces_per_sentence is None:
            rows.append(CountRow(name, None, characters))
            continue
        tokens = [tokens_only(pieces) for pieces in pieces_per_sentence]
        rows.append(
            CountRow(
                name,
                sum(len(one) for one in tokens),
                characters,
                tuple(tuple(piece.id for piece in one) for one in tokens),
                tuple(tuple(piece.value for piece in one) for one in tokens),
            )
        )
    return rows


def difference_text(row: CountRow, first: CountRow) -> str:
    """How many tokens more or fewer than the first column: '+3 (+12%)', '−2 (−5%)', 'same';
    '' for the first column itself or when either has no count.

    >>> first = CountRow("a", 20, 80)
    >>> difference_text(CountRow("b", 23, 80), first), difference_text(CountRow("c", 18, 80), first)
    ('+3 (+15%)', '−2 (−10%)')
    """
    if row is first or row.tokens is None or first.tokens is None:
        return ""
    delta = row.tokens - first.tokens
    if delta == 0:
        return "same"
    sign = "+" if delta > 0 else "\u2212"
    share = f" ({sign}{abs(delta) / first.tokens:.0%})" if first.tokens else ""
    return f"{sign}{abs(delta):,}{share}"
