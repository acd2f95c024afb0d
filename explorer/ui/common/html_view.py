"""Our own HTML, drawn fast: a v2 component whose script puts the HTML in place, for parts of a page
that change on every keystroke (Compare's live columns and boundary diff).

`st.html` sends each piece of HTML through Streamlit's Markdown element and DOMPurify and makes an
element of it; a live column redrawn 6 times per keystroke spent most of its time there. This view
is one element: its script replaces the HTML only when it changed. Its styles are not isolated, so
the page's stylesheet (explorer.drawing.stylesheet) applies as it does to `st.html`.

Only for HTML built by explorer.drawing and explorer.compare.html, which escape every user string
(`escape_text`) before it becomes HTML: nothing here sanitizes (a browser test types hostile text
into Compare's live box and checks that it shows as text and runs nothing).

What it does not do: build HTML, or accept HTML from anywhere else.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

_JS = """
export default function(component) {
  const { parentElement, data } = component;
  let root = parentElement.querySelector('.html-view');
  if (!root) {
    root = document.createElement('div');
    root.className = 'html-view';
    parentElement.appendChild(root);
  }
  if (root.__html !== data.html) {
    root.__html = data.html;
    root.innerHTML = data.html;
  }
}
"""

_view = st.components.v2.component("explorer_html_view", js=_JS, isolate_styles=False)


def html_view(html: str, key: str) -> None:
    """Draw `html` (escaped HTML of ours) under the component key `key`."""
    view: Any = _view
    view(key=key, data={"html": html})
