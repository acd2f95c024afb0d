"""One link is the truth: each defect of the links issue as its own test, through AppTest sessions
sharing this process's pool and store. A "fresh browser" is a new AppTest session opened on the
first one's query parameters (`new_app(query(at), page)`); the browser-side randomized walk is in
tests/browser/test_link_walk.py.
"""

from __future__ import annotations

import json

from explorer.drawing.markdown_literal import markdown_literal
from explorer.runstore import keys
from explorer.session import serving, stored_runs
from explorer.ui.common.state import Widget as W
from explorer.ui.common.training import REUSED
from tests.app.helpers import (
    COMPARE,
    MERGES,
    column_token_counts,
    compare_column_bodies,
    compare_text,
    component_data,
    html_bodies,
    joined,
    metrics,
    new_app,
    open_compare,
    query,
    run_of,
    train,
    type_compare_text,
)
from tests.app.test_serving import train_pasted, words


def summary_shown(at) -> bool:
    return "Final vocabulary size" in metrics(at)


def test_a_sample_picked_after_training_drops_the_run_from_the_link():
    at = train_pasted(new_app(), words(200, seed=11))
    assert "run" in query(at) and summary_shown(at)
    at.selectbox(key=W.SAMPLE).set_value("scarlet").run()
    assert "run" not in query(at) and not summary_shown(at)  # the page and its link agree
    assert query(at)["sample"] == "scarlet"
    elsewhere = new_app(query(at))
    assert elsewhere.selectbox(key=W.SAMPLE).value == "scarlet" and not summary_shown(elsewhere)


def test_an_algorithm_switched_after_training_drops_the_run_from_the_link():
    at = train_pasted(new_app(), words(200, seed=12))
    at.radio(key=W.ALGORITHM).set_value("wordpiece").run()
    assert "run" not in query(at) and query(at)["algorithm"] == "wordpiece" and not summary_shown(at)
    assert "changed since run #1" in joined(at, "caption")
    at.radio(key=W.ALGORITHM).set_value("bpe").run()  # back to what trained it: the summary again
    assert "run" in query(at) and summary_shown(at)


def test_a_reused_run_gets_its_link_at_once():
    text = words(250, seed=13)
    first = train_pasted(new_app(), text)
    key = query(first)["run"]
    first.number_input(key=W.VOCAB_NUMBER).set_value(280).run()
    assert "run" not in query(first)
    first.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    train(first)  # the session's own run again
    assert REUSED in joined(first, "caption")
    assert query(first)["run"] == key
    reloaded = new_app(query(first))
    assert summary_shown(reloaded) and reloaded.text_area(key=W.CORPUS).value == text


def test_a_corpus_someone_else_pasted_is_trained_again_not_shown_as_theirs():
    text = words(240, seed=17)
    alice = train_pasted(new_app(), text)
    key = query(alice)["run"]
    stored = serving.store().get(key)
    bob = train_pasted(new_app(), text)  # holding a candidate text tells him nothing
    assert REUSED not in joined(bob, "caption") and summary_shown(bob)
    assert query(bob)["run"] != key  # a training and a run of his own
    assert serving.store().get(key).created == stored.created  # hers untouched
    assert run_of(new_app({"run": key}, MERGES)).store_key == key  # her link opens anywhere


def test_a_sample_someone_else_trained_is_shared():
    first = train(new_app({"sample": "german", "vocab_size": "70"}))
    job = serving.pool().find(query(first)["run"])
    second = train(new_app({"sample": "german", "vocab_size": "70"}))
    assert REUSED in joined(second, "caption") and serving.pool().find(query(second)["run"]) is job


def test_the_run_wins_over_contradicting_link_settings():
    at = train_pasted(new_app(), words(200, seed=14), vocab_size=300)
    key = query(at)["run"]
    contradicting = {"run": key, "algorithm": "wordpiece", "vocab_size": "500", "flavor": "course"}
    opened = new_app(contradicting)
    assert opened.radio(key=W.ALGORITHM).value == "bpe"
    assert opened.number_input(key=W.VOCAB_NUMBER).value == 300
    assert opened.text_area(key=W.CORPUS).value  # the run's corpus, not an empty one
    assert summary_shown(opened)
    assert "were ignored" in joined(opened, "info") and "algorithm=wordpiece" in joined(opened, "info")
    assert query(opened)["algorithm"] == "bpe" and "flavor" not in query(opened)
    assert query(opened)["run"] == key


