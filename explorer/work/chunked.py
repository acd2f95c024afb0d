"""A pickle whose large dicts and lists are cut into chunks, so that loading it never holds the GIL
for long: what a worker sends back when the server must rebuild a big object (an uploaded
tokenizer's vocabulary and merges) without stalling its other threads.

`dumps(obj)` gives `(main, chunks)`: `main` is the pickle of `obj` with every dict or list of at
least `BIG` items replaced by a reference, and `chunks[i]` the pickles of that container's items,
`CHUNK` at a time. `loads((main, chunks))` rebuilds `obj` one chunk at a time from Python code, so
the interpreter can switch threads between two chunks (a few milliseconds each); one
`pickle.loads` of the whole object would hold the GIL for its whole length (0.3 s for a tokenizer
of 250,000 tokens and merges: /_stcore/health and every other visitor wait that long).

    >>> big = {"vocab": {str(i): i for i in range(25_000)}, "name": "x"}
    >>> main, chunks = dumps(big)
    >>> len(chunks), [len(parts) for parts in chunks]
    (1, [3])
    >>> loads((main, chunks)) == big
    True

What it does not do: make loading cheaper in total (the same work, cut in pieces), handle large
containers of another type (sets, tuples, dict subclasses: pickled whole), or load pickles from
anyone but our own workers (a pickle can run code: never load one a visitor sent).
"""

from __future__ import annotations

import io
import pickle

BIG = 10_000  # items from which a dict or list is cut into chunks
CHUNK = 10_000  # items per chunk: about 5 ms to load


class _Cutter(pickle.Pickler):
    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.chunks: list[tuple[str, list[bytes]]] = []
        self._seen: dict[int, int] = {}

    def persistent_id(self, obj):
        kind = type(obj)
        if (kind is dict or kind is list) and len(obj) >= BIG:
            index = self._seen.get(id(obj))
            if index is None:
                items = list(obj.items()) if kind is dict else obj
                parts = [
                    pickle.dumps(items[start : start + CHUNK], protocol=pickle.HIGHEST_PROTOCOL)
                    for start in range(0, len(items), CHUNK)
                ]
                index = self._seen[id(obj)] = len(self.chunks)
                self.chunks.append(("dict" if kind is dict else "list", parts))
            return index
        return None


class _Joiner(pickle.Unpickler):
    def __init__(self, file, chunks: list[list[bytes]], kinds: list[str]):
        super().__init__(file)
        self._chunks, self._kinds = chunks, kinds
        self._built: dict[int, object] = {}

    def persistent_load(self, index):
        if index not in self._built:
            built: dict | list = {} if self._kinds[index] == "dict" else []
            for part in self._chunks[index]:  # a Python loop: other threads run between chunks
                if isinstance(built, dict):
                    built.update(pickle.loads(part))
                else:
                    built.extend(pickle.loads(part))
            self._built[index] = built
        return self._built[index]


def dumps(obj) -> tuple[bytes, list[list[bytes]]]:
    """`obj` as a main pickle plus the chunks of its large dicts and lists (see the module)."""
    buffer = io.BytesIO()
    cutter = _Cutter(buffer)
    cutter.dump(obj)
    kinds = [kind for kind, _ in cutter.chunks]
    return pickle.dumps((kinds, buffer.getvalue())), [parts for _, parts in cutter.chunks]


def loads(packed: tuple[bytes, list[list[bytes]]]):
    """The object `dumps` cut in chunks, rebuilt a chunk at a time."""
    header, chunks = packed
    kinds, main = pickle.loads(header)
    return _Joiner(io.BytesIO(main), chunks, kinds).load()
