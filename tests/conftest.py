"""What every test shares: a run store of its own, in a temporary folder, for the whole session
(each pytest-xdist worker has its own session, so its own store); the order tests start in, the
longest first (`slow`, then the browser's, then AppTest's, then the rest), so that the workers end
together on short tests rather than one waiting for another's last long test (tasks.py hands whole
files to a worker as it frees up, in this order: `--dist loadfile --no-loadscope-reorder`; with
`worksteal` each worker was first given a third of the list, so one got every long test and the
others took them over late, a module at the tail); and, at the end of
the run, the time each folder of tests took, so that a folder growing slower is seen the day it
starts.

The app keeps finished runs in a store on disk (explorer.runstore; by default under ~/.cache). The
tests, and the servers the browser tests start (they inherit this environment), use a fresh one
instead, so nothing a developer trained by hand changes what a test sees, and nothing a test
trains is left behind.

The run store's contract tests take `run_stores` (tests/helpers/stores.py), which runs each on both
backends: SQLite, and PostgreSQL on a private server started once per session (so once per xdist
worker) the first time a test asks for it, and stopped at the session's end, even after a failure
(`postgres_cluster`; skipped with a message where PostgreSQL is not installed).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import defaultdict

import pytest

_STORE_FOLDER = tempfile.mkdtemp(prefix="explorer-test-store-")
os.environ.setdefault("EXPLORER_STORE_PATH", os.path.join(_STORE_FOLDER, "runs.sqlite3"))

# folder of tests -> seconds its tests took (setup, call and teardown), summed over the workers
_FOLDER_SECONDS: dict[str, float] = defaultdict(float)
_FOLDER_TESTS: dict[str, int] = defaultdict(int)
_STARTED = time.monotonic()


def _folder(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return path.rsplit("/", 1)[0] if "/" in path else "."


def _start_rank(item) -> int:
    if item.get_closest_marker("slow"):
        return 0
    return 1 if item.get_closest_marker("browser") else 2 if "/app/" in item.nodeid else 3


def pytest_collection_modifyitems(items):
    items.sort(key=_start_rank)  # stable: each group keeps its files' order


def pytest_runtest_logreport(report):
    folder = _folder(report.nodeid)
    _FOLDER_SECONDS[folder] += report.duration
    if report.when == "call" or (report.when == "setup" and report.skipped):
        _FOLDER_TESTS[folder] += 1


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput") or not _FOLDER_SECONDS:  # a worker: the controller reports
        return
    workers = getattr(config.option, "numprocesses", None) or 1
    terminalreporter.write_sep("-", "time by folder")
    for folder, seconds in sorted(_FOLDER_SECONDS.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:8.1f} s  {_FOLDER_TESTS[folder]:5d} tests  {folder}")
    wall = time.monotonic() - _STARTED
    terminalreporter.write_line(
        f"{sum(_FOLDER_SECONDS.values()):8.1f} s  of tests in {wall:.1f} s of wall time "
        f"({workers} worker{'s' if workers != 1 else ''})"
    )


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_STORE_FOLDER, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster():
    from tests.helpers.postgres_cluster import Cluster, programs

    folder = programs()
    if folder is None:
        pytest.skip("PostgreSQL is not installed (python3 tasks.py test installs Debian's postgresql)")
    cluster = Cluster(folder)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def run_stores(request, tmp_path, monkeypatch):
    """The test's run store, on each backend in turn (tests/helpers/stores.py)."""
    from tests.helpers.stores import PostgresStores, SQLiteStores

    if request.param == "postgres":
        stores = PostgresStores(request.getfixturevalue("postgres_cluster"))
    else:
        stores = SQLiteStores(tmp_path, monkeypatch)
    try:
        yield stores
    finally:
        stores.close()


def pytest_sessionstart(session):
    """The link walk's seeds, first (even with -q), so that a failing walk can be replayed."""
    if hasattr(session.config, "workerinput"):
        return
    from tests.helpers.walk_seeds import walk_seeds

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(
            f"link walk seeds: {', '.join(map(str, walk_seeds()))} (replay one with "
            "EXPLORER_LINK_WALK_SEED=S; more walks with EXPLORER_LINK_WALKS=N; docs/testing.md)"
        )
