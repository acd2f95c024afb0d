"""Reproduce in Python (issue 35) in a real browser: the Train page's code block shows the program
exactly as written (a special token holding markup and quotes stays text in it), and its copy
button puts that program on the clipboard."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from explorer.reproduce import CorpusSource, training_program
from explorer.runs.settings import from_query_params
from tests.browser.helpers import (
    assert_no_errors,
    main,
    new_context,
    open_page,
    open_sections,
    screenshot,
    train,
)

pytestmark = pytest.mark.browser

SPECIAL = '<script>alert("x")</script>,"""x\\'


def test_the_code_block_shows_the_program_as_written_and_copies_it(browser, server):
    settings = {"vocab_size": "300", "special_tokens": SPECIAL}
    context = new_context(browser, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        open_page(page, server, "/", urlencode({**settings, "sample": "hf-course"}))
        train(page)
        open_sections(page, "Reproduce in Python")
        block = main(page).locator('[data-testid="stCode"]')
        block.wait_for()
        run, _ = from_query_params({"algorithm": "bpe", **settings})
        expected = training_program(run.run_config(), CorpusSource.from_sample("hf-course"), "library")
        shown = block.locator("code").inner_text()
        assert shown.rstrip("\n") == expected.rstrip("\n")
        assert "<script>" in shown and main(page).locator("script").count() == 0
        block.hover()
        block.get_by_role("button").first.click()
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied.rstrip("\n") == expected.rstrip("\n")
        assert dialogs == []
        assert_no_errors(page, "the Reproduce in Python section")
        screenshot(page, "reproduce-in-python")
    finally:
        context.close()
