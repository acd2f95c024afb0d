"""BPE's merge loop over one word: a heap of candidate merges over a linked list of symbols, as the
library's `models/bpe/word.rs` `merge_all` does (and tiktoken's), so a long word costs O(n log n).

Shared by the BPE model (explorer.pipeline.models.bpe) and the step-by-step encodings
(explorer.lessons.encode_steps.merges and explorer.lessons.encode_steps.tiktoken_bpe), which follow each merge
through `on_merge`.

What it does not do: know about strings, vocabularies or offsets (the callers map ids and lengths).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable


def merge_all(
    ids: list[int],
    lengths: list[int],
    lookup: Callable[[tuple[int, int]], tuple[int, int] | None],
    on_merge: Callable[[int, int, int], None] | None = None,
) -> None:
    """Apply merges in place, lowest rank first, leftmost first among equal ranks.

    `lookup((left id, right id))` gives (rank, merged id) or None. Symbols form a linked list
    over the arrays; a merged-away symbol gets length 0. Heap entries go stale when a neighbour
    changes: an entry is only applied if the pair now at its position still merges into the
    same id (exactly the library's check, and tiktoken's). `on_merge(left, right, rank)` is
    told each merge as it happens (indices into the arrays), for the step-by-step view.
    """
    count = len(ids)
    prev = list(range(-1, count - 1))
    next_ = [*range(1, count), -1] if count else []
    queue = []
    for position in range(count - 1):
        merge = lookup((ids[position], ids[position + 1]))
        if merge is not None:
            queue.append((merge[0], position, merge[1]))
    heapq.heapify(queue)
    while queue:
        _, position, merged_id = heapq.heappop(queue)
        right = next_[position]
        if lengths[position] == 0 or right == -1:
            continue
        current = lookup((ids[position], ids[right]))
        if current is None or current[1] != merged_id:
            continue
        if on_merge is not None:
            on_merge(position, right, current[0])
        ids[position] = merged_id
        lengths[position] += lengths[right]
        lengths[right] = 0
        after = next_[right]
        next_[position] = after
        if after != -1:
            prev[after] = position
        before = prev[position]
        if before >= 0:
            merge = lookup((ids[before], merged_id))
            if merge is not None:
                heapq.heappush(queue, (merge[0], before, merge[1]))
        if after != -1:
            merge = lookup((merged_id, ids[after]))
            if merge is not None:
                heapq.heappush(queue, (merge[0], position, merge[1]))
