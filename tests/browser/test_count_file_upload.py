"""A count file uploaded on the Train page in a real browser: the note names it, the form says its
settings come from the file and does not let them change, and it trains (a screenshot of the page
with the file in use goes to artifacts/screenshots/); its link, opened in another browser, shows
the same run's summary and its other pages."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from explorer.corpora.count_files import write_count_file
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.samples import SAMPLES
from tests.browser.helpers import assert_no_errors, main, open_page, screenshot, sidebar, wait_idle

pytestmark = pytest.mark.browser

OTHER_PAGES = {  # sidebar link -> text the page shows once drawn with a run
    "Merge history": "Step (merges applied)",
    "Vocabulary": "Grid view",
    "Compare": "Figures",
}


def test_a_count_file_uploaded_shows_its_settings_fixed_and_trains(page, server, elsewhere, tmp_path):
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

    query = page.url.split("?", 1)[1]
    assert "run=" in query
    shown = figures_of(page)
    with elsewhere.open() as other:  # another browser (tests/browser/conftest.py): a fresh session
        open_page(other, server, "/", query)
        other.get_by_text("Merges learned").first.wait_for(timeout=60_000)
        wait_idle(other)
        assert figures_of(other) == shown
        assert other.get_by_text("changed since run").count() == 0
        assert other.get_by_text("is an uploaded count file").count() == 1
        assert other.url.split("?", 1)[1] == query
        assert_no_errors(other, "the count file's link in another browser")
        screenshot(other, "train-count-file-link-elsewhere")
        for label, drawn in OTHER_PAGES.items():  # the same session, as a visitor goes on
            sidebar(other).get_by_role("link", name=label).click()
            main(other).get_by_text(drawn, exact=True).first.wait_for(timeout=60_000)
            wait_idle(other)
            assert_no_errors(other, f"{label} of the count file's link in another browser")
            assert query_value(other.url, "run") == query_value(query, "run")


def figures_of(page) -> list[str]:
    """The run summary's figures as the page shows them (label and value)."""
    return page.locator('[data-testid="stMetric"]').all_inner_texts()


def query_value(url: str, name: str) -> str | None:
    values = parse_qs(url.split("?", 1)[-1]).get(name)
    return values[0] if values else None
