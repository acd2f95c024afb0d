"""The worker pool (explorer.work): progress, cancel, crashes, recycling, sharing by key, interest
counted by handles, the hard time limit, order, and no process left behind.

Tasks come from tests/helpers/worker_tasks.py (a worker imports a task by name). Every test's pool is
shut down by the `make_pool` fixture, which then checks that no worker it ever saw is alive.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
import time
import types
from multiprocessing.connection import Pipe

import pytest

from explorer.work import CANCELLED, CRASHED, DONE, FAILED, QUEUED, RUNNING, WorkerPool
from explorer.work.config import IDLE_STEPS, pool_settings
from explorer.work.jobs import GRACE_WALL_FACTOR, Job
from explorer.work.process import cpu_seconds
from explorer.work.worker import IDLE_AFTER, Reporter, failure_sentence
from tests.helpers import worker_tasks
from tests.helpers.processes import alive, wait_until

# A safety net, never the mechanism: with both cores kept busy (stress-ng --cpu 2) beside the suite,
# the few worker starts of test_workers_that_cannot_start_fail_the_queued_jobs took over 30 s.
TIMEOUT = 120.0


@pytest.fixture
def make_pool():
    pools, seen = [], set()

    def make(**options) -> WorkerPool:
        pool = WorkerPool(**options)
        pools.append(pool)
        return pool

    yield make, seen
    for pool in pools:
        seen.update(pool.worker_pids())
        pool.shutdown()
    for pid in seen:
        wait_until(lambda pid=pid: not alive(pid), 10, f"worker {pid} to end")


def running(job):
    wait_until(lambda: job.state == RUNNING and job.worker_pid is not None, what=f"{job} to run")
    return job.worker_pid


def test_a_job_runs_in_another_process_and_returns_its_result(make_pool):
    make, seen = make_pool
    pool = make(size=1)
    job = pool.submit("pid", worker_tasks.whoami)
    assert job.wait(TIMEOUT)
    seen.add(job.result)
    assert job.state == DONE and job.error is None
    assert job.result == job.worker_pid != os.getpid()


def test_workers_run_at_a_lower_priority_than_the_server(make_pool):
    make, _ = make_pool
    job = make(size=1).submit("nice", worker_tasks.niceness)
    assert job.wait(TIMEOUT) and job.result == min(19, os.nice(0) + 10)
    polite = make(size=1, niceness=0).submit("as nice as the server", worker_tasks.niceness)
    assert polite.wait(TIMEOUT) and polite.result == os.nice(0)


def test_progress_arrives_while_the_job_runs(make_pool):
    make, _ = make_pool
    pool = make(size=1, report_interval=0.05)
    job = pool.submit("count", worker_tasks.count, 40, 0.02)
    seen_steps = set()
    while not job.wait(0.01):
        if "step" in job.progress:
            seen_steps.add(job.progress["step"])
    assert job.state == DONE and job.result == 40
    assert len(seen_steps) >= 3  # several reports during the run, not only at its end
    assert job.progress["of"] == 40


def test_reports_are_throttled_and_fields_accumulate():
    server_end, worker_end = Pipe()
    now = [0.0]
    reporter = Reporter(worker_end, task_id=7, interval=0.1, clock=lambda: now[0])
    reporter.report(phase="training", step=0)
    for step in range(1, 50):  # 49 reports within the same tenth of a second
        reporter.report(step=step)
    now[0] = 0.1
    reporter.report(step=50)
    messages = []
    while server_end.poll():
        messages.append(server_end.recv())
    assert messages == [("progress", 7, {"phase": "training", "step": 0}), ("progress", 7, {"step": 50})]
    reporter.report(step=51)  # held back ...
    assert not server_end.poll()
    now[0] = 0.3
    assert reporter.should_stop() is False  # ... and sent by the next check
    assert server_end.recv() == ("progress", 7, {"step": 51})


def test_should_stop_sees_only_a_cancel_of_its_own_task():
    server_end, worker_end = Pipe()
    reporter = Reporter(worker_end, task_id=3, interval=0.1)
    server_end.send(("cancel", 2))  # a late cancel of an earlier task
    assert reporter.should_stop() is False
    server_end.send(("cancel", 3))
    assert reporter.should_stop() is True and reporter.cancelled


def test_cancelling_a_queued_job_removes_it(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    first = pool.submit("first", worker_tasks.until_stopped)
    running(first)
    second = pool.submit("second", worker_tasks.echo, "never")
    third = pool.submit("third", worker_tasks.echo, "third")
    assert second.state == QUEUED and (second.ahead(), third.ahead(), first.ahead()) == (0, 1, 0)
    second.cancel()
    assert second.wait(1) and second.state == CANCELLED and second.worker_pid is None
    assert third.ahead() == 0 and pool.load() == (1, 1, 1)
    first.cancel()
    assert first.wait(TIMEOUT) and third.wait(TIMEOUT) and third.result == "third"


def test_a_cancelled_job_that_checks_should_stop_returns_and_its_worker_is_retired(make_pool):
    """A Stop ends the work for real: the function returns what it has (a stopped trainer's merges
    so far), then its worker process exits and the next job gets a new one."""
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("polite", worker_tasks.until_stopped)
    pid = running(job)
    job.cancel()
    assert job.wait(TIMEOUT)
    assert job.state == DONE and job.result == "stopped" and job.cancel_requested
    after = pool.submit("after", worker_tasks.whoami)
    assert after.wait(TIMEOUT) and after.result != pid
    wait_until(lambda: not alive(pid), TIMEOUT, f"worker {pid} to end")


def test_a_job_that_saw_the_cancel_gets_longer_than_the_grace_period_to_return(make_pool, tmp_path):
    """A function that says it saw the cancel (its should_stop() was True) may take longer than the
    cancel's grace to return. This one then works (using the CPU) until the test writes a file, and
    the test writes it once the worker has used three graces of CPU time since the cancel: without
    the longer time the worker would have been terminated by then."""
    make, _ = make_pool
    grace = 1.0  # of the worker's CPU time: it checks every 10 ms, however busy the machine
    pool = make(size=1, cancel_grace=grace, finish_grace=TIMEOUT)
    release = tmp_path / "release"
    job = pool.submit("slow to stop", worker_tasks.slow_to_stop, str(release))
    pid = running(job)
    before = cpu_seconds(pid)
    job.cancel()

    def spent() -> float:
        now = cpu_seconds(pid)
        return 0.0 if now is None else now - before

    wait_until(lambda: job.finished or spent() > 3 * grace, TIMEOUT, "three graces of the worker's CPU")
    assert job.state == RUNNING
    release.touch()
    assert job.wait(TIMEOUT) and job.state == DONE and job.result == "wrapped up"


def test_a_cancelled_jobs_grace_is_its_workers_cpu_time_and_ten_graces_of_wall_time_at_most():
    """A busy machine starves the (nice 10) workers: the grace is what the worker could use of it.
    The clock and the CPU readings are the test's, so nothing here depends on the machine."""
    job = Job(None, "key", 1, b"", time_limit=None)
    job.start(worker_pid=1, now=0.0)
    job.request_cancel(now=0.0, grace=1.0, cpu=50.0)
    assert not job.cancel_overdue(0.5, lambda: pytest.fail("CPU read before the grace's wall time"))
    assert not job.cancel_overdue(1.0, lambda: 50.25)  # a quarter of a core: 0.75 s more to come
    assert job.deadlines() == [1.75]
    assert not job.cancel_overdue(1.75, lambda: 50.5)
    assert job.cancel_overdue(2.5, lambda: 51.0)  # the grace's CPU is used up

    asleep = Job(None, "key", 2, b"", time_limit=None)
    asleep.start(worker_pid=1, now=0.0)
    asleep.request_cancel(now=0.0, grace=1.0, cpu=50.0)
    assert not asleep.cancel_overdue(9.9, lambda: 50.0)  # no CPU used: a blocked function
    assert asleep.cancel_overdue(10.0, lambda: 50.0)  # ten graces of wall time
    assert GRACE_WALL_FACTOR == 10

    unknown = Job(None, "key", 3, b"", time_limit=None)  # where CPU time cannot be read: wall time
    unknown.start(worker_pid=1, now=0.0)
    unknown.request_cancel(now=0.0, grace=1.0, cpu=None)
    assert unknown.cancel_overdue(1.0, lambda: pytest.fail("CPU read without a first reading"))

    stopping = Job(None, "key", 4, b"", time_limit=None)
    stopping.start(worker_pid=1, now=0.0)
    stopping.request_cancel(now=0.0, grace=1.0, cpu=50.0)
    stopping.give_time_to_finish(now=0.5, grace=30.0, cpu=50.5)  # it said "stopping": a new grace
    assert not stopping.cancel_overdue(30.0, lambda: 60.0)
    assert stopping.cancel_overdue(40.0, lambda: 80.5)


