"""Pause a `run_every` fragment by rerunning the page: does the frontend lose its tree?

A counter advanced by an `st.fragment(run_every=TICK)`; Play and Pause are `st.button`s outside
the fragment whose on_click flips `playing`, so each press reruns the whole page and registers the
fragment again: the old Merge history player's pattern, tried as a repro for "Cannot set a node at
a delta path" (a blank tab on Pause). It does not reproduce it (tests/browser/test_run_every_pause.py
and issue 30's closing note); the old player's real page did.

Query params:
  variant  a: the timer is set only while playing (Pause drops `run_every`)            [default]
           b: one timer for the whole visit; a tick does nothing while paused
           c: as a, and the fragment ends the play itself with st.rerun(scope="app") at `end`
           d: as a, and the fragment writes st.query_params (every run: playing and paused)
           e: as a, with c and d together (the project's player)
  shape    1: the fragment draws a different tree playing (one st.html) and paused
              (a row with buttons and a slider), like the project's player         [default 0]
  work     elements drawn per fragment run (stand-ins for heavy panels)           [default 20]
  nest     1: the panels sit in blocks (columns, expanders) like real panels    [default 1]
  sleep    seconds slept per fragment run                                         [default 0.05]
  tick     run_every in seconds                                                   [default 0.2]
  end      variants c/e: ticks per play before the fragment stops it              [default 15]
"""

import time

import streamlit as st

qp = st.query_params
VARIANT = qp.get("variant", "a")
SHAPE = qp.get("shape", "0") == "1"
WORK = int(qp.get("work", "20"))
NEST = qp.get("nest", "1") == "1"
SLEEP = float(qp.get("sleep", "0.05"))
TICK = float(qp.get("tick", "0.2"))
END = int(qp.get("end", "15"))

st.session_state.setdefault("playing", False)
st.session_state.setdefault("count", 0)
st.session_state.setdefault("played", 0)
st.session_state.setdefault("full_runs", 0)
st.session_state.full_runs += 1


def play() -> None:
    st.session_state.playing = True
    st.session_state.played = 0


def pause() -> None:
    st.session_state.playing = False


playing = st.session_state.playing
st.title("run_every pause repro")
row = st.container(horizontal=True)
row.button("Play", key="play", on_click=play, disabled=playing)
row.button("Pause", key="pause", on_click=pause, disabled=not playing)
st.caption(f"variant {VARIANT} · full runs {st.session_state.full_runs}")

timer = TICK if (playing or VARIANT == "b") else None


@st.fragment(run_every=timer)
def counter() -> None:
    now_playing = st.session_state.playing
    if now_playing:
        st.session_state.count += 1
        st.session_state.played += 1
    n = st.session_state.count
    if SHAPE and not now_playing:
        r = st.container(horizontal=True)
        r.button("Back", key="back")
        r.slider("Step", 0, max(n, 1), n, key=f"step-{n}")
        r.button("Next", key="next")
    elif SHAPE:
        st.html(f"<div class='bar'>step {n} · playing</div>")
    st.container(key="counter").markdown(f"count: **{n}** · {'playing' if now_playing else 'paused'}")
    if VARIANT in ("d", "e"):
        params = {"variant": VARIANT, "step": str(n)}
        params.update({k: qp[k] for k in ("shape", "nest", "work", "sleep", "tick", "end") if k in qp})
        if dict(qp) != params:
            qp.from_dict(params)
    time.sleep(SLEEP)
    for i in range(WORK):
        if NEST and i % 3 == 0:
            left, right = st.columns(2)
            left.write(f"panel {i} at {n}")
            right.html(f"<p>panel {i} at {n}</p>")
        elif NEST and i % 3 == 1:
            with st.expander(f"panel {i}", expanded=True):
                st.write(f"panel {i} at {n}")
        elif i % 2:
            st.html(f"<p>panel {i} at {n}</p>")
        else:
            st.write(f"panel {i} at {n}")
    if VARIANT in ("c", "e") and now_playing and st.session_state.played >= END:
        st.session_state.playing = False
        st.rerun(scope="app")


counter()
