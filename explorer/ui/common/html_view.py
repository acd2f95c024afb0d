"""Our own HTML, drawn fast: a v2 component whose script puts the HTML in place, for parts of a page
that change on every keystroke (Compare's live columns and boundary diff).

`st.html` sends each piece of HTML through Streamlit's Markdown element and DOMPurify and makes an
element of it; a live column redrawn 6 times per keystroke spent most of its time there. This view
is one element: its script replaces the HTML only when it changed. Its styles are not isolated, so
the page's stylesheet (explorer.drawing.stylesheet) applies as it does to `st.html`.

Only for HTML built by explorer.drawing and explorer.compare.html, which escape every user string
(`escape_text`) before it becomes HTML: nothing here sanitizes (a browser test types hostile text
into Compare's live box and checks that it shows as text and runs nothing).

A link to a step of the run (`data-step`, drawn by explorer.views.audit_tables) is followed
within the app: the click is sent to the server, which opens Merge history at that step with no
page load (the link's URL is still there for a new tab or a copied link).

`html_parts_view(parts, class_name, key)` draws keyed parts (each one element's HTML) in one
`<div class=class_name>`: a part whose HTML is unchanged keeps its nodes, whatever was added,
removed or moved around it (Compare's columns: adding one redraws none of the others).

What it does not do: build HTML, or accept HTML from anywhere else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

_JS = Path(__file__).with_name("html_view.js").read_text(encoding="utf-8")

_view = st.components.v2.component("explorer_html_view", js=_JS, isolate_styles=False)


def html_view(html: str, key: str) -> int | None:
    """Draw `html` (escaped HTML of ours) under the component key `key`; the step of a link to a step
    (`<a data-step="k" href="...">`) clicked without a modifier key in this run, else None."""
    view: Any = _view
    result = view(key=key, data={"html": html}, on_step_change=_nothing)
    step = getattr(result, "step", None)
    return step if isinstance(step, int) else None


def _nothing() -> None:
    """The link's step is read from the component's result in the script run it starts."""


def html_parts_view(parts: list[tuple[str, str]], class_name: str, key: str) -> None:
    """Draw `parts` ((part key, one element's escaped HTML) pairs, in order) inside one
    `<div class="{class_name}">` under the component key `key`; an unchanged part keeps its nodes."""
    view: Any = _view
    view(key=key, data={"parts": [list(part) for part in parts], "class_name": class_name})
