"""The Compare page's "Decode token ids" panel: paste ids, pick a tokenizer, read the text back.

Ids are read by `explorer.pretrained.parse_ids` (commas or spaces, or a JSON list); any column
can decode (the bundled tokenizers, the runs trained here, uploads). The text and the tokens are
drawn by explorer.compare.decode (`render.pieces_html`); ids the tokenizer has no token for are
named in one warning, and input that is not a list of ids is one error sentence.

What it does not do: encode, or keep the decoded result (it is quick to decode again).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import streamlit as st

from explorer.compare import TokenizerColumn
from explorer.compare.decode import decoded_note, decoding_html
from explorer.compare.picker import option_label
from explorer.pretrained import parse_ids
from explorer.ui.common import frame, state

W = state.Widget

MAX_PROBLEMS_NAMED = 10  # ids named in the warning; the rest are counted


def problems_sentence(problems: Sequence[str]) -> str:
    """'2 ids have no token: id 999999: out of range (ids are 0-50256); id -1: ...'."""
    named = "; ".join(problems[:MAX_PROBLEMS_NAMED])
    more = f"; and {len(problems) - MAX_PROBLEMS_NAMED} more" if len(problems) > MAX_PROBLEMS_NAMED else ""
    count = "1 id has" if len(problems) == 1 else f"{len(problems):,} ids have"
    return f"{count} no token in this vocabulary, left out of the text: {named}{more}."


def show(columns: Sequence[TokenizerColumn], first_choice: str | None = None) -> None:
    """The panel: a tokenizer (any of `columns` that can decode) and a box for the ids."""
    st.subheader("Decode token ids")
    able = {column.key: column for column in columns if column.decode is not None}
    if not able:
        st.info("None of the tokenizers can decode ids.")
        return
    keys = list(able)
    if state.get(W.DECODE_COLUMN) not in keys:
        state.put(W.DECODE_COLUMN, first_choice if first_choice in able else keys[0])
    left, right = st.columns([1, 2])
    # A cast: under python_version 3.10, typing.Never (3.11+) is Any to mypy, so Streamlit's
    # overload for empty options (`Sequence[Never]`, returns None) matches every list.
    key = cast(
        str,
        left.selectbox(
            "Tokenizer", keys, format_func=lambda key: option_label(able[key]), key=W.DECODE_COLUMN
        ),
    )
    pasted = right.text_area(
        "Token ids",
        key=W.DECODE_IDS,
        height=80,
        placeholder="15496, 995   or   15496 995   or   [15496, 995]",
        help="Whole numbers separated by commas, spaces or line breaks, or a JSON list.",
        persist_state=state.PERSIST,
    )
    if not pasted.strip():
        return
    try:
        ids = parse_ids(pasted)
    except ValueError as error:
        frame.error(str(error))
        return
    column = able[key]
    decode = column.decode
    assert decode is not None  # `able`: the columns that can decode
    try:
        decoding = decode(ids)
    except Exception as error:  # a tokenizer that fails on these ids must not take the page down
        frame.error(f"{column.name} cannot decode these ids: {error}")
        return
    if decoding.problems:
        frame.warning(problems_sentence(decoding.problems))
    st.html(decoding_html(decoding, show_ids=state.show_ids()))
    frame.note(decoded_note(decoding))
