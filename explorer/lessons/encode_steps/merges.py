"""BPE merges, recorded: the merge loop `encode` runs, told each merge through a hook, turned into
one "merge" step per merge; shared by our BPE model (explorer.lessons.encode_steps.bpe) and tiktoken's
byte-level BPE (explorer.lessons.encode_steps.tiktoken_bpe).

The rule is the lowest-rank adjacent pair present, leftmost among equal ranks, until no merge
applies: the course's `tokenize()`, minbpe's `encode` and tiktoken's `_educational.bpe_encode`.
Since it runs the very loop `encode` runs (`models.merge_all`, a heap over a linked list), the last
step is `encode`'s result by construction. A tokenizer that looks the whole pre-token up first
(tiktoken always, our BPE with `ignore_merges`) gets a last "whole-word" step when that lookup
gives something else than the merges (`whole_word_step`).

What it does not do: make the initial symbols or pieces (the callers do), or WordPiece.
"""

from __future__ import annotations

from explorer.lessons.encode_steps.records import Step, StepPiece
from explorer.pipeline.models import merge_all


def record_merges(
    pieces: list[StepPiece],
    kept: list[int],
    ids: list[int],
    lengths: list[int],
    lookup,
    merged_piece,
    record: bool,
) -> tuple[list[Step], tuple[StepPiece, ...]]:
    """Run `merge_all` over `ids`/`lengths`: one "merge" step per merge applied, and the final pieces.

    `pieces` is the initial display list (dropped characters included) and `kept[i]` the index
    in it of array symbol i. `merged_piece(first, last, left, right, merged_id)` makes the piece
    covering array symbols first..last from its leftmost and rightmost pieces. Without `record`
    no step is kept and only the final pieces are made (a long pre-token costs what `encode` does).
    """
    if not record:
        merge_all(ids, lengths, lookup)
        starts = [symbol for symbol in range(len(ids)) if lengths[symbol]]
        ends = [*starts[1:], len(ids)]
        return [], tuple(
            pieces[kept[first]]
            if end == first + 1
            else merged_piece(first, end - 1, pieces[kept[first]], pieces[kept[end - 1]], ids[first])
            for first, end in zip(starts, ends)
        )
    steps: list[Step] = []
    current = list(pieces)
    piece_of_symbol = [pieces[index] for index in kept]
    last_symbol = list(range(len(ids)))  # the last array symbol each symbol covers

    def on_merge(left: int, right: int, rank: int) -> None:
        left_piece, right_piece = piece_of_symbol[left], piece_of_symbol[right]
        merged_id = lookup((ids[left], ids[right]))[1]
        last_symbol[left] = last_symbol[right]
        new_piece = merged_piece(left, last_symbol[left], left_piece, right_piece, merged_id)
        piece_of_symbol[left] = new_piece
        # Identity, not equality: two equal pieces can sit side by side ("l", "l").
        left_index = next(i for i, piece in enumerate(current) if piece is left_piece)
        right_index = next(i for i in range(left_index + 1, len(current)) if current[i] is right_piece)
        current[left_index] = new_piece
        del current[right_index]
        steps.append(
            Step(
                "merge",
                tuple(current),
                (left_piece.value, right_piece.value),
                new_piece.value,
                rank,
                (left_index, right_index),
            )
        )

    merge_all(ids, lengths, lookup, on_merge)
    return steps, tuple(piece_of_symbol[symbol] for symbol in range(len(ids)) if lengths[symbol])


def whole_word_step(final: tuple[StepPiece, ...], whole: StepPiece) -> Step | None:
    """The lookup of the whole pre-token, when it changes what the merges gave."""
    if len(final) == 1 and final[0].id == whole.id:
        return None
    return Step("whole-word", (whole,), merged=whole.value)
