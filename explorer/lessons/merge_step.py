"""What happened at one merge step, and why: the lesson the Merge history page gives at step k.

- `MergeStep(history, k)`: step k of a merge history, the one place that says what it means: k
  merges applied (0..steps, the player's step); `merge`, the merge whose competition the page
  shows (merge k, or merge 1 at step 0); `made`, the token merge k made; a corpus word's tokens
  after k merges (`word_spans`); and the questions below asked at that step.

- `candidates_at(trace, merge)`: the pairs that competed for merge number `merge` (1-based), as the
  trace recorded them (the chosen pair first), with count(a) and count(b) for likelihood scores.
- `why_chosen(trace, merge, labels)`: one sentence naming the rule that decided: the highest
  count; the likelihood formula with its numbers; for exact ties, the library's smallest
  (id, id) pair or the course's pair seen first (with the word it was seen in); or the library's
  stale-count quirk when it chose a pair below the best.
- `splits_at` / `pair_table`: for course-sized corpora, every word's split after k merges and the
  whole pair-frequency (or score) table, computed exactly as the course's `compute_pair_freqs` /
  `compute_pair_scores` do, in the course's dict order.

Merge numbers are 1-based (merge 1 is the first); k, the number of merges applied, is 0-based
like the player's step. Labels are the readable token forms (`charts.token_labels`).

What it does not do: render HTML or figures, or train: everything is read from a MergeHistory.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from explorer.drawing.token_html import readable_token
from explorer.drawing.wording import plural
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.run_config import TrainerConfig
from explorer.training.bpe.merge_history import MergeHistory

COURSE_SIZED_WORDS = 50  # up to this many distinct words, the page prints the course's tables


@dataclass(frozen=True)
class Candidate:
    """One pair that competed for a merge."""

    rank: int  # 1 = the chosen pair
    left_id: int
    right_id: int
    left: str  # the tokens as stored in the vocabulary
    right: str
    count: int
    score: float | None = None  # likelihood score (the course's WordPiece), else None
    left_count: int | None = None  # count(a) and count(b): the score's denominators
    right_count: int | None = None

    @property
    def value(self) -> float:
        """What the pairs compete on: the score when there is one, else the count."""
        return self.count if self.score is None else self.score


def candidates_at(trace: MergeHistory, merge: int) -> list[Candidate]:
    """The pairs recorded for merge number `merge` (1..steps), the chosen one first."""
    rows = trace.candidates[merge - 1]
    recorded = trace.candidates.symbol_counts_at(merge - 1)  # None: no likelihood scores
    symbol_counts: Sequence[tuple[int | None, int | None]] = recorded or [(None, None)] * len(rows)
    vocab = trace.vocab
    return [
        Candidate(rank, left, right, vocab[left], vocab[right], count, score, left_count, right_count)
        for rank, ((left, right, count, score), (left_count, right_count)) in enumerate(
            zip(rows, symbol_counts), start=1
        )
    ]


def pair_name(labels, left_id: int, right_id: int) -> str:
    """'‘·t + he’': the pair in readable form, quoted."""
    return f"‘{labels[left_id]} + {labels[right_id]}’"


def score_formula(candidate: Candidate) -> str:
    """'12 / (40 × 30) = 0.01': count(ab) / (count(a) × count(b)) with the numbers plugged in."""
    if candidate.left_count is None:
        return f"{candidate.score:.6g}"
    return (
        f"{candidate.count:,} / ({candidate.left_count:,} × {candidate.right_count:,}) "
        f"= {candidate.score:.6g}"
    )


def _value_text(candidate: Candidate) -> str:
    return f"count {candidate.count:,}" if candidate.score is None else f"score {score_formula(candidate)}"


def _listed(names: list[str], limit: int = 6) -> str:
    """'a, b and c'; past `limit` names, 'a, b, … and 4 more'."""
    if len(names) > limit:
        return ", ".join(names[:limit]) + f" and {len(names) - limit} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def first_occurrences(
    trace: MergeHistory, k: int, pairs: list[tuple[int, int]]
) -> dict[tuple[int, int], tuple[int, int]]:
    """Where each pair (of ids) first occurs in the corpus after k merges, scanning the words in
    order of first appearance, left to right (the course's dict order): pair -> (word index,
    position). Stops as soon as every pair is found."""
    wanted = {(trace.vocab[left], trace.vocab[right]): (left, right) for left, right in pairs}
    found: dict[tuple[int, int], tuple[int, int]] = {}
    for index in range(len(trace.words)):
        pieces = trace.segment_index(index, k)
        for position, pair in enumerate(zip(pieces, pieces[1:])):
            ids = wanted.get(pair)
            if ids is not None and ids not in found:
                found[ids] = (index, position)
        if len(found) == len(wanted):
            break
    return found


def why_chosen(trace: MergeHistory, merge: int, labels) -> str:
    """One sentence: why the pair of merge number `merge` won, naming the rule that decided."""
    candidates = candidates_at(trace, merge)
    chosen = candidates[0]
    name = pair_name(labels, chosen.left_id, chosen.right_id)
    course = trace.config.flavor == "course"
    measure = "count" if chosen.score is None else "likelihood score"
    best = max(candidates, key=lambda candidate: candidate.value)
    if best.value > chosen.value:
        return (
            f"The library chose {name} ({_value_text(chosen)}) although "
            f"{pair_name(labels, best.left_id, best.right_id)} has {_value_text(best)}: "
            "`BpeTrainer` kept an out-of-date count in its queue (it does so when a merge makes a "
            "token that already exists, as a continuing-subword prefix or end-of-word suffix inside "
            "the text can), and this explorer replays it exactly."
        )
    tied = [candidate for candidate in candidates if candidate.value == chosen.value]
    if chosen.score is None:
        won = (
            f"{name} has the highest count, {chosen.count:,} "
            "(occurrences in the corpus, each word counted as often as it appears)"
        )
    else:
        won = (
            f"{name} has the highest likelihood score, "
            f"count(ab) / (count(a) × count(b)) = {score_formula(chosen)}: "
            "a pair whose parts are rare apart but often together"
        )
    if len(tied) == 1:
        runner_up = candidates[1] if len(candidates) > 1 else None
        if runner_up is None:
            return f"{won}; it was the only pair left."
        runner_up_name = pair_name(labels, runner_up.left_id, runner_up.right_id)
        return f"{won}; next came {runner_up_name} with {_value_text(runner_up)}."
    some = (
        "at least "
        if len(tied) == len(candidates)
        and len(candidates) >= cast(TrainerConfig, trace.config.trainer).candidates  # a merge run's trainer
        else ""
    )
    names = [pair_name(labels, c.left_id, c.right_id) for c in tied]
    value = (
        f"{chosen.count:,}"
        if chosen.score is None
        else f"count(ab) / (count(a) × count(b)) = {score_formula(chosen)}"
    )
    tie = f"{some}{len(tied)} pairs tie at the highest {measure}, {value}: {_listed(names)}"
    if some:
        tie += "; the trace keeps the top 10"
    if not course:
        ids = ", ".join(f"({c.left_id}, {c.right_id})" for c in tied[:4])
        return (
            f"{tie}. The library breaks ties by the smallest pair of ids, comparing the left id first: "
            f"{ids}{' …' if len(tied) > 4 else ''}, so {name} ({chosen.left_id}, {chosen.right_id}) wins."
        )
    where = first_occurrences(trace, merge - 1, [(c.left_id, c.right_id) for c in tied])

    def seen(candidate: Candidate) -> str:
        word_index, _ = where.get((candidate.left_id, candidate.right_id), (None, None))
        return "" if word_index is None else f"‘{_word_label(trace, word_index)}’ (word {word_index + 1:,})"

    others_seen = [f"{pair_name(labels, c.left_id, c.right_id)} in {seen(c)}" for c in tied[1:4] if seen(c)]
    return (
        f"{tie}. The course keeps the first pair it meets, scanning the words in the order they first "
        f"appear, left to right (its dict order), so {name} wins: "
        f"it first appears in {seen(chosen) or 'an earlier word'}"
        + (f"; {'; '.join(others_seen)}" if others_seen else "")
        + "."
    )


def _word_label(trace: MergeHistory, index: int) -> str:
    """A corpus word as a person reads it (byte-level symbols turned back into text)."""
    word = trace.words[index]
    if trace.config.is_byte_level:
        try:
            return readable_token(symbols_to_bytes(word))
        except ValueError:
            pass
    return word


# ---------------------------------------------------------------- the course's tables


def is_course_sized(trace: MergeHistory) -> bool:
    """Small enough to print every word's split and every pair, as the course does."""
    return len(trace.words) <= COURSE_SIZED_WORDS


