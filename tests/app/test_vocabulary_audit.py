"""The Vocabulary page's audit section through AppTest: its figures are `audit()`'s on the same
lines, a stepping stone links to the Merge history page at the step that made it, and the link
reopens the same audit (a pretrained tokenizer, this run after k merges, a tokenizer uploaded on
the Compare page, brought back from the store in another session); an upload the audit cannot
read, or one the store no longer keeps, is one sentence."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlparse

import pytest
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import models, pre_tokenizers, trainers

from explorer.drawing.markdown_literal import markdown_literal
from explorer.measures.audit import audit
from explorer.measures.audit_subjects import subject_from_pretrained, subject_from_tokenizer
from explorer.pipeline.tokenizer_json import tokenizer_from_json
from explorer.runstore.keys import OLD_UPLOAD_LINK
from explorer.samples import SAMPLES
from explorer.training.word_counts import split_lines
from explorer.ui.common.state import AUDIT_JOBS, UPLOADED_TOKENIZERS
from explorer.ui.common.state import Widget as W
from explorer.ui.history.player import STEP_PARAM
from explorer.views.audit_tables import HISTORY_PAGE
from explorer.work.tasks import NOT_AUDITED
from tests.app.helpers import (
    VOCABULARY,
    collect,
    html_bodies,
    metrics,
    new_app,
    open_compare,
    query,
    run_of,
    session_value,
    train,
)

LINES = split_lines(SAMPLES["scarlet"].text)  # the default sample: small, audited whole


def audited(at):
    """`at` once the audits it started are in: a worker's message, then the run that collects it
    (under load a pretrained audit can outlast the page's inline wait)."""
    return collect(at, AUDIT_JOBS)


def shown_figures(at) -> dict[str, str]:
    summary = metrics(audited(at))
    names = ("Tokens", "Bytes per token", "Rényi efficiency (α 2.5)", "Vocabulary size", "Unreachable")
    return {name: summary[name] for name in (*names, "Unused", "Stepping stones")}


def expected_figures(result: dict) -> dict[str, str]:
    stones = result["stepping_stones"]
    return {
        "Tokens": f"{result['tokens']:,}",
        "Bytes per token": f"{result['bytes_per_token']:.3f}",
        "Rényi efficiency (α 2.5)": f"{result['renyi_efficiency']['value']:.4f}",
        "Vocabulary size": f"{result['vocab_size']:,}",
        "Unreachable": f"{result['unreachable_count']:,}",
        "Unused": f"{result['unused']['count']:,}",
        "Stepping stones": "n/a" if stones is None else f"{len(stones):,}",
    }


def table(at, css: str) -> str:
    return next(body for body in html_bodies(at) if f"audit-table {css}" in body)


def stone_links(at) -> list[tuple[int, list[tuple[int, str]]]]:
    """Each stepping stone's id and its links, in row order: (Merge history step, run key)."""
    rows = re.findall(r'<tr data-id="(\d+)">(.*?)</tr>', table(at, "audit-stones"))
    found = []
    for token_id, row in rows:
        links = []
        for href in re.findall(r'href="([^"]*)"', row):
            url = urlparse(html.unescape(href))
            assert url.path == HISTORY_PAGE
            params = parse_qs(url.query)
            links.append((int(params[STEP_PARAM][0]), params["run"][0]))
        found.append((int(token_id), links))
    return found


@pytest.fixture(scope="module")
def trained():
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    return at


def test_the_figures_are_the_audits_of_the_same_lines(trained):
    run = run_of(trained)
    expected = audit(subject_from_tokenizer(run.history.tokenizer_at(None), "this run"), LINES)
    assert shown_figures(trained) == expected_figures(expected)
    scripts = table(trained, "audit-scripts")
    for script, row in expected["scripts"].items():
        assert f"<tr><th>{script}</th><td>{row['characters']:,}</td>" in scripts
    shown_ids = [token_id for token_id, _ in stone_links(trained)]
    assert shown_ids == [stone["id"] for stone in expected["stepping_stones"][: len(shown_ids)]]
    assert "audit" not in query(trained) and "audit_step" not in query(trained)  # the default view


def test_a_stepping_stone_links_to_the_merge_that_made_it_and_those_that_ate_it(trained):
    run = run_of(trained)
    trace = run.history  # a MergeRun's
    for token_id, links in stone_links(trained)[:20]:
        (made_at, key), (made_at_cell, _), *consumers = links  # the token, its "made at step", ...
        assert key == run.store_key and made_at_cell == made_at
        assert made_at == trace.merge_rank_of[token_id] + 1  # Merge history at step k explains merge k
        assert trace.merges[made_at - 1][2] == token_id
        assert consumers  # a stepping stone is a parent of some merge
        for step, _ in consumers:
            assert token_id in trace.merges[step - 1][:2]


def test_the_link_reopens_a_pretrained_audit():
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    at.selectbox(key=W.AUDIT_SUBJECT).set_value("gpt2").run()
    assert not at.exception, at.exception
    assert query(at)["audit"] == "gpt2"
    expected = expected_figures(audit(subject_from_pretrained("gpt2"), LINES))
    assert shown_figures(at) == expected
    assert not re.search(r"href=", table(at, "audit-stones"))  # no merge history of ours to link to
    elsewhere = new_app(query(at), VOCABULARY)
    assert elsewhere.selectbox(key=W.AUDIT_SUBJECT).value == "gpt2"
    assert shown_figures(elsewhere) == expected


def test_the_link_reopens_this_run_after_k_merges():
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    at.number_input(key=W.AUDIT_STEP).set_value(40).run()
    assert not at.exception, at.exception
    assert query(at)["audit_step"] == "40"
    run = run_of(at)
    expected = expected_figures(audit(subject_from_tokenizer(run.history.tokenizer_at(40), "k"), LINES))
    assert shown_figures(at) == expected
    for _, links in stone_links(at):
        assert all(step <= 40 for step, _ in links)  # the tokenizer after 40 merges has no later ones
    elsewhere = new_app(query(at), VOCABULARY)
    assert elsewhere.number_input(key=W.AUDIT_STEP).value == 40
    assert shown_figures(elsewhere) == expected


def test_a_bad_audit_in_the_link_is_a_sentence():
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    link = {**query(at), "audit": "<script>", "audit_step": "99999"}
    elsewhere = new_app(link, VOCABULARY)
    warnings = " ".join(str(element.value) for element in elsewhere.warning)
    assert "Unknown tokenizer" in warnings and "audit step" in warnings
    assert elsewhere.selectbox(key=W.AUDIT_SUBJECT).value == "run"
    assert "audit" not in query(elsewhere) and "audit_step" not in query(elsewhere)


def test_an_audit_still_running_is_polled_until_it_is_in(monkeypatch):
    from explorer.ui.vocabulary import audit_section

    monkeypatch.setattr(audit_section, "INLINE_SECONDS", 0.0)  # no inline wait: the poller at once
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    at.selectbox(key=W.AUDIT_SUBJECT).set_value("cl100k_base").run()
    assert not at.exception, at.exception
    assert "Still auditing in a worker …" in [str(caption.value) for caption in at.caption]
    assert "Tokens" not in metrics(at)
    collect(at, AUDIT_JOBS)  # the worker's message, then a run: in AppTest a run is one tick of the poller
    assert "Tokens" in metrics(at)
    assert shown_figures(at) == expected_figures(audit(subject_from_pretrained("cl100k_base"), LINES))


# ---------------------------------------------------------------- uploaded tokenizers

HOSTILE_NAME = "<script>x</script> my*bpe*.json"


def library_bpe_json() -> str:
    """A small BPE tokenizer.json trained by the tokenizers library (our reader reads it)."""
    tokenizer = LibraryTokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"], show_progress=False)
    tokenizer.train_from_iterator(LINES[:200], trainer)
    return tokenizer.to_str()


def upload_on_compare(at, name: str, data: bytes) -> str:
    """Upload `data` as `name` on the Compare page, then open the Vocabulary page; the upload's key."""
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).upload(name, data, "application/json").run()
    assert not at.exception, at.exception
    (key,) = session_value(at, UPLOADED_TOKENIZERS)
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    return key


