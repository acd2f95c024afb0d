"""A run trained from word counts (a count file) has no running text: every view that reads the
training corpus says so in one sentence and works on a sample text instead (Compare's figures
over the corpus, the Vocabulary page's audit), "Train the other algorithm" says why it is not
there, and the other pages draw the run as any other. Never a traceback."""

from __future__ import annotations

import pytest

from explorer.checks import Limits
from explorer.runs.run import Run, RunKey, make_run
from explorer.runs.settings import Settings
from explorer.samples import SAMPLES
from explorer.training.trainers import train_counted
from explorer.training.word_counts import count_corpus
from explorer.ui.common.state import AUDIT_JOBS, CURRENT_RUN, MEASURE_JOBS, TRAINED_CORPUS
from explorer.views.stand_in_text import no_running_text
from tests.app.helpers import (
    MERGES,
    VOCABULARY,
    collect,
    joined,
    metrics,
    new_app,
    open_compare,
    texts,
)

COUNTED = SAMPLES["multilingual"].text  # counted, then let go: the run keeps only its words


def run_from_counts() -> Run:
    settings = Settings(vocab_size=300)
    config = settings.run_config(Limits())
    words, figures = count_corpus(COUNTED, config.normalizers, config.pre_tokenizer or "byte-level")
    history = train_counted(words, figures, config)
    return make_run(
        key=RunKey("0" * 64, settings),
        history=history,
        corpus_label="counts.parquet",
        characters=0,
        perceived_characters=0,
        from_counts=True,
    )


@pytest.fixture
def counts_session():
    at = new_app()
    at.session_state[CURRENT_RUN] = run_from_counts()
    at.session_state[TRAINED_CORPUS] = None
    return at


def test_compare_says_the_run_has_no_text_and_measures_a_sample_instead(counts_session):
    at = open_compare(counts_session)
    assert not at.exception, at.exception
    assert no_running_text("measure") in texts(at, "info")
    collect(at, MEASURE_JOBS)
    assert not at.exception, at.exception
    assert any("**On the sample text**" in str(element.value) for element in at.markdown)
    corpus_table = at.dataframe[0].value
    assert len(corpus_table) >= 2 and corpus_table["tokens"].notna().all()
    assert any("not its text" in caption for caption in texts(at, "caption"))
    assert not joined(at, "error")


def test_the_audit_says_the_run_has_no_text_and_audits_a_sample_instead(counts_session):
    at = counts_session
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    assert no_running_text("audit") in texts(at, "info")
    collect(at, AUDIT_JOBS)
    assert not at.exception, at.exception
    assert "Tokens" in metrics(at) and not joined(at, "error")


def test_the_merge_history_draws_a_run_from_counts(counts_session):
    at = counts_session
    at.switch_page(MERGES).run()
    assert not at.exception, at.exception
    assert not joined(at, "error")
