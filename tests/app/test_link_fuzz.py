"""Hostile link values never raise out of a page (issue 20, item 7): random and adversarial query
parameters, on every page, through AppTest. Every known parameter name is tried with values from
hypothesis's text strategy and a list of hostile ones, and all at once with numbers past `int()`'s
4,300 digits and 2**64 (issue 50); the page may warn, but shows no exception, nor the sentence
the frame writes for one."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer.runs.settings import defaults_for
from explorer.session.compare_params import column_ids
from explorer.ui.common.frame import UNEXPECTED
from explorer.ui.common.link import parse_runs_param
from tests.app.helpers import COMPARE, MERGES, TRAIN, VOCABULARY, new_app, run_of

NAMES = [
    "run", "runs", "sample", "algorithm", "flavor", "vocab_size", "pre_tokenizer", "normalizers",
    "min_frequency", "special_tokens", "prefix", "suffix", "seed_size", "shrinking_factor",
    "max_piece_length", "unk_token", "reading", "step", "search", "show", "sort", "desc", "cols", "text",
    "special", "diff", "steps", "steps_text", "whole", "decode", "ids", "lesson", "overlap", "audit",
    "audit_step",
]  # fmt: skip
HUGE_NUMBERS = ["9" * 5000, str(2**64)]  # past int()'s 4,300 digits; past every machine integer
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
    *HUGE_NUMBERS,
]
# A URL arrives UTF-8 percent-encoded: a lone surrogate cannot be in it (nor set by AppTest).
url_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=300)
values = st.one_of(st.sampled_from(HOSTILE), url_text)
links = st.dictionaries(st.sampled_from(NAMES), values, max_size=6)


def unexpected(at) -> list:
    """The exception a page raised, shown by AppTest or turned into the frame's one sentence
    (`frame.unexpected_error`: the traceback is in the server's log)."""
    shown = [error.value for error in at.error if error.value.startswith(UNEXPECTED.split("(")[0])]
    return [*at.exception, *shown]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(link=links, page=st.sampled_from([TRAIN, MERGES, VOCABULARY, COMPARE]))
def test_no_link_raises_out_of_a_page(link, page):
    at = new_app({k: v.replace("\x00", "") for k, v in link.items()}, None if page == TRAIN else page)
    assert not unexpected(at), (link, page, unexpected(at))


@pytest.mark.parametrize("value", HUGE_NUMBERS, ids=["5000 digits", "2**64"])
@pytest.mark.parametrize("page", [TRAIN, MERGES, VOCABULARY, COMPARE])
def test_a_huge_number_in_every_parameter_never_raises_out_of_a_page(page, value):
    link = {name: value for name in NAMES}
    link["runs"] = f"{value}.{'a' * 64}"
    at = new_app(link, None if page == TRAIN else page)
    assert not unexpected(at), (page, unexpected(at))


@pytest.mark.parametrize(
    ("algorithm", "name"),
    [("bpe", "min_frequency"), ("unigram", "max_piece_length"), ("unigram", "seed_size")],
)
def test_a_sample_link_with_a_2_64_setting_trains_with_the_default_and_says_so(algorithm, name):
    link = {"sample": "german", "algorithm": algorithm, "vocab_size": "60", name: str(2**64)}
    at = new_app(link, MERGES)
    assert not at.error, [error.value for error in at.error]  # no "Training failed"
    assert run_of(at) is not None and getattr(run_of(at).settings, name) == getattr(
        defaults_for(algorithm), name
    )
    assert any(warning.value.startswith(f"Ignored {name}=") for warning in at.warning)


@given(st.text(max_size=2000))
@example("²")  # found by this test: a digit to str.isdigit, not to int()
def test_the_link_readers_take_any_text(value):
    assert len(parse_runs_param(value)) <= 8
    assert column_ids({"cols": value}) is not None