def splits_at(trace: MergeHistory, k: int) -> list[tuple[str, int, tuple[str, ...]]]:
    """(word, count, its tokens after k merges) for every distinct word, in order of first
    appearance: the course's `splits` dict with `word_freqs` beside it."""
    return [
        (word, count, tuple(trace.segment_index(index, k)))
        for index, (word, count) in enumerate(zip(trace.words, trace.counts))
    ]


@dataclass(frozen=True)
class PairRow:
    left: str
    right: str
    count: int
    left_count: int
    right_count: int
    score: float | None  # the likelihood score (course WordPiece), else None


def pair_table(trace: MergeHistory, k: int, scored: bool) -> list[PairRow]:
    """Every adjacent pair of the splits after k merges with its frequency (and, `scored`, the
    likelihood score), in the course's dict order: `compute_pair_freqs` / `compute_pair_scores`
    of chapter 6, sections 5 and 6, with the same float expression."""
    letter_freqs: dict[str, int] = defaultdict(int)
    pair_freqs: dict[tuple[str, str], int] = defaultdict(int)
    for _, count, split in splits_at(trace, k):
        for symbol in split:
            letter_freqs[symbol] += count
        for pair in zip(split, split[1:]):
            pair_freqs[pair] += count
    return [
        PairRow(
            left,
            right,
            freq,
            letter_freqs[left],
            letter_freqs[right],
            freq / (letter_freqs[left] * letter_freqs[right]) if scored else None,
        )
        for (left, right), freq in pair_freqs.items()
    ]


