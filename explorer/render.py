"""Byte-honest, escaped rendering of tokens: readable token text and HTML token spans.

What it does: shows a token exactly as the bytes it holds. Whole UTF-8 characters are shown as
themselves, bytes that are only part of a character as `<0xE2>`, and whitespace and control
characters as visible markers (`·` space, `↵` newline, `→` tab, `<0x00>` others). It never
shows U+FFFD for bytes that are not a real U+FFFD. `token_spans_html` lays a text out as coloured
token spans and outlines the tokens that together make up one user-perceived character (an
extended grapheme cluster, regex `\\X`).

Every string that comes from the user or a vocabulary goes through `escape_text`: HTML-escaped
(quotes too) and with Markdown/Streamlit markup characters turned into numeric character references,
so that in `st.html` (the only way the app shows this HTML; it never uses `unsafe_allow_html`)
`**x**`, `$x$`, `:red[x]` or `<script>` still show literally.

What it does not do: import streamlit, choose fonts or themes, or encode anything: it draws pieces
that a tokenizer produced (anything with `id`, `start`, `end` and, ideally, `token_bytes`).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence

import regex

# One implementation of GPT-2's byte alphabet (explorer.bytelevel), re-exported for display code.
from explorer.bytelevel import symbols_to_bytes as byte_level_symbols_to_bytes
from explorer.tokens import DROPPED, SPECIAL, UNKNOWN, Piece

__all__ = [
    "PALETTE",
    "byte_escape",
    "byte_level_symbols_to_bytes",
    "escape_text",
    "grapheme_groups",
    "group_pieces_by_shared_clusters",
    "legend_html",
    "readable_token",
    "token_spans_html",
]

SPACE_MARK = "·"
NEWLINE_MARK = "↵"
TAB_MARK = "→"
WHITESPACE_MARKS = {" ": SPACE_MARK, "\n": NEWLINE_MARK, "\t": TAB_MARK}

# Light backgrounds that keep dark text readable; neighbours always differ.
PALETTE = (
    "#fde2e4",
    "#d7f0e4",
    "#dfe7fd",
    "#fff1c1",
    "#e4d9f7",
    "#cde7f0",
    "#fbe0c8",
    "#e2f0cb",
)

# Characters that Markdown or Streamlit's markdown would interpret; written as character
# references they display literally in both HTML and Markdown. "#" is handled apart because the
# references themselves contain it.
_MARKUP_CHARACTERS = "*_`~$[]:\\|!^{}"
_MARKUP_REFERENCES = str.maketrans({char: f"&#{ord(char)};" for char in _MARKUP_CHARACTERS})
_HASH_NOT_IN_A_REFERENCE = re.compile(r"(?<!&)#")


def escape_text(text: str) -> str:
    """Escape `text` for HTML (quotes included) and neutralise Markdown/Streamlit markup."""
    escaped = html.escape(text, quote=True)  # its only "#" is in "&#x27;", right after "&"
    escaped = _HASH_NOT_IN_A_REFERENCE.sub("&#35;", escaped)
    return escaped.translate(_MARKUP_REFERENCES)


def byte_escape(byte: int) -> str:
    """One byte in the `<0xE2>` notation used for partial characters and control characters."""
    return f"<0x{byte:02X}>"


def _decode_one_character(data: bytes, offset: int) -> tuple[str | None, int]:
    """The UTF-8 character starting at `offset` and its length, or (None, 1) if there is none.

    The codec is the judge: the shortest slice of 1 to 4 bytes that decodes strictly is one whole
    character. Truncated, overlong or stray continuation bytes never decode.
    """
    for length in range(1, 5):
        chunk = data[offset : offset + length]
        if len(chunk) < length:
            break
        try:
            return chunk.decode("utf-8"), length
        except UnicodeDecodeError:
            continue
    return None, 1


def _visible_character(char: str) -> str:
    if char in WHITESPACE_MARKS:
        return WHITESPACE_MARKS[char]
    # Line and paragraph separators would break the line invisibly, so they count as controls.
    if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
        return "".join(byte_escape(byte) for byte in char.encode("utf-8"))
    return char


def readable_token(token_bytes: bytes) -> str:
    """The token's bytes made visible: whole characters as text, everything else as `<0xNN>`.

    >>> readable_token(" caf\\xc3\\xa9\\n".encode("latin-1"))
    '·café↵'
    >>> readable_token(b"\\xe2\\x82")
    '<0xE2><0x82>'
    """
    parts = []
    offset = 0
    while offset < len(token_bytes):
        char, length = _decode_one_character(token_bytes, offset)
        if char is None:
            parts.append(byte_escape(token_bytes[offset]))
        else:
            parts.append(_visible_character(char))
        offset += length
    return "".join(parts)


def grapheme_groups(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the extended grapheme clusters of `text` (regex `\\X`)."""
    return [match.span() for match in regex.finditer(r"\X", text)]


