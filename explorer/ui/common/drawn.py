"""A fragment's run, told to the browser when it is drawn: `signal(key, event, detail)` draws an
empty element (hidden by the stylesheet: its key ends in `SUFFIX`) whose JavaScript
(`drawn_signal.js`) dispatches `CustomEvent(event, {detail})` (the detail sent as JSON text) on
`window` every time it is drawn.
As a fragment's last element it says that everything above it is on the screen: the live text
box then sends its next text (explorer.ui.common.live_text.answered), the player asks for its next
step (explorer.ui.history.player).

`WHEN_IDLE_JS` (`when_idle.js`) is the other half, for a component inside a fragment: a JavaScript
function `whenIdle(send)` that calls `send` at once when no script run is in progress, else once the run
in progress has ended. A fragment's rerun asked for while the whole page runs (a click just after
a page switch) can leave Streamlit's frontend with an empty page ("Cannot set a node at a delta
path", seen in CI: issue 30); a component that sends its value through `whenIdle` never asks for
one then.

What it does not do: carry anything back to the server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.ui.common import state

# whenIdle(send), for a component to prepend to its own script (explorer.ui.history.player)
WHEN_IDLE_JS = Path(__file__).with_name("when_idle.js").read_text(encoding="utf-8")
SUFFIX = "-drawn-signal"  # every signal's key ends so (explorer.drawing.stylesheet hides them)

_JS = Path(__file__).with_name("drawn_signal.js").read_text(encoding="utf-8")

_signal = st.components.v2.component("explorer_drawn_signal", js=_JS)


def signal(name: str, event: str, detail: dict[str, Any]) -> None:
    """Dispatch `event` with `detail` in the browser once what precedes this element is drawn.
    `name` names the element (its key is `key_of(name)`); each call sends a new run number, so the
    browser runs the JavaScript every time, even when `detail` is unchanged."""
    draw: Any = _signal
    # `detail` goes as JSON text: Streamlit looks for a dataframe in every value of `data` that is
    # not a plain scalar, and looking imports pandas (0.5-0.8 s on the first Train page drawn by a
    # server that has drawn no chart or table yet: a restarted replica's first link).
    data = {"event": event, "detail": json.dumps(detail), "run": state.next_signal_run(name)}
    draw(key=key_of(name), data=data)


def key_of(name: str) -> str:
    """The element key of `signal(name, ...)`."""
    return f"{name}{SUFFIX}"
