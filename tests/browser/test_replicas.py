"""Two replicas of the app behind nginx, sharing one PostgreSQL store and one secret, all on
127.0.0.1 and started by the tests as `python3 tasks.py app --replicas 2` starts them
(`tasks.Replicas`, tests/helpers/replicas.py): a run trained through one replica opens by its link
on the other with the same view (checked as the link walk checks: tests/browser/test_link_walk.py's
`settled_view`), an uploaded corpus's run and an uploaded tokenizer's Compare link too; a visitor
whose replica is killed reconnects through nginx to the other and sees the same view; PostgreSQL
restarted under the replicas costs no stored run and a page says in a sentence what was not kept;
two replicas training one link at once store one run.

A visitor is sent to a replica on purpose by its sticky cookie (set in its browser context), as
nginx sends it: every request goes through nginx, as a student's would.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import sys

import psycopg
import pytest

import tasks
from tests import ROOT
from tests.browser.helpers import (
    ARTIFACTS,
    STEP_INPUT,
    Tabs,
    assert_no_errors,
    chromium_missing_reason,
    main,
    new_context,
    open_page,
    sidebar,
    wait_idle,
)
from tests.browser.test_link_walk import settled_view
from tests.browser.test_serving import paste_and_train, words
from tests.helpers.replicas import cookie, cookie_for, replica_of, replicas_on

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # slow: its file starts first (tests/conftest.py)
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect
sys.path.insert(0, str(ROOT / "bench"))
from visitors import visit  # noqa: E402

A, B = 0, 1


def sample_link(vocab_size: int) -> str:
    """A teacher's Train link naming a run no store holds: its sample is trained on opening."""
    return f"algorithm=bpe&sample=hf-course&vocab_size={vocab_size}&run={'0' * 64}"


@pytest.fixture(scope="module")
def replicas(postgres_cluster):
    reason = chromium_missing_reason()
    if reason:
        pytest.skip(reason)
    if tasks.nginx_program() is None:
        pytest.skip("nginx is not installed (python3 tasks.py test installs Debian's nginx)")
    logs = ARTIFACTS / "replicas"
    logs.mkdir(parents=True, exist_ok=True)
    with replicas_on(postgres_cluster, "replicas", logs=logs) as launched:
        yield launched


@pytest.fixture(scope="module")
def visitors(browser, replicas):
    """Tabs of a browser context whose sticky cookie sends it to replica A, and of one sent to B."""
    pinned = []
    with contextlib.ExitStack() as stack:
        for index in (A, B):
            context = new_context(browser)
            stack.callback(context.close)
            value = cookie_for(replicas, index)
            context.add_cookies([{"name": tasks.REPLICA_COOKIE, "value": value, "url": replicas.url}])
            context.sticky = value
            pinned.append(Tabs(context))
        yield pinned


def stored_runs(replicas) -> int:
    with psycopg.connect(replicas.environ["EXPLORER_STORE_URL"]) as connection:
        if connection.execute("SELECT to_regclass('runs') IS NULL").fetchone()[0]:
            return 0  # the store makes its tables on first use
        return connection.execute("SELECT count(*) FROM runs").fetchone()[0]


def as_another_visitor_sees(view: dict, corpus_name: str) -> dict:
    """`view` with the uploaded corpus's file name in its run's name replaced by the neutral one."""
    return json.loads(json.dumps(view, ensure_ascii=False).replace(f"· {corpus_name}", "· uploaded file"))


def query_of(page) -> str:
    return page.url.split("?", 1)[1]


def test_a_run_trained_on_one_replica_opens_by_its_link_on_the_other(replicas, visitors):
    on_a, on_b = visitors
    assert replica_of(replicas, on_a.context.sticky) == A and replica_of(replicas, on_b.context.sticky) == B
    with on_a.open() as a, on_b.open() as b:
        open_page(a, replicas.url, "/")
        paste_and_train(a, words(600, seed=52, marker="replicamarker"))
        trained = settled_view(a)
        sidebar(a).get_by_role("link", name="Merge history").click()
        a.locator(STEP_INPUT).wait_for()
        for _ in range(2):
            a.get_by_role("button", name="Next", exact=True).click()
            wait_idle(a)
        stepped = settled_view(a)
        assert stepped["step"] == "3"

        open_page(b, replicas.url, "/Merge_history", query_of(a))
        b.locator(STEP_INPUT).wait_for(timeout=60_000)
        assert settled_view(b) == stepped
        open_page(b, replicas.url, "/", query_of(a))  # the pasted corpus, from the shared store
        assert settled_view(b) == trained
        assert "replicamarker" in trained["corpus"]
        assert_no_errors(b, "the link on the other replica")


