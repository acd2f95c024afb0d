"""The panel "How a text is tokenized, step by step": a text box and the encoding of what is typed,
merge by merge (BPE) or piece by piece (WordPiece), for one tokenizer. Used by Merge history (the
run's tokenizer after k merges) and by Compare (any column that can show its steps).

What it does not do: encode (explorer.encode_steps) or draw (explorer.encode_steps.render).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from explorer.encode_steps import EncodeSteps
from explorer.encode_steps.render import encode_steps_html
from explorer.ui import frame, state

MAX_CHARACTERS = 300  # each pre-token's steps grow with the square of its length
DEFAULT_TEXT = "This is not a token."  # the course's own example (chapter 6, section 5)


def show(make: Callable[[str], EncodeSteps], key: str) -> None:
    """A text input (`key`) and `make(text)` drawn step by step."""
    state.setdefault(key, state.get(state.ENCODE_TEXT) or DEFAULT_TEXT)
    text = st.text_input(
        "A word or a sentence to encode",
        key=key,
        max_chars=MAX_CHARACTERS,
        help="Each pre-token is encoded on its own: BPE applies the lowest-rank merge present until none "
        "applies; WordPiece takes the longest piece of the vocabulary, then the longest ## continuation.",
    )
    state.put(state.ENCODE_TEXT, text)  # the same text follows the visitor from page to page
    if not text:
        return
    try:
        result = make(text)
    except ValueError as error:
        frame.error(f"Cannot encode this text: {error}")
        return
    st.html(encode_steps_html(result, show_ids=state.show_ids()))
    for note in result.notes:
        frame.note(note)
