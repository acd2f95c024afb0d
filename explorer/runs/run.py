"""Training runs as the app keeps them: a training history (`TrainingHistory`) plus what the
pages derive from it, and a bounded cache of runs keyed on content (sha256 of the corpus + every
setting that changes the result).

Pure Python (no streamlit): the Streamlit layer stores these objects in `st.session_state`
through `explorer.ui.common.state`.

- `Run` holds one finished training run and memoizes derived objects (tokenizer, labels, tables,
  figures) in `Run.derived`, so a page rerun never rebuilds them. Runs compare by identity.
- `RunCache` is a small LRU by store key (explorer.session.serving): at most `max_entries` runs and at
  most `max_characters` corpus characters in total (a stand-in for memory: a history grows with its
  corpus). `remember` bounds the list of earlier runs the same two ways.

Run numbers are per session (the caller passes `number`): a visitor never learns from "#57" how
many runs other visitors made.

What it does not do: train (explorer.train) or render.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.runs.settings import Settings
from explorer.training.history import TrainingHistory


def corpus_digest(text: str) -> str:
    """sha256 of the corpus's UTF-8 (lone surrogates kept), the content half of a cache key."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


COLUMN_KEY_DIGITS = 16  # hex digits of a store key that name a run among a session's few


@dataclass(frozen=True)
class RunKey:
    corpus_sha256: str
    settings: Settings


@dataclass(eq=False)
class Run:
    """One training run: its history, where its corpus came from, and memoized derived objects."""

    key: RunKey
    history: TrainingHistory  # a MergeHistory (BPE, WordPiece) or a RoundHistory (Unigram)
    corpus_label: str
    characters: int  # code points of the corpus: what the caches are bounded by
    perceived_characters: int  # what the Train page shows: explorer.drawing.wording.character_count
    sample_key: str | None = None  # the built-in sample it was trained on (None: pasted/uploaded)
    shared_label: str = ""  # what others may see it called (no file name): kept in the store
    number: int = 1  # the session's run number (explorer.ui.common.state.next_run_number)
    stopped_by: str | None = None  # what ended a "stopped" run: the Stop button or a budget limit
    store_key: str = ""  # its key in the run store and in links (explorer.session.serving.training_key)
    # Its words and counts without its running text (trained from counts, or a corpus the store
    # does not keep): views that need the text use a stand-in instead (explorer.views.stand_in_text).
    from_counts: bool = False
    # Where a run without running text came from (explorer.session.serving.run_meta): {"host_file":
    # {"name", "size", "mtime_ns"}} or {"count_file": {"sha256", "size"}}; {} for any other run.
    origin: dict[str, dict] = field(default_factory=dict)
    # Objects derived from the history alone (`derive`); a run loaded from the store shares them with
    # every session showing it (explorer.session.serving). Objects that name this session's run (its
    # number) or change as it is used live in `own` (`derive(..., own=True)`).
    derived: dict[str, Any] = field(default_factory=dict, repr=False)
    own: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def settings(self) -> Settings:
        return self.key.settings

    @property
    def words(self) -> int:
        return sum(self.history.counts)

    @property
    def distinct_words(self) -> int:
        return len(self.history.words)

    @property
    def name(self) -> str:
        """A short name that tells runs apart: '#2 BPE 1000 · byte-level · Study in Scarlet'."""
        return f"#{self.number} {self.settings.short_name()} · {self.corpus_label}"

    @property
    def column_key(self) -> str:
        """Its stable id as a Compare column (and in Compare's links): 'run:' and the start of its
        store key, the same in every session that shows this run."""
        return f"run:{self.store_key[:COLUMN_KEY_DIGITS]}" if self.store_key else f"run:#{self.number}"

    def derive(self, name: str, build: Callable[[], Any], own: bool = False) -> Any:
        """`build()` once per run and name; later calls return the same object. Shared with other
        sessions showing the same stored run unless `own` (an object naming this session's run,
        or one this session changes)."""
        kept = self.own if own else self.derived
        if name not in kept:
            kept[name] = build()
        return kept[name]


class RunCache:
    """LRU of runs by their store key, bounded by entry count and total corpus characters."""

    def __init__(self, max_entries: int = 4, max_characters: int = 12_000_000):
        self.max_entries = max_entries
        self.max_characters = max_characters
        self._runs: OrderedDict[str, Run] = OrderedDict()

    def __len__(self) -> int:
        return len(self._runs)

    def get(self, store_key: str) -> Run | None:
        run = self._runs.get(store_key)
        if run is not None:
            self._runs.move_to_end(store_key)
        return run

    def put(self, run: Run) -> None:
        self._runs[run.store_key] = run
        self._runs.move_to_end(run.store_key)
        while len(self._runs) > 1 and (
            len(self._runs) > self.max_entries
            or sum(r.characters for r in self._runs.values()) > self.max_characters
        ):
            self._runs.popitem(last=False)


def remember(history: list[Run], run: Run, limit: int, max_characters: int | None = None) -> list[Run]:
    """`history` with `run` first, without duplicates (same key), at most `limit` long and, when
    `max_characters` is given, dropping the oldest while their corpora hold more characters."""
    kept = [run, *(earlier for earlier in history if earlier.store_key != run.store_key)][:limit]
    while max_characters is not None and len(kept) > 1 and sum(r.characters for r in kept) > max_characters:
        kept.pop()
    return kept


def runs_left(before: Sequence[Run], kept: Sequence[Run], staying: Iterable[Run | None] = ()) -> list[Run]:
    """The runs of `before` that are neither in `kept` nor among `staying` (shown elsewhere: the
    current run, the other algorithm's): those `remember` left out, for a page to name."""
    still = [*kept, *(run for run in staying if run is not None)]
    keys = {run.store_key for run in still if run.store_key}
    return [run for run in before if run.store_key not in keys and all(run is not other for other in still)]
