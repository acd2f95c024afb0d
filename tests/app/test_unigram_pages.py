"""A Unigram run through the app (AppTest, no browser): trained from the Train page in both
flavors, every page opened, its scores on Vocabulary, its column on Compare, and the link that
brings it back."""

from __future__ import annotations

import pytest

from explorer.lessons.rounds import course_loss
from explorer.samples import SAMPLE_SENTENCES, SAMPLES
from explorer.training import engines
from explorer.ui.common.state import JOB, OTHER_RUN
from explorer.ui.common.state import Widget as W
from explorer.views import vocabulary_table as vocabulary_views
from tests.app.helpers import (
    MERGES,
    PAGES,
    STOP_BEFORE_SECONDS,
    TRAIN,
    TRAIN_WAIT_SECONDS,
    VOCABULARY,
    click,
    html_bodies,
    joined,
    learning,
    metrics,
    new_app,
    open_compare,
    query,
    run_of,
    session_value,
    train,
)
from tests.helpers import worker_tasks
from tests.helpers.processes import wait_until


def unigram_app(flavor: str, vocab_size: int = 100):
    """A session that trained Unigram (`flavor`) on the course's four sentences."""
    at = new_app()
    at.selectbox(key=W.SAMPLE).set_value("hf-course").run()
    at.radio(key=W.ALGORITHM).set_value("unigram").run()
    at.radio(key=W.FLAVOR).set_value(flavor).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(vocab_size).run()
    assert not at.exception, at.exception
    return train(at)


@pytest.fixture(scope="module", params=["course", "library"])
def trained(request):
    return unigram_app(request.param)


def test_the_train_page_offers_unigram_with_its_own_settings():
    at = new_app()
    at.radio(key=W.ALGORITHM).set_value("unigram").run()
    assert at.selectbox(key=W.PRE_TOKENIZER).value == "metaspace"
    assert at.text_input(key=W.SPECIAL_TOKENS).value == ""
    assert at.text_input(key=W.UNK_TOKEN).value == "<unk>"
    assert at.number_input(key=W.SEED_SIZE).value is None  # the flavor's default
    assert not [widget for widget in at.text_input if widget.key in (W.PREFIX, W.SUFFIX)]
    at.text_input(key=W.UNK_TOKEN).set_value("").run()
    assert "needs an unk token" in joined(at, "error")
    at.text_input(key=W.UNK_TOKEN).set_value("<unk>").run()
    at.number_input(key=W.SEED_SIZE).set_value(50).run()
    assert "not below the seed size (50)" in joined(at, "warning")
    assert query(at)["algorithm"] == "unigram" and query(at)["seed_size"] == "50"


def test_a_unigram_run_trains_and_its_summary_counts_rounds(trained):
    at = trained
    run = run_of(at)
    assert run.history.config.is_unigram
    summary = metrics(at)
    assert summary["Rounds"] == str(len(run.history.rounds))
    assert summary["Final vocabulary size"] == str(len(run.history.vocab))
    seeds_small_enough = len(run.history.seeds) <= run.history.config.vocab_size
    assert summary["Stop reason"] == (
        "the seed pieces were already no more than the size asked for"
        if seeds_small_enough
        else "vocabulary size reached"
    )
    assert summary["Seed pieces"] == str(len(run.history.seeds))
    if run.history.flavor == "course":  # the course's compute_loss of the final model
        final_loss = course_loss(run.history, len(run.history.rounds))
    else:  # the last EM objective (the library's final round runs no EM)
        final_loss = [loss for losses in run.history.losses() for loss in losses][-1]
    assert float(summary["Final loss"].replace(",", "")) == pytest.approx(
        final_loss, abs=5e-5
    )  # shown to 4 decimals
    assert any('class="tok"' in body for body in html_bodies(at))  # the sample sentences, tokenized
    assert not at.exception


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_on_a_unigram_run(trained, page):
    trained.switch_page(page).run()
    assert not trained.exception, trained.exception
    trained.switch_page(TRAIN).run()
    assert not trained.exception, trained.exception


def test_vocabulary_shows_scores_and_removal_rounds(trained):
    at = trained
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    run = run_of(at)
    assert list(table["token"]) == run.history.vocab
    scores = dict(run.history.final_pieces)
    assert all(table["score"][i] == scores[token] for i, token in enumerate(table["token"]))
    labels = [button.label for button in at.get("download_button")]
    assert "tokenizer.json" in labels and "Trace (JSON)" in labels
    removed = next(frame.value for frame in at.dataframe if "round" in frame.value.columns)
    removed_seeds = {
        run.history.seeds[index] for round_ in run.history.rounds for index in round_.removed_pieces
    }
    assert len(removed) == len(removed_seeds)  # each seed piece removed once
    # None of them is in the final vocabulary, but characters the library's final assembly put back.
    put_back = {char for round_ in run.history.rounds for char in round_.added}
    assert set(removed["token"]) & set(run.history.vocab) <= put_back


