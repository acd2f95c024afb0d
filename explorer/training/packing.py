"""Columns of numbers inside a trace's JSON: base64 of a little-endian array, one string per column.

Compact, exact (floats keep every bit) and fast for 100,000s of values, where a JSON list of numbers
would be several times larger and slower to read. Used by both trace formats: the BPE/WordPiece
Trace (explorer.training.bpe.merge_history, Python `array`s, so that reading a trace does not import
numpy) and the
UnigramTrace (explorer.training.unigram.round_history, numpy arrays). A column's kind names its element type:

    "i8", "i32", "i64": signed integers of 1, 4, 8 bytes;  "f64": IEEE doubles, every NaN written
    as the one quiet NaN (which NaN an operation gives differs by CPU and compiler, not by meaning).

What it does not do: choose which columns a trace has or check their lengths (the traces do).
"""

from __future__ import annotations

import base64
import sys
from array import array

# kind -> (array typecode, numpy dtype). Typecode "i" is 4 bytes on every platform CPython runs on.
KINDS = {"i8": ("b", "i1"), "i32": ("i", "<i4"), "i64": ("q", "<i8"), "f64": ("d", "<f8")}


def pack(values, kind: str) -> str:
    """Base64 of the values as a little-endian array of `kind`: an `array.array` of the matching
    typecode is written as it is, anything else (numpy arrays, lists) through numpy."""
    typecode, dtype = KINDS[kind]
    if isinstance(values, array) and values.typecode == typecode:
        if sys.byteorder == "big":
            values = array(typecode, values)
            values.byteswap()
        return base64.b64encode(values.tobytes()).decode("ascii")
    import numpy as np  # only the Unigram trace needs it: keep it off the BPE trace's import path

    column = np.ascontiguousarray(values, dtype=dtype)
    if kind == "f64" and np.isnan(column).any():
        column = np.where(np.isnan(column), np.nan, column).astype(dtype)
    return base64.b64encode(column.tobytes()).decode("ascii")


def unpack_array(packed: str, kind: str) -> array:
    """A packed column as an `array.array` (native byte order)."""
    values = array(KINDS[kind][0])
    values.frombytes(base64.b64decode(packed))
    if sys.byteorder == "big":
        values.byteswap()
    return values


def unpack_numpy(packed: str, kind: str):
    """A packed column as a writable numpy array of native byte order."""
    import numpy as np

    dtype = KINDS[kind][1]
    return np.frombuffer(base64.b64decode(packed), dtype=dtype).astype(dtype.lstrip("<"))


def pack_rows(rows: list[array], kind: str) -> str:
    """Rows of one kind as one column, end to end (their lengths are known to the reader)."""
    flat = array(KINDS[kind][0])
    for row in rows:
        flat.extend(row)
    return pack(flat, kind)


def unpack_rows(packed: str, kind: str, lengths, mismatch: str) -> list[array]:
    """The rows `pack_rows` wrote, given each one's length; ValueError(mismatch) when the lengths
    do not add up to the column's."""
    flat = unpack_array(packed, kind)
    rows, start = [], 0
    for length in lengths:
        stop = start + length
        rows.append(flat[start:stop])
        start = stop
    if start != len(flat):
        raise ValueError(mismatch)
    return rows
