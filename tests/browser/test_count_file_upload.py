"""A count file uploaded on the Train page in a real browser: the note names it, the form says its
settings come from the file and does not let them change, and it trains (a screenshot of the page
with the file in use goes to artifacts/screenshots/)."""

from __future__ import annotations

import pytest

from explorer.corpora.count_files import write_count_file
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.samples import SAMPLES
from tests.browser.helpers import assert_no_errors, open_page, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_a_count_file_uploaded_shows_its_settings_fixed_and_trains(page, server, tmp_path):
    counter = ChunkCounter(Counting(("nfkc",), "byte-level-cl100k", "lines-with-endings"))
    counter.add_text(SAMPLES["multilingual"].text)
    path = tmp_path / "counts.parquet"
    write_count_file(path, counter.result())

    open_page(page, server, "/")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    page.get_by_text("Using the uploaded count file 'counts.parquet'").wait_for(timeout=60_000)
    page.get_by_text("come from the count file").wait_for()
    page.get_by_text("Advanced settings").first.click()
    wait_idle(page)
    assert page.get_by_role("combobox", name="Pre-tokenizer").is_disabled()
    screenshot(page, "train-count-file")
    page.get_by_role("button", name="Train", exact=True).click()
    page.get_by_text("Merges learned").first.wait_for(timeout=120_000)
    wait_idle(page)
    assert_no_errors(page, "the Train page with a count file")
