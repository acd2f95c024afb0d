"""Byte-honest, escaped rendering of tokens: readable token text and HTML token spans.

What it does: shows a token exactly as the bytes it holds. Whole UTF-8 characters are shown as
themselves, bytes that are only part of a character as `<0xE2>`, and whitespace and control
characters as visible markers (`·` space, `↵` newline, `→` tab, `<0x00>` others). It never
shows U+FFFD for bytes that are not a real U+FFFD. `token_spans_html` lays a text out as coloured
token spans and outlines the tokens that together make up one user-perceived character (an
extended grapheme cluster, regex `\\X`); `pieces_html` draws tokens without a text (a word's
tokens after k merges, the pair a merge joined), the last merge's token outlined.

Every string that comes from the user or a vocabulary goes through `escape_text`: HTML-escaped
(quotes too) and with Markdown/Streamlit markup characters turned into numeric character references,
so that in `st.html` (the only way the app shows this HTML; it never uses `unsafe_allow_html`)
`**x**`, `$x$`, `:red[x]` or `<script>` still show literally.

What it does not do: import streamlit, choose fonts or themes, or encode anything: it draws pieces
that a tokenizer produced (anything with `id`, `start`, `end` and, ideally, `token_bytes`).
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Callable, Collection, Sequence

import regex

# One implementation of GPT-2's byte alphabet (explorer.pipeline.bytelevel), re-exported for display code.
from explorer.pipeline.bytelevel import symbols_to_bytes as byte_level_symbols_to_bytes
from explorer.tokens import DROPPED, SPECIAL, UNKNOWN, Piece

__all__ = [
    "PALETTE",
    "byte_escape",
    "byte_level_symbols_to_bytes",
    "escape_text",
    "grapheme_groups",
    "group_pieces_by_shared_clusters",
    "legend_html",
    "pieces_html",
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


def scroll_region(label: str) -> str:
    """The attributes of a box that scrolls its content (a wide table on a phone): a keyboard can
    reach it (Tab) and scroll it (arrow keys), and a screen reader names it, as axe-core's
    `scrollable-region-focusable` asks. Its focus ring is in explorer.drawing.stylesheet.

    >>> scroll_region('Figures <1>')
    ' tabindex="0" role="region" aria-label="Figures &lt;1&gt;"'
    """
    return f' tabindex="0" role="region" aria-label="{escape_text(label)}"'


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
    return _characters_or_byte_escapes(token_bytes, _visible_character)


def text_with_byte_escapes(data: bytes) -> str:
    """UTF-8 bytes as text, white space as typed, a byte that is no whole character as `<0xNN>`
    where a lenient decode would write "�".

    >>> text_with_byte_escapes(b"I \\xf0\\x9f")
    'I <0xF0><0x9F>'
    """
    return _characters_or_byte_escapes(data, str)


def _characters_or_byte_escapes(data: bytes, show: Callable[[str], str]) -> str:
    """`data` character by character: each whole UTF-8 character as `show` gives it, each byte that
    is no whole character as `<0xNN>`."""
    parts = []
    offset = 0
    while offset < len(data):
        char, length = _decode_one_character(data, offset)
        parts.append(byte_escape(data[offset]) if char is None else show(char))
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


METASPACE_MARK = "▁"


def _added_by_pre_tokenizer(text: str, piece: Piece) -> bool:
    """Whether a piece is only Metaspace's `▁` where the text has no space: the mark the
    pre-tokenizer puts before a word, which the library gives the span of the word's first
    character ("Ab" -> "▁" (0, 1), "A" (0, 1)) without the piece holding any of it."""
    value = piece.value
    if not value or value.strip(METASPACE_MARK):
        return False
    covered = text[piece.start : piece.end]
    return not any(char.isspace() or char == METASPACE_MARK for char in covered)


def group_pieces_by_shared_clusters(text: str, pieces: Sequence[Piece]) -> list[list[int]]:
    """Indices of consecutive pieces, grouped when they touch a common grapheme cluster.

    A piece that shares no cluster with its neighbours is a group of one, and so is a `DROPPED`
    marker: it is not a token, and a token merged across a dropped character spans it (a BPE model
    lets the neighbours of a dropped character merge), which is no shared character. So is the
    `▁` Metaspace puts before a word: it shares its span with the word's first character but holds
    none of it.
    """
    cluster_of_char = [0] * len(text)
    for cluster_index, (start, end) in enumerate(grapheme_groups(text)):
        cluster_of_char[start:end] = [cluster_index] * (end - start)

    groups: list[list[int]] = []
    last_cluster_of_group: int | None = None
    for index, piece in enumerate(pieces):
        if piece.kind == DROPPED or _added_by_pre_tokenizer(text, piece):
            groups.append([index])
            last_cluster_of_group = None
            continue
        clusters = _cluster_range(piece, cluster_of_char)
        if (
            clusters is not None
            and last_cluster_of_group is not None
            and clusters[0] <= last_cluster_of_group
        ):
            # the piece shares a cluster with the group before it
            groups[-1].append(index)
            last_cluster_of_group = max(last_cluster_of_group, clusters[1])
        else:
            groups.append([index])
            last_cluster_of_group = None if clusters is None else clusters[1]
    return groups


def _token_span(
    piece: Piece,
    source: str,
    colour: str,
    show_ids: bool,
    new: bool = False,
    base_class: str = "tok",
    new_note: str = "just merged",
) -> str:
    """One token as a coloured span of class `base_class`; an unknown token as `[UNK] ← 서울` (the
    text it stands for, `source`), a dropped character as `dropped: P`, both in a dashed box,
    never as nothing. `new`: outlined, the token the last step made, titled with `new_note`."""
    readable, escaped = readable_and_escaped(_shown_bytes(piece))
    kind = piece.kind
    if kind == DROPPED:
        title = (
            f"dropped: the tokenizer has no token for {source} (and no unknown token), so it leaves it out"
        )
        shown = escape_text(source)
        return f'<span class="tok tok-dropped" title="{escape_text(title)}">dropped: {shown}</span>'
    identifier = f'<span class="tok-id">{piece.id}</span>' if show_ids else ""
    if kind == UNKNOWN:
        title = (
            f"id {piece.id}: the unknown token {readable}, standing for {source}, "
            "which the vocabulary cannot spell"
        )
        return (
            f'<span class="tok tok-unk" title="{escape_text(title)}">{escaped}'
            f'<span class="tok-unk-source"> ← {escape_text(source)}</span>{identifier}</span>'
        )
    css_class = (
        f"{base_class} tok-special" if kind == SPECIAL else f"{base_class} tok-new" if new else base_class
    )
    # The title "id N: readable (note)", escaped piece by piece (escaping is character by character).
    note = " (special token)" if kind == SPECIAL else f" ({escape_text(new_note)})" if new else ""
    return (
        f'<span class="{css_class}" title="id {piece.id}&#58; {escaped}{note}" '
        f'style="background:{_escaped_colour(colour)};">{escaped}{identifier}</span>'
    )


@functools.lru_cache(maxsize=1 << 16)
def readable_and_escaped(token_bytes: bytes) -> tuple[str, str]:
    """`readable_token` of a token's bytes, and that escaped: the same few thousand tokens are drawn
    again on every keystroke of a live box."""
    readable = readable_token(token_bytes)
    return readable, escape_text(readable)


@functools.lru_cache(maxsize=256)
def _escaped_colour(colour: str) -> str:
    return html.escape(colour, quote=True)


def _source(text: str, piece: Piece) -> str:
    """The text a piece covers, made visible (what an unknown token stands for, what is dropped)."""
    return readable_token(text[piece.start : piece.end].encode("utf-8", errors="surrogatepass"))


def pieces_html(
    pieces: Sequence[Piece], show_ids: bool = False, new: Collection[int] = (), new_note: str = "just merged"
) -> str:
    """Tokens side by side, without the text they came from: a corpus word's tokens after k merges,
    the two tokens a merge joined and the one it made. Each is a monospace box (`mono-tok`) showing
    `readable_token` of its bytes, coloured by position, titled "id N: readable"; those at the
    positions in `new` (what the last merge made) are outlined and titled "(just merged)", or
    `new_note` (a Unigram round: "changed in this round"). No
    grapheme grouping and no line breaks: the pieces are tokens of a vocabulary, drawn as such.

    >>> markup = pieces_html([Piece(7, "lo", 0, 2), Piece(9, "w", 2, 3)], new={0})
    >>> re.findall(r'class="([^"]+)" title="([^"]+)"', markup)
    [('tok mono-tok tok-new', 'id 7&#58; lo (just merged)'), ('tok mono-tok', 'id 9&#58; w')]
    """
    return "".join(
        _token_span(
            piece,
            readable_token(_shown_bytes(piece)),
            PALETTE[position % len(PALETTE)],
            show_ids,
            position in new,
            base_class="tok mono-tok",
            new_note=new_note,
        )
        for position, piece in enumerate(pieces)
    )


def token_spans_html(
    text: str,
    pieces: Sequence[Piece],
    palette: Sequence[str] = PALETTE,
    show_ids: bool = False,
    new_token: str | None = None,
    new_spans: Collection[tuple[int, int]] = (),
    new_note: str = "just merged",
) -> str:
    """HTML with one coloured `<span>` per token, in order, on one line of markup.

    Each span shows `readable_token` of the token's bytes and has the title "id N: readable"
    (with `show_ids`, the id is also written under the token, for keyboard and touch users).
    Tokens that share a grapheme cluster (a partial emoji, a letter and its combining accent) are
    wrapped in a dashed outline whose title says "N tokens form one character: X", followed by a
    label showing X. Colours cycle through `palette` by token position. Pieces without
    `token_bytes` are shown as `text[start:end]`; unknown tokens and dropped characters as marked
    boxes (see `_token_span`). Tokens whose `value` is `new_token` (the merge player's last merge)
    are outlined, and so are tokens whose (start, end) is in `new_spans` (what a Unigram round
    changed), titled with `new_note`. No raw newline is emitted (newline tokens are followed by `<br>`),
    so Markdown cannot end the HTML block early. Styles: explorer.drawing.stylesheet (classes only).
    """
    colours = list(palette)
    parts = ['<div class="token-spans">']
    for group in group_pieces_by_shared_clusters(text, pieces):
        spans = [
            _token_span(
                pieces[i],
                _source(text, pieces[i]) if pieces[i].kind in (DROPPED, UNKNOWN) else "",
                colours[i % len(colours)],
                show_ids,
                (new_token is not None and pieces[i].value == new_token)
                or (pieces[i].start, pieces[i].end) in new_spans,
                new_note=new_note,
            )
            + "<br>" * _shown_bytes(pieces[i]).count(b"\n")
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
        parts.append("<wbr>".join(spans))  # a group wider than its line wraps between tokens only
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


def legend_html() -> str:
    """A small HTML table explaining the markers used in token displays."""
    rows = "".join(
        f"<tr><td><code>{escape_text(marker)}</code></td><td>{escape_text(meaning)}</td></tr>"
        for marker, meaning in LEGEND
    )
    return f'<table class="token-legend">{rows}</table>'
