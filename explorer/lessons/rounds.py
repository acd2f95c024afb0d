"""What the Training history page shows of a Unigram run after round r, read from its RoundHistory:
the sentence that says what round r did, the pieces it removed and why, and the words whose
segmentation it changed.

Round r = 0 is the seed vocabulary; round r (1..len(trace.rounds)) is the r-th recorded round
(explorer.training.unigram.round_history: course "prune"; library "prune", "em", "final"). "After round
r" means
with the pieces that survived it (`RoundHistory.pieces_at(r)`), segmented by the trace's own
rules (`RoundHistory.segment` / `lattice`: the course's encode_word for a course run).

Losses. A course round records the model's loss before its pruning (the course's
`compute_loss`); the loss after round r is the next round's, and after the last round it is
computed here the course's way (`course_loss`: sum over words, in order, of count times the
word's encode_word score). A library round records its EM objective after each EM iteration.

What it does not do: import streamlit, draw figures (explorer.drawing.charts.round_charts) or HTML of token
boxes (explorer.drawing.token_html), or draw the lattice of a word (explorer.views.lattice_table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np

from explorer.drawing.charts import readable_vocab_token, vocab_piece
from explorer.drawing.wording import plural
from explorer.lessons.merge_step import COURSE_SIZED_WORDS
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pipeline.tokenizer import Tokenizer
from explorer.tokens import SPECIAL, UNKNOWN, Piece
from explorer.training.unigram.round_history import REASON_TEXT, REMOVAL_REASONS, RoundHistory

TOP_WORDS = 30  # words shown for a corpus larger than the course's


def readable(trace: RoundHistory, piece: str) -> str:
    """A piece made visible as the run's vocabulary shows it (a space as ·, a byte-level run's
    symbols as their text or <0xNN> bytes: `charts.readable_vocab_token`); not escaped."""
    return readable_vocab_token(piece, trace.config.is_byte_level)


def is_course_sized(trace: RoundHistory) -> bool:
    """Small enough to show every word, as the course prints them."""
    return len(trace.words) <= COURSE_SIZED_WORDS


def shown_word_indices(trace: RoundHistory, limit: int = TOP_WORDS) -> list[int]:
    """Every word of a course-sized corpus in order of first appearance; else the `limit` most
    frequent (ties in order of first appearance)."""
    if is_course_sized(trace):
        return list(range(len(trace.words)))
    ranked = sorted(range(len(trace.words)), key=lambda index: -trace.counts[index])
    return ranked[:limit]


def default_lattice_word(trace: RoundHistory) -> str:
    """A frequent word worth looking at: the most frequent one of four characters or more (else
    the most frequent), as a person would type it (without the metaspace marker, a byte-level
    run's symbols as the text they spell)."""
    ranked = sorted(range(len(trace.words)), key=lambda index: -trace.counts[index])
    if not ranked:
        return ""
    longer = [index for index in ranked if len(trace.words[index].lstrip("▁Ġ")) >= 4]
    word = trace.words[(longer or ranked)[0]]
    if trace.config.is_byte_level:
        word = symbols_to_bytes(word).decode("utf-8", errors="replace")
    return word.replace("▁", " ").strip()


# ---------------------------------------------------------------- losses and the round sentence


def course_loss(trace: RoundHistory, r: int) -> float:
    """The course's `compute_loss` of the model after round r: sum over words in order of count
    times encode_word's score (1 + sum of -log p; the trace's lattice starts at -1, so the score
    is minus the best path's). Exactly the next round's recorded loss."""
    loss = 0.0
    for word, count in zip(trace.words, trace.counts):
        loss += count * -trace.lattice(word, r).best_score
    return float(loss)


def final_loss(trace: RoundHistory) -> float | None:
    """The loss of the trained model, None before any round. Course: its compute_loss, as the
    trainer recorded it (computed here for a trace stored before the trainer recorded it).
    Library: the EM objective of its last iteration."""
    if trace.flavor == "course":
        if not trace.rounds:
            return None
        return trace.final_loss if trace.final_loss is not None else course_loss(trace, len(trace.rounds))
    losses = [loss for round_losses in trace.losses() for loss in round_losses]
    return losses[-1] if losses else None


def loss_after(trace: RoundHistory, r: int) -> float | None:
    """The loss of the model after round r (course: its compute_loss; library: the last EM
    objective of round r, None for the final assembly, which runs no EM)."""
    if trace.flavor == "course":
        if r < len(trace.rounds):
            return trace.rounds[r].losses[0]
        return course_loss(trace, r)
    if r == 0:
        return None
    losses = trace.rounds[r - 1].losses
    return losses[-1] if losses else None


def loss_series(trace: RoundHistory, final_loss: float | None = None) -> tuple[list[list[float]], int, str]:
    """What the loss figure draws: (losses per round, the round of the first list, the x axis
    title). Library: each round's EM objectives from round 1. Course: the loss after each round
    from round 0 (the seeds), the last one `final_loss` or computed (`course_loss`)."""
    if trace.flavor != "course":
        return trace.losses(), 1, "EM iteration"
    if not trace.rounds:
        return [], 0, "round"
    last = final_loss if final_loss is not None else course_loss(trace, len(trace.rounds))
    return [[round_.losses[0]] for round_ in trace.rounds] + [[last]], 0, "round (the loss after it)"


def round_sentence(trace: RoundHistory, r: int, final_loss: float | None = None) -> str:
    """One sentence a learner can read about round r (plain text, not escaped). For the last
    round of a course run, `final_loss` saves computing its loss again (`course_loss`)."""
    if r == 0:
        seeds = len(trace.seeds)
        what = (
            "every character and the most frequent substrings"
            if trace.flavor == "course"
            else ("every character and the substrings the suffix array finds repeated")
        )
        return f"Round 0: the seed vocabulary, {plural(seeds, 'piece')} ({what})."
    round_ = trace.rounds[r - 1]
    head = f"Round {r}: {round_.size_before:,} → {round_.size_after:,} pieces"
    extra = len(trace.vocab) - round_.size_after
    if r == len(trace.rounds) and extra > 0:  # the unk and special tokens join the last round's pieces
        head += f" (with {plural(extra, 'special token')}, {len(trace.vocab):,} in the vocabulary)"
    if trace.flavor == "course":
        return _course_sentence(trace, r, head, final_loss)
    if round_.kind == "final":
        return _final_sentence(trace, r, head)
    return _library_sentence(trace, r, head)


def _course_sentence(trace: RoundHistory, r: int, head: str, final_loss: float | None) -> str:
    round_ = trace.rounds[r - 1]
    removed = len(round_.removed_pieces)
    after = final_loss if final_loss is not None and r == len(trace.rounds) else loss_after(trace, r)
    assert round_.threshold is not None  # every course round removes pieces for their loss
    return (
        f"{head}; removed the {removed:,} whose removal raises the loss least "
        f"({raised_by(round_.threshold)}); loss {round_.losses[0]:,.4f} → {after:,.4f}."
    )


def raised_by(threshold: float) -> str:
    """How much the pieces a course round removed raise the loss: 'by at most 0.0123', or 'not
    at all' (a bare "by at most 0" says nothing).

    >>> raised_by(0.01234), raised_by(0.0)
    ('by at most 0.01234', 'not at all')
    """
    return f"by at most {threshold:.4g}" if threshold > 0 else "not at all"


def _library_sentence(trace: RoundHistory, r: int, head: str) -> str:
    round_ = trace.rounds[r - 1]
    reasons = [removal.reason for removal in trace.removed_at(r)]
    losses = round_.losses
    parts = [f"{head}; {plural(len(losses), 'EM iteration')} (loss {losses[0]:.4f} → {losses[-1]:.4f})"]
    if reasons.count("em"):
        parts.append(f"dropped {reasons.count('em'):,} expected fewer than 0.5 times")
    if round_.kind == "em":
        parts.append("the size was reached, so no pruning")
    else:
        if reasons.count("unused"):
            parts.append(f"removed {reasons.count('unused'):,} in no word's best segmentation")
        if reasons.count("loss"):
            parts.append(
                f"removed the {reasons.count('loss'):,} whose removal costs least "
                f"(loss at most {round_.threshold:.4g})"
            )
    return "; ".join(parts) + "."


def _final_sentence(trace: RoundHistory, r: int, head: str) -> str:
    round_ = trace.rounds[r - 1]
    parts = [f"{head}: the final assembly, every character of the corpus first"]
    if round_.added:
        parts.append(f"{plural(len(round_.added), 'character')} put back")
    trimmed = len(round_.removed_pieces)
    if trimmed:
        parts.append(f"{trimmed:,} of the lowest scores left out to fit the vocabulary size")
    return "; ".join(parts) + "; special tokens and the unk token first."


# ---------------------------------------------------------------- what round r removed


@dataclass(frozen=True)
class RemovedRow:
    """One removed piece as the table shows it."""

    piece: str  # readable
    reason: str  # REASON_TEXT
    score: float  # log-probability when removed
    value: float | None  # course: loss increase; library: loss or expected count
    why: str  # the value weighed against the threshold, in words


def value_name(trace: RoundHistory) -> str:
    """What a removed piece's number is, for the table's column."""
    return "loss increase" if trace.flavor == "course" else "loss / expected count"


def removed_rows(trace: RoundHistory, r: int, per_reason: int | None = None) -> list[RemovedRow]:
    """The pieces round r removed, in removal order, each with why; with `per_reason`, only the
    first that many of each reason (a library round's EM can drop tens of thousands of seeds)."""
    if r == 0:
        return []
    round_ = trace.rounds[r - 1]
    codes = round_.removed_reasons
    positions = np.arange(len(codes))
    if per_reason is not None:
        positions = np.sort(
            np.concatenate(
                [np.flatnonzero(codes == code)[:per_reason] for code in range(len(REMOVAL_REASONS))]
            )
        )
    rows = []
    for position in positions.tolist():
        piece = trace.seeds[round_.removed_pieces[position]]
        reason = REMOVAL_REASONS[codes[position]]
        recorded = float(round_.removed_values[position])
        value = None if math.isnan(recorded) else recorded
        if reason == "loss":
            name = "loss increase" if trace.flavor == "course" else "loss"
            why = f"{name} {value:.4g} ≤ cut-off {round_.threshold:.4g}"
        elif reason == "em":
            why = f"expected count {value:.4g} < 0.5"
        else:
            why = REASON_TEXT[reason]
        if len(piece) == 1 and trace.flavor == "library":
            why += " (a character: put back at the final assembly)"
        score = float(round_.removed_scores[position])
        rows.append(RemovedRow(readable(trace, piece), REASON_TEXT[reason], score, value, why))
    return rows


def removed_counts(trace: RoundHistory, r: int) -> dict[str, int]:
    """How many pieces round r removed for each reason (REASON_TEXT), in REMOVAL_REASONS order."""
    if r == 0:
        return {}
    codes = trace.rounds[r - 1].removed_reasons
    counts = np.bincount(codes.astype(np.int64), minlength=len(REMOVAL_REASONS))
    return {REASON_TEXT[reason]: int(count) for reason, count in zip(REMOVAL_REASONS, counts) if count}


def cutoff_sentence(trace: RoundHistory, r: int) -> str | None:
    """The cut-off of round r against the first piece kept (plain text), or None when no piece
    was removed for its loss."""
    if r == 0 or trace.rounds[r - 1].threshold is None:
        return None
    round_ = trace.rounds[r - 1]
    name = "loss increase" if trace.flavor == "course" else "loss"
    sentence = f"Cut-off: a {name} of {round_.threshold:.4g}, the largest among the pieces removed for it"
    kept = trace.first_kept_at(r)
    if kept is not None:
        piece, value = kept
        sentence += f"; the first piece kept, {readable(trace, piece)}, has {value:.4g}"
    return sentence + "."


def single_characters(trace: RoundHistory, r: int) -> list[str]:
    """The one-character pieces after round r, in model order (never removed by the course; a
    library character dropped by EM is put back at the final assembly)."""
    return [piece for piece, _ in trace.pieces_at(r) if len(piece) == 1]


# ---------------------------------------------------------------- segmentations and their changes


def segment_pieces(trace: RoundHistory, word: str, r: int, offset: int = 0) -> list[Piece]:
    """`word` segmented after round r by the trace's rules, as pieces (ids: the model's at round
    r; starting at `offset`). What the vocabulary cannot spell is one unknown piece: the whole word
    for a course run (its encode_word gives "<unk>"), each run of unknown characters otherwise."""
    tokens = trace.segment(word, r)
    model = trace.model_at(r)
    if "".join(tokens) != word:  # the course's "<unk>" for the whole word
        return [Piece(-1, "<unk>", offset, offset + len(word), kind=UNKNOWN)]
    pieces, start = [], offset
    for token in tokens:
        token_id = model.vocab.get(token)
        if token_id is None:
            pieces.append(
                Piece(
                    -1 if model.unk_id is None else model.unk_id,
                    model.unk_token or "<unk>",
                    start,
                    start + len(token),
                    kind=UNKNOWN,
                )
            )
        else:
            pieces.append(vocab_piece(token, token_id, trace.config.is_byte_level, start, start + len(token)))
        start += len(token)
    return pieces


def spans(pieces: list[Piece]) -> list[tuple[int, int]]:
    return [(piece.start, piece.end) for piece in pieces]


def changed_positions(before: list[tuple[int, int]], after: list[tuple[int, int]]) -> set[int]:
    """Positions in `after` of the spans that `before` does not have (what a round changed)."""
    old = set(before)
    return {position for position, span in enumerate(after) if span not in old}


def word_pieces(trace: RoundHistory, word: str, r: int) -> tuple[list[Piece], set[int]]:
    """`word` segmented after round r and the positions of the pieces that differ from round
    r - 1 (none at round 0)."""
    pieces = segment_pieces(trace, word, r)
    if r == 0:
        return pieces, set()
    return pieces, changed_positions(spans(segment_pieces(trace, word, r - 1)), spans(pieces))


def text_pieces(trace: RoundHistory, tokenizer: Tokenizer, text: str, r: int) -> list[Piece]:
    """`text` cut by `tokenizer`'s special tokens, normalizer and pre-tokenizer (any round's: they
    do not change), each pre-token segmented after round r (`segment_pieces`), offsets into
    `text` (a normalizer that changes lengths maps a piece to the original characters it covers)."""
    pieces: list[Piece] = []
    for part, start, _, special in tokenizer.split_special_tokens(text):
        if special:
            special_id = cast(int, tokenizer.token_to_id(part))  # a special token is in the vocabulary
            pieces.append(Piece(special_id, part, start, start + len(part), kind=SPECIAL))
            continue
        for pre_token in tokenizer.pre_tokenize(part, first_part=start == 0):
            for piece in segment_pieces(trace, pre_token.text, r):
                begin, end = pre_token.original_span(piece.start, piece.end)
                pieces.append(piece._replace(start=start + begin, end=start + end))
    return pieces


def text_changes(trace: RoundHistory, tokenizer: Tokenizer, text: str, r: int) -> tuple[list[Piece], set]:
    """`text_pieces` after round r and the (start, end) of those that differ from round r - 1."""
    pieces = text_pieces(trace, tokenizer, text, r)
    if r == 0:
        return pieces, set()
    before = set(spans(text_pieces(trace, tokenizer, text, r - 1)))
    return pieces, {span for span in spans(pieces) if span not in before}
