"""The hosted demo's limits, and the time and step budget of one training run.

- `Limits`: the bounds of one visitor's run on a shared host (corpus size, training seconds,
  merge steps, vocab size, upload size), with documented defaults, overridable from environment
  variables (`Limits.from_env`). The CLI sets none unless asked.
- `Budget`: a time and step budget as the `progress` / `should_stop` pair `train_corpus` takes,
  and which limit stopped a run (`stop_cause`).
- `InputError`: the ValueError every check raises, with a sentence saying what to do; `MB`, the
  one unit of size in every message.

What it does not do: check a corpus or settings against the limits (explorer.checks.corpus,
explorer.training.settings_checks), or stop a training run itself (the trainer asks `should_stop`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

# One unit everywhere, in every message, chip and button: MB = 1,000,000 bytes, the unit Streamlit's
# file uploader uses on Linux and macOS (its chip shows a 4,700,000-byte file as "4.7MB" and it
# refuses a file over server.maxUploadSize x 1,000,000 bytes; its server would take a little more).
MB = 1_000_000


class InputError(ValueError):
    """A problem with what a visitor gave us; the message says what was found and what to do."""


@dataclass(frozen=True)
class Limits:
    """Bounds for one visitor's run on a shared host. Defaults, and why:

    - max_corpus_mb = 4 (UTF-8, MB of 1,000,000 bytes) on the Python engine: plenty to watch
      merges happen (4x tinyshakespeare); ordinary text that size trains to 5,000 tokens in about
      2 s and 100 MB. Adversarial text costs far more (4 MB of random letters to 20,000 tokens:
      74 s, 1.2 GB), so the cap bounds memory while the time budget bounds the rest. The compiled
      engine trains whatever the uploader takes (`for_engine`: max_upload_mb, or max_corpus_mb
      when a host set it higher).
    - max_seconds = 60: a run holds a core of a shared machine; a minute covers every ordinary
      corpus under the size limit and stops the pathological ones (the trace says "stopped").
    - max_steps = 50,000 merges: as many as GPT-2 learned. The trace keeps 10 candidates per step
      (21,000 steps on tinyshakespeare is a 5 MB trace), and charts sample 300 frames anyway.
    - max_vocab = 100,000: the size of the largest vocabularies people compare with
      (cl100k_base); what the Train page's number input accepts.
    - max_upload_mb = 50: must equal `server.maxUploadSize` in .streamlit/config.toml (a test
      checks it). The compiled engine's corpus limit. Well above the Python engine's on purpose: there,
      a file too large to train whole still arrives and gets the offer of its first 4 MB or a random
      sample of its lines, instead of Streamlit's rejection.
    - max_tokenizer_mb = 20, max_tokenizer_entries = 500,000: one uploaded tokenizer file on the
      Compare page, checked before it is parsed (explorer.compare.upload_checks). Llama 3's
      tokenizer.json is 9 MB and 408,000 entries (vocabulary plus merges); a 36 MB file of
      2,000,000 entries took 20 s and 450 MB to read.
    - max_session_uploads_mb = 60: the files of the tokenizers one session keeps uploaded (the
      oldest are dropped beyond it); what they hold in memory grows with their size.
    - live_characters = 20,000: the Compare page's text follows each keystroke up to this length
      (six columns re-encode 20,000 characters in well under a second); above it, on a pause in
      typing. max_compare_characters = 100,000: what its box accepts at all.

    `from_env()` reads EXPLORER_MAX_CORPUS_MB, EXPLORER_MAX_SECONDS, EXPLORER_MAX_STEPS,
    EXPLORER_MAX_VOCAB, EXPLORER_MAX_UPLOAD_MB, EXPLORER_UPLOAD_TOKENIZER_MB,
    EXPLORER_UPLOAD_TOKENIZER_ENTRIES, EXPLORER_SESSION_UPLOAD_MB, EXPLORER_LIVE_CHARACTERS and
    EXPLORER_MAX_COMPARE_CHARACTERS. Any limit may be `math.inf`
    (no limit; the CLI uses that), except max_upload_mb, which Streamlit needs as a whole number.
    """

    max_corpus_mb: float = 4.0
    max_seconds: float = 60.0
    max_steps: int | float = 50_000
    max_vocab: int | float = 100_000
    max_upload_mb: int = 50
    max_tokenizer_mb: float = 20.0
    max_tokenizer_entries: int | float = 500_000
    max_session_uploads_mb: float = 60.0
    live_characters: int = 20_000
    max_compare_characters: int = 100_000

    def __post_init__(self):
        for name in (
            "max_corpus_mb",
            "max_seconds",
            "max_steps",
            "max_vocab",
            "max_upload_mb",
            "max_tokenizer_mb",
            "max_tokenizer_entries",
            "max_session_uploads_mb",
            "live_characters",
            "max_compare_characters",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise InputError(f"{name} must be a number above 0, not {value!r}")
        for name in (
            "max_steps",
            "max_vocab",
            "max_upload_mb",
            "max_tokenizer_entries",
            "live_characters",
            "max_compare_characters",
        ):
            value = getattr(self, name)
            if math.isinf(value) and name != "max_upload_mb":
                continue
            if math.isinf(value) or value != int(value):
                raise InputError(f"{name} must be a whole number, not {value!r}")

    @property
    def max_corpus_bytes(self) -> int:
        """The corpus limit in bytes of UTF-8 (huge when there is no limit)."""
        return 2**62 if math.isinf(self.max_corpus_mb) else int(self.max_corpus_mb * MB)

    def for_engine(self, engine: str) -> Limits:
        """The limits of a run on `engine` ("rust" or "python", explorer.training.engines.resolve):
        the compiled engine trains a corpus as large as an upload (50 MB of growing-vocabulary text
        to 32,000 tokens well within the time budget, docs/serving.md), the Python engine keeps
        `max_corpus_mb`.

        >>> Limits().for_engine("rust").max_corpus_mb, Limits().for_engine("python").max_corpus_mb
        (50, 4.0)
        """
        if engine != "rust" or self.max_corpus_mb >= self.max_upload_mb:
            return self
        return replace(self, max_corpus_mb=self.max_upload_mb)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, overridden by EXPLORER_MAX_* variables that are set.

        The upload limit falls back to STREAMLIT_SERVER_MAX_UPLOAD_SIZE (Streamlit's own override
        of server.maxUploadSize), so the two cannot disagree when only that one is set.
        """
        environ = os.environ if environ is None else environ
        # Any: each value is of the kind _ENVIRONMENT gives its field (int or float).
        values: dict[str, Any] = {}
        for field_name, variable, kind in _ENVIRONMENT:
            raw = environ.get(variable)
            if field_name == "max_upload_mb" and raw is None:
                variable = "STREAMLIT_SERVER_MAX_UPLOAD_SIZE"
                raw = environ.get(variable)
            if raw is None or not raw.strip():
                continue
            try:
                value = kind(raw.strip())
            except ValueError:
                value = None
            if value is None or not value > 0:
                wanted = "a whole number" if kind is int else "a number"
                raise InputError(f"{variable} must be {wanted} above 0, not {raw!r}")
            values[field_name] = value
        return cls(**values)

    def budget(self, progress: Callable[[int, int], None] | None = None) -> Budget:
        """A Budget with these time and step limits, forwarding progress reports to `progress`."""
        return Budget(self.max_seconds, self.max_steps, progress)