def test_the_downloaded_tokenizer_json_encodes_like_the_app_in_the_library(trained):
    from tokenizers import Tokenizer as LibraryTokenizer

    run = run_of(trained)
    exported = next(file for file in vocabulary_views.downloads(run) if file.label == "tokenizer.json").data
    library = LibraryTokenizer.from_str(exported)
    ours = run.tokenizer
    for sentence in [*SAMPLE_SENTENCES, SAMPLES["hf-course"].text, "Unknown ✓ characters ✓✓ here"]:
        assert library.encode(sentence).ids == ours.encode(sentence).ids
        assert library.encode(sentence).offsets == ours.encode(sentence).offsets


def test_compare_has_the_unigram_column_and_its_viterbi_table(trained):
    at = trained
    open_compare(at)
    assert not at.exception, at.exception
    run = run_of(at)
    assert run.column_key in at.multiselect(key=W.COLUMNS).value
    assert any(run.name in body for body in html_bodies(at))
    assert any('class="viterbi-table"' in body for body in html_bodies(at))
    assert "Train the other algorithm (BPE)" in [button.label for button in at.button]


def test_compare_trains_bpe_beside_a_unigram_run():
    at = unigram_app("course")
    open_compare(at)
    click(at, W.TRAIN_OTHER)
    columns = at.multiselect(key=W.COLUMNS).value
    other = session_value(at, OTHER_RUN)
    assert other is not None and other.settings.algorithm == "bpe" and other.column_key in columns
    assert other.settings.vocab_size == 100 and other.settings.flavor == "course"


def test_the_link_brings_the_unigram_run_back(trained):
    at = trained
    link = query(at)
    again = new_app(link, page=MERGES)
    run = run_of(again)
    assert run is not None and run.history.config.is_unigram
    assert run.store_key == link["run"]  # read back from the run store, not trained again
    assert run.history.final_pieces == run_of(at).history.final_pieces
    assert not again.exception


@pytest.mark.slow
def test_stop_ends_a_unigram_run_and_keeps_its_rounds_so_far(monkeypatch):
    # The Python engine, its stop checks slowed (tests.helpers.worker_tasks.slow_training): a
    # training that lasts until Stop on any machine (the compiled engine ends it in a second or two),
    # under a time limit that no load lets it reach before the Stop.
    monkeypatch.setenv(engines.ENGINE_VARIABLE, "python")
    monkeypatch.setenv("EXPLORER_MAX_SECONDS", STOP_BEFORE_SECONDS)
    monkeypatch.setattr("explorer.work.tasks.train_task", worker_tasks.slow_training)
    at = new_app()
    at.selectbox(key=W.SAMPLE).set_value("shakespeare").run()
    at.radio(key=W.ALGORITHM).set_value("unigram").run()
    at.button(key=W.TRAIN).click().run()
    wait_until(lambda: learning(at), TRAIN_WAIT_SECONDS, "the Unigram training's first round in a worker")
    assert "round" in session_value(at, JOB).progress()[1]  # rounds, not merges
    click(at, W.STOP)
    run = run_of(at)
    assert run is not None and run.history.config.is_unigram
    assert run.history.stop_reason == "stopped" and run.stopped_by == "the Stop button"
    assert "stopped by the Stop button" in joined(at, "warning")
    again = run_of(new_app(query(at), VOCABULARY))  # a reload brings the stopped run back
    assert again is not None and again.store_key == run.store_key
    assert len(again.history.rounds) == len(run.history.rounds)


def sidebar_links(at) -> list[str]:
    return [element.proto.label for element in at.sidebar.get("page_link")]


def test_the_sidebar_names_the_history_page_of_a_stored_run_shown_on_train():
    """The sidebar's links are drawn before the page's body, which can make a run current in the
    same script run without another (a sample's stored run, reused at the click): they are drawn
    again at the page's end. A fresh-clone CI run found "Merge history" beside "Current run #1
    Unigram 100" and waited for the "Training history" link in vain."""
    unigram_app("course")  # stored: a class's sample run
    at = new_app()
    at.selectbox(key=W.SAMPLE).set_value("hf-course").run()
    at.radio(key=W.ALGORITHM).set_value("unigram").run()
    at.radio(key=W.FLAVOR).set_value("course").run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(100).run()
    at.button(key=W.TRAIN).click().run()  # one script run: the stored run is shown, no training
    assert not at.exception, at.exception
    assert run_of(at) is not None and run_of(at).history.step_noun == "round"
    assert sidebar_links(at) == ["Train", "Training history", "Vocabulary", "Compare"]


@pytest.mark.parametrize("page", PAGES)
def test_the_sidebar_names_the_history_page_as_its_title_does(trained, page):
    # Issue 50: the sidebar said "Merge history" where the Unigram page is titled "Training history".
    trained.switch_page(page).run()
    assert sidebar_links(trained) == ["Train", "Training history", "Vocabulary", "Compare"]
    if page == MERGES:
        assert trained.title[0].value == "Training history"
    trained.switch_page(TRAIN).run()
    assert sidebar_links(new_app()) == ["Train", "Merge history", "Vocabulary", "Compare"]  # no run yet
