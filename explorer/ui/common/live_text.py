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

_JS = r"""
export default function(component) {
  const { parentElement, data, setStateValue, setTriggerValue } = component;
  const box = parentElement.querySelector('.live-box');
  const note = parentElement.querySelector('.live-note');
  const label = parentElement.querySelector('.live-label');
  box.setAttribute('aria-label', data.label);
  label.textContent = data.label;
  box.rows = data.rows;
  box.maxLength = data.max_characters;
  const live = data.live_characters;
  const figure = (n) => n.toLocaleString('en-US');
  const describe = () => {  // the characters typed (explorer.drawing.wording.character_count)
    const text = box.value;
    const n = countCharacters(text);
    note.textContent = n > live
      ? `${figure(n)} characters: over ${figure(live)}, the results follow when you pause typing`
      : (data.show_count ? `${figure(n)} character${n === 1 ? '' : 's'}` : '');
    const points = text.length - (text.match(/[\ud800-\udbff][\udc00-\udfff]/g) || []).length;
    note.title = `${figure(n)} user-perceived characters (grapheme clusters: 👍🏽 is one), ` +
      `line breaks not counted; ${figure(points)} code points, ` +
      `${figure(new TextEncoder().encode(text).length)} UTF-8 bytes`;
    return n;
  };
  const state = box.__live || (box.__live = {
    started: false, timer: null, lastSent: 0, inFlight: false, sentText: null, flightTimer: null,
  });
  state.setStateValue = setStateValue;
  state.setTriggerValue = setTriggerValue;
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
  const schedule = (characters) => {
    clearTimeout(state.timer);
    const wait = characters > live
      ? data.pause_ms
      : Math.max(0, state.lastSent + data.throttle_ms - performance.now());
    state.timer = setTimeout(send, wait);
  };
  const answered = () => {  // the fragment drew the text in flight: the next may go
    clearTimeout(state.flightTimer);
    if (state.inFlight) box.dataset.answered = String(Number(box.dataset.answered || 0) + 1);
    state.inFlight = false;
    if (box.value !== state.sentText && state.timer === null) schedule(countCharacters(box.value));
  };
  const again = () => {  // the fragment asked to run again (something it shows was not ready)
    clearTimeout(state.againTimer);
    state.againTimer = setTimeout(() => {
      if (state.inFlight || state.timer !== null) return;  // the text on its way runs it anyway
      box.dataset.again = String(Number(box.dataset.again || 0) + 1);
      state.setTriggerValue('again', Date.now());
    }, data.again_ms);
  };
  window.addEventListener(data.answered_event, (event) => {
    if (!event.detail || event.detail.key !== data.key) return;
    answered();
    if (event.detail.again) again();
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
  box.addEventListener('input', () => schedule(describe()));
}

// Line breaks, as Python's str.splitlines() sees them: they end sentences and are not counted.
const LINE_BREAK = /[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

// User-perceived characters (extended grapheme clusters) that are not line breaks.
function countCharacters(text) {
  if (/^[\x00-\x7f]*$/.test(text)) return text.length - (text.match(/[\n\r\v\f\x1c-\x1e]/g) || []).length;
  let n = 0;
  for (const { segment } of graphemes.segment(text)) if (!LINE_BREAK.test(segment[0])) n += 1;
  return n;
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
