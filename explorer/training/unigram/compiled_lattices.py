"""The compiled engine's Unigram lattices: the same interface and the same bits as `CorpusLattices`
(lattices.py, the readable reference), with the edges held and the passes run in Rust
(engine/src/unigram.rs, `explorer_engine.UnigramLattices`), the GIL released meanwhile.

Stop: the Python engine asks `should_stop()` every CHECK_EVERY depths inside a pass (a word of
1,000 characters: 3 times in each sweep, forward and backward); the compiled one asks as many times just
before the pass, so that a given answer stops both at the same point of the run (a pass stopped in
its middle is thrown away), though not at the same moment.

What it does not do: choose the engine (explorer.training.engines) or decide anything about pieces
(library.py, shared by both engines).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from explorer.training.unigram.lattices import CHECK_EVERY, StopTraining
from explorer.training.unigram.seeds import FlatCorpus, Seeds

if TYPE_CHECKING:
    from explorer_engine import UnigramLattices  # typed by stubs/explorer_engine.pyi


@dataclass
class CompiledEdges:
    """The lattices' edges for the alive pieces the last `edges()` call gave."""

    lattices: CompiledLattices

    def by_start(self, positions: np.ndarray) -> list:
        starts, lengths, pieces = self.lattices.compiled.by_start(positions.view(np.uint8))
        return [
            np.frombuffer(starts, dtype=np.int32),
            np.frombuffer(lengths, dtype=np.uint16).astype(self.lattices.length_type),
            np.frombuffer(pieces, dtype=np.int32),
        ]


class CompiledLattices:
    def __init__(self, flat: FlatCorpus, seeds: Seeds, max_length: int, module: ModuleType):
        """Takes the seed edges over: `seeds.edge_*` are emptied (they would double the memory)."""
        self.unk = len(seeds.pieces)
        self.n = int(flat.word_ends[-1]) + 1 if len(flat.word_ends) else 0
        self.multiplier = max_length + 2
        self.length_type = np.uint8 if max_length < 256 else np.int32
        longest = int((flat.word_ends - flat.word_starts).max(initial=0))
        self.checks = longest // CHECK_EVERY  # the Python engine's should_stop() calls per sweep
        if max_length > np.iinfo(np.uint16).max:
            raise ValueError(
                f"the compiled engine takes pieces of at most 65,535 characters (got {max_length})"
            )
        self.compiled: UnigramLattices = module.UnigramLattices(
            flat.word_starts.astype(np.uint32),
            flat.word_ends.astype(np.uint32),
            flat.counts.astype(np.float64),
            seeds.char_piece.astype(np.int32),
            self.unk,
            max_length,
            _unsigned(seeds.edge_starts),
            seeds.edge_lengths
            if seeds.edge_lengths.dtype == np.uint8
            else seeds.edge_lengths.astype(np.uint16),
            _unsigned(seeds.edge_pieces),
        )
        seeds.edge_starts = seeds.edge_lengths = seeds.edge_pieces = np.zeros(0, dtype=np.int64)

    def edges(self, alive: np.ndarray) -> CompiledEdges:
        """Forget the edges of pieces no longer alive (alive sets only shrink)."""
        self.compiled.set_alive(np.ascontiguousarray(alive, dtype=bool).view(np.uint8))
        return CompiledEdges(self)

    def expected_counts(self, edges: CompiledEdges, scores: np.ndarray, should_stop=None):
        _ask(should_stop, 2 * self.checks)  # forward and backward
        expected, objective = self.compiled.expected_counts(np.ascontiguousarray(scores, dtype=np.float64))
        return np.frombuffer(expected, dtype=np.float64).copy(), objective

    def viterbi_counts(self, edges: CompiledEdges, scores: np.ndarray, should_stop=None) -> np.ndarray:
        _ask(should_stop, self.checks)
        freq = self.compiled.viterbi_counts(np.ascontiguousarray(scores, dtype=np.float64))
        return np.frombuffer(freq, dtype=np.float64).copy()


def _unsigned(column: np.ndarray) -> np.ndarray:
    """An int32 column of values >= 0 as uint32, without a copy (the edges are the bulk of memory)."""
    return column.view(np.uint32) if column.dtype == np.int32 else column.astype(np.uint32)


def _ask(should_stop, times: int) -> None:
    for _ in range(times if should_stop is not None else 0):
        if should_stop():
            raise StopTraining
