"""The compiled engine (engine/, Rust) against the Python one, its reference: the same trace, byte
for byte, on corpora made to hit every rule (CJK, emoji, a token string made twice, overlapping
pairs, words over 2,048 symbols, prefix and suffix, special tokens, min frequency), for both
flavors of BPE and WordPiece and Unigram's library flavor (its lattices: unknown characters, piece
lengths, special and unk tokens); the likelihood score's division as Python's `int / int` rounds
it; and the engine choice. Every other trainer test runs both engines through tests/helpers/engines.py."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from explorer.run_config import TrainerConfig, UnigramConfig
from explorer.training import engines
from explorer.training.bpe import trainer as bpe
from explorer.training.unigram import train_unigram
from tests.helpers.engines import trace_bytes

compiled = engines.compiled()
needs_compiled = pytest.mark.skipif(
    compiled is None, reason="the Rust engine is not built (python3 tasks.py builds it when cargo is there)"
)
SETTINGS = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Overlaps (aaa), decorations inside the text (# < >), combining marks, CJK, emoji with modifiers.
ALPHABETS = ["ab", "a", "aab", "abc", "中文字词", "😀👍🏽🏽", "ab#<>", "aé中😀", "a\u0301bß", "##a"]


@st.composite
def corpora(draw, long_word: int = 2_049):
    """Word counts; now and then a word of `long_word` symbols or more (BPE: the whole-array path
    over 2,048; Unigram: over 256 characters, where its passes ask should_stop())."""
    alphabet = draw(st.sampled_from(ALPHABETS))
    words = draw(st.lists(st.text(alphabet, min_size=1, max_size=12), min_size=1, max_size=16))
    if draw(st.integers(0, 9)) == 0:
        unit = draw(st.text(alphabet, min_size=1, max_size=5))
        words.append(unit * (long_word // len(unit) + draw(st.integers(1, 40))))
    counts = draw(st.lists(st.integers(1, 6), min_size=len(words), max_size=len(words)))
    word_counts: dict[str, int] = {}
    for word, count in zip(words, counts):
        word_counts[word] = word_counts.get(word, 0) + count
    return word_counts


specials = st.lists(st.sampled_from(["[UNK]", "a", "<s>", "##a", "中"]), max_size=3, unique=True).map(tuple)


def _same_trace(word_counts, config):
    items = list(word_counts.items())
    python = bpe.train(items, config, engine="python")
    rust = bpe.train(items, config, engine="rust")
    assert trace_bytes(rust) == trace_bytes(python)
    return python


@needs_compiled
@SETTINGS
@given(
    corpora(),
    st.sampled_from(["bpe", "wordpiece"]),
    st.integers(1, 70),
    specials,
    st.sampled_from([0, 0, 2, 4]),
    st.sampled_from([None, "##", "#", ""]),
    st.sampled_from([None, None, "</w>", ">"]),
)
def test_library_flavor_same_trace_on_both_engines(
    word_counts, algorithm, vocab_size, special, minimum, prefix, suffix
):
    config = TrainerConfig(
        algorithm=algorithm,
        vocab_size=vocab_size,
        special_tokens=special,
        min_frequency=minimum,
        continuing_subword_prefix=prefix,
        end_of_word_suffix=suffix,
    )
    _same_trace(word_counts, config)


@needs_compiled
@SETTINGS
@given(
    corpora(), st.sampled_from(["bpe", "wordpiece"]), st.integers(1, 70), specials, st.sampled_from([0, 0, 3])
)
def test_course_flavor_same_trace_on_both_engines(word_counts, algorithm, vocab_size, special, minimum):
    config = TrainerConfig(
        algorithm=algorithm,
        flavor="course",
        vocab_size=vocab_size,
        special_tokens=special,
        min_frequency=minimum,
    )
    _same_trace(word_counts, config)


@needs_compiled
@SETTINGS
@given(
    corpora(long_word=257),
    st.integers(0, 40),
    specials,
    st.sampled_from(["<unk>", None, "a"]),
    st.sampled_from([16, 3, 1]),
    st.sampled_from([2, 1]),
    st.sampled_from([0.75, 0.5]),
)
# The first EM iteration drops every piece: the unknown edge's score is then infinite, the scores NaN
@example({"aaaaaaaa": 1}, 0, (), "<unk>", 16, 2, 0.75)
def test_unigram_library_flavor_same_trace_on_both_engines(
    word_counts, extra, special, unk, max_piece_length, iterations, shrinking
):
    """The lattices run compiled or in Python: the same trace, every score to the last bit."""
    characters = len({char for word in word_counts for char in word})
    config = UnigramConfig(
        vocab_size=characters + len(special) + 1 + extra,
        special_tokens=special,
        unk_token=unk,
        max_piece_length=max_piece_length,
        n_sub_iterations=iterations,
        shrinking_factor=shrinking,
    )
    items = list(word_counts.items())
    python = train_unigram(items, config, engine="python")
    rust = train_unigram(items, config, engine="rust")
    assert (python.engine, rust.engine) == ("python", "rust")
    assert trace_bytes(rust) == trace_bytes(python)


@needs_compiled
@pytest.mark.parametrize("max_steps", [0, 1, 31, 32, 33, 70])
def test_stop_checks_and_progress_come_at_the_same_steps(max_steps):
    words = {"abcabcabd": 5, "abd": 2, "bcdab": 3, "dcba": 1, "aabbccdd": 2}
    config = TrainerConfig(vocab_size=200)
    seen = {}
    for engine in ("python", "rust"):
        calls: list = []
        trace = bpe.train(
            words,
            config,
            engine=engine,
            max_steps=max_steps,
            progress=lambda step, planned, calls=calls: calls.append(("progress", step, planned)),
            should_stop=lambda calls=calls: calls.append(("stop?",)) or False,
        )
        seen[engine] = (calls, trace_bytes(trace))
    assert seen["rust"] == seen["python"]
    stopped = bpe.train(words, config, engine="rust", should_stop=lambda: True)
    assert (stopped.steps, stopped.stop_reason) == (0, "stopped")


@needs_compiled
@settings(max_examples=3_000, deadline=None)
@given(st.integers(1, 2**80), st.integers(1, 2**40), st.integers(1, 2**40))
def test_likelihood_division_rounds_as_python_does(count, freq_a, freq_b):
    product = freq_a * freq_b
    assert compiled.ratio(count, product) == count / product
    # and a quotient exactly halfway between two doubles goes to the even one, as Python's does
    halfway = Fraction(2**53 + 1, 1) * Fraction(1, 2 ** (product.bit_length() % 60))
    assert compiled.ratio(halfway.numerator, halfway.denominator) == halfway.numerator / halfway.denominator


def test_the_engine_choice():
    assert engines.resolve("python") == "python"
    assert engines.resolve("auto") == ("python" if compiled is None else "rust")
    with pytest.raises(ValueError, match="engine must be one of"):
        engines.resolve("fast")
    if compiled is None:
        with pytest.raises(ValueError, match="not built"):
            engines.resolve("rust")


@pytest.mark.skipif(
    os.environ.get("EXPLORER_ENGINE") != "rust", reason="only where the Rust engine is required (CI)"
)
def test_ci_built_the_compiled_engine():
    assert compiled is not None, ".ci/run requires the Rust engine (EXPLORER_ENGINE=rust)"
