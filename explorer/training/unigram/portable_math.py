"""exp and log on numpy arrays that give the same bits on every machine and in both engines.

numpy's own `np.exp` and `np.log` pick an implementation by CPU (AVX-512 code on one machine, the C
library's on another) and the last bit of a result depends on which; the Rust engine's `f64::exp`
is the C library's. The forward-backward passes of Unigram training sum millions of these values,
so a trace would differ by machine and by engine. These two functions use only correctly rounded
operations (+, -, *, / and scaling by powers of two, the same in numpy and in Rust) in the order of
fdlibm's `e_exp.c` and `e_log.c` (Sun Microsystems, 1993; also musl's), so they agree bit for bit
with the Rust engine's port (engine/src/unigram.rs, `exp` and `ln`) and stay within one unit in
the last place of the true value.

What it does not do: handle what the trainer never asks: `log` of zero, negative numbers or
subnormals (exp gives 0 below -745.2 and +inf above 709.8, as the C library does; NaN, and log of
infinity, give NaN).
"""

from __future__ import annotations

import numpy as np

LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
EXP_P = (
    1.66666666666666019037e-01,
    -2.77777777770155933842e-03,
    6.61375632143793436117e-05,
    -1.65339022054652515390e-06,
    4.13813679705723846039e-08,
)
LOG_LG = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
EXP_UNDERFLOW = -745.2  # below: 0.0
EXP_OVERFLOW = 709.8  # above: inf
SQRT_HALF = 0.70710678118654752440


BLOCK = 1 << 14  # elements per block: the temporaries stay in the processor's cache


def exp(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    result = np.empty_like(x)
    flat_x, flat_result = x.reshape(-1), result.reshape(-1)
    for low in range(0, len(flat_x), BLOCK):
        flat_result[low : low + BLOCK] = _exp_block(flat_x[low : low + BLOCK])
    return result


@np.errstate(invalid="ignore", over="ignore")  # NaN in, NaN out, quietly (a degenerate model's scores)
def _exp_block(x: np.ndarray) -> np.ndarray:
    clipped = np.clip(x, EXP_UNDERFLOW, EXP_OVERFLOW)
    k = np.rint(clipped * INV_LN2)  # ties to even, as Rust's round_ties_even
    hi = clipped - k * LN2_HI  # exact: LN2_HI has 21 trailing zero bits and |k| < 1100
    lo = k * LN2_LO
    r = hi - lo
    t = r * r
    p1, p2, p3, p4, p5 = EXP_P
    c = t * p5
    c += p4
    c *= t
    c += p3
    c *= t
    c += p2
    c *= t
    c += p1
    c *= t
    np.subtract(r, c, out=c)  # c = r - t * (p1 + t * (p2 + ...))
    r *= c
    c -= 2.0
    r /= c
    np.negative(r, out=r)  # (r * c) / (2 - c)
    r -= lo
    r += hi
    r += 1.0
    result = np.ldexp(r, k.astype(np.int64))  # y * 2**k, rounded once: only subnormal results round
    result[x < EXP_UNDERFLOW] = 0.0
    result[x > EXP_OVERFLOW] = np.inf
    return result


@np.errstate(invalid="ignore", divide="ignore")
def log(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    mantissa, exponent = np.frexp(x)  # x = mantissa * 2**exponent, mantissa in [0.5, 1)
    low = mantissa < SQRT_HALF
    m = np.where(low, mantissa * 2.0, mantissa)  # in [sqrt(1/2), sqrt(2))
    k = (exponent - low).astype(np.float64)
    f = m - 1.0
    hfsq = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    lg1, lg2, lg3, lg4, lg5, lg6, lg7 = LOG_LG
    t1 = w * (lg2 + w * (lg4 + w * lg6))
    t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)))
    r = t2 + t1
    return s * (hfsq + r) + k * LN2_LO - hfsq + f + k * LN2_HI
