"""The text a view uses in place of a run's training corpus when the run has none: a run trained
from word counts (`Run.from_counts`: a host's file streamed into the counter, or a corpus too large
for the run store, explorer.session.serving.STORED_CORPUS_BYTES, opened again from the store)
keeps words and their counts, not the running text that
Compare's corpus figures and the Vocabulary page's audit read. Such a view says so in one
sentence (`no_running_text`) and offers one of the app's samples instead (`STAND_INS`);
`stand_in_sample` keys its measurements apart from the training corpus's.

What it does not do: draw the choice (explorer.ui.common.stand_in) or measure anything.
"""

from __future__ import annotations

from explorer.reproduce.corpus_source import text_sha256
from explorer.samples import SAMPLES

STAND_INS = tuple(SAMPLES)  # the samples a view may use instead, in the sample picker's order


def no_running_text(needs: str) -> str:
    """The one sentence a view says for a run without running text; `needs` is what it would do
    with it ("measure", "audit")."""
    return (
        f"This run keeps its words and their counts, not its running text, so there is none to {needs} "
        f"here: {needs} on a sample text instead."
    )


def stand_in_sample(sample: dict, text: str) -> dict:
    """A measurement's or audit's `sample` (explorer.checks.corpus_sample) of a stand-in `text`:
    the same, with the text's SHA-256, so that it is never taken for one of the training corpus.

    >>> stand_in_sample({"kind": "whole"}, "abc")["stand_in"][:12]
    'ba7816bf8f01'
    """
    return {**sample, "stand_in": text_sha256(text)}
