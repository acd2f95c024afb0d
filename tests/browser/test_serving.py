"""The hosted demo in a real browser (Debian's Chromium through Playwright, `streamlit run app.py`):
a reload keeps the run and the step; the link opened in another browser (a second context), on another
server sharing the run store, shows the same view; a reload during training waits for that
training; a tab closed during training has its work cancelled once Streamlit drops the session
(the worker that trained it exits).
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from tests.browser.helpers import (
    SERVER_PROCESSES,
    STEP_INPUT,
    assert_no_errors,
    open_page,
    open_select,
    screenshot,
    sidebar,
    streamlit_server,
    wait_idle,
)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="the playwright package is missing").expect


def words(count: int, seed: int, marker: str) -> str:
    rng = random.Random(seed)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
        for _ in range(count)
    ]
    return "\n".join([" ".join(vocabulary[i : i + 12]) for i in range(0, count, 12)] + [marker] * 3)


def slow_corpus(folder: Path, megabytes: float, marker: str) -> Path:
    """Lines of random letters without spaces: every line one long pre-token, so training to a
    large vocabulary takes a while (2 MB to 20,000 tokens: about 12 s on an idle 2-core machine)."""
    rng = random.Random(megabytes)
    lines = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(100))
        for _ in range(int(megabytes * 10_000))
    ]
    path = folder / "slow.txt"
    path.write_text("\n".join([*lines, marker]), encoding="utf-8")
    return path


def upload_and_train(page, path: Path, vocab_size: int) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text(f"Using the uploaded file '{path.name}'").wait_for(timeout=60_000)
    number = page.get_by_role("spinbutton", name="Exact vocabulary size")
    number.fill(str(vocab_size))
    number.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text(re.compile(r"Training BPE: merge")).first.wait_for(timeout=60_000)


def paste_and_train(page, text: str, vocab_size: int | None = None, wait: bool = True) -> None:
    open_select(page, "Sample corpus")
    page.get_by_role("option", name=re.compile("^none")).click()
    wait_idle(page)
    area = page.get_by_role("textbox", name="Corpus", exact=True)
    area.fill(text, timeout=120_000)
    area.press("Control+Enter")
    wait_idle(page)
    if vocab_size is not None:
        number = page.get_by_role("spinbutton", name="Exact vocabulary size")
        number.fill(str(vocab_size))
        number.press("Enter")
        wait_idle(page)
    page.get_by_role("button", name="Train", exact=True).click()
    if wait:
        page.get_by_text("Merges learned", exact=True).wait_for(timeout=120_000)
        wait_idle(page)


def run_card(page) -> str:
    return sidebar(page).locator(".run-card").inner_text(timeout=60_000)


def test_a_reload_and_a_link_elsewhere_keep_the_run_and_the_step(server, fresh_server, elsewhere, page):
    open_page(page, server, "/")
    paste_and_train(page, words(900, seed=11, marker="reloadmarker"))
    card = run_card(page)
    sidebar(page).get_by_role("link", name="Merge history").click()
    page.locator(STEP_INPUT).wait_for()
    for _ in range(3):  # from the first merge, where a new run opens
        page.get_by_role("button", name="Next", exact=True).click()
        wait_idle(page)
    assert "step=4" in page.url and "run=" in page.url
    assert "reloadmarker" not in page.url  # the corpus is never in a link

    page.reload()
    page.locator(STEP_INPUT).wait_for(timeout=60_000)
    wait_idle(page)
    assert page.locator(STEP_INPUT).input_value() == "4"
    assert run_card(page) == card
    assert_no_errors(page, "Merge history after a reload")

    # Another browser (tests/browser/conftest.py: `elsewhere`), on another server that shares the
    # run store (as a second replica on the same disk would).
    query = page.url.split("?", 1)[1]
    with elsewhere.open() as other:
        open_page(other, fresh_server, "/Merge_history", query)
        other.locator(STEP_INPUT).wait_for(timeout=60_000)
        assert other.locator(STEP_INPUT).input_value() == "4"
        assert "Merge 4 of" in other.locator(".merge-summary").inner_text()
        assert_no_errors(other, "the link in another browser")
        open_page(other, fresh_server, "/", query)  # its Train page: the pasted corpus is back
        expect(other.get_by_role("textbox", name="Corpus", exact=True)).to_have_value(
            re.compile("reloadmarker")
        )
        screenshot(other, "serving-link-elsewhere")


def test_a_reload_during_training_waits_for_it(page, tmp_path):
    # The Python engine (a server of its own): the compiled one trains the corpus before the reload.
    with streamlit_server("server-reload-python", environ={"EXPLORER_ENGINE": "python"}) as server:
        _reload_during_training(server, page, tmp_path)


def _reload_during_training(server, page, tmp_path):
    open_page(page, server, "/")
    upload_and_train(page, slow_corpus(tmp_path, 2, "slowmarker"), vocab_size=20_000)
    assert "run=" in page.url  # the run's key is in the URL as soon as it trains
    page.reload()
    page.get_by_text("The run in this link is still training", exact=False).or_(
        page.get_by_text(re.compile(r"Training BPE: merge"))
    ).first.wait_for(timeout=60_000)  # the new session waits for the same job: no new training
    page.get_by_text("Merges learned", exact=True).wait_for(timeout=180_000)
    wait_idle(page)
    assert_no_errors(page, "Train after a reload during training")
    assert page.get_by_role("textbox", name="Corpus", exact=True).input_value().endswith("slowmarker")


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _cpu_ticks(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])


def _busy_workers(server_pid: int) -> set[int]:
    """The worker processes that used CPU in the last second (at least 5 ticks: workers are
    niced, so on a loaded machine a training worker gets a small share of a core, never none)."""
    before = {pid: _cpu_ticks(pid) for pid in _children(server_pid)}
    time.sleep(1.0)
    busy = set()
    for pid, ticks in before.items():
        after = _cpu_ticks(pid)
        if ticks is not None and after is not None and after - ticks >= 5:
            busy.add(pid)
    return busy


def _busy_worker(server_pid: int, seconds: float = 120.0) -> int:
    """The worker that trains: busy now and still busy 4 s later (the pool's other worker warms up
    for the Compare page while idle, for a second or two, and then rests)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        busy = _busy_workers(server_pid)
        if busy:
            time.sleep(4)
            still = busy & _busy_workers(server_pid)
            if still:
                return still.pop()
    raise AssertionError("no worker process stayed busy")


def test_closing_the_tab_cancels_its_training(context, tmp_path):
    # A closed tab's session is given 3 s (default 30) to come back before its work is cancelled.
    # The Python engine: the compiled one trains this corpus in about a second, before the grace
    # is over (both check for a cancel at the same steps: tests/parity/test_engines.py).
    environ = {"EXPLORER_ABANDONED_SECONDS": "3", "EXPLORER_ENGINE": "python"}
    with streamlit_server("server-short-session", environ=environ) as base_url:
        tab = context.new_page()
        open_page(tab, base_url, "/")
        upload_and_train(tab, slow_corpus(tmp_path, 3.5, "abandoned"), vocab_size=20_000)
        worker = _busy_worker(SERVER_PROCESSES[base_url].pid)
        closed = time.monotonic()
        tab.close()
        # Cancelled, the worker stops within a check (2 s) after the grace, returns what it has and
        # exits (a worker that finishes a job stays in the pool); 60 s is a safety net for a
        # loaded machine, where the niced worker gets a small share of a core.
        while _cpu_ticks(worker) is not None and time.monotonic() - closed < 60:
            time.sleep(0.25)
        assert _cpu_ticks(worker) is None, "the training of a closed tab went on"
