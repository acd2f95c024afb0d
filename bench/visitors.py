"""Visitors without a browser: Streamlit sessions opened over the app's own websocket protocol.

A real browser tab costs about 2.5 s of CPU to draw this app (measured: 1.3 s for a one-metric
Streamlit page), so on a 2-core machine that also runs the server, sixteen tabs measure Chromium
more than the server. A `ProtocolVisitor` does what a tab does on the wire and nothing more: it
opens `/_stcore/stream`, asks for a script run of a page with a query string (a `rerun_script`
BackMsg, as the browser sends on load), and reads the ForwardMsgs (deltas) the server sends until
a text it waits for appears in them and the script run has finished. The server cannot tell it
from a browser: it gets a session of its own, runs the page script, trains or loads the run.

`type_live` types into a live text box (explorer.ui.common.live_text) as its script does: a key
every so often, the text sent at most once per throttle and never while the last one is unanswered
(its fragment's run has not finished), as the component's state, in a rerun of the box's fragment.

Used by bench/serving_bench.py and bench/bench_live_compare.py. Not a test double: only the
drawing is left out.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

LIVE_TEXT = "explorer_live_text"  # the live box's component name (explorer.ui.common.live_text)
# The Train page's widgets a visitor who pastes a corpus touches, by the label they show.
PASTE = {"text_area": "Corpus", "number_input": "Exact vocabulary size", "button": "Train"}


async def visit(
    base_url: str,
    query: str,
    wanted: str,
    timeout: float = 300.0,
    page_name: str = "",
    cookie: str | None = None,
) -> float:
    """Open a session on `base_url` with `query` (no "?"), run the page `page_name` (Train by
    default), and return the seconds until `wanted` was in its deltas and the script run had
    finished. `cookie`: the Cookie header a browser would send (nginx's sticky one in front of
    several replicas). Raises TimeoutError."""
    host = base_url.split("//", 1)[1]
    started = time.monotonic()
    async with websockets.connect(
        f"ws://{host}/_stcore/stream",
        subprotocols=["streamlit"],
        origin=base_url,
        max_size=2**27,
        additional_headers={"Cookie": cookie} if cookie else None,
    ) as socket:
        session = Session(socket, page_name=page_name)
        await session.run(query)
        deadline = started + timeout
        while not await session.until(deadline, wanted=wanted.encode()):
            pass
        return time.monotonic() - started


class Session:
    """One visitor's websocket session: sends script runs, reads what the server draws, and does what
    a browser does on its own: rerun a fragment every `run_every` seconds while the server asks
    (the Train page's progress poller), sending the widget states it has set."""

    def __init__(self, socket, page_name: str = "", live_label: str | None = None):
        self.socket = socket
        self.page_name = page_name
        self.live_label = live_label  # the live box to find (its label)
        self.live_box: tuple[str, str] | None = None  # its (widget id, fragment id)
        self.widgets: dict = {}  # (type, label) -> widget id
        self.states: list[tuple[str, str, object]] = []  # (widget id, field, value) to send on reruns
        self.timers: dict[str, float] = {}  # fragment id -> interval
        self.next_tick: dict[str, float] = {}

    async def run(
        self, query: str = "", trigger: str | None = None, fragment_id: str = "", auto: bool = True
    ) -> None:
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = self.page_name
        if fragment_id:
            message.rerun_script.fragment_id = fragment_id
            message.rerun_script.is_auto_rerun = auto
        for widget_id, field, value in self.states:
            state = message.rerun_script.widget_states.widgets.add()
            state.id = widget_id
            setattr(state, field, value)
        if trigger is not None:
            state = message.rerun_script.widget_states.widgets.add()
            state.id, state.trigger_value = trigger, True
        await self.socket.send(message.SerializeToString())

    async def until(self, deadline: float, wanted: bytes | None = None) -> bool:
        """Read until a script run finishes (rerunning fragments when due); True when `wanted`
        was in a delta meanwhile."""
        seen = False
        while True:
            now = time.monotonic()
            if now > deadline:
                raise TimeoutError("the script run did not finish in time")
            due = min(self.next_tick.values(), default=deadline)
            if due <= now:
                for fragment_id, tick in list(self.next_tick.items()):
                    if tick <= now:
                        self.next_tick[fragment_id] = now + self.timers[fragment_id]
                        await self.run(fragment_id=fragment_id)
                continue
            try:
                data = await asyncio.wait_for(self.socket.recv(), timeout=max(0.01, min(due, deadline) - now))
            except asyncio.TimeoutError:
                continue
            forward = ForwardMsg()
            forward.ParseFromString(data)
            kind = forward.WhichOneof("type")
            if kind == "auto_rerun":
                self.timers[forward.auto_rerun.fragment_id] = forward.auto_rerun.interval
                self.next_tick[forward.auto_rerun.fragment_id] = (
                    time.monotonic() + forward.auto_rerun.interval
                )
            elif kind == "stop_auto_rerun":
                for fragment_id in forward.stop_auto_rerun.fragment_ids:
                    self.timers.pop(fragment_id, None)
                    self.next_tick.pop(fragment_id, None)
            elif kind == "delta":
                if wanted is not None and wanted in data:
                    seen = True
                if forward.delta.HasField("new_element"):
                    element = forward.delta.new_element
                    widget = element.WhichOneof("type")
                    if widget in PASTE:
                        proto = getattr(element, widget)
                        self.widgets[(widget, proto.label)] = proto.id
                    if widget == "bidi_component" and element.bidi_component.component_name.endswith(
                        LIVE_TEXT
                    ):
                        drawn = json.loads(element.bidi_component.json)
                        if drawn.get("label") == self.live_label:
                            self.live_box = (element.bidi_component.id, forward.delta.fragment_id)
            elif kind == "script_finished":
                return seen


async def paste_and_train(
    base_url: str,
    corpus: str,
    vocab_size: int,
    wanted: str = "Merges learned",
    timeout: float = 300.0,
    on_click: Callable[[], None] | None = None,
) -> float:
    """Open the Train page, paste `corpus`, set the vocabulary size and click Train, as a browser
    sends those widget states; return the seconds from the click until `wanted` was drawn.
    `on_click` is called once the click is sent (another thread may wait for it)."""
    host = base_url.split("//", 1)[1]
    async with websockets.connect(
        f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], origin=base_url, max_size=2**27
    ) as socket:
        session = Session(socket)
        deadline = time.monotonic() + timeout
        await session.run()
        await session.until(deadline)
        session.states = [
            (session.widgets[("text_area", PASTE["text_area"])], "string_value", corpus),
            (session.widgets[("number_input", PASTE["number_input"])], "int_value", vocab_size),
        ]
        clicked = time.monotonic()
        await session.run(trigger=session.widgets[("button", PASTE["button"])])
        if on_click is not None:
            on_click()
        # The run that handles the click starts the training and reruns; the page then waits
        # (inline, then its poller fragment every second) until the summary is drawn.
        while not await session.until(deadline, wanted=wanted.encode()):
            pass
        return time.monotonic() - clicked


