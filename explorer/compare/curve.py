"""How a trained tokenizer improves merge by merge: its corpus figures against vocabulary size.

`metrics_curve(trace)` reads characters per token, bytes per token, tokens per word and the share
of split pre-tokens after k merges straight from a training MergeHistory, for about a hundred values of
k, without encoding or training anything again; `word_lengths` gives the characters and bytes of
the trace's words when a trace has no corpus counts.

What it does not do: draw the curve (explorer.drawing.charts.metrics_curve_figure) or measure a tokenizer
on a text (explorer.compare.measure).
"""

from __future__ import annotations

import bisect
from itertools import accumulate
from typing import TYPE_CHECKING

from explorer.lessons.step_sampling import sampled_steps
from explorer.measures.metrics import ratio
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.training.bpe.merge_history import MergeHistory

if TYPE_CHECKING:
    import pandas as pd

CURVE_COLUMNS = (
    "merges",
    "vocab_size",
    "tokens",
    "chars_per_token",
    "bytes_per_token",
    "fertility",
    "split_pre_token_share",
)


def word_lengths(trace: MergeHistory) -> tuple[list[int], list[int]]:
    """Characters and UTF-8 bytes of every distinct corpus word (of the text, not the symbols).

    A byte-level word is one symbol per byte: its bytes are its length, its characters those of
    the text it encodes. Any other word is text already.
    """
    characters, utf8_bytes = [], []
    byte_level = trace.config.is_byte_level
    for word in trace.words:
        if byte_level:
            try:
                data = symbols_to_bytes(word)
            except ValueError:  # not byte symbols after all (cannot happen for a trained word)
                data = word.encode("utf-8", errors="surrogatepass")
            characters.append(len(data.decode("utf-8", errors="replace")))
            utf8_bytes.append(len(data))
        else:
            characters.append(len(word))
            utf8_bytes.append(len(word.encode("utf-8", errors="surrogatepass")))
    return characters, utf8_bytes


def metrics_curve(trace: MergeHistory, points: int = 100, characters: int | None = None) -> pd.DataFrame:
    """The corpus figures after k merges, for about `points` values of k from 0 to the last.

    Tokens after k merges are `trace.corpus_tokens[k]`. Characters, bytes and words are the raw
    corpus counted as the Compare page counts a text (`trace.corpus`, from
    `explorer.training.word_counts.count_text`;
    `characters`, the corpus's user-perceived characters (`Run.perceived_characters`), when given:
    the trace counts code points),
    so characters / token, bytes / token and tokens per word mean exactly what they mean in the
    whole-corpus table (they agree at the last merge, up to special tokens and the rare word that
    applying merges by rank cuts otherwise than training did). The split share is of a different
    thing, pre-tokens (the words as the pre-tokenizer cuts them, with repeats), hence its own name:
    a pre-token is split after k merges iff its latest boundary step is >= k, so one sort of those
    steps answers every k. Nothing is re-encoded and nothing retrained. A trace written before
    version 3 has no corpus counts: its pre-tokens stand in for the words and their text.
    """
    pre_tokens = sum(trace.counts)
    if trace.corpus is not None:
        counted, utf8_bytes, words = (trace.corpus[key] for key in ("characters", "utf8_bytes", "words"))
        characters = counted if characters is None else characters
    else:
        characters_per_word, bytes_per_word = word_lengths(trace)
        characters = sum(c * n for c, n in zip(characters_per_word, trace.counts))
        utf8_bytes = sum(b * n for b, n in zip(bytes_per_word, trace.counts))
        words = pre_tokens

    # Latest boundary step of each pre-token (-1: one symbol, never split), sorted, with the counts
    # from each position to the end: the split pre-tokens after k merges are a suffix.
    latest = sorted(
        (max(steps, default=-1), count) for steps, count in zip(trace.boundary_steps, trace.counts)
    )
    latest_steps = [step for step, _ in latest]
    counts_from = list(accumulate(reversed([count for _, count in latest])))[::-1] + [0]

    rows = []
    for k in sampled_steps(trace.steps + 1, points):
        tokens = trace.corpus_tokens[k]
        split = counts_from[bisect.bisect_left(latest_steps, k)]
        rows.append(
            (
                k,
                trace.vocab_sizes[k],
                tokens,
                ratio(characters, tokens),
                ratio(utf8_bytes, tokens),
                ratio(tokens, words),
                ratio(split, pre_tokens),
            )
        )
    import pandas as pd  # here: a worker measuring a corpus imports this package but draws nothing

    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))
