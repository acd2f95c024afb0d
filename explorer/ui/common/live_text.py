"""A text box that reports what is typed as it is typed, without Enter: Streamlit's v2 component
(`st.components.v2.component`, inline HTML, its JavaScript in `live_text.js` beside this
module, no build step).

`live_text(label, key, initial, ...)` draws the box and returns its text. Mount it inside an
`st.fragment` and call `answered(key)` as the fragment's last element: each change then reruns
only that fragment. The box sends its text at most once every `THROTTLE_MS` while it is typed in
(a keystroke after a quiet moment goes at once), and above `live_characters` only when typing
pauses for `PAUSE_MS` (the note under the box says so); what is still unsent goes when the box
loses the focus. One text at a time is in flight: the next goes when `answered` tells the box the
fragment has drawn the last one (or after `ANSWER_WAIT_MS`, should a run end early). So a busy
server is never asked to start over on every keystroke (a new value stops the run in progress):
keys typed meanwhile go together, and what the page shows is never more than one run behind.
`answered(key, again=True)` asks the box to run the fragment once more `AGAIN_MS` later (a
trigger, the text unchanged) unless a text is on its way already: what the fragment could not
draw yet (a column whose vocabulary is still loading) is drawn without anyone typing.
The page's URL, which the fragment rewrites, is read by the sidebar's "Copy link" in the browser
(explorer.ui.common.link.copy_link): nothing outside the fragment has to rerun.

The note under the box counts characters as people count them: user-perceived characters
(grapheme clusters, `Intl.Segmenter`: 👍🏽 is one), line breaks not counted, the number
explorer.drawing.wording.character_count gives the page's sentences; code points and UTF-8 bytes
on hover. `live_characters` is in the same characters.

The box keeps its own caret and text across reruns (the script never writes the text back while
it is typed); the text the page starts from is `initial` (a link's text opens in a new session,
so the box starts from it).

What it does not do: draw or encode anything from the text (the pages do), or escape it: the
JavaScript sets the text as a value, never as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from explorer.ui.common import drawn

THROTTLE_MS = 100  # at most one update per this many milliseconds while typing
PAUSE_MS = 600  # above the live limit: an update this long after the last keystroke
ANSWER_WAIT_MS = 3_000  # a text unanswered this long no longer holds the next one back
AGAIN_MS = 250  # `answered(key, again=True)`: the fragment is asked for again this much later
ANSWERED_EVENT = "explorer-live-answered"

_HTML = """
<div class="live-text">
  <label class="live-label"></label>
  <textarea class="live-box" spellcheck="false"></textarea>
  <div class="live-note" aria-live="polite"></div>
</div>
"""

_CSS = """
.live-text { font-family: var(--st-font); color: var(--st-text-color); }
.live-label { display: block; font-size: 0.875rem; margin-bottom: 0.25rem; }
.live-box {
  box-sizing: border-box; width: 100%; resize: vertical; min-height: 2.5rem;
  font: inherit; font-size: 1rem; line-height: 1.5; padding: 0.5rem 0.75rem;
  color: var(--st-text-color); background: var(--st-secondary-background-color);
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.5rem;
}
.live-box:focus { outline: none; border-color: var(--st-primary-color); }
.live-box:focus-visible { box-shadow: 0 0 0 1px var(--st-primary-color); }
.live-note { font-size: 0.8rem; opacity: 0.7; min-height: 1.1rem; margin-top: 0.2rem; }
"""

_JS = Path(__file__).with_name("live_text.js").read_text(encoding="utf-8")


_live_text_box = st.components.v2.component("explorer_live_text", html=_HTML, css=_CSS, js=_JS)


def live_text(
    label: str,
    key: str,
    initial: str,
    *,
    rows: int = 4,
    live_characters: int = 20_000,
    max_characters: int = 100_000,
    show_count: bool = True,
) -> str:
    """The box (its accessible name `label`) and the text it holds now: `initial` until something
    is typed. `key` names the box in the session."""
    result: Any = _live_text_box(
        key=box_state_key(key),
        data={
            "label": label,
            "text": initial,
            "rows": rows,
            "live_characters": live_characters,
            "max_characters": max_characters,
            "throttle_ms": THROTTLE_MS,
            "pause_ms": PAUSE_MS,
            "show_count": show_count,
            "key": box_state_key(key),
            "answer_wait_ms": ANSWER_WAIT_MS,
            "again_ms": AGAIN_MS,
            "answered_event": ANSWERED_EVENT,
        },
        default={"text": initial},
        on_text_change=_nothing,
        on_again_change=_nothing,
    )
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else initial


def answered(key: str, again: bool = False) -> None:
    """Tell the box `key` that its text has been drawn, so that it may send the next: the last
    element of the fragment that reads `live_text(..., key, ...)` (explorer.ui.common.drawn).
    `again`: part of it is not drawn yet; the box runs the fragment again `AGAIN_MS` later."""
    drawn.signal(box_state_key(key), ANSWERED_EVENT, {"key": box_state_key(key), "again": again})


def box_state_key(key: str) -> str:
    """The session-state key of the box's own state ({"text": ...}): what a test sets to type."""
    return f"{key}-live"


def _nothing() -> None:
    """The components' change callbacks: the fragment's rerun reads the value itself."""