def test_an_uploaded_corpus_run_and_an_uploaded_tokenizers_compare_link_open_on_the_other(
    replicas, visitors, tmp_path
):
    import tokenizers

    corpus = tmp_path / "replica-corpus.txt"
    corpus.write_text(words(500, seed=53, marker="uploadmarker"), encoding="utf-8")
    vocabulary = ["[UNK]", "the", "mouse", "cat", "sat"]
    library = tokenizers.Tokenizer(
        tokenizers.models.WordLevel({word: i for i, word in enumerate(vocabulary)}, unk_token="[UNK]")
    )
    library.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    uploaded = tmp_path / "wordlevel.json"
    library.save(str(uploaded))
    on_a, on_b = visitors
    with on_a.open() as a, on_b.open() as b:
        open_page(a, replicas.url, "/")
        a.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(corpus))
        a.get_by_text(f"Using the uploaded file '{corpus.name}'").wait_for(timeout=60_000)
        wait_idle(a)
        a.get_by_role("button", name="Train", exact=True).click()
        main(a).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        trained = settled_view(a)
        sidebar(a).get_by_role("link", name="Compare").click()
        wait_idle(a)
        main(a).get_by_text("Upload a tokenizer").first.click()
        a.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(uploaded))
        main(a).locator('.compare-column[data-tokenizer="wordlevel.json (uploaded)"]').wait_for(
            timeout=60_000
        )
        compared = settled_view(a)

        # Another visitor sees an upload under a neutral name, never its file's (on any replica:
        # tests/app/test_links.py, tests/app/test_compare_upload_privacy.py); the rest is the same.
        open_page(b, replicas.url, "/Compare", query_of(a))
        there = settled_view(b)
        assert there["columns"][-1].startswith("tokenizer.json (uploaded, ")
        there["columns"][-1] = "wordlevel.json (uploaded)"
        assert there == as_another_visitor_sees(compared, corpus.name)
        # The Train page of the link holds the corpus as text (where the uploader showed the file).
        open_page(b, replicas.url, "/", query_of(a))
        there = settled_view(b)
        assert there.pop("corpus") == corpus.read_text(encoding="utf-8")
        expected = as_another_visitor_sees(trained, corpus.name)
        del expected["corpus"]
        assert {**there, "sample": None} == {**expected, "sample": None}
        assert_no_errors(b, "the uploads' links on the other replica")


def test_a_killed_replicas_visitors_reconnect_to_the_other_with_the_same_view(replicas, visitors):
    on_a, _on_b = visitors
    with on_a.open() as a:
        open_page(a, replicas.url, "/", sample_link(320))
        main(a).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        sidebar(a).get_by_role("link", name="Merge history").click()
        a.locator(STEP_INPUT).wait_for()
        a.get_by_role("button", name="Next", exact=True).click()
        wait_idle(a)
        seen = settled_view(a)
        with a.expect_websocket(timeout=60_000) as reconnected:
            os.killpg(replicas.processes[A].pid, signal.SIGKILL)  # the replica and its workers
            replicas.processes[A].wait(timeout=30)
        socket = reconnected.value
        socket.wait_for_event("framereceived", timeout=60_000)  # the other replica answers
        assert replica_of(replicas, on_a.context.sticky) == B  # nginx sends its cookie on
        wait_idle(a)
        assert settled_view(a) == seen
        assert_no_errors(a, "the page after its replica was killed")
    replicas.start_replica(A)  # back, for the tests after this one
    replicas.wait_healthy([replicas.replica_urls[A]], 60)


def test_postgresql_restarted_costs_no_stored_run_and_pages_say_what_was_not_kept(
    replicas, visitors, postgres_cluster
):
    on_a, on_b = visitors
    with on_a.open() as a:
        open_page(a, replicas.url, "/", sample_link(330))
        main(a).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        stored_link = query_of(a)
        before = stored_runs(replicas)
        postgres_cluster.stop(keep=True)
        try:
            with on_b.open() as b:  # a run trained while the store is gone: a sentence, no error
                open_page(b, replicas.url, "/", sample_link(340))
                main(b).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
                expect(
                    b.get_by_text("This run could not be kept on this server", exact=False)
                ).to_be_visible()
                assert_no_errors(b, "a page while the store is gone")
        finally:
            postgres_cluster.start()
    assert stored_runs(replicas) == before
    with on_b.open() as b:  # by itself: the next page on the other replica reads the store again
        open_page(b, replicas.url, "/", stored_link)
        main(b).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        assert b.get_by_text("This run could not be kept", exact=False).count() == 0
        assert_no_errors(b, "the stored run's link after the store came back")
    with on_a.open() as a:  # and a run trained now is kept again
        open_page(a, replicas.url, "/", sample_link(350))
        main(a).get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        assert a.get_by_text("This run could not be kept", exact=False).count() == 0
    assert stored_runs(replicas) == before + 1


def test_two_replicas_training_one_link_at_once_store_one_run(replicas, visitors):
    """Two websocket visitors of one new Train link, one on each replica, at once: each replica
    trains it (no job is shared across replicas), both under the one key the shared secret makes."""
    link = sample_link(360)
    before = stored_runs(replicas)

    def arrive(tabs) -> float:  # a thread of its own: this one runs Playwright's event loop
        sticky = cookie(tabs.context.sticky)
        return asyncio.run(visit(replicas.url, link, "Merges learned", 120.0, cookie=sticky))

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(arrive, visitors))
    assert stored_runs(replicas) == before + 1