def _shown_bytes(piece: Piece) -> bytes:
    """What a token shows: its own bytes when they are known exactly (byte-level tokens, where a
    token can hold part of a character), else its value as the vocabulary spells it ("##ing",
    "[UNK]", "▁the")."""
    if piece.token_bytes is not None:
        return piece.token_bytes
    return piece.value.encode("utf-8", errors="surrogatepass")


def _cluster_range(piece: Piece, cluster_of_char: list[int]) -> tuple[int, int] | None:
    """First and last grapheme cluster a piece touches; None for an empty span."""
    if piece.end <= piece.start:
        return None
    return cluster_of_char[piece.start], cluster_of_char[piece.end - 1]


def group_pieces_by_shared_clusters(text: str, pieces: Sequence[Piece]) -> list[list[int]]:
    """Indices of consecutive pieces, grouped when they touch a common grapheme cluster.

    A piece that shares no cluster with its neighbours is a group of one, and so is a `DROPPED`
    marker: it is not a token, and a token merged across a dropped character spans it (a BPE model
    lets the neighbours of a dropped character merge), which is no shared character.
    """
    cluster_of_char = [0] * len(text)
    for cluster_index, (start, end) in enumerate(grapheme_groups(text)):
        cluster_of_char[start:end] = [cluster_index] * (end - start)

    groups: list[list[int]] = []
    last_cluster_of_group: int | None = None
    for index, piece in enumerate(pieces):
        if piece.kind == DROPPED:
            groups.append([index])
            last_cluster_of_group = None
            continue
        clusters = _cluster_range(piece, cluster_of_char)
        shares_cluster = (
            clusters is not None
            and last_cluster_of_group is not None
            and clusters[0] <= last_cluster_of_group
        )
        if shares_cluster:
            groups[-1].append(index)
            last_cluster_of_group = max(last_cluster_of_group, clusters[1])
        else:
            groups.append([index])
            last_cluster_of_group = None if clusters is None else clusters[1]
    return groups


def _token_span(
    piece: Piece, text: str, token_bytes: bytes, colour: str, show_ids: bool, new: bool = False
) -> str:
    """One token as a coloured span; an unknown token as `[UNK] ← 서울` (the text it stands for),
    a dropped character as `dropped: P`, both in a dashed box, never as nothing."""
    readable = readable_token(token_bytes)
    kind = piece.kind
    source = readable_token(text[piece.start : piece.end].encode("utf-8", errors="surrogatepass"))
    line_breaks = "<br>" * token_bytes.count(b"\n")
    if kind == DROPPED:
        title = (
            f"dropped: the tokenizer has no token for {source} (and no unknown token), so it leaves it out"
        )
        return (
            f'<span class="tok tok-dropped" title="{escape_text(title)}">'
            f"dropped: {escape_text(source)}</span>{line_breaks}"
        )
    identifier = f'<span class="tok-id">{piece.id}</span>' if show_ids else ""
    if kind == UNKNOWN:
        title = (
            f"id {piece.id}: the unknown token {readable}, standing for {source}, "
            "which the vocabulary cannot spell"
        )
        return (
            f'<span class="tok tok-unk" title="{escape_text(title)}">{escape_text(readable)}'
            f'<span class="tok-unk-source"> ← {escape_text(source)}</span>{identifier}</span>'
        )
    css_class = "tok tok-special" if kind == SPECIAL else "tok tok-new" if new else "tok"
    title = f"id {piece.id}: {readable}" + (
        " (special token)" if kind == SPECIAL else " (just merged)" if new else ""
    )
    return (
        f'<span class="{css_class}" title="{escape_text(title)}" '
        f'style="background:{html.escape(colour, quote=True)};">'
        f"{escape_text(readable)}{identifier}</span>{line_breaks}"
    )


