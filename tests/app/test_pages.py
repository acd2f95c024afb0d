"""The Streamlit app through AppTest (no browser): every page, before and after training, bad input,
escaping of hostile corpus text, shareable links and the merge player."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.drawing.markdown_literal import markdown_literal
from explorer.samples import SAMPLES
from explorer.training.word_counts import count_words
from explorer.ui.common.state import MEASURE_JOBS
from explorer.ui.common.state import Widget as W
from explorer.views.vocabulary_table import vocabulary_csv_name
from tests.app.helpers import (
    MERGES,
    PAGES,
    TRAIN,
    VOCABULARY,
    collect,
    column_token_counts,
    compare_column_bodies,
    compare_settled,
    html_bodies,
    literal_from_markdown,
    messages,
    metrics,
    new_app,
    open_compare,
    open_sections,
    player,
    player_act,
    player_tick,
    plotly_specs,
    query,
    run_of,
    sentence_figures,
    train,
    type_compare_text,
)

XSS = "<script>alert(1)</script> <img src=x onerror=alert(1)> **bold** $x$ :red[x]"


def test_app_loads_with_its_widgets():
    at = new_app()
    assert at.title[0].value == "Train"
    assert at.text_area(key=W.CORPUS).label == "Corpus"
    assert at.text_area(key=W.CORPUS).value == SAMPLES["scarlet"].text  # a sample is ready to train
    assert at.button(key=W.TRAIN).label == "Train"
    assert at.radio(key=W.ALGORITHM).value == "bpe"
    assert at.number_input(key=W.VOCAB_NUMBER).value == 1000
    assert at.slider(key=W.VOCAB_SLIDER).value == 1000
    assert at.text_input(key=W.SPECIAL_TOKENS).value == "<|endoftext|>"
    assert not at.metric  # nothing trained yet: no summary
    assert (at.query_params["algorithm"], at.query_params["sample"]) == ("bpe", "scarlet")


def test_train_is_enabled_again_after_a_fast_run():
    at = train(new_app())  # within the inline wait on an idle machine; polled to its end on a busy one
    assert metrics(at)["Merges learned"]
    assert not at.button(key=W.TRAIN).disabled  # no stale disabled button


def test_show_ids_writes_every_tokens_id_under_it():
    at = train(new_app())
    column = next(body for body in html_bodies(at) if 'class="compare-column"' in body)
    assert 'class="tok-id"' not in column
    at.toggle(key=W.SHOW_IDS).set_value(True).run()
    column = next(body for body in html_bodies(at) if 'class="compare-column"' in body)
    hovered = re.findall(r'title="id (\d+)&#58;', column)
    written = re.findall(r'<span class="tok-id">(\d+)</span>', column)
    assert written and written == hovered


def test_sample_trains_and_summary_appears():
    at = new_app()
    at.selectbox(key=W.SAMPLE).set_value("hf-course").run()
    assert at.text_area(key=W.CORPUS).value == SAMPLES["hf-course"].text
    train(at)
    summary = metrics(at)
    for label in (
        "Merges learned",
        "Stop reason",
        "Time taken",
        "Corpus characters",
        "Words",
        "Distinct words",
        "Final vocabulary size",
    ):
        assert label in summary
    course = SAMPLES["hf-course"].text  # ASCII: a character per code point, line breaks not counted
    assert summary["Corpus characters"] == f"{len(course) - course.count(chr(10)):,}"
    word_counts = count_words(SAMPLES["hf-course"].text, (), "byte-level")
    assert summary["Distinct words"] == str(len(word_counts))
    assert summary["Words"] == str(sum(word_counts.values()))
    assert summary["Stop reason"] == "no pair left to merge"
    assert int(summary["Final vocabulary size"].replace(",", "")) == 257 + int(summary["Merges learned"])
    assert any('class="tok"' in body for body in html_bodies(at))  # the sample sentences, tokenized
    assert at.query_params["sample"] == "hf-course"


def test_pasted_corpus_trains_and_leaves_the_link_without_a_corpus():
    at = new_app()
    at.text_area(key=W.CORPUS).set_value("low lower lowest\nnewer newest widest\nlow low").run()
    assert at.selectbox(key=W.SAMPLE).value == ""  # no longer the sample
    assert "sample" not in at.query_params
    at.radio(key=W.ALGORITHM).set_value("wordpiece").run()
    assert at.selectbox(key=W.PRE_TOKENIZER).value == "bert"  # the algorithm's defaults
    assert at.text_input(key=W.PREFIX).value == "##"
    assert at.text_input(key=W.SPECIAL_TOKENS).value == "[PAD],[UNK],[CLS],[SEP],[MASK]"
    at.number_input(key=W.VOCAB_NUMBER).set_value(30).run()
    assert at.slider(key=W.VOCAB_SLIDER).value == 30  # kept in sync
    train(at)
    summary = metrics(at)
    assert summary["Distinct words"] == "6"
    assert summary["Final vocabulary size"] == "30"
    assert summary["Stop reason"] == "vocabulary size reached"
    assert at.query_params["algorithm"] == "wordpiece" and at.query_params["vocab_size"] == "30"


PASTE = "low lower lowest\nnewer newest widest\nlow low"


def test_a_paste_is_kept_when_the_next_message_still_holds_the_sample_it_replaced():
    """A paste followed at once by Enter in another field: that message was sent before the browser
    heard that the sample picker changed to "none", so it still holds the sample. Measured in
    Chromium before the fix: 4 quick pastes in 14 trained the sample instead."""
    at = new_app()
    assert at.selectbox(key=W.SAMPLE).value == "scarlet"
    at.text_area(key=W.CORPUS).set_value(PASTE).run()
    assert at.selectbox(key=W.SAMPLE).value == ""
    at.selectbox(key=W.SAMPLE).set_value("scarlet")  # what the browser still showed ...
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()  # ... sent with the visitor's Enter
    assert at.text_area(key=W.CORPUS).value == PASTE and at.selectbox(key=W.SAMPLE).value == ""
    at.number_input(key=W.VOCAB_NUMBER).set_value(301).run()  # the browser now shows "none"
    at.selectbox(key=W.SAMPLE).set_value("scarlet").run()  # a real choice of the sample again
    assert at.text_area(key=W.CORPUS).value == SAMPLES["scarlet"].text


def test_a_sample_picked_is_kept_when_the_next_message_still_holds_the_old_text():
    at = new_app()
    at.text_area(key=W.CORPUS).set_value(PASTE).run()
    at.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    at.selectbox(key=W.SAMPLE).set_value("hf-course").run()
    assert at.text_area(key=W.CORPUS).value == SAMPLES["hf-course"].text
    at.text_area(key=W.CORPUS).set_value(PASTE)  # the text area as the browser still showed it ...
    at.number_input(key=W.VOCAB_NUMBER).set_value(301).run()  # ... sent with the visitor's Enter
    assert at.selectbox(key=W.SAMPLE).value == "hf-course"
    assert at.text_area(key=W.CORPUS).value == SAMPLES["hf-course"].text


def test_choosing_the_replaced_sample_right_after_a_paste_is_ignored_at_most_once():
    """The price of the two tests above: with no message in between, the server cannot tell the
    visitor choosing the sample again from a message sent before the browser knew; the first
    such choice is undone, the second one counts."""
    at = new_app()
    at.text_area(key=W.CORPUS).set_value(PASTE).run()
    at.selectbox(key=W.SAMPLE).set_value("scarlet").run()
    assert at.selectbox(key=W.SAMPLE).value == ""
    at.selectbox(key=W.SAMPLE).set_value("scarlet").run()
    assert at.text_area(key=W.CORPUS).value == SAMPLES["scarlet"].text


@pytest.mark.parametrize("page", PAGES)
def test_pages_before_training_show_a_friendly_message(page):
    at = new_app()
    at.switch_page(page).run()
    assert not at.exception
    assert "Train page first" in messages(at, "info")
    assert [link.proto.label for link in at.main.get("page_link")] == ["Train"]  # the home page


def test_every_page_shows_the_run_after_training():
    at = train(new_app())
    steps = int(metrics(at)["Merges learned"])
    vocab_size = int(metrics(at)["Final vocabulary size"].replace(",", ""))

    at.switch_page(MERGES).run()
    assert not at.exception, at.exception
    shown = player(at)
    assert (shown["label"], shown["step"], shown["steps"]) == ("Step (merges applied)", 1, steps)
    assert not plotly_specs(at)  # the competition is HTML; the closed sections draw nothing
    assert any('class="competition"' in body for body in html_bodies(at))
    open_sections(at)
    assert len(plotly_specs(at)) == 3  # the timeline, the compression curve, the tree of merge 1's token
    player_act(at, 5)
    bodies = html_bodies(at)
    assert any("Merge <b>5</b>" in body for body in bodies)
    assert any('class="tok mono-tok tok-new"' in body for body in bodies)  # what merge 5 joined is outlined
    assert any('class="merge-tree"' in body for body in bodies)  # the token merge 5 made
    assert len(plotly_specs(at)) == 3

    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table.columns[:4]) == ["id", "token", "readable", "kind"]
    assert len(table) == vocab_size
    assert "·was" in set(table["readable"])  # byte-level "Ġwas" shown with a visible space
    assert len(at.dataframe) == 2  # the table and the 40-per-column grid
    assert list(at.dataframe[1].value.columns[:2]) == ["0 -> 40", "40 -> 80"]
    downloads = {button.proto.label for button in at.get("download_button")}
    assert downloads == {"Table (CSV)", "tokenizer.json", "vocab.json", "merges.txt", "Trace (JSON)"}
    ranks = dict(zip(table["kind"], table["merge rank"]))  # a rank, or what made the token
    assert ranks["character"] == "character" and ranks["special"] == "special" and ranks["merged"].isdigit()
    at.text_input(key=W.SEARCH).set_value("found").run()
    shown = at.dataframe[0].value
    assert all("found" in token for token in shown["readable"])
    csv = next(
        button.proto for button in at.get("download_button") if button.proto.label.startswith("Table (CSV")
    )
    assert csv.label == f"Table (CSV, {len(shown)} rows shown)"
    run = run_of(at)
    assert (
        vocabulary_csv_name(run, len(shown), vocab_size)
        == f"bpe-1000-run1-vocabulary-filtered-{len(shown)}-of-{vocab_size}.csv"
    )
    assert vocabulary_csv_name(run, vocab_size, vocab_size) == "bpe-1000-run1-vocabulary.csv"

    open_compare(at)
    assert not at.exception, at.exception
    assert any('class="token-spans"' in body and 'title="id ' in body for body in html_bodies(at))
    at.button(key=W.TRAIN_OTHER).click().run()
    assert not at.exception, at.exception
    compare_settled(at)  # the new column's figures, measured in a worker
    assert len(column_token_counts(at)) == 5  # this run, WordPiece on the same corpus, GPT-2, GPT-4, GPT-4o
    assert len(at.dataframe[0].value) == 5

    at.switch_page(TRAIN).run()  # back on Train: settings and summary are still there
    assert not at.exception, at.exception
    assert at.text_area(key=W.CORPUS).value == SAMPLES["scarlet"].text
    assert at.radio(key=W.ALGORITHM).value == "bpe"
    assert metrics(at)["Merges learned"] == str(steps)


def test_merge_player_plays_and_pauses():
    at = train(new_app())
    at.switch_page(MERGES).run()
    assert player_act(at, 0, playing=True)["playing"]  # Play
    first = player(at)["step"]
    assert player_tick(at)["step"] > first
    paused = player_act(at, player(at)["step"])  # Pause at the step shown
    assert not paused["playing"] and paused["step"] == at.session_state["player_step"]
    at.run()  # a rerun with no action (another widget, a reload of the fragment) stays there
    assert player(at)["step"] == paused["step"] and not player(at)["playing"]


def test_empty_corpus_and_bad_vocab_size_show_messages():
    at = new_app()
    at.text_area(key=W.CORPUS).set_value("   ").run()
    train(at)
    assert "corpus is empty" in messages(at, "error")
    assert not at.metric

    at = new_app()
    at.number_input(key=W.VOCAB_NUMBER).set_value(0).run()
    train(at)
    assert "vocab_size must be from 1 to" in messages(at, "error")
    assert not at.metric


def test_trainer_value_error_is_a_message():
    at = new_app()
    at.radio(key=W.ALGORITHM).set_value("wordpiece").run()
    at.radio(key=W.FLAVOR).set_value("course").run()
    at.text_input(key=W.PREFIX).set_value("@@").run()
    train(at)
    assert "'##' continuing-subword prefix" in messages(at, "error")


def merge_history_at_the_last_step_of_a_hostile_corpus() -> AppTest:
    """XSS three times as a corpus, trained (split on white space only), on Merge history's last step."""
    at = new_app()
    at.text_area(key=W.CORPUS).set_value("\n".join([XSS] * 3)).run()
    at.selectbox(key=W.PRE_TOKENIZER).set_value("whitespace-split").run()
    train(at)
    at.switch_page(MERGES).run()
    player_act(at, player(at)["steps"])
    return at


