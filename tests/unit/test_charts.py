"""Figure builders (explorer/drawing/charts/): pure functions, checked without a browser."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from explorer.drawing import charts
from explorer.lessons.step_sampling import sampled_steps
from explorer.pipeline.bytelevel import bytes_to_symbols
from explorer.run_config import TrainerConfig
from explorer.training.bpe.trainer import train

COURSE_WORDS = {
    "This": 3,
    "is": 2,
    "the": 1,
    "Hugging": 1,
    "Face": 1,
    "Course": 1,
    ".": 4,
    "chapter": 1,
    "about": 1,
    "tokenization": 1,
    "section": 1,
    "shows": 1,
    "several": 1,
    "tokenizer": 1,
    "algorithms": 1,
    "Hopefully": 1,
    ",": 1,
    "you": 1,
    "will": 1,
    "be": 1,
    "able": 1,
    "to": 1,
    "understand": 1,
    "how": 1,
    "they": 1,
    "are": 1,
    "trained": 1,
    "and": 1,
    "generate": 1,
    "tokens": 1,
}  # the course's word_freqs


@pytest.fixture(scope="module")
def bpe_trace():
    trace = train(
        COURSE_WORDS, TrainerConfig("bpe", "course", vocab_size=80, special_tokens=("<|endoftext|>",))
    )
    trace.config = replace(trace.config, pre_tokenizer="whitespace")
    return trace


@pytest.fixture(scope="module")
def wordpiece_trace():
    config = TrainerConfig(
        "wordpiece", "course", vocab_size=70, special_tokens=("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
    )
    trace = train(COURSE_WORDS, config)
    trace.config = replace(trace.config, pre_tokenizer="bert")
    return trace


def test_sampled_steps_caps_and_keeps_ends():
    assert sampled_steps(0) == []
    assert sampled_steps(5, 300) == [0, 1, 2, 3, 4]
    steps = sampled_steps(4743, 300)
    assert len(steps) == 300
    assert steps[0] == 0 and steps[-1] == 4742
    assert steps == sorted(set(steps))


BAR_ROW = re.compile(
    r'<li class="(bar(?: winner)?)" style="--share:([\d.]+)%"><span class="bar-rank">#(\d+)</span> '
    r'<span class="bar-pair">(.*?)</span> <span class="bar-value">(.*?)</span></li>'
)


def bar_rows(page_html: str) -> list[tuple[str, float, int, str, str]]:
    """Each bar of competition_html: its class, its length (% of the largest), rank, pair, value."""
    return [
        (c, float(share), int(rank), pair, value)
        for c, share, rank, pair, value in BAR_ROW.findall(page_html)
    ]


def test_competition_holds_each_steps_candidates_with_values(bpe_trace):
    labels = charts.token_labels(bpe_trace)
    for merge in (1, 2, bpe_trace.steps // 2, bpe_trace.steps):
        drawn = charts.competition_html(bpe_trace, merge)
        rows = bar_rows(drawn)
        recorded = bpe_trace.candidates[merge - 1][: charts.TOP_CANDIDATES]
        assert [value for *_, value in rows] == [f"{count:,}" for _, _, count, _ in recorded]
        assert [pair for _, _, _, pair, _ in rows] == [
            charts.pair_label(labels, a, b) for a, b, _, _ in recorded
        ]
        assert [rank for _, _, rank, _, _ in rows] == list(range(1, len(recorded) + 1))
        largest = max(count for _, _, count, _ in recorded)
        assert [share for _, share, *_ in rows] == [
            round(100 * count / largest, 1) for _, _, count, _ in recorded
        ]
        left, right, _, _ = recorded[0]
        assert (left, right) == bpe_trace.merges[merge - 1][:2]  # the winner comes first, in red
        assert [c for c, *_ in rows] == ["bar winner"] + ["bar"] * (len(rows) - 1)
        assert f"The competition for merge {merge:,}:" in drawn
        assert "pair count" in drawn


def test_competition_of_a_likelihood_run_shows_the_formula(wordpiece_trace):
    rows = bar_rows(charts.competition_html(wordpiece_trace, 1))
    scores = [score for _, _, _, score in wordpiece_trace.candidates[0]][: charts.TOP_CANDIDATES]
    assert [float(value.split(" = ")[0]) for *_, value in rows] == [float(f"{s:.4g}") for s in scores]
    a, b = wordpiece_trace.candidates.symbol_counts_at(0)[0]
    assert rows[0][3:] == ("a + ##b", f"0.2 = {wordpiece_trace.candidates[0][0][2]} / ({a} × {b})")
    assert "likelihood score" in charts.competition_html(wordpiece_trace, 1)


def test_competition_escapes_every_token(bpe_trace):
    labels = list(charts.token_labels(bpe_trace))
    left, right, new_id = bpe_trace.merges[0]
    labels[left], labels[right], labels[new_id] = "<b>x</b>", '"&"', "<script>alert(1)</script>"
    drawn = charts.competition_html(bpe_trace, 1, labels)
    assert "<b>x</b>" not in drawn and "<script>" not in drawn
    assert "&lt;b&gt;x&lt;/b&gt; + &quot;&amp;&quot;" in drawn  # the winner's row and the title
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in drawn


def test_merge_timeline_values_and_marker(bpe_trace, wordpiece_trace):
    figure = charts.merge_timeline(bpe_trace, current_step=7)
    assert len(figure.data) == 1
    assert list(figure.data[0].y) == bpe_trace.merge_counts
    assert list(figure.data[0].x) == list(range(1, bpe_trace.steps + 1))
    assert figure.layout.shapes[0].x0 == 7
    assert not charts.merge_timeline(bpe_trace, current_step=0).layout.shapes
    assert (
        figure.layout.yaxis.type != "log"
        and charts.merge_timeline(bpe_trace, 7, log_scale=True).layout.yaxis.type == "log"
    )
    scored = charts.merge_timeline(wordpiece_trace, current_step=3)
    assert [trace.name for trace in scored.data] == ["pair count", "likelihood score"]
    assert list(scored.data[1].y) == pytest.approx(wordpiece_trace.merge_scores)


def test_the_compression_curve_falls_and_marks_the_current_step(bpe_trace):
    figure = charts.compression_curve(bpe_trace, current_step=5)
    curve, marker = figure.data
    assert list(curve.x) == bpe_trace.vocab_sizes
    assert list(curve.y) == bpe_trace.corpus_tokens
    assert list(curve.y) == sorted(curve.y, reverse=True)  # merging never lengthens the corpus
    assert (marker.x[0], marker.y[0]) == (bpe_trace.vocab_sizes[5], bpe_trace.corpus_tokens[5])


def test_merge_tree_figure_goes_down_to_characters(bpe_trace):
    labels = charts.token_labels(bpe_trace)
    token_id = max(bpe_trace.merge_rank_of, key=lambda i: len(bpe_trace.vocab[i]))
    figure = charts.merge_tree_figure(bpe_trace.merge_tree(token_id), labels)
    icicle = figure.data[0]
    assert icicle.labels[-1] == labels[token_id]  # the root is visited last
    assert icicle.values[-1] == len(bpe_trace.vocab[token_id])  # one leaf per character
    leaves = [label for label, node in zip(icicle.labels, icicle.ids) if node not in set(icicle.parents)]
    assert "".join(leaves) == bpe_trace.vocab[token_id]


def test_labels_are_readable_and_escaped_for_plotly():
    symbols = bytes_to_symbols(b" <b>\n") + bytes_to_symbols("\u20ac".encode())[:1]
    assert charts.readable_vocab_token(symbols, byte_level=True) == "·<b>↵<0xE2>"
    assert charts.readable_vocab_token("<|endoftext|>", byte_level=True) == "<|endoftext|>"
    assert charts.pair_label(["<script>", "&"], 0, 1) == "&lt;script&gt; + &amp;"


def test_figures_for_a_run_without_merges():
    trace = train({"a": 1}, TrainerConfig(vocab_size=1))
    trace.config = replace(trace.config, pre_tokenizer="whitespace")
    assert trace.steps == 0
    assert len(charts.merge_timeline(trace).data[0].x) == 0
    assert list(charts.compression_curve(trace, 0).data[0].y) == [1]
