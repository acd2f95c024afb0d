"""The Train form's pre-tokenization settings, in its "Advanced settings" section: the
pre-tokenizer (with byte-level's split pattern), the normalizers and the reading (how a text is cut
into sequences: its lines with or without their endings, `explorer.runs.settings.READING_LABELS`).
A count file's corpus fixes all of them (its words were made with them): `fix_counting` sets the
widgets to the file's, and they are drawn disabled.

What it does not do: give the widgets their first values or read the settings they make
(explorer.ui.train.settings_form).
"""

from __future__ import annotations

import streamlit as st

from explorer.corpora.counting import Counting
from explorer.run_config import TEXT_READINGS
from explorer.runs.settings import (
    NORMALIZER_LABELS,
    PRE_TOKENIZER_LABELS,
    READING_LABELS,
    SPLIT_PATTERN_LABELS,
    pre_tokenizer_choice,
)
from explorer.ui.common import state

W = state.Widget


def keep_set_value(key: str) -> None:
    """The on_change of a widget the algorithm's callback sets (explorer.ui.train.settings_form):
    a stale value is undone."""
    state.undo_stale(key)


def labelled_choice(widget, label: str, labels: dict[str, str], key: str, **options) -> None:
    """A radio, selectbox or multiselect over the keys of `labels`, showing their labels."""
    widget(label, list(labels), format_func=labels.get, key=key, persist_state=state.PERSIST, **options)


def fix_counting(fixed: Counting) -> None:
    """The pre-tokenization widgets set to a count file's settings (before they are drawn)."""
    pre_tokenizer, split_pattern = pre_tokenizer_choice(fixed.pre_tokenizer)
    state.put_all(
        {
            W.PRE_TOKENIZER: pre_tokenizer,
            W.SPLIT_PATTERN: split_pattern,
            W.NORMALIZERS: list(fixed.normalizers),
            W.READING: fixed.reading,
        }
    )


def pre_tokenization(disabled: bool = False) -> None:
    """Pre-tokenizer and split pattern on the left, normalizers and reading on the right;
    `disabled`: a count file's, fixed."""
    left, right = st.columns(2)
    with left:
        labelled_choice(
            st.selectbox,
            "Pre-tokenizer",
            PRE_TOKENIZER_LABELS,
            W.PRE_TOKENIZER,
            on_change=keep_set_value,
            args=(W.PRE_TOKENIZER,),
            disabled=disabled,
        )
        if state.get(W.PRE_TOKENIZER) == "byte-level":
            labelled_choice(
                st.selectbox,
                "Split pattern",
                SPLIT_PATTERN_LABELS,
                W.SPLIT_PATTERN,
                on_change=keep_set_value,
                args=(W.SPLIT_PATTERN,),
                disabled=disabled,
                help="The regex that cuts text into pre-tokens before the bytes: GPT-4's, GPT-4o's "
                "and Llama 3's cut numbers into groups of up to three digits.",
            )
    with right:
        labelled_choice(
            st.multiselect,
            "Normalizers",
            NORMALIZER_LABELS,
            W.NORMALIZERS,
            disabled=disabled,
            help="Applied in the order chosen.",
        )
        _reading(disabled)


def _reading(fixed: bool) -> None:
    """How the text is cut into sequences: a text's two readings, or a count file's own (fixed)."""
    labels = READING_LABELS if fixed else {key: READING_LABELS[key] for key in TEXT_READINGS}
    if state.get(W.READING) not in labels:  # a count file's "records", its file forgotten since
        state.put(W.READING, TEXT_READINGS[0])
    labelled_choice(
        st.selectbox,
        "Reading",
        labels,
        W.READING,
        disabled=fixed,
        help="How the text is cut into training sequences: one per line with its line break dropped and "
        "empty lines skipped, as `train_from_iterator(lines)`; or each line keeping its ending (`\\n`, "
        "and a `\\r` before it), as the library's `Tokenizer.train(files)` reads a file.",
    )
