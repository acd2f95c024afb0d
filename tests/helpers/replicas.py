"""Several replicas of the app behind nginx, with one PostgreSQL store, as the tests and
bench/replicas_bench.py start them: `tasks.Replicas` (what `python3 tasks.py app --replicas N` runs)
on a database of a private cluster (tests/helpers/postgres_cluster.py), and which replica a sticky
cookie lands on.

What it does not do: start a browser (tests/browser/helpers.py), or decide anything nginx decides:
the replica of a cookie is asked of nginx itself (its X-Explorer-Replica header).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator

import tasks
from tests.helpers.postgres_cluster import USER, Cluster

# Settings of the replicas the tests start: one worker each (two replicas on a 2-core machine).
TEST_ENVIRON = {"EXPLORER_WORKERS": "1"}


def database_url(cluster: Cluster, name: str) -> str:
    """A new, empty database `name` in `cluster` (the store's contract tests use `postgres`)."""
    command = [*cluster.as_user, str(cluster.bin / "createdb"), "-h", "127.0.0.1", "-p", str(cluster.port)]
    subprocess.run([*command, "-U", USER, name], check=True, capture_output=True)
    return f"postgresql://{USER}@127.0.0.1:{cluster.port}/{name}"


@contextlib.contextmanager
def replicas_on(cluster: Cluster, database: str, count: int = 2, logs=None) -> Iterator[tasks.Replicas]:
    """`count` replicas and nginx, sharing a new database of `cluster` as their store."""
    environ = dict(os.environ, **TEST_ENVIRON, EXPLORER_STORE_URL=database_url(cluster, database))
    with tasks.Replicas(sys.executable, count, environ=environ, logs=logs) as replicas:
        yield replicas


def cookie(value: str) -> str:
    return f"{tasks.REPLICA_COOKIE}={value}"


def replica_of(replicas: tasks.Replicas, value: str) -> int:
    """The replica (its index) nginx sends a visitor with sticky cookie `value` to."""
    request = urllib.request.Request(replicas.url + "/_stcore/health", headers={"Cookie": cookie(value)})
    with urllib.request.urlopen(request, timeout=10) as response:
        address = response.headers["X-Explorer-Replica"]
    return [f"127.0.0.1:{port}" for port in replicas.ports].index(address.split(",")[-1].strip())


def cookie_for(replicas: tasks.Replicas, index: int) -> str:
    """A sticky cookie's value that nginx sends to replica `index` (a few tries: the hash spreads)."""
    for attempt in range(200):
        value = f"visitor-{attempt}"
        if replica_of(replicas, value) == index:
            return value
    raise AssertionError(f"no cookie of 200 lands on replica {index}")
