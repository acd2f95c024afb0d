"""The sentences written after training: why the vocabulary has the size it has, and what the
special tokens turned out to share with the corpus.

- `explain_vocab_size(trace, requested, stopped_by)`: one sentence on how the vocabulary size
  compares with the one asked for, and why (the alphabet alone was larger, no pair was left,
  min_frequency, a limit or the Stop button).
- `initial_vocabulary_text(trace)`: what training started from, each token it added named
  ("Initial vocabulary 257: 256 byte symbols + <|endoftext|>").
- `special_token_notes(trace)`: special tokens that are also corpus characters, or that a merge
  rebuilt, and what the library does then.
- `stop_reason_text(trace)`: why a run stopped, in a few words (BPE, WordPiece and Unigram).
- `explain_unigram_size(trace, stopped_by)`: the same sentence for a Unigram run, which
  prunes from its seed pieces down to the size asked for.

The app and the CLI write the same sentences.

What it does not do: check anything before training (explorer.checks), or print or render.
"""

from __future__ import annotations

from typing import cast

from explorer.drawing.wording import plural
from explorer.run_config import TrainerConfig
from explorer.training.bpe.merge_history import MergeHistory

NAMED_SPECIAL_TOKENS = 5  # more are counted, not named


def _starting_parts(trace: MergeHistory) -> str:
    """The initial vocabulary's parts: "256 byte symbols + <|endoftext|>", "70 characters + [PAD] +
    [UNK] ...". A special token that is also a corpus character shares its id, so it counts once.
    A token that reads as a word or holds white space is quoted."""
    specials = list(dict.fromkeys(trace.special_tokens))
    symbol = "byte symbol" if trace.config.is_byte_level else "character"
    named = [
        repr(token) if token.isalnum() or any(char.isspace() for char in token) else token
        for token in specials[:NAMED_SPECIAL_TOKENS]
    ]
    if len(specials) > NAMED_SPECIAL_TOKENS:
        named.append(f"{len(specials) - NAMED_SPECIAL_TOKENS:,} more special tokens")
    return " + ".join([plural(trace.initial_vocab_size - len(specials), symbol), *named])


def initial_vocabulary_text(trace: MergeHistory) -> str:
    """How many tokens training started from, and each special token it added, by name: the app's
    run summary and the command line say which token made the 257th.

    >>> from explorer.train import train_corpus
    >>> from explorer.runs.settings import Settings
    >>> initial_vocabulary_text(train_corpus("low lower", Settings(vocab_size=260).run_config()))
    'Initial vocabulary 257: 256 byte symbols + <|endoftext|>'
    """
    return f"Initial vocabulary {trace.initial_vocab_size:,}: {_starting_parts(trace)}"


def special_token_notes(trace: MergeHistory) -> list[str]:
    """After training: special tokens that are also corpus characters or were rebuilt by a merge.

    The library allows both and so do we: the character or merge result gets the special
    token's id (the vocabulary holds each string once), and in a text the string is always
    matched as the special token, before the model sees it.
    """
    specials = set(trace.special_tokens)
    special_ids = {token: index for index, token in enumerate(trace.vocab) if token in specials}
    notes = []
    for token, token_id in special_ids.items():
        if len(token) == 1 and any(token in word for word in trace.words):
            notes.append(
                f"The special token {token!r} is also a character of the corpus: both share id {token_id}."
            )
    for step, (left, right, new_id) in enumerate(trace.merges):
        token = trace.vocab[new_id]
        if special_ids.get(token) == new_id:
            notes.append(
                f"Merge {step + 1:,} ({trace.vocab[left]!r} + {trace.vocab[right]!r}) rebuilt the special "
                f"token {token!r}: it reuses the special token's id {new_id}, as in the library."
            )
    return notes


