"""The worker's memory limit (EXPLORER_WORKER_MEMORY_MB, explorer.work.worker): read from the
environment, enforced by the kernel, and a Unigram run that passes it stops at its last finished
step with its rounds so far and a sentence naming the limit."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from explorer.checks import Limits
from explorer.run_config import RunConfig, UnigramConfig
from explorer.samples import SHAKESPEARE
from explorer.train import trace_from_json
from explorer.training.unigram import library as unigram_library
from explorer.work.tasks import train_task
from explorer.work.worker import DEFAULT_MEMORY_MB, failure_sentence, memory_limit_mb

SETTINGS = RunConfig(UnigramConfig(vocab_size=300), (), "metaspace").to_dict()
LIMITS = dataclasses.asdict(Limits())


class Reporter:
    cancelled = False

    def report(self, **progress) -> None:
        pass

    def should_stop(self) -> bool:
        return False


def test_the_limit_comes_from_the_environment():
    assert memory_limit_mb({}) == DEFAULT_MEMORY_MB
    assert memory_limit_mb({"EXPLORER_WORKER_MEMORY_MB": " 512 "}) == 512
    assert memory_limit_mb({"EXPLORER_WORKER_MEMORY_MB": "0"}) is None
    for bad in ("lots", "-1", "1.5"):
        with pytest.raises(ValueError, match="EXPLORER_WORKER_MEMORY_MB must be a whole number"):
            memory_limit_mb({"EXPLORER_WORKER_MEMORY_MB": bad})


def test_an_allocation_past_the_limit_is_a_memory_error_in_the_worker():
    script = (
        "import numpy as np\n"
        "from explorer.work.worker import apply_memory_limit, failure_sentence\n"
        "apply_memory_limit({'EXPLORER_WORKER_MEMORY_MB': '400'})\n"
        "np.ones(5_000_000)\n"  # 40 MB: fine
        "try:\n"
        "    np.ones(100_000_000)\n"  # 800 MB: past it
        "except MemoryError as error:\n"
        "    print(failure_sentence(error))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == (
        "it passed the worker's memory limit (400 MB, EXPLORER_WORKER_MEMORY_MB): "
        "try a smaller corpus or vocabulary size"
    )


def test_a_unigram_run_past_the_limit_stops_with_its_rounds_so_far(monkeypatch):
    text = SHAKESPEARE.text[:50_000]
    whole = trace_from_json(train_task(Reporter(), text, SETTINGS, LIMITS)["trace_json"])
    assert len(whole.rounds) > 3
    prune, calls = unigram_library._Run.prune, []

    def prune_until_memory_runs_out(run, recorder):
        calls.append(1)
        if len(calls) == 2:  # the allocation that would pass the limit
            raise MemoryError
        prune(run, recorder)

    monkeypatch.setattr(unigram_library._Run, "prune", prune_until_memory_runs_out)
    result = train_task(Reporter(), text, SETTINGS, LIMITS)
    assert result["stop_reason"] == "stopped"
    assert result["stopped_by"] == "running out of memory"  # this process has no limit in force
    stopped = trace_from_json(result["trace_json"])
    # The first round whole, the second's EM iterations, then the final assembly.
    assert len(stopped.rounds) == 3
    first, expected = stopped.rounds[0], whole.rounds[0]
    assert (first.kind, first.size_after, first.losses) == (
        expected.kind,
        expected.size_after,
        expected.losses,
    )
    assert np.array_equal(first.alive, expected.alive) and np.array_equal(first.scores, expected.scores)
    assert stopped.rounds[1].kind == "em" and stopped.rounds[1].losses == whole.rounds[1].losses


def test_another_task_failing_on_memory_says_so_in_one_sentence():
    assert failure_sentence(MemoryError()).startswith("it ran out of memory")
