"""The reading on the Train page (how a text is cut into sequences): a hand-made link's
`reading=lines-with-endings` is what the form shows, trains with and writes back; the form offers a
text's two readings (the library's `train(files)` keeps each line's ending); a link's "records",
which a text cannot have, is ignored with one sentence."""

from __future__ import annotations

from explorer.checks import Limits
from explorer.run_config import TEXT_READINGS
from explorer.train import train_corpus
from explorer.ui.common.state import Widget as W
from tests.app.helpers import MERGES, TRAIN, joined, metrics, new_app, query, run_of, texts, train

# Line endings decide the words when they are kept: "\r\n" and a blank line, with byte-level's "Ċ".
CORPUS = "low lower lowest\r\nnew newer newest\n\nwider wide\n" * 4


def merges_of(text: str, at) -> list[str]:
    """The merges the run's settings give on `text`, trained here (not read from the page)."""
    return train_corpus(text, run_of(at).settings.run_config(Limits())).merge_strings()


def test_a_links_reading_is_what_the_form_shows_trains_and_writes_back():
    link = {"sample": "hf-course", "vocab_size": "300", "reading": "lines-with-endings"}
    at = new_app(link, MERGES)  # a page that shows a run trains the link's sample
    assert not at.exception and not joined(at, "error")
    run = run_of(at)
    assert run is not None and run.settings.reading == "lines-with-endings"
    assert query(at)["reading"] == "lines-with-endings"
    at.switch_page(TRAIN).run()
    assert at.selectbox(key=W.READING).value == "lines-with-endings"
    assert "Merges learned" in metrics(at)  # the summary: the form says what trained the run
    assert not any("changed since run" in caption for caption in texts(at, "caption"))
    assert query(at)["reading"] == "lines-with-endings" and query(at)["run"] == run.store_key
    assert new_app(query(at)).selectbox(key=W.READING).value == "lines-with-endings"


def test_the_form_offers_a_texts_two_readings_and_trains_with_the_one_chosen():
    at = new_app()
    assert at.selectbox(key=W.READING).value == "lines" and "reading" not in query(at)
    assert tuple(at.selectbox(key=W.READING).options) == tuple(
        at.selectbox(key=W.READING).format_func(key) for key in TEXT_READINGS
    )
    at.text_area(key=W.CORPUS).set_value(CORPUS).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(280).run()
    at.selectbox(key=W.READING).set_value("lines-with-endings").run()
    train(at)
    run = run_of(at)
    assert run is not None and run.settings.reading == "lines-with-endings", joined(at, "error")
    assert run.history.merge_strings() == merges_of(CORPUS, at)
    assert "Ċ" in "".join(run.history.vocab)  # the line break is in the words
    assert query(at)["reading"] == "lines-with-endings"
    at.selectbox(key=W.READING).set_value("lines").run()
    assert "run" not in query(at) and "reading" not in query(at)  # the form no longer says run's


def test_a_links_records_reading_is_ignored_in_one_sentence():
    at = new_app({"sample": "hf-course", "vocab_size": "300", "reading": "records"})
    assert not at.exception
    warning = joined(at, "warning")
    assert "Ignored reading='records' from the link" in warning and "lines-with-endings" in warning
    assert at.selectbox(key=W.READING).value == "lines" and "reading" not in query(at)