def test_another_visitors_file_name_is_never_shown():
    text = words(220, seed=15)
    alice = new_app()
    alice.file_uploader(key=W.UPLOAD).upload("alice_private_diary.txt", text.encode(), "text/plain").run()
    alice.number_input(key=W.VOCAB_NUMBER).set_value(300).run()
    train(alice)
    assert "alice_private_diary" in run_of(alice).name  # her own session keeps her name for it
    carol = train_pasted(new_app(), text)
    assert REUSED not in joined(carol, "caption")  # trained again: Alice's run is not shown to her
    everything = " ".join(
        [*html_bodies(carol), *(str(e.value) for e in carol.markdown), joined(carol, "caption")]
    )
    assert "alice" not in everything and "another visitor" not in everything
    link_view = new_app(query(alice), MERGES)  # her link, opened by someone else
    assert "alice" not in run_of(link_view).name and "uploaded file" in run_of(link_view).name
    entry = serving.store().get(query(alice)["run"])
    assert "alice" not in json.dumps(entry.meta)  # nor is it in the store


def test_compare_in_one_link_columns_sentences_switch_and_decode():
    at = train_pasted(new_app(), words(200, seed=16))
    open_compare(at)
    chosen = [run_of(at).column_key, "pretrained:gpt2", "pretrained:llama3", "pretrained:qwen3.6"]
    at.multiselect(key=W.COLUMNS).set_value(chosen).run()
    type_compare_text(at, "Hello <|endoftext|> world\nSecond line 123")
    at.toggle(key=W.COMPARE_SPECIAL_TOKENS).set_value(True).run()
    at.text_area(key=W.DECODE_IDS).set_value("15496, 995").run()
    at.selectbox(key=W.DECODE_COLUMN).set_value("pretrained:gpt2").run()
    assert not at.exception
    link = query(at)
    elsewhere = new_app(link, COMPARE)
    assert elsewhere.multiselect(key=W.COLUMNS).value == at.multiselect(key=W.COLUMNS).value
    assert compare_text(elsewhere) == "Hello <|endoftext|> world\nSecond line 123"
    boxes = component_data(elsewhere, "explorer_live_text")
    assert [box["text"] for box in boxes if box["label"] == "Text to compare"] == [
        "Hello <|endoftext|> world\nSecond line 123"
    ]  # what the box shows
    assert elsewhere.toggle(key=W.COMPARE_SPECIAL_TOKENS).value is True
    assert elsewhere.text_area(key=W.DECODE_IDS).value == "15496, 995"
    assert elsewhere.selectbox(key=W.DECODE_COLUMN).value == "pretrained:gpt2"
    assert compare_column_bodies(elsewhere) == compare_column_bodies(at)
    assert column_token_counts(elsewhere) == column_token_counts(at)
    assert query(elsewhere) == link


def test_the_sessions_earlier_runs_survive_a_reload_with_their_numbers():
    at = train_pasted(new_app(), words(200, seed=17))
    train_pasted(at, words(200, seed=18))
    first, second = at.session_state["earlier_runs"][0], run_of(at)
    assert (first.number, second.number) == (1, 2)
    open_compare(at)
    reloaded = new_app(query(at), COMPARE)
    assert run_of(reloaded).number == 2 and run_of(reloaded).store_key == second.store_key
    earlier = reloaded.session_state["earlier_runs"]
    assert [(run.number, run.store_key) for run in earlier] == [(1, first.store_key)]
    assert any(option.startswith("Your runs · #1 ") for option in reloaded.multiselect(key=W.COLUMNS).options)
    assert reloaded.multiselect(key=W.COLUMNS).value == at.multiselect(key=W.COLUMNS).value


def test_an_uploaded_tokenizer_column_opens_from_a_link_elsewhere():
    from explorer.pipeline.tokenizer_json import tokenizer_to_json
    from explorer.train import tokenizer_from_trace

    at = train_pasted(new_app(), words(200, seed=19))
    exported = tokenizer_to_json(tokenizer_from_trace(run_of(at).history))
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).set_value(
        [("my-tokenizer.json", exported.encode(), "application/json")]
    ).run()
    assert not at.exception
    link = query(at)
    assert "upload:" in link["cols"]
    elsewhere = new_app(link, COMPARE)
    uploaded = [key for key in elsewhere.multiselect(key=W.COLUMNS).value if key.startswith("upload:")]
    assert uploaded and uploaded[0] in link["cols"]
    # the same columns and tokens; the upload under a neutral name (its file's is the uploader's)
    theirs, ours = compare_column_bodies(elsewhere), compare_column_bodies(at)
    assert any(name.startswith("tokenizer.json (uploaded, ") for name in theirs)
    assert {name: body for name, body in theirs.items() if "uploaded" not in name} == {
        name: body for name, body in ours.items() if "uploaded" not in name
    }
    assert column_token_counts(elsewhere) == column_token_counts(at)


