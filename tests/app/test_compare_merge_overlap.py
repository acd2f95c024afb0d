"""Compare's "Your merges vs a pretrained tokenizer's" through AppTest: a closed section that asks
no worker for anything until it is opened; then the curve and the tables of where they part for a
byte-level BPE run against GPT-2 by default, another tokenizer picked into the link and a new
session on that link showing the same (the section open), and one sentence for a WordPiece run
instead."""

from __future__ import annotations

import html
import re

from explorer.compare.merge_overlap import merge_overlap, pretrained_merges, run_byte_merges
from explorer.drawing.token_html import readable_token
from explorer.session.compare_params import OVERLAP_PARAM
from explorer.ui.common.state import OVERLAP_JOBS
from explorer.ui.common.state import Widget as W
from explorer.ui.compare import merge_overlap_section
from tests.app.helpers import (
    COMPARE,
    collect,
    html_bodies,
    joined,
    new_app,
    open_compare,
    open_sections,
    plotly_specs,
    query,
    run_of,
    session_value,
    train,
)

# A safety net, never the mechanism: with both cores kept busy beside the suite (stress-ng --cpu 2),
# the nice-10 worker recovering o200k_base's merges (2.8 s of CPU alone) was still at it after 120 s.
WAIT_SECONDS = 600


def settled(at):
    """Wait for the session's comparison jobs, and the run that collects them."""
    return collect(at, OVERLAP_JOBS, WAIT_SECONDS)


def opened(at):
    """The section opened (closed, it compares nothing), and its comparison in."""
    assert not session_value(at, OVERLAP_JOBS), "a closed section asked a worker to compare"
    assert not any(box.key == W.OVERLAP_PRETRAINED for box in at.selectbox)
    return settled(open_sections(at, W.SECTION_OVERLAP))


def overlap_spec(at) -> dict:
    found = [
        spec
        for spec in plotly_specs(at)
        if any(note.get("text") == "merges in common" for note in spec["layout"].get("annotations", []))
    ]
    assert len(found) == 1, "no merge overlap figure"
    return found[0]


def partings(at, side: str) -> list[list[str]]:
    """The rows of the table of where they part on one side ("run" or "pretrained"), as read."""
    for body in html_bodies(at):
        found = re.search(rf'data-side="{side}"[^>]*><table>.*?<tbody>(.*?)</tbody>', body)
        if found:
            return [
                [html.unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
                for row in re.findall(r"<tr>(.*?)</tr>", found[1])
            ]
    raise AssertionError(f"no table of where they part ({side})")


def rank_title(spec: dict) -> str:
    return spec["layout"]["annotations"][2]["text"]


def test_the_section_shows_the_curve_and_partings_and_the_link_keeps_the_tokenizer():
    at = train(new_app())
    open_compare(at)
    opened(at)
    picker = at.selectbox(key=W.OVERLAP_PRETRAINED)
    assert picker.value == "gpt2" and OVERLAP_PARAM not in query(at)
    spec = overlap_spec(at)
    assert rank_title(spec) == "merge n in GPT-2"
    trace = run_of(at).history  # a MergeRun's
    expected = merge_overlap(
        run_byte_merges(trace.vocab, trace.merges, byte_level=True), pretrained_merges("gpt2")
    )
    counts = spec["data"][1]
    assert counts["x"][-1] == trace.steps and counts["y"][-1] == expected.total_matched
    assert len(at.dataframe) == 2  # no grid of its own: the corpus and research figures are the two
    run_only, pretrained_only = partings(at, "run"), partings(at, "pretrained")
    assert [int(row[0]) for row in run_only] == [part.rank + 1 for part in expected.run_only]
    assert [row[1:] for row in run_only] == [
        [readable_token(part.left), readable_token(part.right), readable_token(part.left + part.right)]
        for part in expected.run_only
    ]
    assert [int(row[0]) for row in pretrained_only] == [part.rank + 1 for part in expected.pretrained_only]
    assert f"{expected.total_matched:,} of this run's {trace.steps:,} merges" in joined(at, "markdown")

    picker.set_value("cl100k_base").run()
    settled(at)
    assert query(at)[OVERLAP_PARAM] == "cl100k_base"
    assert rank_title(overlap_spec(at)) == "merge n in GPT-4 (cl100k_base)"

    elsewhere = settled(new_app(query(at), COMPARE))  # the link names cl100k_base: the section is open
    assert elsewhere.selectbox(key=W.OVERLAP_PRETRAINED).value == "cl100k_base"
    assert rank_title(overlap_spec(elsewhere)) == "merge n in GPT-4 (cl100k_base)"
    assert query(elsewhere)[OVERLAP_PARAM] == "cl100k_base"


def test_a_slow_comparison_says_so_and_the_page_draws_it_once_it_is_in(monkeypatch):
    at = train(new_app())
    open_compare(at)
    opened(at)
    monkeypatch.setattr(merge_overlap_section, "INLINE_SECONDS", 0.0)
    at.selectbox(key=W.OVERLAP_PRETRAINED).set_value("o200k_base").run()  # recovered in the worker: seconds
    assert not at.exception, at.exception
    assert session_value(at, OVERLAP_JOBS)  # o200k_base's merges take the worker seconds to recover
    assert "Still comparing the merges in a worker" in joined(at, "caption")
    assert not any(
        note.get("text") == "merges in common"
        for spec in plotly_specs(at)
        for note in spec["layout"].get("annotations", [])
    )
    settled(at)
    assert rank_title(overlap_spec(at)) == "merge n in GPT-4o (o200k_base)"


def test_a_wordpiece_run_gets_one_sentence_instead():
    at = train(
        new_app({"algorithm": "wordpiece", "flavor": "course", "vocab_size": "70", "sample": "hf-course"})
    )
    open_compare(at)
    assert not at.exception, at.exception
    assert "Not compared for this run: a WordPiece run marks the pieces" in joined(at, "info")
    assert not any(box.key == W.OVERLAP_PRETRAINED for box in at.selectbox)