def explain_vocab_size(
    trace: MergeHistory, requested: int | None = None, stopped_by: str | None = None
) -> str:
    """One sentence on how the vocabulary size compares with the one asked for, and why.

    `stopped_by` names what stopped an interrupted run (see `Budget.stop_cause`).
    """
    if requested is None:
        requested = trace.config.vocab_size
    size, initial, merges = len(trace.vocab), trace.initial_vocab_size, trace.steps
    merges_made = plural(merges, "merge")
    if not trace.words:
        return "The corpus has no words once normalized and pre-tokenized, so nothing was learned."
    if merges == 0 and requested <= initial:
        parts = _starting_parts(trace)
        if requested == initial:
            return (
                f"The starting alphabet ({parts}) is exactly the {requested:,} tokens asked for: "
                "no merge was needed."
            )
        return (
            f"You asked for {requested:,} tokens, but the starting alphabet alone has {initial:,} ({parts}). "
            "It is always kept whole, so no merge was learned."
        )
    reason = trace.stop_reason
    added = f" ({_starting_parts(trace)})" if trace.special_tokens else ""  # which token made the 257th
    if reason == "vocab_size":
        if size >= requested:
            return (
                f"Reached the {requested:,} tokens asked for: {initial:,} to start with{added}, "
                f"plus {merges_made}."
            )
        return (
            f"Stopped after {merges_made} at the {requested:,} tokens asked for, counting as the "
            f"course does (a merge that rebuilds an existing token counts too): {size:,} distinct tokens."
        )
    if reason == "no_pair_left":
        return (
            f"You asked for {requested:,} tokens, but this corpus can only give {size:,}: "
            f"after {merges_made} no pair is left to merge (every word is a single token). "
            "Add text to learn more."
        )
    if reason == "min_frequency":
        minimum = cast(TrainerConfig, trace.config.trainer).min_frequency  # a merge run's trainer
        return (
            f"Stopped at {size:,} of the {requested:,} tokens asked for, after {merges_made}: the most "
            f"frequent remaining pair occurs fewer than {minimum:,} times (min_frequency)."
        )
    by = stopped_by or "the Stop button or a time or step limit"
    return f"Stopped at {size:,} of the {requested:,} tokens asked for, after {merges_made}, by {by}."


def explain_unigram_size(trace, stopped_by: str | None = None) -> str:
    """One sentence on how a Unigram run's vocabulary size compares with the one asked for: it
    starts from its seed pieces and removes pieces round after round (a RoundHistory)."""
    requested = trace.config.vocab_size
    seeds, size, rounds = len(trace.seeds), len(trace.vocab), len(trace.rounds)
    if not trace.words:
        return "The corpus has no words once normalized and pre-tokenized, so nothing was learned."
    pruned = f"from {seeds:,} seed pieces to {size:,} in {rounds:,} round{'s' if rounds != 1 else ''}"
    reason = trace.stop_reason
    if reason == "vocab_size":
        if trace.seeds_within_size:
            return (
                f"The {seeds:,} seed pieces are no more than the {requested:,} tokens asked for: "
                f"nothing needed pruning ({size:,} tokens, special and unk tokens included)."
            )
        dropped = trace.dropped_below_size()
        if dropped:
            counts = trace.removal_counts()
            what = {
                "em": f"EM dropped {counts['em']:,} expected fewer than 0.5 times",
                "unused": f"pruning dropped {counts['unused']:,} in no word's best segmentation",
            }
            said = " and ".join(what[reason] for reason in dropped.split("+"))
            return (
                f"Pruned {pruned}, fewer than the {requested:,} tokens asked for: {said}. The library "
                "keeps no piece it does not expect to use, and its pruning alone never goes below the size."
            )
        if size < requested:
            return (
                f"Pruned {pruned}: the course's loop removes a tenth of the pieces per round, so its last "
                f"round can go below the {requested:,} tokens asked for."
            )
        return f"Pruned {pruned}: the {requested:,} tokens asked for."
    if reason == "characters_only":
        return (
            f"Pruned {pruned}, more than the {requested:,} tokens asked for: only single characters are "
            "left, and they are never removed."
        )
    if reason == "stuck":
        return (
            f"Pruned {pruned}, more than the {requested:,} tokens asked for: a round could remove nothing "
            "more (the library would repeat it forever)."
        )
    by = stopped_by or "the Stop button or the time limit"
    return f"Stopped by {by}, having pruned {pruned} of the {requested:,} tokens asked for."


def stop_reason_text(trace) -> str:
    """Why a run stopped, in words (the trainer's stop reason, `TrainingHistory.stop_reason_text`)."""
    return trace.stop_reason_text()
