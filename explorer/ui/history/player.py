"""The step player: Play / Pause, Back / Next, a step slider and the line about the step, a speed;
and every panel of step k below them. What it plays is a `Track`: the merges of a BPE / WordPiece
run (`MergeTrack`: every panel of explorer.ui.history.step_panels), or the rounds of a Unigram run
(explorer.ui.history.unigram_rounds.RoundTrack). Below, "merge" is the track's step, whatever its
`noun`.

The clock lives in the browser. The transport (Play, Pause, Back, Next, the slider and the step's
line) is a v2 component (`st.components.v2`, its JavaScript in `player.js` beside this module):
every press, slider move and tick of the clock becomes one action `{seq, step, playing}`, the
component's only value, and the server draws exactly what the newest action says. There is no
`run_every` timer to add or remove, so Pause never changes the page's structure, and nothing
races: an action that arrives late (numbered below the last one taken) is ignored, and the
browser ignores a drawing of an action older than its newest (`ack` below its `seq`). While
playing, the browser asks for the next step only when the fragment's last element says the step
before it is drawn (explorer.ui.common.drawn), and no sooner than the speed's interval after the
last request: a loaded server slows the animation, it never queues ticks. An action is sent only
when no script run is in progress (explorer.ui.common.drawn.WHEN_IDLE_JS: a fragment's rerun asked
for during a whole page's run can blank Streamlit's page); the newest of those made meanwhile goes.

Pause, Back, Next and the slider take effect in the browser at once: the clock stops, the shown
step stays, and the panels follow when the server has drawn them (the line is dimmed until then).
The end of the run stops the clock. The URL's `step` is the step shown at every instant: the
browser sets it whenever the shown step changes, and when Streamlit writes the server's link into
the URL (the server writes it only while paused, and a drawing of an older action may carry an
older step) the browser puts the step shown in its place, in the same write.

The step lives in one place, the data key `state.STEP` (a lesson or a link sets it before the page
is drawn); `state.PLAYER_ACK` is the number of the last action taken. A `step` in the URL opens
that step (`start_from_link`).

What it does not do: draw a step's panels (the track does), or escape them: the line's HTML comes
from the track, escaped there, and is set as markup by the component.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from explorer.lessons.merge_step import MergeStep
from explorer.runs.run import MergeRun, Run
from explorer.ui.common import drawn, link, state
from explorer.ui.history import step_panels
from explorer.views import merge_views

W = state.Widget
TICK_SECONDS = 0.3  # the interval of the fast speeds
STEP_PARAM = "step"
DRAWN_EVENT = "explorer-player-drawn"
# Label -> (seconds per tick, merges per tick).
SPEEDS: dict[str, tuple[float, int]] = {
    "2 s per merge": (2.0, 1),
    "1 s per merge": (1.0, 1),
    "0.5 s per merge": (0.5, 1),
    "0.25 s per merge": (0.25, 1),
    "5 merges per tick": (TICK_SECONDS, 5),
    "20 merges per tick": (TICK_SECONDS, 20),
    "100 merges per tick": (TICK_SECONDS, 100),
    "500 merges per tick": (TICK_SECONDS, 500),
}
LONG_RUN = 300  # runs with more merges start at a fast speed


class Track:
    """What the player plays: `steps` steps after step 0, each a `noun` ("merge", "round"), of
    `run`. Its speeds (label -> (seconds per tick, steps per tick)) are offered under the widget
    key `speed_key`, starting at `default_speed`. A subclass says what step k looks like:
    `summary_html(k)`, the line drawn in the transport, and `panels(k)`, everything below it."""

    noun = "merge"
    slider_label = "Step (merges applied)"
    speeds = SPEEDS
    speed_key = W.SPEED

    def __init__(self, run: Run, steps: int, default_speed: str) -> None:
        self.run = run
        self.steps = steps
        self.default_speed = default_speed

    def summary_html(self, k: int) -> str:
        raise NotImplementedError

    def panels(self, k: int) -> None:
        raise NotImplementedError

    def link_at(self, k: int) -> dict[str, str]:
        """The page's whole URL at step k: the fragment writes all of it, so a step never leaves
        the URL without its run."""
        return link.run_params(self.run, {STEP_PARAM: str(k)})


class MergeTrack(Track):
    """The merges of a BPE / WordPiece run, every panel of the Merge history page at each."""

    run: MergeRun

    def __init__(self, run: MergeRun, sentences: list[str]) -> None:
        steps = run.history.steps
        super().__init__(run, steps, "20 merges per tick" if steps > LONG_RUN else "1 s per merge")
        self.sentences = sentences
        self.step: MergeStep | None = None

    def step_at(self, k: int) -> MergeStep:
        """What step k means, made once for the line and every panel of one drawing."""
        if self.step is None or self.step.k != k:
            self.step = MergeStep(self.run.history, k)
        return self.step

    def summary_html(self, k: int) -> str:
        return merge_views.merge_summary_html(self.run, self.step_at(k))

    def panels(self, k: int) -> None:
        step_panels.show(self.run, self.step_at(k), self.sentences)


def speed(track: Track) -> tuple[float, int]:
    return track.speeds.get(state.get(track.speed_key), track.speeds[track.default_speed])


def start_from_link(steps: int) -> None:
    """On the session's first run, a `step` in the URL becomes the player's step."""
    if not state.get(state.FIRST_RUN):
        return
    raw = st.query_params.get(STEP_PARAM)
    try:
        step = int(raw) if raw is not None else None
    except ValueError:
        step = None
    if step is not None:
        state.start_player_at(max(0, min(steps, step)))


def take_action(action: Any, steps: int) -> bool:
    """The browser's newest action becomes the step (and whether it plays), unless it is not newer
    than the last one taken or is not an action at all. True when it was taken."""
    if not isinstance(action, dict):
        return False
    try:
        seq, step, playing = int(action["seq"]), int(action["step"]), bool(action["playing"])
    except (KeyError, TypeError, ValueError):
        return False
    if seq <= state.get(state.PLAYER_ACK, 0):
        return False
    step = max(0, min(steps, step))
    state.put(state.PLAYER_ACK, seq)
    state.put(state.STEP, step)
    state.put(state.PLAYING, playing and step < steps)
    return True


def show(track: Track) -> None:
    """The player: the speed, the transport and every panel of the step, in one fragment (a press,
    a tick or a speed reruns only it)."""
    start_from_link(track.steps)

    @st.fragment
    def view() -> None:
        take_action((state.get(W.PLAYER) or {}).get("action"), track.steps)
        k = max(0, min(track.steps, state.player_step()))
        row = st.container(horizontal=True, vertical_alignment="bottom")
        state.setdefault(track.speed_key, track.default_speed)
        row.select_slider(
            "Speed",
            list(track.speeds),
            key=track.speed_key,
            persist_state="session",
            width=320,
            help=f"Seconds per {track.noun} to follow each one"
            + (f"; {track.noun}s per tick to sweep through a long run." if len(track.speeds) > 4 else "."),
        )
        with row:
            link.copy_link("history", in_sidebar=False)  # here: the step changes inside the fragment
        if not state.is_playing():  # while playing, the browser keeps the URL's step (as it shows it)
            link.write(track.link_at(k))
        transport(track, k)
        track.panels(k)
        drawn.signal(W.PLAYER, DRAWN_EVENT, {"key": W.PLAYER, "ack": state.get(state.PLAYER_ACK, 0)})

    view()


def transport(track: Track, k: int) -> None:
    """The component: its buttons, slider and line at step k, and the clock. Until the visitor's
    first action, a sentence before it says the player is coming: a new browser shows it at once
    (plain HTML), while it still loads the component's code (seconds on a loaded machine); the
    stylesheet hides it as soon as the player is in the page."""
    seconds, per_tick = speed(track)
    if not state.get(state.PLAYER_ACK):
        st.html(
            f'<p class="player-placeholder">The player (Play, Pause, Back, Next and the step slider) '
            f"is loading, at {track.noun} {k:,} of {track.steps:,} …</p>"
        )
    draw: Any = _transport
    draw(
        key=W.PLAYER,
        data={
            "key": W.PLAYER,
            "steps": track.steps,
            "step": k,
            "playing": state.is_playing(),
            "ack": state.get(state.PLAYER_ACK, 0),
            "label": track.slider_label,
            "noun": track.noun,
            "line_html": track.summary_html(k),
            "interval_ms": round(seconds * 1000),
            "per_tick": per_tick,
            "param": STEP_PARAM,
            "drawn_event": DRAWN_EVENT,
        },
        on_action_change=_nothing,
    )


# Material icons' paths (24 x 24): drawn inline, so no icon font has to be loaded.
_ICONS = {
    "play": "M8 5v14l11-7z",
    "pause": "M6 19h4V5H6v14zm8-14v14h4V5h-4z",
    "back": "M6 6h2v12H6zm3.5 6l8.5 6V6z",
    "next": "M6 18l8.5-6L6 6v12zM16 6v12h2V6h-2z",
}


def _button(name: str) -> str:
    icon = f'<svg aria-hidden="true" viewBox="0 0 24 24"><path d="{_ICONS[name]}"/></svg>'
    label = name.capitalize()
    inside = f"{label} {icon}" if name == "next" else f"{icon} {label}"
    return f'<button type="button" class="player-button player-{name}">{inside}</button>'


_HTML = f"""
<div class="player">
  <div class="player-row">
    {_button("play")}
    {_button("pause")}
    {_button("back")}
    <div class="player-slider">
      <div class="player-label"><span class="player-label-text"></span>: <b class="player-value"></b>
        <span class="player-of"></span></div>
      <input type="range" class="player-range" min="0" step="1">
    </div>
    {_button("next")}
  </div>
  <div class="player-line" aria-live="off"></div>
