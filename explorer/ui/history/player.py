"""The step player: Play / Pause, a speed, step back / forward, and a step slider; and the view of
step k that follows it. What it plays is a `Track`: the merges of a BPE / WordPiece run (every
panel of step k: explorer.ui.history.step_panels; `merge_track`), or the rounds of a Unigram run
(explorer.ui.history.unigram_rounds). Below, "merge" is the track's step, whatever its `noun`.

Speeds are either seconds per merge (2, 1, 0.5, 0.25: slow enough to read what happened) or, for
long runs, merges per tick of `TICK_SECONDS`. The step view is an `st.fragment` whose `run_every`
is the speed's tick, set only while playing, so a paused player costs nothing and moving the slider
or a step button reruns only the fragment, never the whole page. Play, Pause and the speed are
outside the fragment: they rerun the page so that the fragment is registered again with or
without its timer.

The step lives in a data key (`state.STEP`), which is the truth while playing: a tick sets the
slider from it, before the slider is drawn, and never reads the slider back, because a tick
request can carry a slider value the browser had not yet updated (measured: reading it back made
playback stall and jump back). Paused, the slider is the person's: its value becomes the step,
except for a short grace period after Pause, when a tick the browser had already sent arrives
with an old slider value. Reaching the last merge stops the player (the page is rerun, so Play
is enabled again); nothing writes a widget's value after the widget is drawn.

While paused, the URL carries `step=k`, so a link opens the same step (`start_from_link`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from explorer.ui.common import link, state
from explorer.ui.common.runs import Run
from explorer.ui.history import merge_views, step_panels

W = state.Widget
TICK_SECONDS = 0.3  # the tick of the fast speeds
STALE_TICK_SECONDS = 0.9  # after Pause, a tick arriving this soon was sent before it (old slider value)
STEP_PARAM = "step"
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


@dataclass(frozen=True)
class Track:
    """What the player plays: `steps` steps after step 0, each a `noun` ("merge", "round");
    `summary_html(k)` is the line about step k (drawn with the slider, or with the bar while
    playing), `panels(k)` draws everything below it. `speeds` (label -> (seconds per tick, steps
    per tick)) is offered under the widget key `speed_key`, with `default_speed`. `link_at(k)` is
    the page's whole URL at step k: the fragment writes all of it, so a step never leaves the URL
    without its run (a fragment's rerun can start from a query string the browser had not updated)."""

    steps: int
    noun: str
    slider_label: str
    summary_html: Callable[[int], str]
    panels: Callable[[int], None]
    speeds: dict[str, tuple[float, int]]
    speed_key: str
    default_speed: str
    link_at: Callable[[int], dict[str, str]]


def merge_track(run: Run, sentences: list[str]) -> Track:
    """The merges of a BPE / WordPiece run, every panel of the Merge history page at each."""
    steps = run.trace.steps
    return Track(
        steps=steps,
        noun="merge",
        slider_label="Step (merges applied)",
        summary_html=lambda k: merge_views.merge_summary_html(run, k),
        panels=lambda k: step_panels.show(run, k, sentences),
        speeds=SPEEDS,
        speed_key=W.SPEED,
        default_speed="20 merges per tick" if steps > LONG_RUN else "1 s per merge",
        link_at=lambda k: link.run_params(run, {STEP_PARAM: str(k)}),
    )


def speed(track: Track) -> tuple[float, int]:
    return track.speeds.get(state.get(track.speed_key), track.speeds[track.default_speed])


def _set_step(step: int) -> None:
    """Only from callbacks and before the slider is drawn: the step and the slider's value."""
    state.put(state.STEP, step)
    state.put(W.STEP, step)


def _play(steps: int) -> None:
    _set_step(0 if state.player_step() >= steps else state.player_step())
    state.put(state.PLAYING, True)


def _pause() -> None:
    state.put(state.PLAYING, False)
    state.put(state.PAUSED_AT, time.monotonic())
    state.put(W.STEP, state.player_step())


def _step_by(delta: int, steps: int) -> None:
    _set_step(max(0, min(steps, state.player_step() + delta)))


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
        _set_step(max(0, min(steps, step)))


def controls(track: Track) -> None:
    """Play / Pause and the speed (outside the fragment: they rerun the page)."""
    steps, noun = track.steps, track.noun
    playing = state.is_playing()
    # One wrapping row, buttons as wide as their labels: columns would squeeze them to "P" at 800 px.
    row = st.container(horizontal=True, vertical_alignment="bottom")
    row.button(
        "Play",
        key=W.PLAY,
        icon=":material/play_arrow:",
        on_click=_play,
        args=(steps,),
        disabled=playing,
        help=f"Play the {noun}s one after another from this step (from the first one at the end).",
    )
    row.button("Pause", key=W.PAUSE, icon=":material/pause:", on_click=_pause, disabled=not playing)
    state.setdefault(track.speed_key, track.default_speed)
    row.select_slider(
        "Speed",
        list(track.speeds),
        key=track.speed_key,
        persist_state="session",
        help=f"Seconds per {noun} to follow each one"
        + (f"; {noun}s per tick to sweep through a long run." if len(track.speeds) > 4 else "."),
    )


def _advance(track: Track) -> None:
    """One tick: move the step on by the speed's merges per tick."""
    _set_step(min(track.steps, state.player_step() + speed(track)[1]))


def step_bar_html(k: int, steps: int, label: str = "Step (merges applied)") -> str:
    """The step while playing: the slider's label, track and value, as a still picture."""
    percent = 100 * k / steps if steps else 0
    return (
        f'<div class="step-bar" role="progressbar" aria-label="{label}" aria-valuenow="{k}" '
        f'aria-valuemin="0" aria-valuemax="{steps}"><div class="step-bar-label">{label}: '
        f"<b>{k:,}</b> of {steps:,} · playing</div>"
        f'<div class="step-bar-track"><div class="step-bar-fill" style="width:{percent:.2f}%"></div>'
        "</div></div>"
    )


def step_view(track: Track) -> None:
    """The fragment: step buttons and slider, then every panel at step k."""
    steps, noun = track.steps, track.noun
    playing = state.is_playing()

    @st.fragment(run_every=speed(track)[0] if playing else None)
    def view() -> None:
        state.setdefault(W.STEP, max(0, min(state.player_step(), steps)))
        now_playing = state.is_playing()
        if now_playing:
            _advance(track)
        elif time.monotonic() - state.get(state.PAUSED_AT, 0.0) < STALE_TICK_SECONDS:
            state.put(W.STEP, state.player_step())  # a late tick: keep the paused step
        if now_playing:
            # Playing, the step and the merge line are one HTML element: a widget's new value shows
            # only when the fragment run ends, and elements in columns later than those outside
            # (measured: the slider, or a bar in its column, a merge behind the text for most of
            # each run); one element cannot disagree with itself.
            k = state.player_step()
            st.html(step_bar_html(k, steps, track.slider_label) + track.summary_html(k))
        else:
            row = st.container(horizontal=True, vertical_alignment="bottom")
            row.button(
                "Back",
                key=W.STEP_BACK,
                icon=":material/skip_previous:",
                on_click=_step_by,
                args=(-1, steps),
                disabled=state.player_step() <= 0,
                help=f"One {noun} back",
            )
            k = row.slider(track.slider_label, min_value=0, max_value=steps, key=W.STEP)
            row.button(
                "Next",
                key=W.STEP_FORWARD,
                icon=":material/skip_next:",
                on_click=_step_by,
                args=(1, steps),
                disabled=k >= steps,
                help=f"One {noun} forward",
            )
            st.html(track.summary_html(k))
        state.put(state.STEP, k)
        if not now_playing:
            link.write(track.link_at(k))
            link.copy_link("merges", in_sidebar=False)  # here: a step changed in the fragment is in it
        track.panels(k)
        if now_playing and k >= steps:
            state.put(state.PLAYING, False)
            state.put(state.PAUSED_AT, time.monotonic())
            st.rerun(scope="app")  # the fragment again without its timer, Play enabled

    view()
