"""Compare's live part, one fragment: the "Text to compare" box, the counts at a glance (with Copy
ids and Copy tokens), every column's tokens and the boundary diff, all following the text as it
is typed (explorer.ui.common.live_text) without a rerun of the rest of the page; the page's URL
follows too. When the text has been still a moment, the whole page reruns once, so that what lies
outside the fragment has to follow: the sidebar's "Copy link" reads the URL in the browser.

Each column is encoded in a thread of `ENCODERS` and drawn as soon as it is ready: a column still
encoding after `FIRST_WAIT_SECONDS` says so and the others do not wait for it; a column that fails
says why in its place. (Encoding a few sentences is light work; the tokenizers library and tiktoken
release the GIL while they encode.) A tokenizer.json only the `tokenizers` library reads is
encoded in a worker process, all its sentences in one job (`TokenizerColumn.encode_texts`,
explorer.session.library_jobs): parsing it would hold the server's GIL for seconds.

A column whose encoder is not loaded yet (a bundled vocabulary the server has not used: 0.4-1.4 s)
is never waited for: its load runs in the background (explorer.compare.warm; the page starts it as
it opens), the column says it is loading, and the box asks for the fragment again every
`live_text.AGAIN_MS` until it is drawn. So the first key typed after the page opens is answered
as fast as the later ones, whichever columns a link names.

The columns are one view whose parts are keyed by column (`html_view.html_parts_view`): a column
added, removed or changed is the only one whose nodes change.

What it does not do: build the columns (explorer.ui.compare.sections) or count and draw
(explorer.compare.counts, explorer.compare.html).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from concurrent.futures import Future, ThreadPoolExecutor, as_completed, wait
from typing import cast

import streamlit as st

from explorer.compare import TokenizerColumn
from explorer.compare.columns import sentences_from
from explorer.compare.counts import count_rows
from explorer.compare.diff import DiffSummary, boundary_diff, diff_summary
from explorer.compare.html import (
    boundary_diff_html,
    column_head_html,
    diff_legend_html,
    encoded_column_html,
    figures_table_html,
)
from explorer.compare.warm import loading, warm
from explorer.drawing.token_html import escape_text
from explorer.measures.metrics import compute_metrics
from explorer.runs.settings import limits_or_defaults
from explorer.session import compare_params
from explorer.tokens import Piece
from explorer.ui.common import frame, link, state
from explorer.ui.common.html_view import html_parts_view, html_view
from explorer.ui.common.live_text import answered, live_text
from explorer.ui.compare import compare_link, token_counts

W = state.Widget

ENCODERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="compare-encode")
# Columns encoded in a worker process (`encode_texts`) wait here, not holding an encoder's thread.
WORKER_WAITS = ThreadPoolExecutor(max_workers=16, thread_name_prefix="compare-worker-wait")
FIRST_WAIT_SECONDS = 0.25  # then a column not yet encoded says so, and the others are drawn
LABEL = "Text to compare"

Encodings = list[list[Piece]]


def live_comparison(columns: Sequence[TokenizerColumn], url: Callable[[], dict[str, str]]) -> None:
    """The box, the counts, the columns and the diff; as a fragment (`_live` reruns alone) that
    rewrites the page's URL (`url()`) as the text changes. The columns' encoders start loading
    now, in the background, if they are not loaded yet."""
    warm(columns)
    _live(list(columns), url)


@st.fragment
def _live(columns: list[TokenizerColumn], url: Callable[[], dict[str, str]]) -> None:
    waiting = _live_part(columns, url)
    answered(W.SENTENCES, again=bool(waiting))


def _live_part(columns: list[TokenizerColumn], url: Callable[[], dict[str, str]]) -> set[str]:
    """Draw the live part; the keys of the columns still loading (drawn when ready)."""
    limits, _ = limits_or_defaults()
    state.setdefault(W.SENTENCES, state.get(state.COMPARE_TEXT) or compare_params.DEFAULT_TEXT)
    most = int(min(limits.max_compare_characters, 10**9))
    text = live_text(
        LABEL,
        W.SENTENCES,
        state.get(W.SENTENCES),
        rows=4,
        live_characters=int(min(limits.live_characters, 10**9)),
        max_characters=most,
    )
    text = text[:most]  # the box refuses more; a client that sends more is cut here
    state.put(W.SENTENCES, text)
    state.put(state.COMPARE_TEXT, text)
    too_long = compare_link.dropped_lines_note()
    if too_long:
        st.caption(too_long)
    sentences = sentences_from(text)
    waiting = loading(columns)
    if not sentences:
        st.info("Type a sentence above.")
    elif not columns:
        st.info("Pick at least one tokenizer above.")
    else:
        encodings = _counts_and_columns(columns, sentences, waiting)
        _boundary_diff(columns, sentences, encodings, waiting)
        _figures(columns, sentences, encodings)
    link.write(url())
    return waiting


def _encode(column: TokenizerColumn, sentences: Sequence[str]) -> Encodings:
    if column.encode_texts is not None:  # one call for every sentence (a worker's job)
        return column.encode_texts(sentences)
    return [list(column.encode(sentence)) for sentence in sentences]


def _counts_and_columns(
    columns: Sequence[TokenizerColumn], sentences: Sequence[str], waiting: AbstractSet[str] = frozenset()
) -> list[Encodings | None]:
    """The counts table, then every column (its head, token count and tokens) side by side in one
    view; the encodings (None for a column that failed).

    Every column is encoded in its own thread. What is ready after FIRST_WAIT_SECONDS (on ordinary
    text: everything) is drawn in place at once, so that nothing on the page blinks or moves while
    it is typed; a column still encoding says so and is drawn when ready, and the counts wait for it.
    The columns are one element, so that a keystroke costs the browser one redraw, not one per
    column (a CSS grid, explorer.drawing.stylesheet's `.live-columns`, puts up to three on a row and
    wraps on narrow screens). A column in `waiting` (its encoder still loading) is not encoded: it
    says so, and its counts row too.
    """
    futures: list[Future | None] = [
        None
        if column.key in waiting
        else (WORKER_WAITS if column.encode_texts is not None else ENCODERS).submit(
            _encode, column, sentences
        )
        for column in columns
    ]
    _, pending = wait([future for future in futures if future is not None], timeout=FIRST_WAIT_SECONDS)
    names = [column.name for column in columns]
    if not pending:
        encodings = [_result(future) for future in futures]
        token_counts.counts_table(count_rows(names, encodings, sentences), waiting_rows(columns, waiting))
        html_parts_view(_columns_parts(columns, futures, sentences), "live-columns", "live-columns")
        return encodings
    counts_place = st.empty()
    counts_place.caption("The counts follow once every column is encoded …")
    grid = st.empty()
    with grid.container():
        html_parts_view(_columns_parts(columns, futures, sentences), "live-columns", "live-columns-0")
    for done, _ in enumerate(as_completed(pending), start=1):
        with grid.container():
            parts = _columns_parts(columns, futures, sentences)
            html_parts_view(parts, "live-columns", f"live-columns-{done}")
    encodings = [_result(future) for future in futures]
    with counts_place.container():
        token_counts.counts_table(count_rows(names, encodings, sentences), waiting_rows(columns, waiting))
    return encodings


def waiting_rows(columns: Sequence[TokenizerColumn], waiting: AbstractSet[str]) -> set[str]:
    """The names of the columns in `waiting` (their counts rows say they are loading)."""
    return {column.name for column in columns if column.key in waiting}


def _result(future: Future | None) -> Encodings | None:
    if future is None:
        return None
    try:
        return future.result()
    except Exception:  # said in the column's place (`_column_html`)
        return None


def _columns_parts(
    columns: Sequence[TokenizerColumn], futures: Sequence[Future | None], sentences: Sequence[str]
) -> list[tuple[str, str]]:
    """Each column's key and HTML, in order (one keyed part of the view each)."""
    return [(column.key, _column_html(column, future, sentences)) for column, future in zip(columns, futures)]


