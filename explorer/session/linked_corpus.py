"""The corpus of a run its link brings back into a session that holds no copy of it, for the Train
form: a run stored without its corpus, whose store keeps its words and counts, not the file.

Two runs are so stored: an uploaded count file's (never stored: its trace holds every word and count
of it, explorer.session.count_uploads) and an uploaded or pasted text's over the store's bound
(`serving.STORED_CORPUS_BYTES`). Opened by its link in a fresh session (another browser), the Train
form's corpus is then that run's, as the link says, so the page shows the run's summary; the views
that need running text use a sample (explorer.views.stand_in_text).

- `LinkedCorpus`: the run's corpus as far as the run tells: its digest in the run's key
  (`fingerprint`), a phrase naming it for the page, and, for a count file, the settings its words
  were made with (`counting`, which the form shows fixed).
- `linked_corpus_of(run)`: that corpus, or None for a run whose corpus the session can show (a
  sample, a host's file, a text the store kept).
- `REUPLOAD`: the one sentence for training other settings on it, which needs the file again.

What it does not do: read the store (explorer.session.serving), draw the note or the form
(explorer.ui.train.corpus_input), or train.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.corpora.counting import Counting
from explorer.drawing.wording import plural
from explorer.runs.run import Run
from explorer.session.count_uploads import count_file_of

REUPLOAD = (
    "This server keeps the run's words and counts, not its corpus: to train other settings, upload "
    "the file (or paste the text) again."
)


@dataclass(frozen=True)
class LinkedCorpus:
    """A stored run's corpus without its content (see the module docstring)."""

    fingerprint: str  # the corpus's digest in the run's key
    described: str  # "an uploaded count file (...)", "an uploaded file (... distinct words)"
    counting: Counting | None = None  # a count file's settings, fixed in the form


def linked_corpus_of(run: Run) -> LinkedCorpus | None:
    """The corpus of `run` when it was stored without it and is not a host's file (module docstring)."""
    if not run.from_counts or run.sample_key is not None:
        return None
    counts = count_file_of(run)
    if counts is not None:
        return LinkedCorpus(
            run.key.corpus_sha256, f"an uploaded count file ({counts.describe()})", counts.counting
        )
    if run.origin:  # a host's file: the sample picker lists it
        return None
    return LinkedCorpus(
        run.key.corpus_sha256, f"{_a(run.corpus_label)} ({plural(run.distinct_words, 'distinct word')})"
    )


def _a(label: str) -> str:
    return f"an {label}" if label[:1] in "aeiou" else f"a {label}"
