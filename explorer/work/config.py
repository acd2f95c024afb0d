"""The server's one worker pool, sized from the environment.

    EXPLORER_WORKERS            worker processes (default: the cores this process may use, >= 1)
    EXPLORER_TASKS_PER_WORKER   jobs a worker runs before it is replaced (default 20)
    EXPLORER_WARM_UP            1 (default): keep every worker started and warm for Compare;
                                0: start workers only for work, and no warm-up
    EXPLORER_WORKER_MEMORY_MB   what one worker may allocate (default 3,000; 0: no limit), read
                                and enforced by each worker itself (explorer.work.worker)

`default_pool()` creates the pool on first use (its workers start when work arrives, or at
`warm_up()`), preloading explorer.work.tasks in every worker so a job does not pay for imports.
Once the first job has arrived, every worker is kept started, and an idle worker warms up for the
Compare page (`IDLE_STEPS`: explorer.work.tasks.warm_up, the GPT vocabularies), so that page's
first visit does not wait for them.
A malformed variable is logged and its default used: a typo must not take the demo down.

What it does not do: read the training limits (explorer.checks.Limits) or the store's settings
(explorer.runstore).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping

from explorer.work.pool import WorkerPool
from explorer.work.tasks import WARM_UP_STEPS

LOG = logging.getLogger(__name__)

DEFAULT_TASKS_PER_WORKER = 20
PRELOAD = ("explorer.work.tasks",)
IDLE_STEPS = tuple(("explorer.work.tasks:warm_up", (step,)) for step in WARM_UP_STEPS)
DEFAULTS = {
    "tasks_per_worker": DEFAULT_TASKS_PER_WORKER,
    "preload": PRELOAD,
    "idle_steps": IDLE_STEPS,
    "keep_all_started": True,
}

_default: WorkerPool | None = None
_default_lock = threading.Lock()


def _positive_int(environ: Mapping[str, str], name: str) -> int | None:
    raw = environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {raw!r}")
    return value


def pool_settings(environ: Mapping[str, str] | None = None) -> dict:
    """WorkerPool keyword arguments from the environment; ValueError naming a bad variable."""
    environ = os.environ if environ is None else environ
    settings = dict(DEFAULTS)
    size = _positive_int(environ, "EXPLORER_WORKERS")
    if size is not None:
        settings["size"] = size
    tasks = _positive_int(environ, "EXPLORER_TASKS_PER_WORKER")
    if tasks is not None:
        settings["tasks_per_worker"] = tasks
    warm_up = environ.get("EXPLORER_WARM_UP", "").strip()
    if warm_up not in ("", "0", "1"):
        raise ValueError(f"EXPLORER_WARM_UP must be 0 or 1, not {warm_up!r}")
    if warm_up == "0":
        settings["idle_steps"], settings["keep_all_started"] = (), False
    return settings


def default_pool() -> WorkerPool:
    """The process-wide pool, created on first call (and again if the last one has closed)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            try:
                settings = pool_settings()
            except ValueError as error:
                LOG.warning("%s; using the default worker pool settings", error)
                settings = dict(DEFAULTS)
            _default = WorkerPool(**settings)
        return _default