_ENVIRONMENT = (
    ("max_corpus_mb", "EXPLORER_MAX_CORPUS_MB", float),
    ("max_seconds", "EXPLORER_MAX_SECONDS", float),
    ("max_steps", "EXPLORER_MAX_STEPS", int),
    ("max_vocab", "EXPLORER_MAX_VOCAB", int),
    ("max_upload_mb", "EXPLORER_MAX_UPLOAD_MB", int),
    ("max_tokenizer_mb", "EXPLORER_UPLOAD_TOKENIZER_MB", float),
    ("max_tokenizer_entries", "EXPLORER_UPLOAD_TOKENIZER_ENTRIES", int),
    ("max_session_uploads_mb", "EXPLORER_SESSION_UPLOAD_MB", float),
    ("live_characters", "EXPLORER_LIVE_CHARACTERS", int),
    ("max_compare_characters", "EXPLORER_MAX_COMPARE_CHARACTERS", int),
)


class Budget:
    """A time and step budget for one training run:

        budget = limits.budget(progress=bar_update)
        trace = train_corpus(text, run, progress=budget.progress, should_stop=budget.should_stop,
                             max_steps=budget.step_limit)
        why = budget.stop_cause(trace.stop_reason, trace.steps)

    The trainer stops exactly at `step_limit` merges, and asks `should_stop()` (the time limit)
    every few dozen merges. `stop_cause` says which limit ended a stopped run, for
    `explain_vocab_size` (None when it was neither: a Stop button).
    """

    def __init__(
        self,
        max_seconds: float | None = None,
        max_steps: int | float | None = None,
        progress: Callable[[int, int], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.max_seconds = max_seconds
        self.step_limit = None if max_steps is None or math.isinf(max_steps) else int(max_steps)
        self._forward = progress
        self._clock = clock
        self._started = clock()
        self.stopped_by: str | None = None  # set when should_stop says yes

    def progress(self, step: int, planned: int) -> None:
        if self._forward is not None:
            if self.step_limit is not None:
                planned = min(planned, self.step_limit)
            self._forward(step, planned)

    def should_stop(self) -> bool:
        if self.max_seconds is not None and self._clock() - self._started >= self.max_seconds:
            self.stopped_by = f"the time limit ({self.max_seconds:g} s)"
            return True
        return False

    def stop_cause(self, stop_reason: str, steps: int) -> str | None:
        """Which limit ended a run that stopped with `stop_reason` after `steps` steps."""
        if stop_reason != "stopped":
            return None
        if self.step_limit is not None and steps >= self.step_limit:
            return f"the limit of {self.step_limit:,} merge{'s' if self.step_limit != 1 else ''}"
        return self.stopped_by
