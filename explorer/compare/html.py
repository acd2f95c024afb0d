"""The Compare page's HTML: token columns, and the boundary diff as two aligned rows.

- `column_head_html`: a column's header: its name, role, vocabulary size, where it comes from
  and whether special-token text is special in it.
- `line_html`: one text as token spans (`render.token_spans_html`), text that no token covers
  shown faded; `column_html`: a column's sentences with their token counts (`count_note`).
- `boundary_diff_html` / `diff_legend_html`: a `boundary_diff` (explorer.compare.diff) drawn as
  two rows of the same characters, each boundary a bar on a cell's left.
- `figures_table_html`: the figures of explorer.measures.metrics, a row per tokenizer (the live
  part of Compare redraws it on every keystroke: a plain table, not a data grid).

Markup carries classes only; their rules are in `explorer.drawing.stylesheet`, injected once per page.
A token's background colour comes inline: it is data (the token's position), as in
`render.token_spans_html`. Every string from a user, a corpus or a vocabulary is escaped
(`render.escape_text`).

What it does not do: encode (explorer.compare.columns), find the boundaries
(explorer.compare.diff), or import streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from explorer.compare.columns import TokenizerColumn
from explorer.compare.diff import DiffSegment, DiffSummary
from explorer.drawing.token_html import (
    PALETTE,
    escape_text,
    readable_and_escaped,
    readable_token,
    scroll_region,
    token_spans_html,
)
from explorer.drawing.wording import METRIC_COLUMNS, METRIC_DEFINITIONS, plural
from explorer.tokens import Piece, lost_characters, tokens_only

if TYPE_CHECKING:  # only a type here: the figures (and numpy) are not needed to draw tokens
    from explorer.measures.metrics import TokenizerMetrics


def contiguous_runs(pieces: Sequence[Piece]) -> list[tuple[int, list[Piece]]]:
    """Pieces grouped into runs that touch each other, each with the text offset where it starts.

    Pieces of one run are adjacent or overlap (byte tokens sharing a character); between two runs
    lies text that no token covers (e.g. spaces a BERT pre-tokenizer drops).
    """
    runs: list[tuple[int, list[Piece]]] = []
    end = None
    for piece in pieces:
        if end is None or piece.start > end:
            runs.append((piece.start, []))
        runs[-1][1].append(piece)
        end = piece.end if end is None else max(end, piece.end)
    return runs


def _gap_html(text: str) -> str:
    skipped = readable_token(text.encode("utf-8", errors="surrogatepass"))
    return f'<span class="gap" title="not part of any token">{escape_text(skipped)}</span>'


def line_html(
    text: str,
    pieces: Sequence[Piece],
    show_ids: bool = False,
    new_token: str | None = None,
    new_spans: Collection[tuple[int, int]] = (),
    new_note: str = "just merged",
) -> str:
    """Token spans of one text; text that no token covers is shown faded, whitespace as markers
    (a character the model drops is not faded: it has a `DROPPED` piece, drawn as a marked box).
    Tokens equal to `new_token`, or whose (start, end) is in `new_spans`, are outlined and titled
    with `new_note` (`render.token_spans_html`)."""
    parts, covered = [], 0
    for start, run in contiguous_runs(pieces):
        if start > covered:
            parts.append(_gap_html(text[covered:start]))
        parts.append(
            token_spans_html(
                text, run, show_ids=show_ids, new_token=new_token, new_spans=new_spans, new_note=new_note
            )
        )
        covered = max(covered, max(piece.end for piece in run))
    if covered < len(text):
        parts.append(_gap_html(text[covered:]))
    return f'<div class="compare-line">{"".join(parts)}</div>'


def count_note(pieces: Sequence[Piece]) -> str:
    """'12 tokens', and what is lost when something is: '12 tokens · 2 characters lost'."""
    tokens = len(tokens_only(pieces))
    lost = lost_characters(pieces)
    note = plural(tokens, "token")
    return note + (f" · {plural(lost, 'character')} lost (unknown or dropped)" if lost else "")


def column_html(column: TokenizerColumn, sentences: Sequence[str], show_ids: bool = False) -> tuple[str, int]:
    """Token spans of every sentence (ids on hover, or shown), whitespace visible, each sentence's
    token count (and the characters no token spells out), and the total token count."""
    return encoded_column_html(column.name, sentences, [list(column.encode(s)) for s in sentences], show_ids)


def encoded_column_html(
    name: str, sentences: Sequence[str], encodings: Sequence[Sequence[Piece]], show_ids: bool = False
) -> tuple[str, int]:
    """`column_html` of sentences already encoded (`encodings[i]`: the pieces of `sentences[i]`)."""
    blocks, total = [], 0
    for sentence, pieces in zip(sentences, encodings):
        total += len(tokens_only(pieces))
        blocks.append(
            f'<div class="compare-sentence">{line_html(sentence, pieces, show_ids)}'
            f'<div class="count-note">{escape_text(count_note(pieces))}</div></div>'
        )
    characters = sum(len(sentence) for sentence in sentences)  # tells a test which text it shows
    return (
        f'<div class="compare-column" data-tokenizer="{escape_text(name)}" data-characters="{characters}">'
        f"{''.join(blocks)}</div>",
        total,
    )


def column_head_html(column: TokenizerColumn) -> str:
    """Name (bold), then one muted line each: the role or kind and the vocabulary size, the
    source, and the special-token switch as it applies to this column."""
    first = " · ".join(
        part for part in (column.caption, f"{column.vocab_size:,} ids" if column.vocab_size else "") if part
    )
    # A file path has no space to break at ("mistral_common/data/mistral_instruct_..."): a break
    # is allowed after each slash, so that a narrow column does not overflow.
    lines = "".join(
        f'<div class="muted small{extra}">{escape_text(line).replace("/", "/<wbr>")}</div>'
        for line, extra in (
            (first, ""),
            (column.source, " column-source"),
            (column.special, " column-special"),
        )
        if line
    )
    return f'<div class="column-head"><b>{escape_text(column.name)}</b>{lines}</div>'


def _diff_cell(segment: DiffSegment, side: str, escaped_label: str) -> str:
    cut = segment.a_cut if side == "a" else segment.b_cut
    other_cut = segment.b_cut if side == "a" else segment.a_cut
    tokens = segment.a_tokens if side == "a" else segment.b_tokens
    dropped = segment.a_dropped if side == "a" else segment.b_dropped
    classes = [f"diff-cell diff-{side}"]
    if cut:
        classes.append("cut" if other_cut else f"cut cut-only diff-only-{side}")
    title = ": "
    if dropped and not tokens:
        classes.append("dropped")
        title += "dropped: no token for this character and no unknown token"
    elif not tokens:
        classes.append("uncovered")
        title += "not part of any token"
    else:
        title += (
            f"token {tokens[0] + 1}"
            if len(tokens) == 1
            else f"tokens {tokens[0] + 1}-{tokens[-1] + 1} share this character"
        )
        if len(tokens) >= 2:
            classes.append("split-char")
    if cut:
        title += "; a token starts here" + ("" if other_cut else " (only here)")
    colour = PALETTE[tokens[0] % len(PALETTE)] if tokens else "transparent"
    _, shown = readable_and_escaped(segment.text.encode("utf-8", errors="surrogatepass"))
    return (
        f'<span class="{" ".join(classes)}" title="{escaped_label}{escape_text(title)}" '
        f'style="background:{colour};">{shown}</span>'
    )


def boundary_diff_html(segments: Sequence[DiffSegment], name_a: str, name_b: str) -> str:
    """Two aligned rows (A on top, B below) of the same characters, one column per segment.

    A boundary is a bar on the left of a cell: dark when both tokenizers have it, red when only
    that row's tokenizer has it. Cells are coloured by the token covering them (the same colours
    as the token columns); faded text is dropped by that tokenizer's pre-tokenizer; a dotted
    underline marks a character whose bytes that tokenizer splits between tokens.
    """
    label_a, label_b = escape_text(name_a), escape_text(name_b)
    cells = "".join(
        f'<span class="diff-seg{" differs" if segment.differs else ""}">'
        f"{_diff_cell(segment, 'a', label_a)}{_diff_cell(segment, 'b', label_b)}</span>"
        for segment in segments
    )
    return f'<div class="boundary-diff"><div class="diff-line">{cells}</div></div>'


def diff_legend_html(name_a: str, name_b: str, summary: DiffSummary) -> str:
    """Which tokenizer is which row, what the two bars mean, and how many boundaries each has."""
    return (
        '<div class="diff-legend">'
        f"Top row: <b>{escape_text(name_a)}</b> · bottom row: <b>{escape_text(name_b)}</b>. "
        '<span class="diff-key-shared">both cut here</span> '
        '<span class="diff-key-only">only this one cuts here</span>. '
        f"{summary.both} boundaries shared, {summary.only_a} only on top, {summary.only_b} only below.</div>"
    )


# How each figure of METRIC_COLUMNS is written: a count, a ratio, or a share.
_COUNTS = {"tokens", "lost_characters"}
_SHARES = {"split_word_share", "unknown_rate"}


def _figure_text(field: str, value: float) -> str:
    if math.isnan(value):
        return "–"
    if field in _COUNTS:
        return f"{int(value):,}"
    if field in _SHARES:
        return f"{100 * value:.2f}%"
    return f"{value:.2f}"


def figures_table_html(metrics: Sequence[TokenizerMetrics]) -> str:
    """One row per tokenizer (its name first), one column per figure of METRIC_COLUMNS, each header
    titled with its definition (METRIC_DEFINITIONS). Each cell carries the exact value in
    `data-value` (NaN, a ratio over nothing, shows as "–")."""
    head = "".join(
        f'<th title="{escape_text(METRIC_DEFINITIONS[label])}">{escape_text(label)}</th>'
        for label in METRIC_COLUMNS.values()
    )
    rows = "".join(
        f'<tr data-tokenizer="{escape_text(one.name)}"><th scope="row">{escape_text(one.name)}</th>'
        + "".join(
            f'<td data-value="{float(getattr(one, field))!r}">{_figure_text(field, getattr(one, field))}</td>'
            for field in METRIC_COLUMNS
        )
        + "</tr>"
        for one in metrics
    )
    return (
        f'<div class="figures-table"{scroll_region("Figures on this text")}>'
        "<table><thead><tr><th>tokenizer</th>"
        f"{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )
