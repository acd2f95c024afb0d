"""A text box that reports what is typed as it is typed, without Enter: Streamlit's v2 component
(`st.components.v2.component`, inline HTML and JavaScript, no build step).

`live_text(label, key, initial, ...)` draws the box and returns its text. Mount it inside an
`st.fragment` and call `answered(key)` as the fragment's last element: each change then reruns
only that fragment. The box sends its text at most once every `THROTTLE_MS` while it is typed in
(a keystroke after a quiet moment goes at once), and above `live_characters` only when typing
pauses for `PAUSE_MS` (the note under the box says so); what is still unsent goes when the box
loses the focus. One text at a time is in flight: the next goes when `answered` tells the box the
fragment has drawn the last one (or after `ANSWER_WAIT_MS`, should a run end early). So a busy
server is never asked to start over on every keystroke (a new value stops the run in progress):
keys typed meanwhile go together, and what the page shows is never more than one run behind.
The page's URL, which the fragment rewrites, is read by the sidebar's "Copy link" in the browser
(explorer.ui.common.link.copy_link): nothing outside the fragment has to rerun.

The box keeps its own caret and text across reruns (the script never writes the text back while
it is typed); the text the page starts from is `initial` (a link's text opens in a new session,
so the box starts from it).

What it does not do: draw or encode anything from the text (the pages do), or escape it: the
JavaScript sets the text as a value, never as markup.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer.ui.common import drawn

THROTTLE_MS = 100  # at most one update per this many milliseconds while typing
PAUSE_MS = 600  # above the live limit: an update this long after the last keystroke
ANSWER_WAIT_MS = 3_000  # a text unanswered this long no longer holds the next one back
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
  const state = box.__live || (box.__live = {
    started: false, timer: null, lastSent: 0, inFlight: false, sentText: null, flightTimer: null,
  });
  state.setStateValue = setStateValue;
  if (!state.started) {  // a new box: the page's text (later, the box keeps what is typed)
    state.started = true;
    box.value = data.text;
    state.sentText = data.text;
    describe();
  }
  if (box.__listening) return;
  box.__listening = true;
  const send = () => {
    clearTimeout(state.timer);
    state.timer = null;
    if (state.inFlight) return;  // `answered` sends what is new
    state.inFlight = true;
    clearTimeout(state.flightTimer);
    state.flightTimer = setTimeout(() => answered(), data.answer_wait_ms);
    state.lastSent = performance.now();
    state.sentText = box.value;
    box.dataset.sent = String(Number(box.dataset.sent || 0) + 1);
    state.setStateValue('text', box.value);
  };
  const schedule = () => {
    clearTimeout(state.timer);
    const wait = box.value.length > live
      ? data.pause_ms
      : Math.max(0, state.lastSent + data.throttle_ms - performance.now());
    state.timer = setTimeout(send, wait);
  };
  const answered = () => {  // the fragment drew the text in flight: the next may go
    clearTimeout(state.flightTimer);
    if (state.inFlight) box.dataset.answered = String(Number(box.dataset.answered || 0) + 1);
    state.inFlight = false;
    if (box.value !== state.sentText && state.timer === null) schedule();
  };
  window.addEventListener(data.answered_event, (event) => {
    if (event.detail && event.detail.key === data.key) answered();
  });
  box.addEventListener('blur', () => {
    if (state.timer !== null) send();  // nothing typed is left unsent
  });
  box.addEventListener('keydown', (event) => {  // one line: Enter sends now, adds no line break
    if (event.key === 'Enter' && box.rows === 1) {
      event.preventDefault();
      send();
    }
  });
  box.addEventListener('input', () => {
    describe();
    schedule();
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
            "key": box_state_key(key),
            "answer_wait_ms": ANSWER_WAIT_MS,
            "answered_event": ANSWERED_EVENT,
        },
        default={"text": initial},
        on_text_change=_nothing,
    )
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else initial


def answered(key: str) -> None:
    """Tell the box `key` that its text has been drawn, so that it may send the next: the last
    element of the fragment that reads `live_text(..., key, ...)` (explorer.ui.common.drawn)."""
    drawn.signal(box_state_key(key), ANSWERED_EVENT, {"key": box_state_key(key)})


def box_state_key(key: str) -> str:
    """The session-state key of the box's own state ({"text": ...}): what a test sets to type."""
    return f"{key}-live"


def _nothing() -> None:
    """The components' change callbacks: the fragment's rerun reads the value itself."""
