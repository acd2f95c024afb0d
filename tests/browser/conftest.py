"""The browser tests' fixtures: one Chromium and one server per module (in each pytest-xdist
worker that runs a test of it), a server of its own for a test that needs the first request, and
a fresh tab per test (saved as a screenshot when the test fails); Playwright's `expect` waits up
to 30 s, like the locators. Built on the plain helpers of helpers.py; skipped with a message when
Chromium or the playwright package is missing.

A tab is a Streamlit session of its own (sessions live on the page's websocket), so the tests'
tabs share one browser context per module, and the links a test opens "in another browser" open
as tabs of a second one (`elsewhere`): the app keeps nothing in cookies or browser storage
(tests/browser/test_pages.py checks), and a new tab in a context that has loaded the app before
costs about 3.3 cpu-s to draw the Train page against 6.1 in a new context, which has to fetch,
parse and compile Streamlit's scripts again (machine-wide, medians of 3 on this 2-core machine)."""

from __future__ import annotations

import contextlib

import pytest

from tests.browser.helpers import (
    SCREENSHOTS,
    VIEWPORT,
    chromium,
    chromium_missing_reason,
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


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module (its tests' tabs share `context`: each tab a session of its own)."""
    _skip_without_chromium()
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def server():
    """One server for the module (sessions are per browser tab, so tests do not share state)."""
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
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(scope="module")
def context(browser):
    """The browser context of the module's tabs (`page`)."""
    with _context(browser) as made:
        yield made


@pytest.fixture(scope="module")
def elsewhere(browser):
    """Another browser: a second context, sharing nothing with `context`; each `new_page()` is a
    new visitor's tab (a session of its own)."""
    with _context(browser) as made:
        yield made


@pytest.fixture
def page(context, request):
    """A new tab (a new session); dialogs are recorded (and dismissed) in `page.dialogs`.
    When the test fails, the tab is saved as artifacts/screenshots/FAILED-<test>.png."""
    failures_before = request.session.testsfailed
    failed_shot = f"FAILED-{request.node.name}"
    (SCREENSHOTS / f"{safe_file_name(failed_shot)}.png").unlink(missing_ok=True)  # from an earlier run
    tab = context.new_page()
    tab.dialogs = []

    def on_dialog(dialog) -> None:
        tab.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    try:
        yield tab
        if request.session.testsfailed > failures_before:
            with contextlib.suppress(Exception):
                screenshot(tab, failed_shot)
    finally:
        tab.close()
