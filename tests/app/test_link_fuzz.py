"""Hostile link values never raise out of a page (issue 20, item 7): random and adversarial query
parameters, on every page, through AppTest. Every known parameter name is tried with values from
hypothesis's text strategy and a list of hostile ones; the page may warn, but shows no exception."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer.session.compare_params import column_ids
from explorer.ui.common.link import parse_runs_param
from tests.app.helpers import COMPARE, MERGES, TRAIN, VOCABULARY, new_app

NAMES = [
    "run", "runs", "sample", "algorithm", "flavor", "vocab_size", "pre_tokenizer", "normalizers",
    "min_frequency", "special_tokens", "prefix", "suffix", "seed_size", "shrinking_factor",
    "max_piece_length", "unk_token", "step", "search", "show", "sort", "desc", "cols", "text",
    "special", "diff", "steps", "steps_text", "whole", "decode", "ids", "lesson", "overlap",
]  # fmt: skip
HOSTILE = [
    "[" * 3000,
    "<script>alert(1)</script>",
    "a" * 64,
    "1." + "f" * 64 + "," * 500,
    "-1",
    "1e309",
    "nan",
    "\x00\u202e\ufeff",
    "run:" + "0" * 16 + ",upload:" + "1" * 64,
    "%00%ff",
    "9" * 400,
]
# A URL arrives UTF-8 percent-encoded: a lone surrogate cannot be in it (nor set by AppTest).
url_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=300)
values = st.one_of(st.sampled_from(HOSTILE), url_text)
links = st.dictionaries(st.sampled_from(NAMES), values, max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(link=links, page=st.sampled_from([TRAIN, MERGES, VOCABULARY, COMPARE]))
def test_no_link_raises_out_of_a_page(link, page):
    at = new_app({k: v.replace("\x00", "") for k, v in link.items()}, None if page == TRAIN else page)
    assert not at.exception, (link, page, at.exception)


@given(st.text(max_size=2000))
@example("²")  # found by this test: a digit to str.isdigit, not to int()
def test_the_link_readers_take_any_text(value):
    assert len(parse_runs_param(value)) <= 8
    assert column_ids({"cols": value}) is not None
