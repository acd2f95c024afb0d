"""Columns of numbers inside a trace's JSON: base64 of a little-endian array, one string per column.

Compact, exact (floats keep every bit) and fast for 100,000s of values, where a JSON list of numbers
would be several times larger and slower to read. Used by both trace formats: the BPE/WordPiece
MergeHistory (explorer.training.bpe.merge_history, Python `array`s, so that reading a trace does not import
numpy) and the
RoundHistory (explorer.training.unigram.round_history, numpy arrays). A column's kind names its element type:

    "i8", "i32", "i64": signed integers of 1, 4, 8 bytes;  "f64": IEEE doubles (a numpy column's NaNs
    written as the one quiet NaN: which NaN an operation gives differs by CPU and compiler).

A trace's `json_fields()` holds its columns as `Packed` values, packed only when written: a writer
that takes the fields one at a time (explorer.cli.common.write_json_fields) holds one column's text
at most, and writes an array's in parts; `resolve_packed` makes the plain JSON data (`to_dict`).

What it does not do: choose which columns a trace has or check their lengths (the traces do).
"""

from __future__ import annotations

import base64
import sys
from array import array
from collections.abc import Iterable, Iterator
from collections.abc import Sequence as SequenceOf
from itertools import accumulate

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


# Bytes of a column base64-encoded at a time by `Packed.json_parts` (a multiple of 3: the parts'
# base64 texts, end to end, are the whole column's).
PART_BYTES = 3 << 18


class Packed:
    """A column of `kind` to be packed when it is written: `text()` is `pack(values, kind)`."""

    __slots__ = ("values", "kind")

    def __init__(self, values, kind: str):
        self.values, self.kind = values, kind

    def text(self) -> str:
        return pack(self.values, self.kind)

    def json_parts(self) -> Iterator[bytes]:
        """The JSON string of `text()` as ASCII bytes, in parts (an array of the kind's typecode
        on a little-endian machine is encoded a part at a time, never copied whole)."""
        values = self.values
        if not (
            isinstance(values, array) and values.typecode == KINDS[self.kind][0] and sys.byteorder == "little"
        ):
            yield b'"' + self.text().encode("ascii") + b'"'
            return
        data = memoryview(values).cast("B")
        yield b'"'
        for start in range(0, len(data), PART_BYTES):
            yield base64.b64encode(data[start : start + PART_BYTES])
        yield b'"'


def resolve_packed(data: dict) -> dict:
    """`data` with every `Packed` value (in nested objects too) packed: plain JSON data."""
    resolved = dict(data)
    for key, value in data.items():
        if isinstance(value, Packed):
            resolved[key] = value.text()
        elif isinstance(value, dict):
            resolved[key] = resolve_packed(value)
    return resolved


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


class Rows(SequenceOf):
    """Rows of numbers kept end to end in one array: row i is `flat[ends[i - 1]:ends[i]]`, made
    (as an array) when asked for. One array per row would cost some 100 bytes a row beside its
    values (a trace's boundary steps: a row per corpus word, a few values each)."""

    def __init__(self, flat: array, lengths: Iterable[int]):
        self.flat = flat
        self.ends = array("q", accumulate(lengths))

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self.ends)
        if not 0 <= index < len(self.ends):
            raise IndexError("rows: no such row")
        return self.flat[self.ends[index - 1] if index else 0 : self.ends[index]]

    def __eq__(self, other) -> bool:
        if not isinstance(other, SequenceOf):
            return NotImplemented
        return len(self) == len(other) and all(mine == theirs for mine, theirs in zip(self, other))


def pack_rows(rows: SequenceOf[array], kind: str) -> Packed:
    """Rows of one kind as one column to pack, end to end (their lengths are known to the reader)."""
    if isinstance(rows, Rows) and rows.flat.typecode == KINDS[kind][0]:
        return Packed(rows.flat, kind)
    flat = array(KINDS[kind][0])
    for row in rows:
        flat.extend(row)
    return Packed(flat, kind)


def unpack_rows(packed: str, kind: str, lengths: Iterable[int], mismatch: str) -> Rows:
    """The rows `pack_rows` wrote, given each one's length; ValueError(mismatch) when the lengths
    do not add up to the column's."""
    rows = Rows(unpack_array(packed, kind), lengths)
    if (rows.ends[-1] if rows.ends else 0) != len(rows.flat):
        raise ValueError(mismatch)
    return rows
