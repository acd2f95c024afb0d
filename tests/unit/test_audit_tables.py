"""The Vocabulary page's audit, its pure half (explorer.views.audit_tables) and its worker
task (explorer.work.tasks.audit_task): the link parameters, the sample, the step of each merge,
the tables' rows and links, and the escaping of hostile token text."""

from __future__ import annotations

import html
import re

import pytest

from explorer.checks import corpus_sample
from explorer.measures.audit import audit
from explorer.measures.audit_subjects import subject_from_tokenizer
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.samples import MULTILINGUAL, STUDY_IN_SCARLET
from explorer.train import train_corpus
from explorer.training.word_counts import split_lines
from explorer.ui.history.player import STEP_PARAM
from explorer.views import audit_tables as tables
from explorer.work.tasks import AUDIT_UNUSED_SHOWN, NOT_AUDITED, audit_task
from tests.unit.test_work_tasks import FakeReporter

CORPUS = (STUDY_IN_SCARLET.text + "\n" + MULTILINGUAL.text + "\n") * 3
HOSTILE = '<script>alert("x")</script>&amp;'


@pytest.fixture(scope="module")
def trace():
    return train_corpus(CORPUS, RunConfig(TrainerConfig(vocab_size=400), (), "byte-level"))


def href_of(step: int) -> str:
    return tables.history_href({"run": "k" * 8, STEP_PARAM: str(step)})


def test_the_sample_and_the_merge_history_link_are_those_of_the_other_pages():
    big = "word " * 100_000
    assert (
        tables.audit_sample(big) == corpus_sample(big) == {"kind": "lines", "max_bytes": 250_000, "seed": 0}
    )
    assert tables.audit_sample(CORPUS) == {"kind": "whole"}
    assert tables.HISTORY_STEP_PARAM == STEP_PARAM
    assert tables.history_href({"run": "a&b", "step": "3"}) == "Merge_history?run=a%26b&step=3"


def test_link_params_round_trip():
    names = ["gpt2", "o200k_base"]
    for choice in (tables.AuditChoice(), tables.AuditChoice(step=0), tables.AuditChoice("gpt2")):
        params = {name: value for name, value in tables.choice_params(choice).items() if value}
        assert tables.choice_from_params(params, 10, names) == (choice, [])
    assert tables.choice_params(tables.AuditChoice()) == {"audit": None, "audit_step": None}
    # the last step is the trained tokenizer: one audit, one link
    assert tables.choice_from_params({"audit_step": "10"}, 10, names) == (tables.AuditChoice(), [])
    for bad in (
        {"audit": "bogus"},
        {"audit_step": "-1"},
        {"audit_step": "x"},
        {"audit_step": "²"},
        {"audit_step": "11"},
    ):
        choice, notes = tables.choice_from_params(bad, 10, names)
        assert choice == tables.AuditChoice() and len(notes) == 1


def test_link_params_round_trip_with_an_upload():
    key = "upload:" + "3f" * 16
    names = ["gpt2"]
    choice = tables.AuditChoice(upload=key)
    params = {name: value for name, value in tables.choice_params(choice).items() if value}
    assert params == {"audit": key}
    assert tables.choice_from_params(params, 10, names, uploads=[key]) == (choice, [])
    assert not choice.this_run and choice.subject == key
    # a step beside an upload is ignored (it is this run's), as beside a bundled name
    assert tables.choice_from_params({**params, "audit_step": "3"}, 10, names, uploads=[key]) == (choice, [])
    # the upload is not in the session nor in the store: one sentence, and this run
    choice, notes = tables.choice_from_params(params, 10, names, uploads=[])
    assert choice == tables.AuditChoice() and len(notes) == 1 and "no longer kept" in notes[0]
    # not an upload's key: unknown, the hostile value cut and quoted by repr
    for bad in ("upload:" + "3f" * 15, "upload:<script>", "UPLOAD:" + "3f" * 16):
        choice, notes = tables.choice_from_params({"audit": bad}, 10, names, uploads=[bad])
        assert choice == tables.AuditChoice() and len(notes) == 1 and notes[0].startswith("Unknown tokenizer")


def test_an_older_versions_upload_key_is_its_own_sentence():
    from explorer.runstore.keys import OLD_UPLOAD_LINK

    old = "upload:" + "3f" * 32  # the bare sha256 older versions wrote
    choice, notes = tables.choice_from_params({"audit": old}, 10, ["gpt2"], uploads=[old])
    assert choice == tables.AuditChoice() and len(notes) == 1 and notes[0].startswith(OLD_UPLOAD_LINK)


def test_the_key_of_an_upload_audit_is_its_content_key():
    key = "upload:" + "3f" * 16
    assert tables.AuditChoice(upload=key).described("run-key") == {"upload": key}
    assert tables.AuditChoice(step=3).described("run-key") == {"run": "run-key", "step": 3}


def test_merge_steps_are_ranks_plus_one_and_stop_at_k(trace):
    steps = tables.merge_steps(trace.merges)
    assert steps.made_at == {token_id: rank + 1 for token_id, rank in trace.merge_rank_of.items()}
    for token_id, consumers in steps.consumers.items():
        for step, left, right, merged in consumers:
            assert trace.merges[step - 1] == (left, right, merged) and token_id in (left, right)
    links = tables.TokenLinks(steps=steps, names=["x"] * len(trace.vocab), href_at=href_of, until=50)
    for token_id in steps.consumers:
        assert all(step <= 50 for step, *_ in links.consumers(token_id) or [])


