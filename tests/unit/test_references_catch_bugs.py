"""The references in tests/reference/ catch a bug planted in the production code they check (issue
34): with one comparison changed in the Unigram n-best heap (explorer/training/unigram/nbest.py) or
in the BPE library queue (explorer/training/bpe/queues.py), the differential comparison the parity
tests make differs on some of a fixed set of inputs; without the change it agrees on all of them.
A reference sharing the code it checks would agree either way.

A planted bug is the production function's own source with one expression replaced (`_mutant`),
or a changed helper, set with monkeypatch. The BPE runs use the Python engine: the bug is planted
in its queue (the compiled engine has its own, checked against this one by tests/parity/test_engines.py).
What this does not do: test the references against the `tokenizers` library (tests/parity/ does).
"""

import __future__

import inspect
import random
import textwrap
from unittest import mock

import pytest

from explorer.run_config import TrainerConfig
from explorer.training.bpe import octonary_heap, queues
from explorer.training.bpe import trainer as bpe
from explorer.training.unigram import nbest
from tests.reference import unigram_library
from tests.reference.trainers import EQUAL_ENTRIES, PLAIN_QUEUES


def _mutant(function, old: str, new: str):
    """`function` recompiled from its source with `old` (there exactly once) replaced by `new`."""
    source = textwrap.dedent(inspect.getsource(function))
    assert source.count(old) == 1, f"{old!r} is no longer in {function.__qualname__}: plant another bug"
    code = compile(
        source.replace(old, new),
        inspect.getsourcefile(function) or "<mutant>",
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    namespace: dict = {}
    exec(code, function.__globals__, namespace)
    return namespace[function.__name__]


# ---------------------------------------------------------------- Unigram: the n-best heap


def _lattices(count=300, seed=0):
    """(nodes, length) as tests/parity/test_unigram_library.py draws them: three scores, so ties."""
    rng = random.Random(seed)
    lattices = []
    for _ in range(count):
        length = rng.randint(1, 6)
        nodes = [(pos, 1, 7, -2.0) for pos in range(length)]
        for _ in range(rng.randint(0, 12)):
            start, size = rng.randint(0, 5), rng.randint(1, 3)
            if start + size <= length:
                nodes.append((start, size, rng.randint(0, 6), rng.choice([-1.0, -2.0, -0.5])))
        lattices.append((list(dict.fromkeys(nodes)), length))
    return lattices


def _reference_nbest(nodes, length):
    lattice = unigram_library.Lattice("x" * length, 100, 101)
    for start, size, piece, score in sorted(nodes, key=lambda node: (node[0], node[2] == 0, node[1])):
        lattice.insert(start, size, score, piece)
    return [[node.id for node in path] for path in lattice.nbest(2)]


def _nbest_disagreements(lattices) -> int:
    return sum(
        nbest.exact_nbest(nodes, length, unk=0) != _reference_nbest(nodes, length)
        for nodes, length in lattices
    )


def test_the_unigram_reference_catches_a_flipped_tie_in_the_nbest_heap(monkeypatch):
    lattices = _lattices()
    assert _nbest_disagreements(lattices) == 0
    # The bug: an item with its parent's fx no longer rises past it (the library's `<=` is "a.fx < b.fx").
    heap = nbest._QuaternaryHeap
    flipped = _mutant(heap._sift_up, "if element[0] < data[parent][0]:", "if element[0] <= data[parent][0]:")
    monkeypatch.setattr(heap, "_sift_up", flipped)
    assert _nbest_disagreements(lattices) > 0


# ---------------------------------------------------------------- BPE: the library queue

# Two entries of one pair at one count (found by search), beside the corpora where the library's
# heap layout decides between two such entries (EQUAL_ENTRIES).
TIED_ENTRIES = (
    {"#a<": 3, "#>b#>a<b": 3, "#a#>": 4},
    TrainerConfig(vocab_size=21, continuing_subword_prefix="#"),
)


def _bpe_runs(count=40, seed=0):
    """(word counts, config) of the library flavor, with prefix and suffix characters in the text at
    times (the library's stale counts), and the tied entries above."""
    rng = random.Random(seed)
    runs = [TIED_ENTRIES]
    for lines, vocab_size, options in EQUAL_ENTRIES:
        word_counts: dict[str, int] = {}
        for word in " ".join(lines).split():
            word_counts[word] = word_counts.get(word, 0) + 1
        config = TrainerConfig(
            vocab_size=vocab_size,
            continuing_subword_prefix=options.get("continuing_subword_prefix", ""),
            end_of_word_suffix=options.get("end_of_word_suffix"),
        )
        runs.append((word_counts, config))
    for _ in range(count):
        alphabet = rng.choice(["ab", "abc", "abcde", "ab#<>"])
        words = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))
            for _ in range(rng.randint(1, 14))
        ]
        config = TrainerConfig(
            vocab_size=rng.randint(5, 45),
            continuing_subword_prefix=rng.choice(["", "", "#"]),
            end_of_word_suffix=rng.choice([None, ">"]),
        )
        runs.append(({word: rng.randint(1, 5) for word in words}, config))
    return runs


def _trace(word_counts, config):
    trace = bpe.train(list(word_counts.items()), config, engine="python").to_dict()
    trace.pop("seconds")
    return trace


def _queue_disagreements(runs) -> int:
    """Runs whose trace differs between the production queue and the reference's plain one."""
    differing = 0
    for word_counts, config in runs:
        ours = _trace(word_counts, config)
        with mock.patch.multiple(bpe, **PLAIN_QUEUES):
            differing += _trace(word_counts, config) != ours
    return differing


def _equal_entry_rises(monkeypatch):
    # An entry rises past a parent equal to it (dary_heap stops there).
    heap = queues.OctonaryHeap
    rises = _mutant(
        heap._sift_up, "if rank >= data[parent] >> SEQ_BITS:", "if rank > data[parent] >> SEQ_BITS:"
    )
    monkeypatch.setattr(heap, "_sift_up", rises)


def _binary_heap(monkeypatch):
    # Two children per node, the layout of std's BinaryHeap, which the library no longer uses.
    monkeypatch.setattr(octonary_heap, "ARITY", 2)


def _stale_count_taken(monkeypatch):
    # A top entry whose stored count is above the pair's count now is taken instead of corrected.
    pick = queues.LibraryQueue.pick
    taken = _mutant(pick, "if -(rest >> PAIR_BITS) == current:", "if -(rest >> PAIR_BITS) >= current:")
    monkeypatch.setattr(queues.LibraryQueue, "pick", taken)


@pytest.mark.parametrize("plant", [_equal_entry_rises, _binary_heap, _stale_count_taken])
def test_the_bpe_reference_catches_a_bug_in_the_library_queue(monkeypatch, plant):
    runs = _bpe_runs()
    assert _queue_disagreements(runs) == 0
    plant(monkeypatch)
    assert _queue_disagreements(runs) > 0
