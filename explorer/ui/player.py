"""The merge player: Play / Pause, speed (merges per tick) and a step slider to scrub.

The step view is an `st.fragment` whose `run_every` is set only while playing, so a paused player
costs nothing and moving the slider reruns only the fragment (segment ~30 words, encode the sample
sentences, redraw two small charts), never the whole page. Play/Pause are outside the fragment:
they rerun the page so that the fragment is registered again with or without its timer.

The step lives in a data key (`state.STEP`), which is the truth while playing: a tick sets the
slider from it and never reads the slider back, because a tick request can carry a slider value
the browser had not yet updated (measured: reading it back made playback stall and jump back).
Paused, the slider is the person's: its value becomes the step, except for a short grace period
after Pause, when a tick the browser had already sent arrives with an old slider value (measured:
without the grace period the player paused one or two steps back from where it showed it paused).
"""

from __future__ import annotations

import time

import streamlit as st

from explorer import charts
from explorer.ui import state, views
from explorer.ui.runs import Run

W = state.Widget
TICK_SECONDS = 0.3
STALE_TICK_SECONDS = 3 * TICK_SECONDS
SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500)


def _play(steps: int) -> None:
    if state.get(state.STEP, 0) >= steps:
        state.put(state.STEP, 0)
    st.session_state[W.STEP] = state.get(state.STEP, 0)
    state.put(state.PLAYING, True)


def _pause() -> None:
    state.put(state.PLAYING, False)
    state.put(state.PAUSED_AT, time.monotonic())
    st.session_state[W.STEP] = state.get(state.STEP, 0)


def controls(run: Run) -> None:
    """Play / Pause buttons and the speed picker (outside the fragment: they rerun the page)."""
    playing = bool(state.get(state.PLAYING))
    play, pause, speed = st.columns([1, 1, 5], vertical_alignment="bottom")
    play.button("Play", key=W.PLAY, icon=":material/play_arrow:", on_click=_play, args=(run.trace.steps,), disabled=playing)
    pause.button("Pause", key=W.PAUSE, icon=":material/pause:", on_click=_pause, disabled=not playing)
    if W.SPEED not in st.session_state:
        st.session_state[W.SPEED] = 1 if run.trace.steps <= 300 else 10
    speed.select_slider("Speed (merges per tick)", SPEEDS, key=W.SPEED, persist_state="session")


def _advance(steps: int) -> None:
    """One tick: move the step on by the speed (merges per tick)."""
    step = min(steps, state.get(state.STEP, 0) + int(st.session_state.get(W.SPEED, 1)))
    state.put(state.STEP, step)
    st.session_state[W.STEP] = step


def step_view(run: Run, sentences: list[str]) -> None:
    """The fragment: slider, what merge k did, the words and sentences after k merges, the charts."""
    steps = run.trace.steps
    playing = bool(state.get(state.PLAYING))

    @st.fragment(run_every=TICK_SECONDS if playing else None)
    def view() -> None:
        if W.STEP not in st.session_state:
            st.session_state[W.STEP] = max(0, min(state.get(state.STEP, 0), steps))
        if state.get(state.PLAYING):
            _advance(steps)
        elif time.monotonic() - state.get(state.PAUSED_AT, 0.0) < STALE_TICK_SECONDS:
            st.session_state[W.STEP] = state.get(state.STEP, 0)  # a late tick: keep the paused step
        k = st.slider("Step (merges applied)", min_value=0, max_value=steps, key=W.STEP)
        state.put(state.STEP, k)
        st.html(views.merge_summary_html(run, k))
        words, sentences_column = st.columns([3, 2], gap="large")
        with words:
            st.markdown("**Most frequent corpus words** (the token the last merge made is outlined)")
            st.html(views.words_at_step_html(run, k))
        with sentences_column:
            st.markdown(f"**Sample sentences after {k:,} merges**")
            st.html(views.sentences_at_step_html(run, k, sentences))
        timeline, compression = st.columns(2)
        timeline.plotly_chart(charts.merge_timeline(run.trace, k), key="merge_timeline")
        compression.plotly_chart(charts.compression_curve(run.trace, k), key="compression_curve")
        if state.get(state.PLAYING) and k >= steps:
            _pause()
            st.rerun(scope="app")

    view()