def token_spans_html(
    text: str,
    pieces: Sequence[Piece],
    palette: Sequence[str] = PALETTE,
    show_ids: bool = False,
    new_token: str | None = None,
) -> str:
    """HTML with one coloured `<span>` per token, in order, on one line of markup.

    Each span shows `readable_token` of the token's bytes and has the title "id N: readable"
    (with `show_ids`, the id is also written under the token, for keyboard and touch users).
    Tokens that share a grapheme cluster (a partial emoji, a letter and its combining accent) are
    wrapped in a dashed outline whose title says "N tokens form one character: X", followed by a
    label showing X. Colours cycle through `palette` by token position. Pieces without
    `token_bytes` are shown as `text[start:end]`; unknown tokens and dropped characters as marked
    boxes (see `_token_span`). Tokens whose `value` is `new_token` (the merge player's last merge)
    are outlined. No raw newline is emitted (newline tokens are followed by `<br>`),
    so Markdown cannot end the HTML block early. Styles: `STYLESHEET` (classes only).
    """
    colours = list(palette)
    parts = ['<div class="token-spans">']
    for group in group_pieces_by_shared_clusters(text, pieces):
        spans = [
            _token_span(
                pieces[i],
                text,
                _shown_bytes(pieces[i]),
                colours[i % len(colours)],
                show_ids,
                new_token is not None and pieces[i].value == new_token,
            )
            for i in group
        ]
        if len(group) == 1:
            parts.extend(spans)
            continue
        shared_text = text[pieces[group[0]].start : max(pieces[i].end for i in group)]
        readable_shared = readable_token(shared_text.encode("utf-8"))
        if len(grapheme_groups(shared_text)) == 1:
            title = f"{len(group)} tokens form one character: {readable_shared}"
        else:
            title = f"{len(group)} tokens share characters: {readable_shared}"
        parts.append(f'<span class="tok-group" title="{escape_text(title)}">')
        parts.extend(spans)
        parts.append(f'<span class="tok-group-label">={escape_text(readable_shared)}</span></span>')
    parts.append("</div>")
    return "".join(parts)


LEGEND = (
    ("Ġ", "a space, in GPT-2 / RoBERTa byte-level vocabularies (Ċ is a newline)"),
    ("##", "WordPiece: this token continues the word before it"),
    ("▁", "SentencePiece: a space (start of a word)"),
    (SPACE_MARK, "a space in the text"),
    (NEWLINE_MARK, "a line break in the text"),
    (TAB_MARK, "a tab in the text"),
    ("<0xE2>", "one byte that is only part of a character (or a control character)"),
    ("dashed outline", "several tokens that together form one character (the character after =)"),
    ("[UNK] ← 서울", "the unknown token, and the text it stands for: the vocabulary cannot spell it"),
    ("dropped: P", "a character the tokenizer leaves out: no token for it and no unknown token"),
)

