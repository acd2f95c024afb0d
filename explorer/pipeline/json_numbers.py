"""Floating-point numbers in tokenizer.json exactly as the `tokenizers` library reads them.

The library parses JSON with serde_json without its `float_roundtrip` feature: a number is read
as (its digits as an integer, rounded to a double) multiplied or divided by a power of ten (a
double too), two roundings instead of one. So a number written with Python's shortest repr
(which a correct parser reads back exactly) comes back 1 ulp off in about one case in seven,
and the library's own save-then-load can change a Unigram score. A Unigram model whose scores
differ by one ulp can break a tie the other way, so:
- `library_json_float(text)` reads a number as the library does (`json.loads(...,
  parse_float=library_json_float, parse_int=library_json_int)`): what we load is what the
  library loads from the same file, integers too long for 64 bits included;
- `library_float_text(value)` writes a number the library reads back as exactly `value` (the
  shortest repr when that works, else 17 to 20 significant digits, else the integers next to
  value * 10**k for every usable k). Some doubles cannot be read by the library from any text
  (ValueError): `library_float(value)` is the nearest one it reads, what it gets from repr(value).

Ported from serde_json 1.0 `de.rs` (`parse_integer`, `parse_decimal`, `parse_exponent`,
`f64_from_parts` without `float_roundtrip`); tests compare it with the library on thousands of
numbers.

What it does not do: keep integers beyond 64 bits as integers (the library reads them as floats
too; no tokenizer.json field needs them).
"""

from __future__ import annotations

import math

_POW10 = [float(f"1e{k}") for k in range(309)]
_U64_MAX = 2**64 - 1


def _overflows(significand: int, digit: int) -> bool:
    """serde_json's overflow!(significand * 10 + digit, u64::MAX)."""
    return significand >= _U64_MAX // 10 and (significand > _U64_MAX // 10 or digit > _U64_MAX % 10)


def _from_parts(positive: bool, significand: int, exponent: int) -> float:
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            if exponent >= 0:
                value *= _POW10[exponent]
                if math.isinf(value):
                    raise ValueError("number out of range")
            else:
                value /= _POW10[-exponent]
            break
        if value == 0.0:
            break
        if exponent >= 0:
            raise ValueError("number out of range")
        value /= 1e308
        exponent += 308
    return value if positive else -value


def library_json_float(text: str) -> float:
    """A JSON number (as json.loads hands it to `parse_float`) read as the library reads it."""
    position, end = 0, len(text)
    positive = not text.startswith("-")
    if not positive:
        position = 1
    significand = exponent = 0
    while position < end and text[position].isdigit():
        digit = ord(text[position]) - 48
        if _overflows(significand, digit):  # parse_long_integer: drop the digits, scale instead
            while position < end and text[position].isdigit():
                exponent += 1
                position += 1
            break
        significand = significand * 10 + digit
        position += 1
    if position < end and text[position] == ".":
        position += 1
        while position < end and text[position].isdigit():
            digit = ord(text[position]) - 48
            if _overflows(significand, digit):  # parse_decimal_overflow: ignore further digits
                while position < end and text[position].isdigit():
                    position += 1
                break
            significand = significand * 10 + digit
            exponent -= 1
            position += 1
    if position < end and text[position] in "eE":
        written = int(text[position + 1 :])
        if abs(written) >= 2**31:  # parse_exponent_overflow
            if significand and written > 0:
                raise ValueError("number out of range")
            return 0.0 if positive else -0.0
        exponent += written
    return _from_parts(positive, significand, exponent)


def library_json_int(text: str) -> int | float:
    """A JSON integer (as json.loads hands it to `parse_int`) read as the library reads it: an
    integer while it fits 64 bits, else a float scaled from its first digits (parse_long_integer),
    not the nearest double to the whole integer."""
    number = int(text)
    if abs(number) <= _U64_MAX:
        return number
    return library_json_float(text)


def library_float_text(value: float) -> str:
    """A JSON number text that the library reads back as exactly `value` (finite)."""
    if not math.isfinite(value):
        raise ValueError(f"{value} cannot be written in JSON")
    text = repr(value)
    if library_json_float(text) == value:
        return text
    for digits in (17, 18, 19, 20):
        text = f"{value:.{digits - 1}e}"
        if library_json_float(text) == value:
            return text
    # Every (digits, power of ten) pair the library could read: the integers next to
    # value * 10**k, for every k that keeps them within 64 bits.
    from fractions import Fraction  # here: rarely needed, and it loads decimal (0.7 MB a process)

    exact = Fraction(abs(value))
    sign = "-" if value < 0 or math.copysign(1.0, value) < 0 else ""
    if exact == 0:
        return repr(value)
    magnitude = math.floor(math.log10(abs(value)))
    for power in range(-magnitude - 1, -magnitude + 21):
        scaled = exact * Fraction(10) ** power
        middle = math.floor(scaled)
        for candidate in range(max(1, middle - 3), middle + 5):
            if candidate > _U64_MAX:
                break
            text = f"{sign}{candidate}e{-power}"
            if library_json_float(text) == value:
                return text
    raise ValueError(f"{value!r} cannot be written so that the tokenizers library reads it back exactly")


def library_float(value: float) -> float:
    """The value the library holds after reading `repr(value)`: `value` itself, or a neighbour
    when the library cannot read `value` exactly from any text."""
    return library_json_float(repr(value))