def test_an_uploaded_tokenizer_is_audited_and_the_link_reopens_it_elsewhere():
    exported = library_bpe_json()
    at = train(new_app())
    key = upload_on_compare(at, HOSTILE_NAME, exported.encode())
    subject = at.selectbox(key=W.AUDIT_SUBJECT)
    assert subject.options[1] == f"{HOSTILE_NAME} (uploaded)"  # after this run, before the bundled ones
    subject.set_value(key).run()
    assert not at.exception, at.exception
    assert query(at)["audit"] == key and key.startswith("upload:") and "audit_step" not in query(at)
    result = audit(subject_from_tokenizer(tokenizer_from_json(exported), "upload"), LINES)
    assert result["stepping_stones"]  # our reader's BPE: replayed
    assert shown_figures(at) == expected_figures(result)
    assert not re.search(r"href=", table(at, "audit-stones"))  # no merge history of ours
    header = f"**{markdown_literal(HOSTILE_NAME + ' (uploaded)')}** on "
    assert any(str(element.value).startswith(header) for element in at.markdown)
    assert "<script>" not in " ".join(html_bodies(at))

    elsewhere = new_app(query(at), VOCABULARY)  # a new session: the upload comes back from the store
    assert elsewhere.selectbox(key=W.AUDIT_SUBJECT).value == key
    assert list(session_value(elsewhere, UPLOADED_TOKENIZERS)) == [key]
    assert shown_figures(elsewhere) == shown_figures(at)
    assert not elsewhere.warning