# The one stylesheet of every token display, injected once per page (explorer.ui.frame.page).
# Markup carries classes only; colours that depend on a token's position come inline. A line of
# text (`compare.html.line_html`) draws one `.token-spans` block per run of touching tokens: inside a
# line they flow inline and wrap between tokens.
STYLESHEET = """
.token-spans{line-height:1.9;white-space:pre-wrap;}
.tok{color:#111;border-radius:3px;padding:0 1px;margin:0 1px;}
.tok-id{display:inline-block;font-size:0.68em;color:#555;vertical-align:sub;margin-left:2px;
  font-family:ui-monospace,monospace;}
.tok-special{outline:1px solid #555;font-weight:600;}
.tok-new{outline:2px solid #d1495b;outline-offset:0;font-weight:700;background:#ffd6a5 !important;}
.tok-unk{background:#fff;border:1.5px dashed #b00020;color:#b00020;padding:0 3px;font-weight:600;}
.tok-unk-source{font-weight:400;color:#333;}
.tok-dropped{background:#fff;border:1.5px dashed #b00020;color:#b00020;padding:0 3px;font-size:0.9em;}
.tok-group{outline:1px dashed #666;outline-offset:1px;border-radius:3px;}
.tok-group-label{font-size:0.85em;color:#222;background:#eef0f3;border-radius:3px;padding:0 3px;
  margin-left:2px;}
.mono-tok{display:inline-block;border-radius:3px;padding:1px 2px;margin:0 1px;
  font-family:ui-monospace,monospace;}
.mono-tok.later{opacity:0.45;}
.muted{color:#666;}
.small{font-size:0.85em;}
.top-words{line-height:2.1;}
.word-card{display:inline-block;margin:3px 8px 3px 0;padding:2px 4px;border:1px solid #e3e3e3;
  border-radius:4px;white-space:nowrap;max-width:100%;overflow:hidden;}
.word-count{margin-left:4px;}
.step-sentence{margin:4px 0 10px 0;line-height:2.1;}
.merge-tree{line-height:1.7;font-size:0.95em;}
.compare-line{line-height:1.9;}
.compare-line .token-spans{display:inline;}
.compare-line .tok{display:inline-block;}
.compare-line .gap{color:#bbb;padding:0 2px;}
.compare-sentence{margin-bottom:0.8em;}
.count-note{color:#777;font-size:0.8em;}
.boundary-diff{line-height:1.5;}
.boundary-diff .diff-seg{display:inline-block;vertical-align:top;margin:0 0 6px 0;}
.boundary-diff .diff-cell{display:block;padding:1px 1px 1px 0;white-space:pre;color:#111;
  font-family:ui-monospace,monospace;border-left:3px solid transparent;}
.boundary-diff .cut{border-left-color:#444;}
.boundary-diff .cut-only{border-left-color:#d1495b;box-shadow:inset 2px 0 0 #d1495b;}
.boundary-diff .uncovered{color:#bbb;background:transparent !important;}
.boundary-diff .dropped{color:#b00020;background:transparent !important;outline:1.5px dashed #b00020;
  outline-offset:-2px;}
.boundary-diff .split-char{text-decoration:underline dotted #d1495b;}
.diff-legend{font-size:0.875rem;color:#555;margin-bottom:4px;}
.diff-key-shared{border-left:3px solid #444;padding-left:3px;}
.diff-key-only{border-left:3px solid #d1495b;padding-left:3px;}
.column-head{margin-bottom:4px;}
.tok-rest{background:#fff;border:1px dotted #999;color:#777;padding:0 2px;}
.encode-steps{line-height:2.0;}
.steps-head{margin-bottom:6px;}
.steps-head .lost{color:#b00020;}
.steps-pre-token{margin:4px 0;}
.steps-pre-token summary{cursor:pointer;}
.steps-table{border-collapse:collapse;margin:2px 0 8px 18px;font-size:0.92em;}
.steps-table td{padding:1px 8px;vertical-align:top;border-bottom:1px solid #f0f0f0;}
.steps-pieces{white-space:nowrap;}
.step-bar{padding:2px 0 8px 0;}
.step-bar-label{font-size:0.875rem;margin-bottom:6px;}
.step-bar-track{height:4px;background:#e6e9ef;border-radius:2px;}
.step-bar-fill{height:4px;background:#d1495b;border-radius:2px;}
.token-legend td:first-child{padding:0 0.6em;}
.why{background:#f6f8fa;border-left:4px solid #d1495b;padding:6px 10px;margin:6px 0;border-radius:3px;}
"""


def legend_html() -> str:
    """A small HTML table explaining the markers used in token displays."""
    rows = "".join(
        f"<tr><td><code>{escape_text(marker)}</code></td><td>{escape_text(meaning)}</td></tr>"
        for marker, meaning in LEGEND
    )
    return f'<table class="token-legend">{rows}</table>'
