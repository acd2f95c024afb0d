"""The Compare page's columns: a tokenizer column is a name plus an encode function.

`encode(text)` returns pieces with `id`, `start`, `end` (character offsets into `text`) and, when
known, `token_bytes`; exactly what `render.token_spans_html` and `metrics.compute_metrics` take.
Trained runs give such columns through `explorer.pipeline.encode_pieces`; a pretrained tokenizer
(e.g. `explorer.pretrained.encode_pretrained`) plugs in the same way:

    TokenizerColumn("GPT-2", lambda text: encode_pretrained("gpt2", text))

Pure Python (no streamlit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from explorer.metrics import compute_metrics, metrics_table
from explorer.pipeline import Piece, encode_pieces
from explorer.render import escape_text, readable_token, token_spans_html
from explorer.tokenizer import Tokenizer
from explorer.ui import views
from explorer.ui.runs import Run

Encoder = Callable[[str], Sequence[Any]]


@dataclass(frozen=True)
class TokenizerColumn:
    name: str
    encode: Encoder
    caption: str = ""
    unknown_token: int | str | None = None


def shown_pieces(tok: Tokenizer, text: str) -> list[Piece]:
    """`encode_pieces`, with every piece carrying the bytes of the token it is: byte-level tokens
    their bytes, other tokens their own text (so '[UNK]' and '##ing' show as such, not as the
    source text they cover)."""
    return [
        piece if piece.token_bytes is not None else replace(piece, token_bytes=piece.value.encode("utf-8"))
        for piece in encode_pieces(tok, text)
    ]


def run_column(run: Run, role: str) -> TokenizerColumn:
    """A column for a run trained in this app; `role` says which one it is ('this run', ...)."""
    tok = views.tokenizer(run)
    unknown = tok.model.unk_token if getattr(tok.model, "unk_token", None) else None
    return TokenizerColumn(
        name=run.name,
        encode=lambda text: shown_pieces(tok, text),
        caption=role,
        unknown_token=unknown,
    )


def sentences_from(text: str) -> list[str]:
    """One sentence per non-empty line."""
    return [line for line in text.splitlines() if line.strip()]


# token_spans_html draws one block per call; lines of several runs flow inline and wrap
# between tokens (not only at the block's edges).
LINE_STYLE = (
    "<style>.compare-line .token-spans{display:inline;}"
    ".compare-line .tok{display:inline-block;}"
    ".compare-line .gap{color:#bbb;padding:0 2px;}</style>"
)


def contiguous_runs(pieces: Sequence[Any]) -> list[tuple[int, list[Any]]]:
    """Pieces grouped into runs that touch each other, each with the text offset where it starts.

    Pieces of one run are adjacent or overlap (byte tokens sharing a character); between two runs
    lies text that no token covers (e.g. spaces a BERT pre-tokenizer drops).
    """
    runs: list[tuple[int, list[Any]]] = []
    end = None
    for piece in pieces:
        if end is None or piece.start > end:
            runs.append((piece.start, []))
        runs[-1][1].append(piece)
        end = piece.end if end is None else max(end, piece.end)
    return runs


def line_html(text: str, pieces: Sequence[Any]) -> str:
    """Token spans of one text; text that no token covers is shown faded, whitespace as markers."""
    parts, covered = [], 0
    for start, run in contiguous_runs(pieces):
        if start > covered:
            skipped = readable_token(text[covered:start].encode("utf-8", errors="surrogatepass"))
            parts.append(f'<span class="gap" title="not part of any token">{escape_text(skipped)}</span>')
        parts.append(token_spans_html(text, run))
        covered = max(covered, max(piece.end for piece in run))
    if covered < len(text):
        skipped = readable_token(text[covered:].encode("utf-8", errors="surrogatepass"))
        parts.append(f'<span class="gap" title="not part of any token">{escape_text(skipped)}</span>')
    return f'<div class="compare-line" style="line-height:1.9;">{"".join(parts)}</div>'


def column_html(column: TokenizerColumn, sentences: Sequence[str]) -> tuple[str, int]:
    """Token spans of every sentence (ids on hover, whitespace visible) and the total token count."""
    blocks, total = [LINE_STYLE], 0
    for sentence in sentences:
        pieces = list(column.encode(sentence))
        total += len(pieces)
        blocks.append(
            f'<div class="compare-sentence" style="margin-bottom:0.8em;">{line_html(sentence, pieces)}'
            f'<div style="color:#777;font-size:0.8em;">{len(pieces)} tokens</div></div>'
        )
    return "".join(blocks), total


def comparison_table(columns: Sequence[TokenizerColumn], sentences: Sequence[str]) -> pd.DataFrame:
    """tokens, characters/token, bytes/token, tokens/word, words split, unknown rate per column."""
    return metrics_table(
        compute_metrics(column.name, sentences, column.encode, column.unknown_token) for column in columns
    )
