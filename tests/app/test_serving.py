"""A hosted demo for a class, through AppTest: training in worker processes, the shared run store,
and URLs that keep the view (a reload, a link in another browser, an expired run), Stop and a
crashed worker. Each AppTest is a session of its own; they share this process's pool and store
(the store is the test session's own: tests/conftest.py).

The browser-side half (a real reload, a link in a fresh browser context, a closed tab) is in
tests/browser/test_serving.py.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from explorer.runstore import SQLiteRunStore
from explorer.session import serving
from explorer.training import engines
from explorer.ui.common.state import JOB
from explorer.ui.common.state import Widget as W
from tests import ROOT
from tests.app.helpers import (
    APP,
    MERGES,
    STOP_BEFORE_SECONDS,
    TRAIN_WAIT_SECONDS,
    VOCABULARY,
    click,
    learning,
    messages,
    new_app,
    player,
    player_act,
    query,
    run_of,
    session_value,
    settle,
    train,
)
from tests.helpers import worker_tasks
from tests.helpers.processes import alive, wait_until


def words(count: int, seed: int, marker: str = "") -> str:
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 9))) for _ in range(count)
    ]
    lines = [" ".join(vocabulary[i : i + 10]) for i in range(0, count, 10)]
    return "\n".join(lines + ([marker] * 5 if marker else []))


def train_pasted(at: AppTest, text: str, vocab_size: int = 300) -> AppTest:
    at.selectbox(key=W.SAMPLE).set_value("").run()
    at.text_area(key=W.CORPUS).set_value(text).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(vocab_size).run()
    return train(at)


def test_a_reload_keeps_the_run_and_the_step():
    first = train_pasted(new_app(), words(600, seed=1, marker="zanzibarquux"))
    run = run_of(first)
    assert run is not None and len(run.store_key) == 64
    assert query(first)["run"] == run.store_key  # the URL names the run at once
    first.switch_page(MERGES).run()
    player_act(first, 7)
    link = query(first)
    assert link["step"] == "7" and "corpus" not in link  # a pasted corpus never goes into a link

    again = new_app(link, MERGES)  # a reload: a new session, the same URL
    assert player(again)["step"] == 7
    reloaded = run_of(again)
    assert reloaded.store_key == run.store_key and reloaded.history.merges == run.history.merges
    home = new_app(link)  # the Train page of that link: the pasted corpus is back in the text area
    assert "zanzibarquux" in home.text_area(key=W.CORPUS).value


def test_one_sample_for_a_whole_class_is_trained_once():
    link = {"algorithm": "bpe", "sample": "german", "vocab_size": "70", "min_frequency": "0"}
    sessions = [new_app(link, MERGES) for _ in range(4)]
    runs = [run_of(at) for at in sessions]
    assert len({run.store_key for run in runs}) == 1
    # One training: every session shows the trace that one worker made (the same timing to the
    # nanosecond), read from the store and parsed once for the whole server.
    assert len({run.history.seconds for run in runs}) == 1
    assert len({id(run.history) for run in runs}) == 1


def test_two_visitors_never_see_each_others_corpus():
    alice = train_pasted(new_app(), words(500, seed=2, marker="alicesecretword"))
    bob = train_pasted(new_app(), words(500, seed=3, marker="bobsecretword"))
    alice_run, bob_run = run_of(alice), run_of(bob)
    assert alice_run.store_key != bob_run.store_key
    assert "alicesecretword" in alice_run.history.words and "alicesecretword" not in bob_run.history.words
    bob.switch_page(VOCABULARY).run()
    assert not bob.dataframe[0].value["token"].str.contains("alicesecret").any()
    # The keys are HMACs under the deployment's secret: Bob cannot make Alice's key from her
    # settings without her corpus, and the store lists nothing.
    assert not hasattr(serving.store(), "keys") and not hasattr(serving.store(), "list")


def test_an_expired_pasted_run_says_what_to_do():
    at = train_pasted(new_app(), words(300, seed=4))
    link = query(at)
    serving.store().delete(link["run"])
    later = new_app(link, MERGES)
    text = messages(later, "info")
    assert "no longer on this server" in text and "paste or upload it again" in text
    assert run_of(later) is None


def test_an_expired_sample_run_is_trained_again():
    link = {"algorithm": "bpe", "sample": "hf-course", "vocab_size": "90", "flavor": "course"}
    first = new_app(link, MERGES)
    key = run_of(first).store_key
    serving.store().delete(key)
    again = new_app({**query(first)}, MERGES)
    assert run_of(again) is not None and run_of(again).store_key == key


def test_the_stores_bounds_evict_the_least_recently_used(monkeypatch, tmp_path):
    small = SQLiteRunStore(tmp_path / "runs.sqlite3", max_bytes=50_000_000, secret=b"s" * 32)
    monkeypatch.setattr(serving, "_store", [small])
    first = train_pasted(new_app(), words(400, seed=5))
    assert small.get(run_of(first).store_key) is not None
    small.max_bytes = small.stored_bytes() * 3 // 2  # room for one such run, not two
    second = train_pasted(new_app(), words(400, seed=6))
    assert small.get(run_of(second).store_key) is not None
    assert small.get(run_of(first).store_key) is None  # the least recently read went
    expired = new_app(query(first), MERGES)
    assert run_of(expired) is None and "no longer on this server" in messages(expired, "info")


def start_a_long_training(seed: int, monkeypatch) -> tuple[AppTest, int]:
    """A session training 60,000 pasted words to a vocabulary of 20,000 on the Python engine (long
    enough to act on while it runs; the compiled engine trains it in about a second, which Stop,
    a reload or a crash would find ended); the session and the pid of the worker training it,
    once it trains."""
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "python")  # the server's choice: sent with the job
    monkeypatch.setattr("explorer.work.tasks.train_task", worker_tasks.slow_training)  # lasts on any machine
    monkeypatch.setenv("EXPLORER_MAX_SECONDS", STOP_BEFORE_SECONDS)  # ... until what the test does to it
    at = new_app()
    at.selectbox(key=W.SAMPLE).set_value("").run()
    at.text_area(key=W.CORPUS).set_value(words(60_000, seed=seed)).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(20_000).run()
    at.button(key=W.TRAIN).click().run()
    wait_until(lambda: learning(at), TRAIN_WAIT_SECONDS, "the training's first merge in a worker")
    return at, session_value(at, JOB).job.worker_pid


@pytest.mark.slow
def test_stop_ends_the_work_for_real_and_keeps_the_merges_so_far(monkeypatch):
    at, pid = start_a_long_training(seed=7, monkeypatch=monkeypatch)
    click(at, W.STOP)
    run = run_of(at)
    assert run is not None and run.history.stop_reason == "stopped" and run.stopped_by == "the Stop button"
    wait_until(lambda: not alive(pid), 30, "the worker that trained it to exit")  # it is gone
    # Stopped by its visitor, the run is theirs under a key of its own, and a reload brings it back.
    assert query(at)["run"] == run.store_key
    assert run_of(new_app(query(at), MERGES)).history.steps == run.history.steps


@pytest.mark.slow
def test_a_reload_during_training_can_stop_it_and_keeps_the_merges_so_far(monkeypatch):
    """A reload (a new session on the link) waits for the same job without knowing its corpus;
    once the first tab's session has let go (closed: explorer.ui.common.abandoned), its Stop is
    the job's, and the stopped run, stored by the worker under a key of its own, is its page's."""
    first, _ = start_a_long_training(seed=8, monkeypatch=monkeypatch)
    reloaded = new_app(query(first))
    attached = session_value(reloaded, JOB)
    assert attached is not None and attached.job is session_value(first, JOB).job and not attached.corpus.text
    session_value(first, JOB).handle.release()  # what the abandoned-session watcher does
    click(reloaded, W.STOP)
    run = run_of(reloaded)
    assert run is not None and run.history.stop_reason == "stopped" and run.stopped_by == "the Stop button"
    assert run.characters == len(words(60_000, seed=8)) and query(reloaded)["run"] == run.store_key
    assert run.number == 1  # the reloaded browser's first run (it was "run #2")
    assert run.store_key != query(first)["run"]  # not the whole run's key
    assert run_of(new_app(query(reloaded), MERGES)).history.steps == run.history.steps


@pytest.mark.slow
def test_a_crashed_worker_is_a_sentence_and_the_next_training_works(monkeypatch):
    at, pid = start_a_long_training(seed=9, monkeypatch=monkeypatch)  # not the reload test's run
    os.kill(pid, signal.SIGKILL)
    settle(at)
    errors = messages(at, "error")
    assert "Training failed" in errors and "ended unexpectedly" in errors and "train again" in errors
    assert run_of(at) is None
    train_pasted(at, words(300, seed=9))
    assert run_of(at) is not None and run_of(at).history.steps > 0


def test_the_vocabulary_search_is_in_the_link():
    at = train_pasted(new_app(), words(400, seed=10))
    at.switch_page(VOCABULARY).run()
    at.text_input(key=W.SEARCH).set_value("ab").run()
    link = query(at)
    assert link["search"] == "ab" and link["run"] == run_of(at).store_key
    again = new_app(link, VOCABULARY)
    assert again.text_input(key=W.SEARCH).value == "ab"
    shown = again.dataframe[0].value
    assert len(shown) and all(
        "ab" in f"{token} {readable}".casefold() for token, readable in zip(shown["token"], shown["readable"])
    )


COLD_START_PROBE = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=60)
at.run()
assert not at.exception, at.exception
# (not plotly: streamlit itself imports it)
heavy = {"pandas", "numpy", "pyarrow", "tokenizers", "tiktoken", "sentencepiece", "altair"}
print(" ".join(sorted({name.split(".")[0] for name in sys.modules} & heavy)))
"""