def test_hostile_corpus_is_escaped_everywhere():
    at = merge_history_at_the_last_step_of_a_hostile_corpus()
    open_compare(at)
    type_compare_text(at, XSS)
    assert not at.exception, at.exception
    bodies = " ".join(html_bodies(at))
    assert "&lt;script&gt;" in bodies and "&lt;img" in bodies
    assert "<script" not in bodies and "<img" not in bodies
    assert "**bold**" not in bodies and "$x$" not in bodies  # Markdown/LaTeX markup neutralised


def test_hostile_corpus_tokens_are_escaped_in_the_merge_view():
    at = merge_history_at_the_last_step_of_a_hostile_corpus()
    bodies = " ".join(html_bodies(at))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in bodies  # the whole word is one token by now
    assert "<script" not in bodies and "<img" not in bodies


def test_a_link_reproduces_the_view():
    form = {"algorithm": "wordpiece", "sample": "german", "vocab_size": "60"}
    at = new_app(form)
    assert at.radio(key=W.ALGORITHM).value == "wordpiece"
    assert at.number_input(key=W.VOCAB_NUMBER).value == 60
    assert at.text_area(key=W.CORPUS).value == SAMPLES["german"].text
    assert "Final vocabulary size" not in metrics(at)  # a form not trained yet: no summary
    assert "run" not in at.query_params
    train(at)
    assert metrics(at)["Final vocabulary size"] == "60"
    elsewhere = new_app(query(at))
    assert metrics(elsewhere)["Final vocabulary size"] == "60"  # the link names the run: trained
    assert query(elsewhere) == query(at)