def stop_sentence(trace: MergeHistory) -> str:
    """After the last merge: why training stopped, in words."""
    reasons = {
        "vocab_size": "the vocabulary reached the size asked for",
        "no_pair_left": "no pair was left to merge: every word is a single token",
        "min_frequency": "the best pair occurred less often than the minimum frequency",
        "stopped": "it was stopped (the Stop button or a limit)",
    }
    reason = reasons.get(trace.stop_reason, trace.stop_reason)
    return f"Training ended after {plural(trace.steps, 'merge')}: {reason}."


@dataclass(frozen=True)
class MergeStep:
    """Step k of a merge history (see the module docstring): what every panel of the Merge
    history page at step k asks, with k given once."""

    history: MergeHistory
    k: int

    @property
    def merge(self) -> int:
        """The merge whose competition is shown: merge k, or the first one at step 0."""
        return max(self.k, 1)

    @property
    def made(self) -> int | None:
        """The id of the token merge k made (None at step 0)."""
        return self.history.merges[self.k - 1][2] if self.k else None

    @property
    def is_last(self) -> bool:
        return self.k == self.history.steps

    def word_spans(
        self, word_index: int, max_characters: int | None = None
    ) -> list[tuple[str, int, int, bool]]:
        """A corpus word's tokens after k merges (`MergeHistory.spans_at`), those that start within
        `max_characters` when given."""
        return self.history.spans_at(word_index, self.k, max_characters)

    def candidates(self) -> list[Candidate]:
        return candidates_at(self.history, self.merge)

    def why(self, labels) -> str:
        return why_chosen(self.history, self.merge, labels)

    def splits(self) -> list[tuple[str, int, tuple[str, ...]]]:
        return splits_at(self.history, self.k)

    def pairs(self, scored: bool) -> list[PairRow]:
        """Every pair merge `merge` was chosen from (the splits before it)."""
        return pair_table(self.history, self.merge - 1, scored)

    def chosen_pair(self) -> tuple[str, str] | None:
        """The pair merge `merge` chose, as stored (None when the run made no merge)."""
        if self.merge > self.history.steps:
            return None
        left, right, _ = self.history.merges[self.merge - 1]
        return self.history.vocab[left], self.history.vocab[right]