def test_the_train_pages_first_view_imports_none_of_the_heavy_libraries(tmp_path):
    """The cold start (a new server's first page in under 3 s) rests on this: the Train page's
    first view imports neither pandas, numpy nor the tokenizers library; the pages and panels
    that need them import them when they are drawn. A fresh interpreter, as a new server is."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), EXPLORER_STORE_PATH=str(tmp_path / "runs.sqlite3"))
    probe = subprocess.run(
        [sys.executable, "-c", COLD_START_PROBE, APP], env=env, capture_output=True, text=True, timeout=120
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.strip() == ""


LINK_PROBE = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=60)
for part in sys.argv[2].split("&"):
    name, value = part.split("=", 1)
    at.query_params[name] = value
at.run()
assert not at.exception, at.exception
print(*[metric.label for metric in at.metric][:1], sep="")
print(" ".join(sorted({name.split(".")[0] for name in sys.modules} & {"pandas", "altair"})))
"""


def test_a_stored_runs_link_draws_its_summary_without_importing_pandas():
    """A replica started a moment ago (a restart mid-class) opening a run's link: its Train page
    draws the run's summary without importing pandas (0.5-0.8 s of the first such page, measured;
    the live box's "drawn" signal once made Streamlit import it, looking for a dataframe in its
    data). A fresh interpreter, as a new server is, reading the run this session stored."""
    at = settle(new_app({"algorithm": "bpe", "sample": "hf-course", "vocab_size": "300", "run": "0" * 64}))
    link = "&".join(f"{name}={value}" for name, value in query(at).items())
    probe = subprocess.run(
        [sys.executable, "-c", LINK_PROBE, APP, link],
        env=dict(os.environ, PYTHONPATH=str(ROOT), EXPLORER_WARM_UP="0"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert probe.stdout.splitlines() == ["Merges learned", ""]


WARM_UP_PROBE = """
import sys
from streamlit.testing.v1 import AppTest
from explorer.compare import warm
at = AppTest.from_file(sys.argv[1], default_timeout=60)
at.run()
print("first view:", warm._asked == {})
at.run()  # the Train page's next run (a paste, a setting): Compare's first columns start loading
warm.wait_all(120)
names = sorted(key.split(":")[1] for key in warm._asked)
print("next run:", *names, all(future.done() for future in warm._asked.values()))
"""


def test_compares_first_columns_load_from_the_train_pages_second_run():
    """A visitor who trains and moves to Compare at once finds GPT-2, GPT-4 and GPT-4o loaded: their
    loads start on the Train page's next run (not its first view, which stays light)."""
    probe = subprocess.run(
        [sys.executable, "-c", WARM_UP_PROBE, APP],
        env=dict(os.environ, PYTHONPATH=str(ROOT), EXPLORER_WARM_UP="1"),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert probe.returncode == 0, probe.stderr[-2000:]
    first, following = probe.stdout.strip().splitlines()
    assert first == "first view: True"
    assert following == "next run: cl100k_base gpt2 o200k_base True"