def test_a_bad_link_value_is_a_warning():
    at = new_app({"vocab_size": "lots", "pre_tokenizer": "magic"})
    assert "Ignored vocab_size" in messages(at, "warning") and "Ignored pre_tokenizer" in messages(
        at, "warning"
    )
    assert at.number_input(key=W.VOCAB_NUMBER).value == 1000


def test_uploaded_corpus_trains_and_a_non_utf8_upload_is_an_error():
    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload(
        "<b>notes</b>.txt", "naïve café\nnaïve\n".encode(), "text/plain"
    ).run()
    assert not at.exception, at.exception
    train(at)
    assert (metrics(at)["Words"], metrics(at)["Distinct words"]) == ("3", "2")  # naïve ×2, ·café
    bodies = " ".join(html_bodies(at))
    assert "&lt;b&gt;notes&lt;/b&gt;.txt" in bodies and "<b>notes" not in bodies  # the file name, escaped
    assert "sample" not in at.query_params  # an uploaded corpus never goes into the link

    at = new_app()
    at.file_uploader(key=W.UPLOAD).upload("latin1.txt", "caf\u00e9".encode("latin-1"), "text/plain").run()
    assert not at.exception
    assert "is 'é' in Latin-1/Windows-1252" in literal_from_markdown(messages(at, "error"))
    train(at)
    assert not at.metric


