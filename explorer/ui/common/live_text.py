"""A text box that reports what is typed as it is typed, without Enter: Streamlit's v2 component
(`st.components.v2.component`, inline HTML and JavaScript, no build step).

`live_text(label, key, initial, ...)` draws the box and returns its text. Mount it inside an
`st.fragment`: each change then reruns only that fragment. The box sends its text at most once
every `THROTTLE_MS` while it is typed in (a keystroke after a quiet moment goes at once), and above
`live_characters` only when typing pauses for `PAUSE_MS` (the note under the box says so); what is
still unsent goes when the box loses the focus. The page's URL, which the fragment rewrites, is
read by the sidebar's "Copy link" in the browser (explorer.ui.common.link.copy_link): nothing
outside the fragment has to rerun.

The box keeps its own caret and text across reruns (the script never writes the text back while
it is typed); the text the page starts from is `initial` (a link's text opens in a new session,
so the box starts from it).

What it does not do: draw or encode anything from the text (the pages do), or escape it: the
JavaScript sets the text as a value, never as markup.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

THROTTLE_MS = 100  # at most one update per this many milliseconds while typing
PAUSE_MS = 600  # above the live limit: an update this long after the last keystroke

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
.live-note { font-size: 0.8rem; opacity: 0.7; min-height: 1.1rem; margin-top: 0.2rem; }
"""

_JS = """
export default function(component) {
  const { parentElement, data, setStateValue } = component;
  const box = parentElement.querySelector('.live-box');
  const note = parentElement.querySelector('.live-note');
  const label = parentElement.querySelector('.live-label');
  box.setAttribute('aria-label', data.label);
  label.textContent = data.label;
  box.rows = data.rows;
  box.maxLength = data.max_characters;
  const live = data.live_characters;
  const describe = () => {
    const n = box.value.length;
    note.textContent = n > live
      ? `${n.toLocaleString('en-US')} characters: over ${live.toLocaleString('en-US')}, ` +
        'the results follow when you pause typing'
      : (data.show_count ? `${n.toLocaleString('en-US')} characters` : '');
  };
  const state = box.__live || (box.__live = { started: false, timer: null, lastSent: 0 });
  state.setStateValue = setStateValue;
  if (!state.started) {  // a new box: the page's text (later, the box keeps what is typed)
    state.started = true;
    box.value = data.text;
    describe();
  }
  if (box.__listening) return;
  box.__listening = true;
  const send = () => {
    state.timer = null;
    state.lastSent = performance.now();
    box.dataset.sent = String(Number(box.dataset.sent || 0) + 1);
    state.setStateValue('text', box.value);
  };
  box.addEventListener('blur', () => {
    if (state.timer !== null) { clearTimeout(state.timer); send(); }  // nothing typed is left unsent
  });
  box.addEventListener('keydown', (event) => {  // one line: Enter sends now, adds no line break
    if (event.key === 'Enter' && box.rows === 1) {
      event.preventDefault();
      clearTimeout(state.timer);
      send();
    }
  });
  box.addEventListener('input', () => {
    describe();
    clearTimeout(state.timer);
    const wait = box.value.length > live
      ? data.pause_ms
      : Math.max(0, state.lastSent + data.throttle_ms - performance.now());
    state.timer = setTimeout(send, wait);
  });
}
"""


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
        },
        default={"text": initial},
        on_text_change=_nothing,
    )
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else initial


def box_state_key(key: str) -> str:
    """The session-state key of the box's own state ({"text": ...}): what a test sets to type."""
    return f"{key}-live"


def _nothing() -> None:
    """The components' change callbacks: the fragment's rerun reads the value itself."""