def test_an_upload_only_the_library_reads_is_one_sentence():
    wordlevel = LibraryTokenizer(models.WordLevel({"[UNK]": 0, "the": 1, "a": 2}, unk_token="[UNK]"))
    wordlevel.pre_tokenizer = pre_tokenizers.Whitespace()
    at = train(new_app())
    key = upload_on_compare(at, "wordlevel.json", wordlevel.to_str().encode())
    at.selectbox(key=W.AUDIT_SUBJECT).set_value(key).run()
    assert not at.exception, at.exception
    assert [str(element.value) for element in at.info] == [markdown_literal(NOT_AUDITED)]
    assert "Tokens" not in metrics(at) and not at.error
    assert query(at)["audit"] == key


def test_an_upload_the_store_no_longer_keeps_is_a_warning_and_this_run():
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    gone = "upload:" + "0" * 32
    elsewhere = new_app({**query(at), "audit": gone}, VOCABULARY)
    warnings = " ".join(str(element.value) for element in elsewhere.warning)
    assert "no longer kept" in warnings
    assert elsewhere.selectbox(key=W.AUDIT_SUBJECT).value == "run"
    assert "audit" not in query(elsewhere)
    assert "Tokens" in metrics(audited(elsewhere))


def test_an_older_versions_upload_link_is_a_sentence_and_this_run():
    """Issue 33: `audit=upload:` + a file's bare sha256 (older versions' links) opens with a
    sentence saying it cannot be opened any more, and audits this run."""
    at = train(new_app())
    at.switch_page(VOCABULARY).run()
    old = "upload:" + "3f" * 32
    elsewhere = new_app({**query(at), "audit": old}, VOCABULARY)
    assert not elsewhere.exception, elsewhere.exception
    warnings = [str(element.value) for element in elsewhere.warning]
    assert any(markdown_literal(OLD_UPLOAD_LINK) in warning for warning in warnings)
    assert elsewhere.selectbox(key=W.AUDIT_SUBJECT).value == "run"
    assert "audit" not in query(elsewhere)
