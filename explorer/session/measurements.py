"""The Compare page's figures on the training corpus, the part below the widgets: what a
measurement is (`Measured`), its key in the run store, a worker's result read back, and which text
the figures are of in words.

- The default measures `explorer.checks.corpus_sample`: a seeded random sample of the corpus's
  lines, at most `checks.SAMPLE_BYTES` of UTF-8 (the whole corpus when it is smaller). A button
  measures the whole corpus.
- A measurement's key is an HMAC (the store's `run_key`) of the corpus digest, the tokenizer's
  content, the sample and `MEASUREMENT_VERSION`: the same tokenizer measured on the same text by
  any visitor is one job and one stored result.

What it does not do: ask workers or hold their jobs (explorer.ui.compare.measuring), define the
figures (explorer.measures.metrics, explorer.measures.audit for the research figures) or draw them.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer import checks
from explorer.checks import utf8_size
from explorer.compare import TokenizerColumn
from explorer.drawing.wording import plural
from explorer.measures.metrics import TokenizerMetrics
from explorer.runs.run import Run
from explorer.runstore import canonical_json, run_key
from explorer.session import serving
from explorer.training.word_counts import split_lines

# In what a measurement's key describes: a new version measures again what was stored before
# (version 2 added the research figures, explorer.compare.research).
MEASUREMENT_VERSION = 2
OLDER_MEASUREMENT = "measured before the research figures existed"
MEASURE_TIME_LIMIT = 600.0


@dataclass(frozen=True)
class Measured:
    """One tokenizer measured on the corpus (or its sample)."""

    metrics: TokenizerMetrics
    seconds: float
    lines: int
    characters: int
    research: dict | None = None  # explorer.measures.audit.research_figures, or None with a reason
    research_reason: str | None = None


def measurement_key(run: Run, column: TokenizerColumn, sample: dict) -> str:
    described = {
        "measure": column.content_key or canonical_json(column.spec),
        "sample": sample,
        "version": MEASUREMENT_VERSION,
    }
    return run_key(serving.secret(), run.key.corpus_sha256, canonical_json(described))


def measured(result: dict, name: str) -> Measured:
    """A task's result (explorer.work.tasks.measure_task) read back; one stored before the research
    figures has none, with a reason."""
    metrics = TokenizerMetrics(**{**result["metrics"], "name": name})
    research = result.get("research")
    if not isinstance(research, dict):
        research = None
    reason = result.get("research_reason") if "research" in result else OLDER_MEASUREMENT
    if research is None and not reason:
        reason = OLDER_MEASUREMENT
    return Measured(
        metrics, result["seconds"], result["lines"], result["characters"], research, reason and str(reason)
    )


def sample_note(corpus_text: str, whole: bool, characters: int) -> str:
    """Which text the figures are of, in words (`characters`: its user-perceived characters, as the
    Train page counts them, explorer.drawing.wording.character_count)."""
    sample = checks.corpus_sample(corpus_text, whole)
    lines = split_lines(corpus_text)
    if sample["kind"] == "whole":
        return f"the whole corpus: {plural(len(lines), 'line')}, {plural(characters, 'character')}"
    return (
        f"a random sample of the corpus's lines, up to {checks.SAMPLE_BYTES:,} bytes "
        f"(seed {checks.SAMPLE_SEED}; the same sample every time) of its {plural(len(lines), 'line')} and "
        f"{utf8_size(corpus_text):,} bytes"
    )
