"""portable_math: within one unit in the last place of the C library's exp and log, the edge values
the trainer meets, and (when the Rust engine is built) the same bits as its port."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.training import engines
from explorer.training.unigram import portable_math


def ulps(ours: np.ndarray, exact: np.ndarray) -> np.ndarray:
    return np.abs(ours - exact) / np.spacing(np.maximum(np.abs(exact), 5e-324))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=-800.0, max_value=700.0), min_size=1, max_size=50))
def test_exp_is_within_one_ulp(values):
    x = np.array(values)
    exact = np.array([math.exp(v) if v > portable_math.EXP_UNDERFLOW else 0.0 for v in values])
    assert ulps(portable_math.exp(x), exact).max() <= 1.0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=1e-300, max_value=1e300), min_size=1, max_size=50))
def test_log_is_within_one_ulp(values):
    x = np.array(values)
    exact = np.array([math.log(v) for v in values])
    assert ulps(portable_math.log(x), exact).max() <= 1.0


def test_the_values_the_trainer_relies_on():
    assert portable_math.exp(np.array([0.0, -0.0]))[0] == 1.0  # a group's maximum contributes 1
    assert portable_math.exp(np.array([-746.0, -1e308, 710.0])).tolist() == [0.0, 0.0, math.inf]
    assert 0.0 < portable_math.exp(np.array([-740.0]))[0] < 1e-300  # subnormal, not flushed
    assert portable_math.log(np.array([1.0]))[0] == 0.0
    assert portable_math.log(np.array([2.0]))[0] == math.log(2.0)
    many = np.exp(np.random.default_rng(0).uniform(-700, 700, 100_000))
    assert ulps(portable_math.log(many), np.array([math.log(v) for v in many])).max() <= 1.0


def test_the_rust_port_gives_the_same_bits():
    module = engines.compiled()
    if module is None:
        return  # tests/parity/test_engines.py fails CI when the engine is not built
    rng = np.random.default_rng(7)
    x = np.concatenate((rng.uniform(-800, 5, 200_000), rng.uniform(-1e-6, 1e-6, 1_000), [0.0, -745.1]))
    assert np.frombuffer(module.portable_exp(x.tobytes()), dtype=np.float64).tobytes() == (
        portable_math.exp(x).tobytes()
    )
    y = np.concatenate((rng.uniform(1.0, 50.0, 200_000), np.exp(rng.uniform(-700, 700, 10_000))))
    assert np.frombuffer(module.portable_log(y.tobytes()), dtype=np.float64).tobytes() == (
        portable_math.log(y).tobytes()
    )
