"""The `tokenizers` library's BpeTrainer heap, replayed step for step: `dary_heap::OctonaryHeap`,
8 children per node, whose layout decides which of two equal entries pops first.

The library queue (queues.py `LibraryQueue`) packs each entry into one int: `packed(count, key)
<< SEQ_BITS | sequence`, ranked by `entry >> SEQ_BITS` alone, so that two entries of one pair at
one count are equal, as in the library; the sequence number finds the words the entry carries.

What it does not do: know pairs, counts or words (queues.py packs and unpacks the entries).
"""

from __future__ import annotations

# Bits of an entry below its rank: the sequence number the library queue files the entry's words under.
SEQ_BITS = 40
SEQ_MASK = (1 << SEQ_BITS) - 1
ARITY = 8  # dary_heap::OctonaryHeap


class OctonaryHeap:
    """The library's `dary_heap::OctonaryHeap<Merge>` (tokenizers 0.23, `bpe/trainer.rs`), step for
    step: a max-heap with 8 children per node, where `push` sifts up and `pop` moves the last entry
    to the root, sifts it down to the bottom (to the last of the greatest children) and back up;
    sifting up stops at a parent that is not smaller. Its entries are packed ints (see above), best
    = smallest `entry >> SEQ_BITS`. Entries that compare equal (one pair, one count, two entries)
    pop in the order this layout gives, which is why heapq will not do: that order decides which
    words the merge rewrites (tests/parity/test_trainers.py, `test_equal_entries_pop_as_...`).
    """

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: list[int] = []

    def __bool__(self) -> bool:
        return bool(self.data)

    def push(self, entry: int) -> None:
        data = self.data
        data.append(entry)
        self._sift_up(len(data) - 1, entry)

    def pop(self) -> int:
        data = self.data
        entry = data.pop()
        if data:
            entry, data[0] = data[0], entry
            self._sift_down_to_bottom()
        return entry

    def _sift_up(self, pos: int, entry: int) -> None:
        data = self.data
        rank = entry >> SEQ_BITS
        while pos > 0:
            parent = (pos - 1) // ARITY
            if rank >= data[parent] >> SEQ_BITS:
                break
            data[pos] = data[parent]
            pos = parent
        data[pos] = entry

    def _sift_down_to_bottom(self) -> None:
        data = self.data
        end, pos, entry = len(data), 0, data[0]
        child = 1
        while child < end:
            # The last of the best children (all ARITY of them, or the last few).
            ranks = [other >> SEQ_BITS for other in data[child : child + ARITY]]
            child += len(ranks) - 1 - ranks[::-1].index(min(ranks))
            data[pos] = data[child]
            pos = child
            child = ARITY * pos + 1
        self._sift_up(pos, entry)
