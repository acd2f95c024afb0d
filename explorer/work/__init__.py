"""Heavy work (training, measuring a whole corpus) in worker processes, never in the server's threads.

- `pool.WorkerPool`: a bounded, self-healing pool of worker processes; `submit` / `request` give a
  `Job` / `JobHandle` (jobs.py) shared by key, with progress, cancel and a hard time limit.
- `dispatch.Dispatcher`: what a pool holds: its jobs, its workers, and the one thread that talks to
  worker processes; `PoolSettings`, the pool's settings, fixed when it is made.
- `worker`: the worker process's side (`Reporter.report`, `Reporter.should_stop`).
- `process`: starting, ending and describing one worker process.
- `tasks`: the real jobs, `train_task` and `measure_task`, taking plain data.
- `config.default_pool()`: the server's pool, sized from EXPLORER_WORKERS / EXPLORER_TASKS_PER_WORKER.

What it does not do: import streamlit, or store results (explorer.runstore).
"""

from explorer.work.config import default_pool
from explorer.work.dispatch import PoolLoad, PoolSettings
from explorer.work.jobs import CANCELLED, CRASHED, DONE, FAILED, FINAL_STATES, QUEUED, RUNNING, Job, JobHandle
from explorer.work.pool import WorkerPool

__all__ = [
    "CANCELLED",
    "CRASHED",
    "DONE",
    "FAILED",
    "FINAL_STATES",
    "QUEUED",
    "RUNNING",
    "Job",
    "JobHandle",
    "PoolLoad",
    "PoolSettings",
    "WorkerPool",
    "default_pool",
]