async def type_live(
    base_url: str,
    page_name: str,
    query: str,
    label: str,
    text: str,
    key_seconds: float,
    throttle_seconds: float = 0.1,
    timeout: float = 300.0,
    on_open: Callable[[], None] | None = None,
) -> list[float]:
    """Open page `page_name` with `query`, then type `text` into the live box labelled `label` (its
    first key replaces what it holds), a key every `key_seconds`, sending as the box does (at most
    once per `throttle_seconds`, one text in flight). Returns, for each text sent, the seconds until
    its fragment's run finished. `on_open` is called once the page is drawn, before the first key."""
    host = base_url.split("//", 1)[1]
    async with websockets.connect(
        f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], origin=base_url, max_size=2**27
    ) as socket:
        session = Session(socket, page_name=page_name, live_label=label)
        deadline = time.monotonic() + timeout
        await session.run(query)
        await session.until(deadline)
        if session.live_box is None:
            raise LookupError(f"no live box {label!r} on {page_name!r}")
        if on_open is not None:
            on_open()
        box_id, fragment_id = session.live_box
        times: list[float] = []
        started, sent_keys, last_send = time.monotonic(), 0, 0.0
        while sent_keys < len(text):
            now = time.monotonic()
            typed = min(len(text), int((now - started) / key_seconds) + 1)
            if typed == sent_keys or now - last_send < throttle_seconds:
                await asyncio.sleep(0.005)
                continue
            sent_keys, last_send = typed, now
            session.states = [(box_id, "json_value", json.dumps({"text": text[:typed]}))]
            await session.run(query, fragment_id=fragment_id, auto=False)
            await session.until(deadline)
            times.append(time.monotonic() - now)
        return times
