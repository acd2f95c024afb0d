"""Text shown exactly as written by Streamlit's Markdown elements (`st.error`, `st.warning`,
`st.info`): `markdown_literal` escapes Markdown, HTML, LaTeX and Streamlit's own directives in a
message that quotes user text (a file name, a special token, a value from a link). Kept apart from
the heavier view code, so every page can use it without importing pandas or plotly.

What it does not do: escape HTML for `st.html` (explorer.drawing.token_html.escape_text does).
"""

from __future__ import annotations

import re

# Streamlit's Markdown (CommonMark + GFM + math + its own directives) reads these anywhere in a
# line: emphasis, code, links, HTML, math, strikethrough, tables, entities. A backslash makes
# any of them literal. "_" inside a word ("vocab_size") is never emphasis and stays as it is.
_MARKDOWN_INLINE = re.compile(r"([\\`*\[\]<>$~:&|@]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
# ... and these only at the start of a line: headings, quotes, lists, setext underlines.
_MARKDOWN_LINE_START = re.compile(r"(?m)^([ \t]*)(#|[-+=]|\d+(?=[.)]))")
# Rewrites done on the parsed text, after backslashes are gone: ":smile:" emoji, ":material/x:"
# icons, ":streamlit:", and GFM's bare "www." / e-mail autolinks. An invisible WORD JOINER after
# the ":" or "@" (and inside "www.") breaks their patterns (measured in Chromium, streamlit 1.67).
WORD_JOINER = "\u2060"
_WWW = re.compile(r"(?i)\b(www)\.")


def markdown_literal(text: str) -> str:
    """`text` as Markdown that Streamlit displays exactly as written: `**b**`, `$x$`, `:red[x]`,
    `<script>`, `[a](javascript:...)`, `# title` stay characters (plus invisible word joiners)."""
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", text)
    escaped = escaped.replace("\\:", "\\:" + WORD_JOINER).replace("\\@", "\\@" + WORD_JOINER)
    escaped = _WWW.sub("\\1" + WORD_JOINER + ".", escaped)

    def line_start(match: re.Match) -> str:
        indent, marker = match.groups()
        if marker[0].isdigit():  # "1." / "2)": the punctuation after the number makes the list
            return f"{indent}{marker}\\"
        return f"{indent}\\{marker}"

    return _MARKDOWN_LINE_START.sub(line_start, escaped)
