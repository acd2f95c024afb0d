"""The browser tests' fixtures: one Chromium and one server for the session (each pytest-xdist
worker has its own, for the modules it runs), a server of its own for a test that needs the first
request, and a tab per test (saved as a screenshot when the test fails); Playwright's `expect` waits
up to 30 s, like the locators. Built on the plain helpers of helpers.py; skipped with a message
when Chromium or the playwright package is missing.

A tab is a Streamlit session of its own (sessions live on the page's websocket, so a tab that
loads the app again is a new session too), so the tests share one browser context and its tabs
are reused (helpers.Tabs): the app in a tab that has drawn it before costs about half the CPU of a
new tab (Train: 2.6 against 5.6 cpu-s), a new context about 1.8 cpu-s more again, and a new server
compiles Streamlit's scripts anew in every tab (its port is part of their address) and warms its
workers up. The links a test opens "in another browser" open in a tab of a second context
(`elsewhere`): the app keeps nothing in cookies or browser storage (tests/browser/test_pages.py
checks). A test that needs a server to itself (its first request, its log, its workers) starts
one (`fresh_server`, or helpers.streamlit_server)."""

from __future__ import annotations

import contextlib

import pytest

from tests.browser.helpers import (
    SCREENSHOTS,
    Tabs,
    chromium,
    chromium_missing_reason,
    new_context,
    safe_file_name,
    screenshot,
    streamlit_server,
)

try:  # an assertion's wait is a safety net, not the mechanism: as generous as the locators' (30 s)
    from playwright.sync_api import expect

    expect.set_options(timeout=30_000)
except ImportError:  # the tests are skipped with a message (chromium_missing_reason)
    pass


def _skip_without_chromium() -> None:
    reason = chromium_missing_reason()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the session (its tests' tabs share `context`: each tab a session of its own)."""
    _skip_without_chromium()
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def server():
    """One server for the session (sessions are per page load, so tests do not share state; they
    share the run store, as the visitors of one server do)."""
    _skip_without_chromium()
    with streamlit_server("server-shared") as base_url:
        yield base_url


@pytest.fixture
def fresh_server(request):
    """A server started for this test alone: its first request is the test's."""
    _skip_without_chromium()
    with streamlit_server(f"server-{request.node.name}") as base_url:
        yield base_url


@contextlib.contextmanager
def _context(browser):
    context = new_context(browser)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(scope="session")
def context(browser):
    """The browser context of the tests' tabs (`page`)."""
    with _context(browser) as made:
        yield made


@pytest.fixture(scope="session")
def tabs(context):
    """The context's tabs, reused from test to test (`page`)."""
    return Tabs(context)


@pytest.fixture(scope="session")
def elsewhere(browser):
    """Another browser: the tabs of a second context, sharing nothing with `context`; a tab from
    `elsewhere.open()` that loads the app is a new visitor (a session of its own)."""
    with _context(browser) as made:
        yield Tabs(made)


@pytest.fixture
def page(tabs, request):
    """A tab for the test (a new session once it loads the app); dialogs are recorded (and
    dismissed) in `page.dialogs`. When the test fails, the tab is saved as
    artifacts/screenshots/FAILED-<test>.png and closed rather than reused."""
    failures_before = request.session.testsfailed
    failed_shot = f"FAILED-{request.node.name}"
    (SCREENSHOTS / f"{safe_file_name(failed_shot)}.png").unlink(missing_ok=True)  # from an earlier run
    tab = tabs.take()
    tab.dialogs = []

    def on_dialog(dialog) -> None:
        tab.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    failed = True
    try:
        yield tab
        failed = request.session.testsfailed > failures_before
        if failed:
            with contextlib.suppress(Exception):
                screenshot(tab, failed_shot)
    finally:
        if not tab.is_closed():
            tab.remove_listener("dialog", on_dialog)
        tabs.give_back(tab, keep=not failed)
