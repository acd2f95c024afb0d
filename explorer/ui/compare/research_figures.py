"""The Compare page's research figures, below its corpus figures: each measured column's Rényi
efficiency, bytes per token, unreachable and unused counts and tokens per character of each
script, on the same lines, with their definitions and papers one click away.

The figures come with each corpus measurement (explorer.ui.compare.measuring, measured in a worker
by explorer.compare.research); the table is `explorer.compare.research.research_table`.

What it does not do: measure anything or define the figures (explorer.measures.audit does), or show
the audit's lists of ids or its stepping stones (the Vocabulary page's Audit and
`python -m explorer audit` do).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.compare.research import (
    BYTES_PER_TOKEN,
    NOT_UTF8,
    RENYI,
    RESEARCH_DEFINITIONS,
    TOKENS_PER_CHARACTER,
    UNREACHABLE,
    UNUSED,
    research_table,
)
from explorer.session.measurements import Measured
from explorer.ui.common import frame, tables

STEPPING_STONES = (
    "**Stepping stones** (not in this table): tokens formed while merging that are almost always "
    "merged further, so that they stay in the vocabulary but rarely in an encoding; LiteToken "
    "(arXiv 2602.04706) calls them intermediate merge residues. The Vocabulary page's Audit and "
    "`python -m explorer audit` list them for a BPE tokenizer (a replay of every merge), with the "
    "unreachable and unused tokens themselves (docs/audit.md)."
)
SCRIPT_ORDER = (
    "Scripts come in order of their characters in the sample; Common (spaces, digits, punctuation) "
    "and Inherited (combining marks) last, as they belong to no one language. Tokens of part of a "
    "character that cannot be placed in context (byte fallback) belong to no script here."
)


def column_formats(columns: Sequence[str]) -> dict:
    """Each column's format and its definition as help."""
    formats = {
        "_index": st.column_config.TextColumn("tokenizer", width="medium"),
        RENYI: st.column_config.NumberColumn(format="%.4f", help=RESEARCH_DEFINITIONS[RENYI]),
        BYTES_PER_TOKEN: st.column_config.NumberColumn(
            format="%.2f", help=RESEARCH_DEFINITIONS[BYTES_PER_TOKEN]
        ),
    }
    for label in (UNREACHABLE, NOT_UTF8, UNUSED):
        formats[label] = st.column_config.NumberColumn(format="%d", help=RESEARCH_DEFINITIONS[label])
    for label in columns:
        if label.startswith(f"{TOKENS_PER_CHARACTER} "):
            formats[label] = st.column_config.NumberColumn(
                format="%.2f", help=RESEARCH_DEFINITIONS[TOKENS_PER_CHARACTER]
            )
    return formats


def definitions_markdown() -> str:
    """The definitions, one paragraph each, and the stepping stones (fixed text: no user's)."""
    return "\n\n".join(
        [f"**{label}**: {definition}" for label, definition in RESEARCH_DEFINITIONS.items()]
        + [STEPPING_STONES]
    )


def research_section(measured: Sequence[Measured]) -> None:
    """The research figures of every measured column, one row each (with the reason for a column
    without them), and their definitions in an expander."""
    st.markdown("**Research figures** on the same lines")
    table = research_table([(entry.metrics.name, entry.research) for entry in measured])
    tables.table(table, column_formats(list(table.columns)), hide_index=False)
    for entry in measured:
        if entry.research is None:
            frame.note(f"{entry.metrics.name}: no research figures, {entry.research_reason}.")
    st.caption(SCRIPT_ORDER)
    with st.expander("What these figures mean", icon=":material/menu_book:"):
        st.markdown(definitions_markdown())
