"""Compare's counts at a glance: one row per tokenizer (tokens, characters per token, the difference
to the first), with its Copy ids and Copy tokens buttons; a v2 component whose JavaScript is
`token_counts.js` beside this module (it draws the rows as text, never as markup, and gives the
keyboard's focus back to the Copy button it was on when the rows are drawn anew).

What it does not do: count (explorer.compare.counts) or decide when to draw (the live part,
explorer.ui.compare.live_columns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.compare.counts import CountRow, difference_text


def counts_table(rows: Sequence[CountRow], loading_names: AbstractSet[str] = frozenset()) -> None:
    """One row per column: tokens, characters per token, the difference to the first column, and
    the Copy ids / Copy tokens buttons (a column still loading says so)."""
    first = rows[0]
    _counts_table(
        key="compare_counts",
        data={
            "rows": [
                {
                    "name": row.name,
                    "tokens": f"{row.tokens:,}"
                    if row.tokens is not None
                    else "loading …"
                    if row.name in loading_names
                    else "cannot encode",
                    "per_token": f"{row.characters_per_token:.2f}" if row.characters_per_token else "",
                    "difference": difference_text(row, first),
                    "ids": row.ids_json if row.tokens is not None else "",
                    "token_strings": row.tokens_json if row.tokens is not None else "",
                }
                for row in rows
            ],
            "first": first.name,
            "characters": f"{first.characters:,}",
        },
    )


_COUNTS_HTML = '<div class="counts"><table><thead></thead><tbody></tbody></table></div>'

# A table wider than its box scrolls inside it, the tokenizer's name kept in view. The Copy buttons
# sit under the name, in that column, so that they are in view on a phone (as a last column they
# were past the screen's edge, with no sign that the table scrolls); the difference wraps before
# its percentage, so that on a phone the table fits.
_COUNTS_CSS = """
.counts { font-family: var(--st-font); color: var(--st-text-color); overflow-x: auto; }
.counts table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
.counts th { text-align: left; font-weight: 600; padding: 0.25rem 0.5rem; vertical-align: bottom;
  border-bottom: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); }
.counts td { padding: 0.2rem 0.5rem; border-bottom: 1px solid rgba(49, 51, 63, 0.08); }
.counts td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.counts td.name { min-width: 7rem; overflow-wrap: break-word; }
.counts td.difference { white-space: normal; }
.counts th:first-child, .counts td.name { position: sticky; left: 0; z-index: 1;
  background: var(--st-background-color); }
.counts .copy { display: flex; flex-wrap: wrap; gap: 0.25rem; align-items: center; margin-top: 0.2rem; }
.counts button { font: inherit; font-size: 0.8rem; padding: 0.1rem 0.5rem; white-space: nowrap;
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.4rem;
  background: var(--st-background-color); color: var(--st-text-color); cursor: pointer; }
.counts button:hover { border-color: var(--st-primary-color); color: var(--st-primary-color); }
.counts button:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 1px; }
.counts .copied { font-size: 0.8rem; opacity: 0.7; }
"""

_COUNTS_JS = Path(__file__).with_name("token_counts.js").read_text(encoding="utf-8")

_counts_table: Callable[..., Any] = st.components.v2.component(
    "explorer_token_counts", html=_COUNTS_HTML, css=_COUNTS_CSS, js=_COUNTS_JS
)