# ---------------------------------------------------------------- Compare: pretrained, metrics, uploads

GPT2_MOUSE_EN = [32, 10211, 1444, 4767, 283, 10718, 319, 262, 13273, 19262, 287, 262, 32630, 10580, 13]


def test_compare_shows_pretrained_tokenizers_metrics_and_charts():
    at = train(new_app())
    open_compare(at)
    assert not at.exception, at.exception
    columns = compare_column_bodies(at)
    assert {"GPT-2", "GPT-4 (cl100k&#95;base)", "GPT-4o (o200k&#95;base)"} <= set(columns)
    assert len(columns) == 4  # and the current run
    english = columns["GPT-2"].split('class="compare-sentence"')[1]  # the first sentence: English
    assert [int(i) for i in re.findall(r'title="id (\d+)&#58;', english)] == GPT2_MOUSE_EN
    assert any('class="boundary-diff"' in body for body in html_bodies(at))

    # The corpus figures (measured in workers: their messages, then the run that collects them),
    # then the research figures (tests/app/test_compare_research.py).
    collect(at, MEASURE_JOBS)
    sentence_table, (corpus_table, _) = sentence_figures(at), (frame.value for frame in at.dataframe)
    assert list(sentence_table) == list(corpus_table.index) and len(corpus_table) == 4
    assert {
        "tokens",
        "characters / token",
        "bytes / token",
        "tokens per word",
        "words split",
        "unknown tokens",
        "characters lost",
    } <= set(corpus_table.columns)
    assert "seconds" in corpus_table.columns  # how long each measurement took
    assert corpus_table.loc["GPT-2", "tokens"] == 166  # the Study in Scarlet paragraph, line by line
    assert not plotly_specs(at)  # the charts are in closed sections
    specs = plotly_specs(open_sections(at, W.SECTION_FIGURES_CHART, W.SECTION_CURVE))
    bars = [spec for spec in specs if spec["data"] and spec["data"][0]["type"] == "bar"]
    assert len(bars) == 1 and len(bars[0]["data"]) == 5  # one panel per ratio, and the characters lost
    assert any(spec["data"][0]["type"] == "scatter" for spec in specs)  # the curve against vocab size
    captions = " ".join(caption.value for caption in at.caption)
    assert "**pre-tokens split** is a measure of its own" in captions  # one name, one meaning
    assert "**tokens per word**: tokens ÷ words" in captions


