"""What every test shares: a run store of its own, in a temporary folder, for the whole session.

The app keeps finished runs in a store on disk (explorer.runstore; by default under ~/.cache). The
tests, and the servers the browser tests start (they inherit this environment), use a fresh one
instead, so nothing a developer trained by hand changes what a test sees, and nothing a test
trains is left behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile

_STORE_FOLDER = tempfile.mkdtemp(prefix="explorer-test-store-")
os.environ.setdefault("EXPLORER_STORE_PATH", os.path.join(_STORE_FOLDER, "runs.sqlite3"))


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_STORE_FOLDER, ignore_errors=True)
