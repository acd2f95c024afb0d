"""The Compare page's choice of tokenizers: the special-token switch and the model picker.

The picker is one multiselect over every column the page can show, grouped by family (your runs,
OpenAI, Meta, Qwen, DeepSeek, Mistral, uploads: explorer.compare.picker), each option labelled
with its family and vocabulary size so that its search box finds a family by name. It starts
small (the current run, the other algorithm's, GPT-2, GPT-4, GPT-4o, uploads); a column that
appears later (a new run, an upload) starts ticked unless it is one of those hidden at first;
what the visitor unticked stays unticked. Both widgets keep their value across reruns and pages; the
picker's value is written only when it changes (a write resets the browser's widget, and so whatever
the visitor was typing in its search box when a rerun came). It has no "Select all". A run that
left the session's earlier runs (the oldest goes past `state.HISTORY_LIMIT`) is named under it, and
so are the uploads a link named that the session's bound left out.

What it does not do: build the columns (explorer.ui.compare.sections) or load a tokenizer: a bundled one
loads in the background once a page shows its column (explorer.compare.warm).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from explorer.compare import TokenizerColumn
from explorer.compare.picker import in_picker_order, option_label, runs_left_note
from explorer.ui.common import state

W = state.Widget


def special_tokens_switch() -> bool:
    """The toggle "Treat special-token text as special tokens" (off at first)."""
    return st.toggle(
        "Treat special-token text as special tokens",
        key=W.COMPARE_SPECIAL_TOKENS,
        persist_state=state.PERSIST,
        help="On: <|endoftext|>, <|im_start|>, [CLS], [INST]... written in the sentences are each one "
        "token with the model's own id, in every tokenizer that has them, as the model sees them in a "
        "chat or at a document boundary. Off: they are ordinary text, split like any other. Each "
        "column's header says which applies to it; the figures follow.",
    )


def pick(columns: Sequence[TokenizerColumn], hidden_at_first: set[str]) -> list[TokenizerColumn]:
    """The multiselect of shown columns; the columns picked, in picker order."""
    ordered = in_picker_order(columns)
    by_key = {column.key: column for column in ordered}
    seen = set(state.get(state.SEEN_COLUMNS) or ())
    if state.has(W.COLUMNS):
        chosen = set(state.get(W.COLUMNS))
        chosen |= {key for key in by_key if key not in seen and key not in hidden_at_first}
    else:
        chosen = {key for key in by_key if key not in hidden_at_first}
    value = [key for key in by_key if key in chosen]
    if state.get(W.COLUMNS) != value:  # writing a widget's value resets it in the browser (its search text)
        state.put(W.COLUMNS, value)
    state.put(state.SEEN_COLUMNS, seen | set(by_key))
    picked = st.multiselect(
        "Tokenizers to compare",
        list(by_key),
        format_func=lambda key: option_label(by_key[key]),
        key=W.COLUMNS,
        persist_state=state.PERSIST,
        select_all=False,  # every bundled vocabulary at once: seconds of loading and a dozen columns
        placeholder="Type a family or a model: Meta, Qwen, Llama, DeepSeek, Mistral...",
        help="Grouped by family: your runs, OpenAI, Meta, Qwen, DeepSeek, Mistral, uploads. Type in the "
        "box to search. Earlier runs and the open models start unticked: each bundled tokenizer is "
        "loaded the first time its column is shown.",
    )
    left = runs_left_note(state.runs_left_names(), state.HISTORY_LIMIT, state.HISTORY_CHARACTERS)
    for note in [left, *(state.get(state.LINK_UPLOAD_NOTES) or [])]:
        if note:
            st.caption(note)
    return [by_key[key] for key in picked]