def test_an_upload_is_keyed_under_the_secret_and_an_older_versions_link_is_a_sentence():
    """Issue 33: an upload's key was the bare sha256 of its file, so anyone holding a candidate file
    could confirm it had been uploaded here; an old link must still open, with a sentence."""
    import hashlib

    from explorer.pipeline.tokenizer_json import tokenizer_to_json
    from explorer.train import tokenizer_from_trace

    at = train_pasted(new_app(), words(200, seed=23))
    data = tokenizer_to_json(tokenizer_from_trace(run_of(at).history)).encode()
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).set_value([("mine.json", data, "application/json")]).run()
    assert not at.exception, at.exception
    bare = "upload:" + hashlib.sha256(data).hexdigest()
    keyed = serving.upload_key(bare)
    assert keyed != bare and keyed in query(at)["cols"].split(",") and bare not in query(at)["cols"]

    # the file's bare sha256, as older versions wrote it: the page opens, says so, and shows no upload
    old = new_app({**query(at), "cols": f"pretrained:gpt2,{bare}"}, COMPARE)
    assert not old.exception, old.exception
    assert markdown_literal(keys.OLD_UPLOAD_LINK) in [str(element.value) for element in old.info]
    assert old.multiselect(key=W.COLUMNS).value == ["pretrained:gpt2"]
    assert query(old)["cols"] == "pretrained:gpt2"  # the link written now carries no old key


def test_a_link_longer_than_its_cap_opens_with_the_apps_sentence_and_no_link_written_is_longer():
    """Issue 33: a `text=` between the link's cap (2,000 characters) and what the HTTP layer
    accepts (127,882 on loopback: docs/serving.md) opens with a sentence, and the app writes no
    link whose text is longer than its cap, whatever is typed."""
    from urllib.parse import urlencode

    from explorer.session.compare_params import TEXT_LINK_LIMIT

    at = train_pasted(new_app(), words(200, seed=24))
    open_compare(at)
    long = "word " * 20_000  # 100,000 characters on one line
    opened = new_app({**query(at), "text": long}, COMPARE)
    assert not opened.exception, opened.exception
    infos = " ".join(str(element.value) for element in opened.info)
    assert "The link's sentences are 100,000 characters long" in infos and "2,000" in infos
    assert compare_text(opened) == long[:TEXT_LINK_LIMIT]
    for typed in (long, "\n".join(["line " * 100] * 200), "é" * 30_000):
        type_compare_text(opened, typed)
        assert len(query(opened).get("text", "")) <= TEXT_LINK_LIMIT
        assert len(urlencode(query(opened))) < 20_000  # every parameter, percent-encoded


def test_long_sentences_are_cut_at_whole_lines_and_the_page_says_so():
    at = train_pasted(new_app(), words(200, seed=20))
    open_compare(at)
    lines = [f"line {i} " + "word " * 60 for i in range(12)]
    type_compare_text(at, "\n".join(lines))
    kept = query(at)["text"].split("\n")
    assert kept == lines[: len(kept)] and 0 < len(kept) < len(lines)
    assert "are not in it" in joined(at, "caption")


def test_a_shrinking_factor_the_form_cannot_hold_is_not_trained_from_a_link():
    link = {"sample": "german", "algorithm": "unigram", "vocab_size": "60", "shrinking_factor": "1e-300"}
    at = new_app(link, MERGES)
    assert run_of(at).settings.shrinking_factor == 0.75  # the default, said in a note
    assert "Ignored shrinking_factor='1e-300' from the link" in joined(at, "warning")
    at.switch_page("app.py").run()  # the form shows what trained: the link keeps its run
    assert query(at).get("run") == run_of(at).store_key
    assert not [expander.label for expander in at.expander if "1e-300" in expander.label]


def test_a_repeated_parameter_is_settled_to_the_value_shown():
    at = new_app({"vocab_size": ["300", "500"], "algorithm": ["unigram", "bpe"], "sample": "german"})
    assert at.query_params["algorithm"] == "bpe" and at.query_params["vocab_size"] == "500"
    assert at.radio(key=W.ALGORITHM).value == "bpe"


def test_a_link_and_a_stored_run_from_before_the_reading_open_the_same_run():
    """A run stored before `Settings.reading` existed (its settings without it) and its link (which
    never named a reading) open the same run: "lines" is left out of keys and links."""
    at = new_app()
    at.number_input(key=W.VOCAB_NUMBER).set_value(120).run()
    train(at)
    run = run_of(at)
    link = query(at)
    assert "reading" not in link and run.settings.reading == "lines"
    entry = serving.store().get(run.store_key)
    old_meta = {**entry.meta, "settings": {k: v for k, v in entry.meta["settings"].items() if k != "reading"}}
    serving.store().put(run.store_key, entry.payload, entry.corpus, old_meta)
    assert "reading" not in serving.store().get(run.store_key).meta["settings"]
    stored_runs._shared.clear()  # read from the store again, as a server started since would
    again = run_of(new_app(link))
    assert again is not None and again.store_key == run.store_key and again.settings == run.settings