def test_compare_asks_the_workers_for_the_corpus_figures_before_drawing_the_sentences(monkeypatch):
    """The workers measure while the server draws the sentence columns (which load the pretrained
    vocabularies on a fresh server): the first request comes before the first column is drawn."""
    from explorer.ui.compare import live_columns, measuring

    events = []
    request, draw = measuring._request, live_columns._counts_and_columns
    monkeypatch.setattr(measuring, "_request", lambda *args: events.append("request") or request(*args))
    monkeypatch.setattr(
        live_columns, "_counts_and_columns", lambda *args: events.append("draw") or draw(*args)
    )
    at = train(new_app())
    open_compare(at)
    assert not at.exception, at.exception
    assert events[:2] == ["request", "draw"]
    assert len(at.dataframe[0].value) == len(sentence_figures(at)) == 4  # and the figures are all there


def test_compare_columns_can_be_hidden_and_uploads_added():
    at = train(new_app())
    open_compare(at)
    at.multiselect(key="compare_columns").unselect("pretrained:cl100k_base").run()
    assert not at.exception, at.exception
    assert "GPT-4 (cl100k&#95;base)" not in compare_column_bodies(at)
    assert len(at.dataframe[0].value) == len(sentence_figures(at)) == 3

    vocab = "\n".join(["[UNK]", "[CLS]", "a", "mouse", "the", "##s", "t", "##o", "##w", "##e", "##r"]) + "\n"
    at.file_uploader(key="compare_upload").upload("<b>tiny</b> vocab.txt", vocab.encode(), "text/plain").run()
    assert not at.exception, at.exception
    assert not at.error
    columns = compare_column_bodies(at)
    assert "&lt;b&gt;tiny&lt;/b&gt; vocab.txt (uploaded)" in columns  # a new column, ticked, escaped
    assert "GPT-4 (cl100k&#95;base)" not in columns  # still hidden
    assert "<b>tiny" not in " ".join(html_bodies(at))


def test_compare_malformed_upload_is_an_error_message():
    at = train(new_app())
    open_compare(at)
    name = "**bold** $x$ :red[x].json"  # file names are user text: shown as typed, never as Markdown
    at.file_uploader(key="compare_upload").set_value(
        [(name, b'{"model": ', "application/json"), ("vocab.json", b'{"a": 0}', "application/json")]
    ).run()
    assert not at.exception, at.exception
    errors = [literal_from_markdown(element.value) for element in at.error]
    assert f"Cannot use this upload. {name}: not valid JSON" in " ".join(errors)
    assert all(markdown_literal(text) == element.value for text, element in zip(errors, at.error))
    assert "vocab.json: a vocab.json needs its merges.txt" in " ".join(errors)
    assert len(compare_column_bodies(at)) == 4  # the page goes on without them


def test_train_summary_counts_what_the_tokenizer_cannot_represent():
    from explorer.samples import SAMPLE_SENTENCES
    from explorer.tokens import lost_characters
    from explorer.train import encode_pieces, tokenizer_from_trace

    at = train(new_app({"algorithm": "bpe", "flavor": "course", "vocab_size": "50", "sample": "hf-course"}))
    tokenizer = tokenizer_from_trace(run_of(at).history)
    lost = sum(lost_characters(encode_pieces(tokenizer, sentence)) for sentence in SAMPLE_SENTENCES)
    assert lost >= 2  # at least "A" and "P": the course's four sentences have neither
    assert f"This tokenizer cannot represent {lost} characters of these sentences" in messages(at, "warning")
    body = next(body for body in html_bodies(at) if 'class="compare-column"' in body)
    assert "dropped: A" in body and "dropped: P" in body