def _column_html(column: TokenizerColumn, future: Future | None, sentences: Sequence[str]) -> str:
    """One column: its head, then its tokens, or that it is still loading or encoding, or why it
    cannot."""
    if future is None:
        body = (
            f'<div class="note column-loading">Loading {escape_text(column.name)} '
            "(its first use on this server) …</div>"
        )
    elif not future.done():
        body = '<div class="note">Still encoding …</div>'
    elif future.exception() is not None:
        why = f"This tokenizer cannot encode this text: {future.exception()}"
        body = f'<div class="column-error" role="alert">{escape_text(why)}</div>'
    else:
        html, total = encoded_column_html(column.name, sentences, future.result(), state.show_ids())
        body = f'<div class="column-count">Tokens<b>{total:,}</b></div>{html}'
    return f'<div class="live-column">{_head(column)}{body}</div>'


def _head(column: TokenizerColumn) -> str:
    note = f'<div class="note">{escape_text(column.note)}</div>' if column.note else ""
    return column_head_html(column) + note


def _boundary_diff(
    columns: Sequence[TokenizerColumn],
    sentences: Sequence[str],
    encodings: Sequence[Encodings | None],
    waiting: AbstractSet[str] = frozenset(),
) -> None:
    """Pick two tokenizers; each sentence once, with both sets of token boundaries aligned (from
    the columns' `encodings`; a column that could not encode is asked again, to say why)."""
    st.subheader("Where two tokenizers cut differently")
    if len(columns) < 2:
        st.info("Pick at least two tokenizers above to compare their token boundaries.")
        return
    by_key = {column.key: column for column in columns}
    encoded_by_key = dict(zip(by_key, encodings))
    keys = list(by_key)
    second = next((key for key in keys if key.startswith("pretrained:")), keys[1])
    state.keep_choice(W.DIFF_TOP, keys, keys[0])
    state.keep_choice(W.DIFF_BOTTOM, keys, second if second != keys[0] else keys[1])
    left, right = st.columns(2)
    # A cast: under python_version 3.10, typing.Never (3.11+) is Any to mypy, so Streamlit's
    # overload for empty options (`Sequence[Never]`, returns None) matches every list.
    top = cast(str, left.selectbox("Top row", keys, format_func=lambda key: by_key[key].name, key=W.DIFF_TOP))
    bottom = cast(
        str, right.selectbox("Bottom row", keys, format_func=lambda key: by_key[key].name, key=W.DIFF_BOTTOM)
    )
    column_a, column_b = by_key[top], by_key[bottom]
    if top in waiting or bottom in waiting:
        st.caption(f"{column_a.name if top in waiting else column_b.name} is loading: its row follows …")
        return
    encoded_a, encoded_b = encoded_by_key[top], encoded_by_key[bottom]
    bodies, totals = [], [0, 0, 0]
    for i, sentence in enumerate(sentences):
        try:
            segments = boundary_diff(
                sentence,
                encoded_a[i] if encoded_a is not None else column_a.encode(sentence),
                encoded_b[i] if encoded_b is not None else column_b.encode(sentence),
            )
        except Exception as error:
            frame.error(f"Cannot compare on {sentence[:40]!r}: {error}")
            return
        summary = diff_summary(segments)
        totals = [totals[0] + summary.both, totals[1] + summary.only_a, totals[2] + summary.only_b]
        bodies.append(boundary_diff_html(segments, column_a.name, column_b.name))
    html_view(
        diff_legend_html(column_a.name, column_b.name, DiffSummary(*totals)) + "".join(bodies), "live-diff"
    )


def _figures(
    columns: Sequence[TokenizerColumn], sentences: Sequence[str], encodings: Sequence[Encodings | None]
) -> None:
    """Every figure of explorer.measures.metrics on this text, one row per column that could encode
    it (from the encodings the columns show)."""
    measured = [
        compute_metrics(column.name, sentences, dict(zip(sentences, encoded)).__getitem__)
        for column, encoded in zip(columns, encodings)
        if encoded is not None
    ]
    html_view(
        "<p><b>Figures on this text</b> (hover a heading for its definition; more under Figures, below)</p>"
        + figures_table_html(measured),
        "live-figures",
    )
