"""The Vocabulary page's tables for a Unigram run: every piece of the final vocabulary with its score
(log-probability) and corpus frequency, and every piece training removed, with the round it went in
and why. Pure Python (no streamlit): explorer.views.vocabulary_table dispatches here for a
Unigram run, and the
page hands the tables to `explorer.ui.common.tables`.

The frequency of a piece is how often it occurs when every distinct corpus word (as pre-tokenized
for training) is segmented by the final model, times the word's count: what "frequency" means for
a BPE run too (occurrences once every merge is applied).

What it does not do: train, draw the training history (explorer.ui.history.unigram_rounds), or build the
tokenizer (RoundHistory.tokenizer_at).
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from explorer.drawing.charts import readable_vocab_token
from explorer.training.unigram.round_history import REASON_TEXT

KINDS = ("special", "unk", "character", "piece")


def piece_kind(piece: str, piece_id: int, specials: set[str], unk_id: int | None) -> str:
    """special (a special token), unk (the unknown piece), character (one character) or piece."""
    if piece in specials:
        return "special"
    if piece_id == unk_id:
        return "unk"
    return "character" if len(piece) == 1 else "piece"


def piece_frequencies(trace, model) -> Counter:
    """Occurrences of every piece id when the corpus words are segmented by `model`."""
    frequencies: Counter = Counter()
    for word, count in zip(trace.words, trace.counts):
        for token in model.tokenize(word):
            frequencies[token.id] += count
    return frequencies


def vocabulary_table(trace, names: list[str], model) -> pd.DataFrame:
    """One row per piece of the final vocabulary: id, piece, readable form, kind, length in
    characters, score (log-probability) and corpus frequency. `model`: the final UnigramModel."""
    specials = set(trace.special_tokens)
    if trace.final_frequencies is not None:  # recorded where the run trained
        frequencies = dict(enumerate(trace.final_frequencies))
    else:  # a trace stored before they were recorded
        frequencies = piece_frequencies(trace, model)
    pieces = trace.final_pieces
    return pd.DataFrame(
        {
            "id": range(len(pieces)),
            "token": [piece for piece, _ in pieces],
            "readable": names,
            "kind": [
                piece_kind(piece, index, specials, trace.unk_id) for index, (piece, _) in enumerate(pieces)
            ],
            "length": [len(piece) for piece, _ in pieces],
            "score": [score for _, score in pieces],
            "frequency": [frequencies.get(index, 0) for index in range(len(pieces))],
        }
    )


def removed_table(trace) -> pd.DataFrame:
    """Every piece a round removed, in the order they went: the round, the piece (as stored and
    readable, as the vocabulary table shows it), why, its score then, and the number behind the
    decision (course: the loss increase its removal causes; library: its loss or expected count),
    blank when there is none."""
    byte_level = trace.config.is_byte_level
    rows = []
    for r in range(1, len(trace.rounds) + 1):
        for removal in trace.removed_at(r):
            rows.append(
                {
                    "round": r,
                    "token": removal.piece,
                    "readable": readable_vocab_token(removal.piece, byte_level),
                    "why": REASON_TEXT.get(removal.reason, removal.reason),
                    "score then": removal.score,
                    "value": removal.value,
                }
            )
    return pd.DataFrame(rows, columns=["round", "token", "readable", "why", "score then", "value"])
