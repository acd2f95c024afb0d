"""What the figures write: vocabulary tokens made readable (as text, `readable_vocab_token`, or as
a Piece to draw, `vocab_piece`), pairs named, every label that comes
from the corpus HTML-escaped, because Plotly interprets a subset of HTML in text and hover labels
(`<b>`, `<a href>`, `<br>`).

What it does not do: draw anything (the other modules of explorer.drawing.charts do).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from explorer.drawing.token_html import readable_token
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.tokens import Piece
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.history import TrainingHistory


def readable_vocab_token(token: str, byte_level: bool) -> str:
    """A vocabulary token made visible: byte-level symbols decoded to their bytes, then shown
    with `render.readable_token` (space as ·, partial characters as <0xE2>). Tokens that are not
    byte symbols (special tokens such as <|endoftext|>) are shown as their own text."""
    if byte_level:
        try:
            return readable_token(symbols_to_bytes(token))
        except ValueError:
            pass
    return readable_token(token.encode("utf-8", errors="surrogatepass"))


def vocab_piece(token: str, token_id: int, byte_level: bool, start: int = 0, end: int = 0) -> Piece:
    """A vocabulary token as a Piece to draw; a byte-level token carries its bytes, so it shows as
    `readable_vocab_token` shows it (a token that is no byte symbols shows its text)."""
    token_bytes = None
    if byte_level:
        try:
            token_bytes = symbols_to_bytes(token)
        except ValueError:
            pass
    return Piece(token_id, token, start, end, token_bytes)


def token_labels(trace: TrainingHistory) -> list[str]:
    """The readable form of every vocabulary token, by id (not HTML-escaped)."""
    byte_level = trace.config.is_byte_level
    return [readable_vocab_token(token, byte_level) for token in trace.vocab]


def escape(text: str) -> str:
    """`text` safe in a Plotly label (HTML-escaped, quotes included)."""
    return html.escape(text, quote=True)


def pair_label(labels: Sequence[str], left_id: int, right_id: int) -> str:
    """'left + right' in readable form, HTML-escaped for Plotly."""
    return f"{escape(labels[left_id])} + {escape(labels[right_id])}"


def uses_scores(trace: MergeHistory) -> bool:
    """True when merges were chosen by a likelihood score (the course's WordPiece), not a count."""
    return any(score is not None for score in trace.merge_scores)


def plain_text(plotly_text: str) -> str:
    """A Plotly label as the text it shows: `<br>` a space, other tags dropped, entities decoded
    ('merge 1: &lt;0xC3&gt;<br>wins' -> 'merge 1: <0xC3> wins'). Escape it again before it
    becomes HTML."""
    spaced = re.sub(r"<br\s*/?>", " ", plotly_text, flags=re.IGNORECASE)
    return html.unescape(re.sub(r"</?[a-zA-Z][^>]*>", "", spaced))
