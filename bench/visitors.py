"""Visitors without a browser: Streamlit sessions opened over the app's own websocket protocol.

A real browser tab costs about 2.5 s of CPU to draw this app (measured: 1.3 s for a one-metric
Streamlit page), so on a 2-core machine that also runs the server, sixteen tabs measure Chromium
more than the server. A `ProtocolVisitor` does what a tab does on the wire and nothing more: it
opens `/_stcore/stream`, asks for a script run of a page with a query string (a `rerun_script`
BackMsg, as the browser sends on load), and reads the ForwardMsgs (deltas) the server sends until
a text it waits for appears in them and the script run has finished. The server cannot tell it
from a browser: it gets a session of its own, runs the page script, trains or loads the run.

Used by bench/serving_bench.py. Not a test double: only the drawing is left out.
"""

from __future__ import annotations

import asyncio
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

# The Train page's widgets a visitor who pastes a corpus touches, by the label they show.
PASTE = {"text_area": "Corpus", "number_input": "Exact vocabulary size", "button": "Train"}


async def visit(base_url: str, query: str, wanted: str, timeout: float = 300.0) -> float:
    """Open a session on `base_url` with `query` (no "?"), run the page, and return the seconds
    until `wanted` was in its deltas and the script run had finished. Raises TimeoutError."""
    host = base_url.split("//", 1)[1]
    started = time.monotonic()
    async with websockets.connect(
        f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], origin=base_url, max_size=2**27
    ) as socket:
        session = Session(socket)
        await session.run(query)
        deadline = started + timeout
        while not await session.until(deadline, wanted=wanted.encode()):
            pass
        return time.monotonic() - started


class Session:
    """One visitor's websocket session: sends script runs, reads what the server draws, and does what
    a browser does on its own: rerun a fragment every `run_every` seconds while the server asks
    (the Train page's progress poller), sending the widget states it has set."""

    def __init__(self, socket):
        self.socket = socket
        self.widgets: dict = {}  # (type, label) -> widget id
        self.states: list[tuple[str, str, object]] = []  # (widget id, field, value) to send on reruns
        self.timers: dict[str, float] = {}  # fragment id -> interval
        self.next_tick: dict[str, float] = {}

    async def run(self, query: str = "", trigger: str | None = None, fragment_id: str = "") -> None:
        message = BackMsg()
        message.rerun_script.query_string = query
        if fragment_id:
            message.rerun_script.fragment_id = fragment_id
            message.rerun_script.is_auto_rerun = True
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
            elif kind == "script_finished":
                return seen


async def paste_and_train(
    base_url: str, corpus: str, vocab_size: int, wanted: str = "Merges learned", timeout: float = 300.0
) -> float:
    """Open the Train page, paste `corpus`, set the vocabulary size and click Train, as a browser
    sends those widget states; return the seconds from the click until `wanted` was drawn."""
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
        # The run that handles the click starts the training and reruns; the page then waits
        # (inline, then its poller fragment every second) until the summary is drawn.
        while not await session.until(deadline, wanted=wanted.encode()):
            pass
        return time.monotonic() - clicked