def test_stone_rows_give_steps_ratios_and_the_merges_that_ate_each(trace):
    lines = split_lines(CORPUS)
    result = audit(subject_from_tokenizer(trace.tokenizer_at(None), "run"), lines)
    stones = result["stepping_stones"]
    assert stones
    steps = tables.merge_steps(trace.merges)
    links = tables.TokenLinks(steps=steps, names=[f"<{t}>" for t in trace.vocab], href_at=href_of)
    for stone, row in zip(stones, tables.stone_rows(stones, links)):
        assert row["made_at"] == trace.merge_rank_of[stone["id"]] + 1
        assert row["ratio"] == stone["final"] / stone["formed"] <= 0.1
        assert len(row["consumed_by"]) == len(stone["consumed_by"])  # the model's merges, each pair once
        assert [step for step, _ in row["consumed_by"]] == sorted(step for step, _ in row["consumed_by"])
    page = tables.stones_html(stones, links)
    first = re.search(r'<tr data-id="(\d+)"><th><a href="([^"]*)"', page)
    assert first is not None and int(first[1]) == stones[0]["id"]
    assert html.unescape(first[2]) == href_of(trace.merge_rank_of[stones[0]["id"]] + 1)
    plain = tables.stones_html(stones, tables.TokenLinks())  # a pretrained tokenizer: the audit's text
    assert "href" not in plain and "→" in plain


def test_hostile_token_text_is_escaped_everywhere():
    steps = tables.MergeSteps(made_at={7: 3}, consumers={7: [(4, 7, 1, 8)]})
    links = tables.TokenLinks(steps=steps, names=[HOSTILE] * 9, href_at=lambda step: f'x"><script>{step}')
    stone = {"id": 7, "token": HOSTILE, "formed": 10, "final": 1, "consumed_by": ["a -> b"]}
    unreachable = [
        {"id": 7, "token": HOSTILE, "encodes_to": [1, 2]},
        {"id": 5, "token": HOSTILE, "encodes_to": None, "reason": HOSTILE},
    ]
    scripts = {HOSTILE: {"characters": 1, "distinct_characters": 1, "tokens": 1, "distinct_tokens": 1}}
    pages = [
        tables.stones_html([stone], links),
        tables.unreachable_html(unreachable, {"7": [HOSTILE, HOSTILE]}, links),
        tables.unused_html([{"id": 7, "token": HOSTILE}], links),
        tables.scripts_html(scripts),
    ]
    for page in pages:
        assert "<script" not in page and 'x">' not in page and "&amp;amp;" in page
    assert 'href="x&quot;&gt;&lt;script&gt;3"' in pages[0]


def test_the_audit_task_is_the_audit_with_the_names_of_its_tokens(trace):
    tokenizer = trace.tokenizer_at(None)
    subject = {"name": "this run", "tokenizer_json": tokenizer_to_json(tokenizer)}
    reporter = FakeReporter()
    result = audit_task(reporter, CORPUS, subject, {"kind": "whole"})
    expected = audit(subject_from_tokenizer(tokenizer, "this run"), split_lines(CORPUS))
    assert result["audit"] == expected and result["lines"] == len(split_lines(CORPUS))
    unused = result["unused_sample"]
    assert len(unused) == min(AUDIT_UNUSED_SHOWN, expected["unused"]["count"])
    assert [entry["id"] for entry in unused] == sorted({entry["id"] for entry in unused})
    assert {entry["id"] for entry in unused} <= set(expected["unused"]["ids"])
    for entry in expected["unreachable"]:
        if entry["encodes_to"] is not None:
            assert len(result["unreachable_tokens"][str(entry["id"])]) == len(entry["encodes_to"])
    with pytest.raises(ValueError, match="unknown pretrained tokenizer"):
        audit_task(FakeReporter(), CORPUS, {"pretrained": "bogus"}, {"kind": "whole"})


def test_the_audit_task_takes_an_uploads_spec_and_refuses_a_library_only_one(trace):
    tokenizer = trace.tokenizer_at(None)
    spec = {"name": "uploaded", "tokenizer_json": tokenizer_to_json(tokenizer), "special_tokens": True}
    result = audit_task(FakeReporter(), CORPUS, spec, {"kind": "whole"})
    assert result["audit"] == audit(subject_from_tokenizer(tokenizer, "uploaded"), split_lines(CORPUS))
    assert result["audit"]["stepping_stones"] is not None  # our reader's BPE: replayed
    library_only = {"name": "uploaded", "library_json": "{}", "special_tokens": True}
    with pytest.raises(ValueError) as raised:
        audit_task(FakeReporter(), CORPUS, library_only, {"kind": "whole"})
    assert str(raised.value) == NOT_AUDITED


def test_unreachable_tokens_with_a_text_come_first():
    entries = [
        {"id": 1, "token": "<0xE2>", "encodes_to": None, "reason": "not UTF-8"},
        {"id": 9, "token": "ab", "encodes_to": [3, 4]},
        {"id": 2, "token": "<0xA0>", "encodes_to": None, "reason": "not UTF-8"},
        {"id": 5, "token": "cd", "encodes_to": [6]},
    ]
    assert [entry["id"] for entry in tables.unreachable_order(entries)] == [5, 9, 1, 2]
    page = tables.unreachable_html(entries, {"9": ["a", "b"], "5": ["c"]}, tables.TokenLinks())
    assert re.findall(r'<tr data-id="(\d+)">', page) == ["5", "9", "1", "2"]
