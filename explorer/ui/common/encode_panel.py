"""The panel "How a text is tokenized, step by step": a text box and the encoding of what is typed,
merge by merge (BPE) or piece by piece (WordPiece), or for Unigram the Viterbi table of every
pre-token (`viterbi_html`: one row per end position, the best score, the piece ending there and its
start, the back pointer; the best path's rows highlighted), for one tokenizer. Used by Merge
history (the run's tokenizer after k merges) and by Compare (any column that can show its steps).

What it does not do: encode (explorer.lessons.encode_steps, explorer.lessons.encode_steps.viterbi) or draw BPE
and WordPiece steps (explorer.views.steps_html).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from explorer.drawing.token_html import escape_text
from explorer.drawing.wording import plural
from explorer.lessons.encode_steps import EncodeSteps
from explorer.lessons.encode_steps.viterbi import ViterbiSteps, WordViterbi
from explorer.ui.common import frame, link, state
from explorer.ui.common.live_text import answered, live_text
from explorer.views.steps_html import encode_steps_html

MAX_CHARACTERS = 300  # each pre-token's steps grow with the square of its length
DEFAULT_TEXT = "This is not a token."  # the course's own example (chapter 6, section 5)


def show(
    make: Callable[[str], EncodeSteps | ViterbiSteps],
    key: str,
    url: Callable[[], dict[str, str]] | None = None,
) -> None:
    """A live text box (its text in the session under `key`) and `make(text)` drawn step by step,
    redrawn as the text is typed (a fragment: the rest of the page does not rerun). `url`: the
    page's URL when it holds this text (Compare's does), rewritten as the text changes."""
    state.setdefault(key, state.get(state.ENCODE_TEXT) or DEFAULT_TEXT)
    _live_panel(make, key, url)


@st.fragment
def _live_panel(
    make: Callable[[str], EncodeSteps | ViterbiSteps], key: str, url: Callable[[], dict[str, str]] | None
) -> None:
    _panel(make, key, url)
    answered(key)


def _panel(
    make: Callable[[str], EncodeSteps | ViterbiSteps], key: str, url: Callable[[], dict[str, str]] | None
) -> None:
    text = live_text(
        "A word or a sentence to encode",
        key,
        state.get(key) or "",
        rows=1,
        live_characters=MAX_CHARACTERS,
        max_characters=MAX_CHARACTERS,
        show_count=False,
    )
    text = text[:MAX_CHARACTERS]
    state.put(key, text)
    state.put(state.ENCODE_TEXT, text)  # the same text follows the visitor from page to page
    if url is not None:
        link.write(url())
    st.caption(
        "Each pre-token is encoded on its own: BPE applies the lowest-rank merge present until none "
        "applies; WordPiece takes the longest piece of the vocabulary, then the longest ## continuation; "
        "Unigram finds the most likely segmentation (Viterbi)."
    )
    if not text:
        return
    try:
        result = make(text)
    except ValueError as error:
        frame.error(f"Cannot encode this text: {error}")
        return
    if isinstance(result, ViterbiSteps):
        st.html(viterbi_html(result))
        return
    st.html(encode_steps_html(result, show_ids=state.show_ids()))
    for note in result.notes:
        frame.note(note)


# ---------------------------------------------------------------- Unigram: the Viterbi tables

VITERBI_HOW = (
    "For every end position, the best score of any segmentation of the characters so far (the sum of "
    "its pieces' log-probabilities), the piece that ends there on that segmentation and where it starts "
    "(the back pointer). From the last row, follow the back pointers: the highlighted rows are the "
    "best path."
)


def viterbi_html(steps: ViterbiSteps) -> str:
    """The text's tokens, then every pre-token's Viterbi table (escaped HTML)."""
    tokens = steps.tokens()
    head = (
        f'<div class="steps-head">{escape_text(steps.tokenizer)} · Unigram: '
        f"<b>{plural(len(tokens), 'token')}</b> "
        f"{' '.join(f'<code>{escape_text(steps.shown(token))}</code>' for token in tokens)}</div>"
        f'<div class="muted small">{escape_text(VITERBI_HOW)}</div>'
    )
    return head + "".join(_word_html(word, steps.shown) for word in steps.words)


def _word_html(word: WordViterbi, shown: Callable[[str], str]) -> str:
    title = f"<b>{escape_text(shown(word.word))}</b> ({word.start}:{word.end})"
    if word.special:
        return f'<div class="viterbi-word">{title}: a special token, matched whole before the model.</div>'
    score = "" if word.best_score is None else f", score {word.best_score:.4f}"
    tokens = " + ".join(escape_text(shown(token)) for token in word.tokens)
    rows = "".join(_row_html(row, shown) for row in word.rows)
    note = "" if word.note is None else f'<div class="note">{escape_text(word.note)}</div>'
    return (
        f'<div class="viterbi-word">{title} → {tokens}{score}{note}'
        '<table class="viterbi-table"><tr><th>end</th><th>prefix</th><th>best score</th><th>piece</th>'
        f"<th>starts at</th></tr>{rows}</table></div>"
    )


def _row_html(row, shown: Callable[[str], str]) -> str:
    style = ' style="background:#ffe8c2;font-weight:600;"' if row.on_best_path else ""
    if row.piece is None:
        cells = ("—", "—", "—")
    else:
        piece = escape_text(shown(row.piece)) + (" (unknown)" if row.unknown else "")
        cells = (f"{row.best_score:.4f}", piece, str(row.start))
    return (
        f"<tr{style}><td>{row.end}</td><td>{escape_text(shown(row.prefix))}</td>"
        + "".join(f"<td>{cell}</td>" for cell in cells)
        + "</tr>"
    )