def test_cancelling_a_running_job_that_ignores_it_terminates_its_worker(make_pool):
    make, _ = make_pool
    pool = make(size=1, cancel_grace=0.3)
    job = pool.submit("stubborn", worker_tasks.stubborn, 20 * TIMEOUT)
    pid = running(job)
    job.cancel()
    assert job.wait(TIMEOUT)  # long before the function would have returned by itself
    assert job.state == CANCELLED
    assert not alive(pid)  # the job ends only once its worker has been reaped
    replacement = pool.submit("next", worker_tasks.whoami)
    assert replacement.wait(TIMEOUT) and replacement.state == DONE and replacement.result != pid


def test_a_killed_worker_makes_its_job_crashed_and_the_next_job_runs(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("victim", worker_tasks.until_stopped)
    pid = running(job)
    os.kill(pid, signal.SIGKILL)
    assert job.wait(TIMEOUT)
    assert job.state == CRASHED
    assert job.error == "the worker process ended unexpectedly (signal 9, SIGKILL)"
    survivor = pool.submit("survivor", worker_tasks.echo, 42)
    assert survivor.wait(TIMEOUT) and survivor.state == DONE and survivor.result == 42


def test_a_worker_that_kills_itself_mid_job_is_reported_the_same_way(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("suicide", worker_tasks.kill_myself)
    assert job.wait(TIMEOUT) and job.state == CRASHED and "signal 9" in job.error


def test_workers_are_replaced_after_their_number_of_tasks(make_pool):
    make, seen = make_pool
    pool = make(size=1, tasks_per_worker=2)
    pids = []
    for index in range(5):
        job = pool.submit(f"pid-{index}", worker_tasks.whoami)
        assert job.wait(TIMEOUT) and job.state == DONE
        pids.append(job.result)
    seen.update(pids)
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]
    wait_until(lambda: not alive(pids[0]), 10, "the retired worker to exit")


def test_the_same_key_gives_the_same_job_while_it_is_queued_or_running(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("run-a", worker_tasks.until_stopped)
    assert pool.submit("run-a", worker_tasks.until_stopped) is job
    queued = pool.submit("run-b", worker_tasks.echo, "b")
    assert pool.submit("run-b", worker_tasks.echo, "ignored") is queued
    assert pool.find("run-a") is job
    job.cancel()
    assert job.wait(TIMEOUT) and queued.wait(TIMEOUT)
    assert queued.result == "b"
    assert pool.find("run-b") is queued  # kept for late readers
    again = pool.submit("run-b", worker_tasks.echo, "again")  # ended: a new job
    assert again is not queued and again.wait(TIMEOUT) and again.result == "again"


def test_thirty_sessions_asking_at_once_share_one_job(make_pool):
    make, _ = make_pool
    pool = make(size=2)
    handles, start = [], threading.Barrier(30)

    def session() -> None:
        start.wait()
        handles.append(pool.request("the class's sample", worker_tasks.count, 3, 0.05))

    sessions = [threading.Thread(target=session) for _ in range(30)]
    for thread in sessions:
        thread.start()
    for thread in sessions:
        thread.join()
    jobs = {id(handle.job) for handle in handles}
    assert len(handles) == 30 and len(jobs) == 1
    job = handles[0].job
    assert job.interest == 30 and job.wait(TIMEOUT) and job.state == DONE
    assert pool.load().workers == 1  # one job: one worker was needed


def test_the_last_handle_garbage_collected_cancels_a_running_job(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    first = pool.request("shared", worker_tasks.until_stopped)
    second = pool.request("shared", worker_tasks.until_stopped)
    job = first.job
    assert second.job is job
    running(job)
    del first
    gc.collect()
    time.sleep(0.3)
    assert job.state == RUNNING and not job.cancel_requested  # someone still holds it
    del second
    gc.collect()
    assert job.wait(TIMEOUT)
    assert job.cancel_requested and job.result == "stopped"


def test_the_last_handle_released_cancels_a_queued_job(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    blocker = pool.submit("blocker", worker_tasks.until_stopped)
    running(blocker)
    with pool.request("waiting", worker_tasks.echo, "never") as handle:
        job = handle.job
        assert job.state == QUEUED
    assert job.wait(TIMEOUT) and job.state == CANCELLED and job.worker_pid is None
    blocker.cancel()


def test_a_job_nobody_attached_to_runs_to_its_end(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("orphan", worker_tasks.count, 5, 0.01)
    gc.collect()
    assert job.wait(TIMEOUT) and job.state == DONE and job.result == 5


def test_stop_from_one_of_several_holders_only_releases_that_one(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    mine = pool.request("class-run", worker_tasks.until_stopped)
    theirs = pool.request("class-run", worker_tasks.until_stopped)
    running(mine.job)
    assert mine.cancel() is False and mine.released
    time.sleep(0.3)
    assert theirs.job.state == RUNNING and not theirs.job.cancel_requested
    assert theirs.cancel() is True
    assert theirs.job.wait(TIMEOUT) and theirs.job.result == "stopped"


def test_the_hard_time_limit_is_its_workers_cpu_time_and_ten_limits_of_wall_time_at_most():
    """As a cancel's grace: a starved worker's job is not failed for being slow on a busy machine
    (a 0.5 s training budget once hit its 60.5 s limit under load). The test's clock and CPU."""
    job = Job(None, "key", 1, b"", time_limit=2.0)
    job.start(worker_pid=1, now=0.0, cpu=10.0)
    assert not job.over_time_limit(1.9, lambda: pytest.fail("CPU read before the limit's wall time"))
    assert not job.over_time_limit(2.0, lambda: 10.5)  # a quarter of a core: 1.5 s more to come
    assert job.deadlines() == [3.5]
    assert job.over_time_limit(3.5, lambda: 12.0)  # two seconds of CPU used

    asleep = Job(None, "key", 2, b"", time_limit=2.0)
    asleep.start(worker_pid=1, now=0.0, cpu=10.0)
    assert not asleep.over_time_limit(19.9, lambda: 10.0)  # no CPU used: blocked
    assert asleep.over_time_limit(20.0, lambda: 10.0)  # ten limits of wall time

    unknown = Job(None, "key", 3, b"", time_limit=2.0)  # where CPU time cannot be read: wall time
    unknown.start(worker_pid=1, now=0.0, cpu=None)
    assert unknown.over_time_limit(2.0, lambda: pytest.fail("CPU read without a first reading"))

    unlimited = Job(None, "key", 4, b"", time_limit=None)
    unlimited.start(worker_pid=1, now=0.0, cpu=10.0)
    assert not unlimited.over_time_limit(10**6, lambda: 10.0**6) and unlimited.deadlines() == []


def test_the_hard_time_limit_terminates_the_worker(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("slow", worker_tasks.stubborn, 60, time_limit=0.5)
    pid = running(job)
    assert job.wait(TIMEOUT)
    assert job.state == FAILED and job.error == "it ran longer than its limit of 0.5 s and was stopped"
    assert not alive(pid)
    assert pool.submit("next", worker_tasks.echo, 1).wait(TIMEOUT)


def test_many_jobs_on_two_workers_start_in_order_two_at_a_time(make_pool):
    make, _ = make_pool
    pool = make(size=2)
    jobs = [pool.submit(f"job-{index}", worker_tasks.timed, 0.15) for index in range(8)]
    for job in jobs:
        assert job.wait(TIMEOUT) and job.state == DONE
    dispatched = [job.started for job in jobs]  # when the pool handed each job to a worker
    assert dispatched == sorted(dispatched)
    intervals = [job.result[1:] for job in jobs]  # when each ran, by the worker's clock
    for start, _ in intervals:  # never more than two at once
        assert sum(1 for other_start, other_end in intervals if other_start <= start < other_end) <= 2
    assert len({job.result[0] for job in jobs}) == 2


def test_a_job_submitted_first_starts_before_those_queued_already(make_pool):
    """Issue 50: a library-only upload's live column is a job a visitor waits for as they type; it
    goes before the measurements and trainings queued, not behind them."""
    make, _ = make_pool
    pool = make(size=1)
    busy = pool.submit("busy", worker_tasks.until_stopped)
    running(busy)
    queued = [pool.submit(f"queued-{index}", worker_tasks.echo, index) for index in range(2)]
    typed = pool.submit("typed", worker_tasks.echo, "typed", first=True)
    busy.cancel()
    for job in [*queued, typed]:
        assert job.wait(TIMEOUT) and job.state == DONE
    assert typed.started < queued[0].started < queued[1].started


def test_a_failing_job_gives_one_sentence_and_logs_its_traceback(make_pool, caplog):
    make, _ = make_pool
    pool = make(size=1)
    with caplog.at_level(logging.ERROR, logger="explorer.work"):
        user_error = pool.submit("bad", worker_tasks.bad_input)
        bug = pool.submit("bug", worker_tasks.bug)
        assert user_error.wait(TIMEOUT) and bug.wait(TIMEOUT)
    assert user_error.state == FAILED and user_error.error == "The corpus is empty."
    assert (
        bug.state == FAILED
        and bug.error == "it failed unexpectedly (KeyError); the details are in the server log"
    )
    assert "Traceback" not in bug.error
    assert any("KeyError: 'missing'" in record.getMessage() for record in caplog.records)
    fine = pool.submit("fine", worker_tasks.echo, "ok")  # the worker lives on
    assert fine.wait(TIMEOUT) and fine.result == "ok" and fine.worker_pid == bug.worker_pid


def test_worker_failures_are_sentences():
    assert failure_sentence(MemoryError()) == "it ran out of memory: try a smaller corpus or vocabulary size"
    assert (
        failure_sentence(ValueError(""))
        == "it failed unexpectedly (ValueError); the details are in the server log"
    )


def test_a_result_that_cannot_be_pickled_fails_the_job_not_the_worker(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("lambda", worker_tasks.unpicklable_result)
    assert job.wait(TIMEOUT) and job.state == FAILED and "unexpectedly" in job.error
    assert pool.submit("after", worker_tasks.echo, 1).wait(TIMEOUT)


def test_large_results_travel_back(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    job = pool.submit("big", worker_tasks.big, 30_000_000)
    assert job.wait(TIMEOUT) and job.state == DONE and len(job.result) == 30_000_000


def test_functions_a_worker_cannot_import_are_refused_at_submit(make_pool):
    make, _ = make_pool
    pool = make(size=1)
    with pytest.raises(ValueError, match="cannot send"):
        pool.submit("lambda", lambda reporter: None)
    main_function = types.FunctionType(worker_tasks.echo.__code__, {}, "in_main")
    main_function.__module__ = "__main__"
    with pytest.raises(ValueError, match="importable module"):
        pool.submit("main", main_function)


def test_a_main_module_such_as_a_streamlit_page_is_not_run_by_workers(make_pool, tmp_path, monkeypatch):
    """Streamlit puts the page script in sys.modules["__main__"]; a multiprocessing spawn or
    forkserver child would run it again. Our workers must not."""
    make, _ = make_pool
    marker = tmp_path / "page-ran"
    page = tmp_path / "page.py"
    page.write_text(f"open({str(marker)!r}, 'w').write('the page ran in a worker')\n")
    page_module = types.ModuleType("__main__")
    page_module.__file__ = str(page)
    monkeypatch.setitem(sys.modules, "__main__", page_module)
    pool = make(size=1)
    job = pool.submit("any", worker_tasks.echo, 1)
    assert job.wait(TIMEOUT) and job.state == DONE
    assert not marker.exists()


def test_workers_that_cannot_start_fail_the_queued_jobs(make_pool):
    make, _ = make_pool
    pool = make(size=1, preload=("no_such_module_for_the_workers",))
    job = pool.submit("doomed", worker_tasks.echo, 1)
    assert job.wait(TIMEOUT)
    assert job.state == FAILED and job.error.startswith(
        "the server could not start a worker process (exit code 1)"
    )


def test_shutdown_cancels_everything_and_leaves_no_process(make_pool):
    make, _ = make_pool
    pool = make(size=2)
    running_jobs = [pool.submit(f"run-{index}", worker_tasks.stubborn, 60) for index in range(2)]
    queued = pool.submit("queued", worker_tasks.echo, 1)
    pids = [running(job) for job in running_jobs]
    pool.shutdown()
    assert all(job.finished and job.state == CANCELLED for job in [*running_jobs, queued])
    assert queued.error == "the server is shutting down"
    assert not any(alive(pid) for pid in pids)
    with pytest.raises(RuntimeError):
        pool.submit("late", worker_tasks.echo, 1)


STEP = "tests.helpers.worker_tasks:warm_step"


def warmed_now(pool, key: str) -> list[str]:
    job = pool.submit(key, worker_tasks.warmed)
    assert job.wait(TIMEOUT) and job.state == DONE
    return job.result


def warmed_when_idle(pool, steps: int) -> list[str]:
    """The idle steps run once `steps` have run, asked every second (jobs asked more often than
    IDLE_AFTER would keep the worker from ever being idle)."""
    for attempt in range(int(TIMEOUT)):
        time.sleep(1.0)
        result = warmed_now(pool, f"asked {attempt}")
        if len(result) >= steps:
            return result
    raise AssertionError(f"the worker ran {result} of its idle steps")


def test_an_idle_worker_runs_its_idle_steps_in_order_and_skips_one_that_fails(make_pool):
    make, _ = make_pool
    steps = (
        (STEP, ("first",)),
        (STEP, ()),
        ("tests.helpers.worker_tasks:no_such_step", ()),
        (STEP, ("last",)),
    )
    pool = make(size=1, idle_steps=steps)
    assert pool.warm_up(TIMEOUT)
    assert warmed_when_idle(pool, 2) == ["first", "last"]


def test_a_job_goes_before_the_idle_steps_and_waits_for_one_at_most(make_pool):
    make, _ = make_pool
    pool = make(size=1, idle_steps=tuple((STEP, (f"step {n}", 0.6)) for n in range(4)))
    assert pool.warm_up(TIMEOUT)
    # Sent at once, before the worker had been idle IDLE_AFTER (or, on a loaded machine that kept
    # this test from running for that long, after at most the one step under way).
    assert warmed_now(pool, "at once") in ([], ["step 0"])
    time.sleep(IDLE_AFTER + 0.3)  # a step is under way
    assert warmed_now(pool, "during a step") in ([], ["step 0"], ["step 0", "step 1"])
    assert warmed_when_idle(pool, 4) == [f"step {n}" for n in range(4)]  # the rest, after the jobs


def test_keep_all_started_starts_every_worker_once_the_first_job_arrives(make_pool):
    make, seen = make_pool
    lazy, eager = make(size=2), make(size=2, keep_all_started=True)
    assert eager.worker_pids() == []  # nothing before the first job (a page view starts no process)
    for pool in (lazy, eager):
        assert pool.submit("one", worker_tasks.echo, 1).wait(TIMEOUT)
    wait_until(lambda: len(eager.worker_pids()) == 2, what="the second worker")
    assert len(lazy.worker_pids()) == 1
    seen.update(eager.worker_pids())


def test_pool_settings_from_the_environment():
    assert pool_settings({})["tasks_per_worker"] == 20 and "size" not in pool_settings({})
    assert pool_settings({})["keep_all_started"] and pool_settings({})["idle_steps"] == IDLE_STEPS
    settings = pool_settings({"EXPLORER_WORKERS": "3", "EXPLORER_TASKS_PER_WORKER": "5"})
    assert settings["size"] == 3 and settings["tasks_per_worker"] == 5
    with pytest.raises(ValueError, match="EXPLORER_WORKERS must be a whole number of at least 1, not 'two'"):
        pool_settings({"EXPLORER_WORKERS": "two"})
    with pytest.raises(ValueError, match="EXPLORER_TASKS_PER_WORKER"):
        pool_settings({"EXPLORER_TASKS_PER_WORKER": "0"})
    cold = pool_settings({"EXPLORER_WARM_UP": "0"})
    assert cold["idle_steps"] == () and not cold["keep_all_started"]
    assert pool_settings({"EXPLORER_WARM_UP": "1"})["idle_steps"] == IDLE_STEPS
    with pytest.raises(ValueError, match="EXPLORER_WARM_UP must be 0 or 1, not 'yes'"):
        pool_settings({"EXPLORER_WARM_UP": "yes"})


def test_the_default_pool_is_one_pool_made_again_once_closed(monkeypatch):
    from explorer.work import config

    monkeypatch.setattr(config, "_default", None)
    monkeypatch.setenv("EXPLORER_WORKERS", "1")
    pool = config.default_pool()
    try:
        assert (
            config.default_pool() is pool
            and pool.settings.size == 1
            and pool.settings.preload == config.PRELOAD
        )
        pool.shutdown()
        assert pool.closed
        replacement = config.default_pool()
        assert replacement is not pool and not replacement.closed
    finally:
        config.default_pool().shutdown()
