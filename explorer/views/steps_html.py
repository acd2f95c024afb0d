"""A step-by-step encoding (explorer.lessons.encode_steps) drawn as escaped HTML: per pre-token, one row per
step with its sentence (explorer.lessons.encode_steps.output.step_line, the CLI's wording) and the pieces
after it, the piece the step made outlined; dropped characters and unknown tokens as the marked
boxes every token display uses (`dropped: P`, `[UNK] ← 서울`).

Every string from the text or the vocabulary goes through `explorer.drawing.token_html.escape_text`.
Classes come from `explorer.drawing.stylesheet`.

What it does not do: encode (the other modules of explorer.lessons.encode_steps), or import streamlit.
"""

from __future__ import annotations

from explorer.drawing.token_html import PALETTE, escape_text, readable_token
from explorer.drawing.wording import plural
from explorer.lessons.encode_steps.output import is_tiktoken, step_line
from explorer.lessons.encode_steps.records import EncodeSteps, PreTokenSteps, Step, StepPiece

PRE_TOKENS_OPEN = 3  # the first few pre-tokens are unfolded; the others open on a click


def _shown(piece: StepPiece) -> str:
    """A piece as its box shows it: its bytes made readable ('·is'), else its value."""
    return readable_token(piece.token_bytes) if piece.token_bytes is not None else piece.value


def piece_html(piece: StepPiece, position: int, made_here: bool = False, show_ids: bool = False) -> str:
    """One piece as a span: a token (coloured by position), `dropped: P` or `[UNK] ← 서울`."""
    shown = _shown(piece)
    if piece.kind == "dropped":
        return (
            '<span class="tok tok-dropped" title="dropped: no token for it and no unknown token">'
            f"dropped: {escape_text(piece.source)}</span>"
        )
    identifier = f'<span class="tok-id">{piece.id}</span>' if show_ids and piece.id is not None else ""
    if piece.kind == "unk":
        return (
            f'<span class="tok tok-unk" title="id {piece.id}&#58; the unknown token, '
            f'standing for {escape_text(piece.source)}">{escape_text(piece.value)}'
            f'<span class="tok-unk-source"> ← {escape_text(piece.source)}</span>{identifier}</span>'
        )
    if piece.kind == "rest":
        return f'<span class="tok tok-rest" title="not matched yet">{escape_text(piece.value)}</span>'
    css = (
        "tok mono-tok tok-new"
        if made_here
        else "tok mono-tok tok-special"
        if piece.kind == "special"
        else "tok mono-tok"
    )
    title = f"id {piece.id}: {shown}" if piece.id is not None else shown
    return (
        f'<span class="{css}" title="{escape_text(title)}" '
        f'style="background:{PALETTE[position % len(PALETTE)]};">'
        f"{escape_text(shown)}{identifier}</span>"
    )


def _made_here(step: Step) -> int | None:
    """Index, in the step's pieces, of the piece the step made: a merge's result, or the piece a
    WordPiece step found (the last one before the part not matched yet)."""
    if step.kind == "merge" and step.pair_positions is not None:
        return step.pair_positions[0]
    if step.kind in ("prefix", "continuation", "whole-word", "no-match", "too-long"):
        found = [index for index, piece in enumerate(step.pieces) if piece.kind != "rest"]
        return found[-1] if found else None
    return None


def _pieces_row(pieces, made: int | None, show_ids: bool) -> str:
    return "".join(
        piece_html(piece, position, position == made, show_ids) for position, piece in enumerate(pieces)
    )


def pre_token_html(
    pre_token: PreTokenSteps, tiktoken: bool, show_ids: bool = False, opened: bool = True
) -> str:
    """One pre-token in a <details> block: every step as (number, sentence, pieces after it)."""
    final = _pieces_row(pre_token.final, None, show_ids)
    raw = (
        pre_token.token_bytes
        if pre_token.token_bytes is not None
        else pre_token.text.encode("utf-8", errors="surrogatepass")
    )
    title = readable_token(raw)
    if pre_token.special:
        return (
            f'<div class="steps-pre-token"><b>{escape_text(title)}</b> '
            f'<span class="muted">special token, cut out before anything else</span> {final}</div>'
        )
    rows = []
    for number, step in enumerate(pre_token.steps):
        # The start row names its pieces as its boxes show them ('·is', not the vocabulary's 'Ġis').
        sentence = (
            "start: " + " ".join(_shown(piece) for piece in step.pieces)
            if step.kind == "start"
            else step_line(step, tiktoken).split("   pieces:")[0]
        )
        rows.append(
            f'<tr><td class="muted">{number}</td><td>{escape_text(sentence)}</td>'
            f"<td>{_pieces_row(step.pieces, _made_here(step), show_ids)}</td></tr>"
        )
    note = f'<div class="muted small">{escape_text(pre_token.note)}</div>' if pre_token.note else ""
    summary = (
        f"<summary>pre-token <b>{escape_text(title)}</b> "
        f'<span class="muted">(characters {pre_token.start}–{pre_token.end}, '
        f"{plural(max(0, len(pre_token.steps) - 1), 'step')})</span> → {final}</summary>"
    )
    table = f'<table class="steps-table">{"".join(rows)}</table>' if rows else ""
    return f'<details class="steps-pre-token"{" open" if opened else ""}>{summary}{table}{note}</details>'


def encode_steps_html(result: EncodeSteps, show_ids: bool = False) -> str:
    """The whole text: its final tokens, what it cannot represent, then every pre-token's steps."""
    tiktoken = is_tiktoken(result)
    final = result.final_pieces()
    lost = result.unrepresented()
    head = (
        f'<div class="steps-head">{escape_text(result.tokenizer)} · {escape_text(result.model)}: '
        f"<b>{plural(len([piece for piece in final if piece.is_token]), 'token')}</b>"
        + (
            f' · <span class="lost">{plural(len(lost), "piece")} of the text it cannot spell</span>'
            if lost
            else ""
        )
        + "</div>"
    )
    blocks = [
        pre_token_html(pre_token, tiktoken, show_ids, opened=index < PRE_TOKENS_OPEN)
        for index, pre_token in enumerate(result.pre_tokens)
    ]
    return f'<div class="encode-steps">{head}{"".join(blocks)}</div>'
