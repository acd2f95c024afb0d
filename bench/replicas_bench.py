"""Two replicas of the app behind nginx, with one PostgreSQL store: a class on one link through
nginx, and a link trained on one replica opened on the other.

    .venv/bin/python bench/replicas_bench.py [--sessions 60]
    .venv/bin/python bench/replicas_bench.py --smoke      # small, once (what CI runs)

Starts a private PostgreSQL server (tests/helpers/postgres_cluster.py) and two replicas with
nginx in front as `python3 tasks.py app --replicas 2` starts them (tasks.Replicas, through
tests/helpers/replicas.py: one worker per replica, the two replicas sharing this machine's cores).
- class: --sessions websocket visitors (bench/visitors.py), each with a sticky cookie of its own
  so that nginx spreads them, open one Train link at once (tinyshakespeare BPE 3,000, a run the
  store does not hold); each one's time to the summary (median, slowest), how many went to each
  replica, how many runs were stored (one: each replica trains the link for its own visitors, and
  both store it under one key), and every replica's `/_stcore/health` probed every 0.25 s on its own port
  (the slowest answer).
- A -> B, --links times (default 3): a visitor on replica A trains a link (BPE 5,000 on the same
  sample, then 5,001, ...: each a run B has never read); its link, with the run's key, opened in a
  Chromium tab sent to replica B that has drawn the app once before (so its browser cache holds
  Streamlit's scripts, as a student's does after a first visit): the time from the first byte of
  the page to the summary drawn (each, and their median), and whether B trained (the store's rows
  before and after).
--smoke: 2 visitors, the course's sample at BPE 300, one link. Without PostgreSQL or nginx it says
so and ends with status 0.

A benchmark: it prints figures (no pass/fail besides failures to finish).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from serving_bench import CLASS_LINK, NOT_HERE, SMOKE_LINK, Health  # noqa: E402
from visitors import visit  # noqa: E402

import tasks  # noqa: E402
from tests.browser.helpers import ARTIFACTS, VIEWPORT, chromium, chromium_missing_reason  # noqa: E402
from tests.helpers.postgres_cluster import Cluster, programs  # noqa: E402
from tests.helpers.replicas import cookie, cookie_for, replica_of, replicas_on  # noqa: E402

A_TO_B_LINK = "algorithm=bpe&sample=shakespeare&vocab_size={size}&" + NOT_HERE
A_TO_B_SIZE, A_TO_B_SMOKE_SIZE = 5000, 310
A_TO_B_SMOKE = "algorithm=bpe&sample=hf-course&vocab_size={size}&" + NOT_HERE


def stored_keys(replicas: tasks.Replicas) -> list[str]:
    with psycopg.connect(replicas.environ["EXPLORER_STORE_URL"]) as connection:
        if connection.execute("SELECT to_regclass('runs') IS NULL").fetchone()[0]:
            return []
        return [row[0] for row in connection.execute("SELECT key FROM runs ORDER BY key")]


def a_class(replicas: tasks.Replicas, sessions: int, link: str) -> None:
    values = [f"visitor-{i}" for i in range(sessions)]
    where = collections.Counter(replica_of(replicas, value) for value in values)
    before = len(stored_keys(replicas))

    async def everyone():
        return await asyncio.gather(
            *[visit(replicas.url, link, "Merges learned", 300.0, cookie=cookie(value)) for value in values],
            return_exceptions=True,
        )

    with contextlib.ExitStack() as stack:
        probes = [stack.enter_context(Health(url)) for url in replicas.replica_urls]
        begun = time.monotonic()
        results = asyncio.run(everyone())
        wall = time.monotonic() - begun
    times = sorted(result for result in results if isinstance(result, float))
    failures = [repr(result) for result in results if not isinstance(result, float)]
    print(f"class: {sessions} websocket visitors of /?{link} through nginx at once")
    print(
        f"  to the summary: median {statistics.median(times):.1f} s, slowest {times[-1]:.1f} s; "
        f"wall {wall:.1f} s; visitors per replica {[where[i] for i in range(len(replicas.ports))]}; "
        f"runs stored {len(stored_keys(replicas)) - before}; failures: {failures or 'none'}"
    )
    slowest = ", ".join(f"{max(probe.times):.2f} s" for probe in probes)
    print(f"  each replica's /_stcore/health, slowest: {slowest}")


def a_to_b(replicas: tasks.Replicas, link: str, size: int, links: int) -> None:
    """`links` runs trained through replica A (vocabulary `size`, `size` + 1, ...), each opened by
    its link on replica B in one tab (see the module docstring)."""
    on_a, on_b = cookie_for(replicas, 0), cookie_for(replicas, 1)
    opened, trained = [], []
    for number in range(links):
        asked = link.format(size=size + number)
        before = set(stored_keys(replicas))
        trained.append(asyncio.run(visit(replicas.url, asked, "Merges learned", 300.0, cookie=cookie(on_a))))
        (key,) = set(stored_keys(replicas)) - before
        opened.append(asked.replace(NOT_HERE, f"run={key}"))
    stored = len(stored_keys(replicas))
    drawn = []
    with chromium() as browser:
        context = browser.new_context(viewport=VIEWPORT)
        context.add_cookies([{"name": tasks.REPLICA_COOKIE, "value": on_b, "url": replicas.url}])
        tab = context.new_page()
        tab.goto(replicas.url + "/", wait_until="domcontentloaded")  # a first visit: the scripts cached
        tab.get_by_role("button", name="Train", exact=True).wait_for(timeout=120_000)
        for query in opened:
            tab.goto(f"{replicas.url}/?{query}", wait_until="commit")  # the page's first byte
            begun = time.monotonic()
            tab.get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
            drawn.append(time.monotonic() - begun)
        context.close()
    print(
        f"A -> B: /?{link.format(size=size)} (then vocabulary sizes up to {size + links - 1}) trained "
        f"through replica A in {', '.join(f'{seconds:.1f}' for seconds in trained)} s; each link opened "
        "on replica B"
    )
    after = len(stored_keys(replicas))
    print(
        f"  first byte -> summary drawn {', '.join(f'{seconds:.2f}' for seconds in drawn)} s "
        f"(median {statistics.median(drawn):.2f} s); runs stored {after} "
        f"(before B's visits {stored}: B trained {'nothing' if after == stored else 'again'})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--links", type=int, default=3, help="links trained on A and opened on B")
    args = parser.parse_args()
    missing = [
        what
        for what, there in (
            ("postgresql", programs()),
            ("nginx", tasks.nginx_program()),
            ("chromium", not chromium_missing_reason()),
        )
        if not there
    ]
    if missing:
        print(f"replicas: not run, {', '.join(missing)} not installed (python3 tasks.py test installs them)")
        return 0
    load = os.getloadavg()[0]
    print(f"two replicas behind nginx, one PostgreSQL store; load average {load:.1f} at the start")
    cluster = Cluster(programs())
    logs = ARTIFACTS / "replicas-bench"
    logs.mkdir(parents=True, exist_ok=True)
    try:
        with replicas_on(cluster, "bench", logs=logs) as replicas:
            a_class(replicas, 2 if args.smoke else args.sessions, SMOKE_LINK if args.smoke else CLASS_LINK)
            if args.smoke:
                a_to_b(replicas, A_TO_B_SMOKE, A_TO_B_SMOKE_SIZE, 1)
            else:
                a_to_b(replicas, A_TO_B_LINK, A_TO_B_SIZE, args.links)
    finally:
        cluster.stop()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