</div>
"""

_CSS = """
.player { font-family: var(--st-font); color: var(--st-text-color); }
.player-row { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0.5rem 0.75rem; }
.player-button {
  font: inherit; font-size: 0.95rem; line-height: 1.6; padding: 0.25rem 0.75rem; cursor: pointer;
  color: var(--st-text-color); background: var(--st-background-color, #fff);
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.5rem;
  white-space: nowrap;
}
.player-button:hover:enabled { border-color: var(--st-primary-color); color: var(--st-primary-color); }
.player-button:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 2px; }
.player-button svg { width: 1.1em; height: 1.1em; vertical-align: -0.2em; fill: currentColor; }
.player-button:disabled { cursor: not-allowed; opacity: 0.45; }
.player-slider { flex: 1 1 14rem; min-width: 12rem; }
.player-label { font-size: 0.875rem; margin-bottom: 0.15rem; }
.player-of { opacity: 0.75; }
.player-range { width: 100%; accent-color: var(--st-primary-color); margin: 0.25rem 0; }
.player-range:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 2px; }
.player-line { margin-top: 0.5rem; min-height: 1.6rem; transition: opacity 0.2s; }
.player[data-playing="false"] .player-pending { opacity: 0.55; }
"""

_JS = drawn.WHEN_IDLE_JS + Path(__file__).with_name("player.js").read_text(encoding="utf-8")

_transport = st.components.v2.component("explorer_player", html=_HTML, css=_CSS, js=_JS, isolate_styles=False)


def _nothing() -> None:
    """The component's change callback: the fragment's run reads the action itself."""
