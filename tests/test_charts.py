"""Figure builders (explorer/charts.py): pure functions, checked without a browser."""

from __future__ import annotations

import pytest

from explorer import charts
from explorer.bytelevel import BYTE_LEVEL_ALPHABET, bytes_to_symbols
from explorer.trainers import TrainerConfig, train

COURSE_WORDS = {
    "This": 3, "is": 2, "the": 1, "Hugging": 1, "Face": 1, "Course": 1, ".": 4, "chapter": 1, "about": 1,
    "tokenization": 1, "section": 1, "shows": 1, "several": 1, "tokenizer": 1, "algorithms": 1,
    "Hopefully": 1, ",": 1, "you": 1, "will": 1, "be": 1, "able": 1, "to": 1, "understand": 1, "how": 1,
    "they": 1, "are": 1, "trained": 1, "and": 1, "generate": 1, "tokens": 1,
}  # the course's word_freqs


@pytest.fixture(scope="module")
def bpe_trace():
    trace = train(COURSE_WORDS, TrainerConfig("bpe", "course", vocab_size=80, special_tokens=("<|endoftext|>",)))
    trace.config["pre_tokenizer"] = "whitespace"
    return trace


@pytest.fixture(scope="module")
def wordpiece_trace():
    config = TrainerConfig("wordpiece", "course", vocab_size=70, special_tokens=("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"))
    trace = train(COURSE_WORDS, config)
    trace.config["pre_tokenizer"] = "bert"
    return trace


@pytest.fixture(scope="module")
def long_trace():
    """A byte-level run with many more merges than the frame cap."""
    text = " ".join(f"w{i % 97}x{i % 89}y{i % 83}" for i in range(4000)) + " caf\u00e9 \U0001F600"
    counts: dict[str, int] = {}
    for word in text.split(" "):
        symbols = bytes_to_symbols((" " + word).encode("utf-8"))
        counts[symbols] = counts.get(symbols, 0) + 1
    trace = train(counts, TrainerConfig(vocab_size=1200, initial_alphabet=BYTE_LEVEL_ALPHABET))
    trace.config["pre_tokenizer"] = "byte-level"
    return trace


def test_sampled_steps_caps_and_keeps_ends():
    assert charts.sampled_steps(0) == []
    assert charts.sampled_steps(5, 300) == [0, 1, 2, 3, 4]
    steps = charts.sampled_steps(4743, 300)
    assert len(steps) == 300
    assert steps[0] == 0 and steps[-1] == 4742
    assert steps == sorted(set(steps))


def test_candidates_animation_frames_hold_the_traces_counts(bpe_trace):
    figure = charts.candidates_animation(bpe_trace)
    assert len(figure.frames) == bpe_trace.steps  # fewer steps than the cap: one frame per step
    for frame in figure.frames:
        step = int(frame.name) - 1
        bars = frame.data[0]
        assert list(bars.x) == [count for _, _, count, _ in bpe_trace.candidates[step]][: charts.TOP_CANDIDATES]
        left, right, _, _ = bpe_trace.candidates[step][0]
        assert (left, right) == bpe_trace.merges[step][:2]  # the winner comes first
    assert figure.data[0].x == figure.frames[0].data[0].x
    assert figure.layout.sliders[0].steps[-1].label == str(bpe_trace.steps)


def test_candidates_animation_is_capped(long_trace):
    assert long_trace.steps > charts.MAX_FRAMES
    figure = charts.candidates_animation(long_trace)
    assert len(figure.frames) == charts.MAX_FRAMES
    names = [int(frame.name) for frame in figure.frames]
    assert names[0] == 1 and names[-1] == long_trace.steps
    for frame in figure.frames:
        assert len(frame.data) == 1  # one small frame per step, never cumulative
        assert len(frame.data[0].x) <= charts.TOP_CANDIDATES
    step = names[150] - 1
    assert list(figure.frames[150].data[0].customdata) == [c for _, _, c, _ in long_trace.candidates[step]][: charts.TOP_CANDIDATES]


def test_wordpiece_course_animates_scores(wordpiece_trace):
    assert charts.uses_scores(wordpiece_trace)
    figure = charts.candidates_animation(wordpiece_trace)
    first = figure.frames[0].data[0]
    assert list(first.x) == [score for _, _, _, score in wordpiece_trace.candidates[0]][: charts.TOP_CANDIDATES]
    assert first.x[0] == pytest.approx(0.2)  # the course's first pick: ('a', '##b') with score 0.2
    assert "a + ##b" in first.text[0]
    assert figure.layout.xaxis.title.text == "likelihood score"


def test_merge_timeline_values_and_marker(bpe_trace, wordpiece_trace):
    figure = charts.merge_timeline(bpe_trace, current_step=7)
    assert len(figure.data) == 1
    assert list(figure.data[0].y) == bpe_trace.merge_counts
    assert list(figure.data[0].x) == list(range(1, bpe_trace.steps + 1))
    assert figure.layout.shapes[0].x0 == 7
    assert not charts.merge_timeline(bpe_trace, current_step=0).layout.shapes
    scored = charts.merge_timeline(wordpiece_trace, current_step=3)
    assert [trace.name for trace in scored.data] == ["pair count", "likelihood score"]
    assert list(scored.data[1].y) == pytest.approx(wordpiece_trace.merge_scores)


def test_compression_curve(bpe_trace):
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
    symbols = bytes_to_symbols(" <b>\n".encode()) + bytes_to_symbols("\u20ac".encode())[:1]
    assert charts.readable_vocab_token(symbols, byte_level=True) == "·<b>↵<0xE2>"
    assert charts.readable_vocab_token("<|endoftext|>", byte_level=True) == "<|endoftext|>"
    assert charts.pair_label(["<script>", "&"], 0, 1) == "&lt;script&gt; + &amp;"


def test_figures_for_a_run_without_merges():
    trace = train({"a": 1}, TrainerConfig(vocab_size=1))
    trace.config["pre_tokenizer"] = "whitespace"
    assert trace.steps == 0
    assert charts.candidates_animation(trace).frames == ()
    assert len(charts.merge_timeline(trace).data[0].x) == 0
    assert list(charts.compression_curve(trace, 0).data[0].y) == [1]
