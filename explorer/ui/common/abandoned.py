"""Work and memory whose visitor went away: a tab closed during its training (or measurement) has
the job cancelled, unless another visitor waits for the same job; a closed tab's large session
values (an upload's text) are let go, and the freed memory given back to the system.

A session keeps a `JobHandle` (explorer.work.jobs) for each job it waits for; when the last handle
of a job is released, the job is cancelled. Streamlit keeps a disconnected session around for
`server.disconnectedSessionTTL` and then drops it only when its store of sessions is next touched,
so waiting for the session to be garbage-collected could leave a closed tab's training running for
minutes. Instead, `hold(handle)` notes the session that holds it, and one watcher thread per server
checks every `CHECK_SECONDS` whether that session is still connected (Streamlit's runtime); a handle
whose session has been away for `grace_seconds()` (EXPLORER_ABANDONED_SECONDS, default 30: a
reload reconnects or opens a new session, which attaches its own handle through the URL, well
within it) is released.

`when_gone(name, release)` is the same watch for a session's memory: `release` is called once the
session has been away for `grace_seconds()`, and then glibc is asked to give the memory freed back
(`serving.give_memory_back`). Streamlit keeps a disconnected session, with everything in its
state, for two minutes and frees it only when a later visitor leaves; and memory freed by Python
stays mapped in glibc's heaps, which a 49 MB upload's reading and checking leave in pieces: three
visitors who had uploaded 49 MB each and closed their tabs left the server at 512 MB for good.

Outside a Streamlit server (AppTest, the CLI) there is no runtime to ask: `hold` and `when_gone` do
nothing, and a handle is released with its session, as before.

What it does not do: cancel a job someone else still waits for (the pool counts handles), or
decide when work is done (explorer.ui.common.training, explorer.ui.compare.measuring release on completion).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from explorer.session import serving

LOG = logging.getLogger(__name__)

CHECK_SECONDS = 2.0
DEFAULT_GRACE_SECONDS = 30.0

_lock = threading.Lock()
_held: dict[int, list] = {}  # id(handle) -> [handle, session id, away since (monotonic) or None]
_leaving: dict[str, list] = {}  # session id -> [{name: release}, away since (monotonic) or None]
_watcher: list[threading.Thread] = []


def grace_seconds() -> float:
    raw = os.environ.get("EXPLORER_ABANDONED_SECONDS", "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_GRACE_SECONDS
    return value if value >= 0 else DEFAULT_GRACE_SECONDS


def _runtime():
    try:
        from streamlit.runtime import Runtime

        return Runtime.instance() if Runtime.exists() else None
    except Exception:  # noqa: BLE001 (no runtime: AppTest, a script, another Streamlit)
        return None


def _session_id() -> str | None:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        context = get_script_run_ctx()
    except Exception:  # noqa: BLE001
        return None
    return getattr(context, "session_id", None)


def hold(handle) -> None:
    """Watch `handle` on behalf of the session running this script (nothing outside a server)."""
    session_id = _session_id()
    if session_id is None or _runtime() is None:
        return
    with _lock:
        _held[id(handle)] = [handle, session_id, None]
        _start_watcher()


def when_gone(name: str, release: Callable[[], None]) -> None:
    """Call `release` once the session running this script has been away for `grace_seconds()`
    (nothing outside a server); the last `release` given under `name` for the session is the one."""
    session_id = _session_id()
    if session_id is None or _runtime() is None:
        return
    with _lock:
        _leaving.setdefault(session_id, [{}, None])[0][name] = release
        _start_watcher()


def _start_watcher() -> None:
    if not _watcher or not _watcher[0].is_alive():
        _watcher[:] = [threading.Thread(target=_watch, name="abandoned-work", daemon=True)]
        _watcher[0].start()


def forget(handle) -> None:
    """The session released `handle` itself (its work is done, or it let go)."""
    with _lock:
        _held.pop(id(handle), None)


def _watch() -> None:
    while True:
        time.sleep(CHECK_SECONDS)
        runtime = _runtime()
        if runtime is not None:
            look(runtime)


def look(runtime) -> None:
    """One look of the watcher (every CHECK_SECONDS) at the sessions it watches, asking `runtime`
    which are connected: a session seen away first is noted, one away for `grace_seconds()` has its
    handles released and its `when_gone` releases called."""
    now, grace = time.monotonic(), grace_seconds()
    released = []
    with _lock:
        for key, entry in list(_held.items()):
            handle, session_id, away_since = entry
            if handle.released or handle.job.finished:
                del _held[key]
                continue
            if runtime.is_active_session(session_id):
                entry[2] = None
            elif away_since is None:
                entry[2] = now
            elif now - away_since >= grace:
                del _held[key]
                released.append(handle)
        gone = _sessions_gone(runtime, now, grace)
    for handle in released:
        LOG.info("released %r: its session left %.0f s ago", handle, grace)
        handle.release()
    for session_id, releases in gone:
        LOG.info("let go of %s of session %s: it left %.0f s ago", ", ".join(releases), session_id, grace)
        for release in releases.values():
            release()
    if gone:
        serving.give_memory_back()


def _sessions_gone(runtime, now: float, grace: float) -> list[tuple[str, dict]]:
    """The sessions of `_leaving` away for `grace` seconds, taken out of it (under `_lock`)."""
    gone = []
    for session_id, entry in list(_leaving.items()):
        if runtime.is_active_session(session_id):
            entry[1] = None
        elif entry[1] is None:
            entry[1] = now
        elif now - entry[1] >= grace:
            del _leaving[session_id]
            gone.append((session_id, entry[0]))
    return gone
