"""Training runs as the app keeps them: a run of each kind (`MergeRun` for BPE and WordPiece,
`RoundRun` for Unigram), made once by `make_run` from a training history, with what the pages derive
from it; and a bounded cache of runs keyed on content (sha256 of the corpus + every setting that
changes the result).

Pure Python (no streamlit): the Streamlit layer stores these objects in `st.session_state`
through `explorer.ui.common.state`.

- `make_run(history, ...)` is the one place that asks a history its kind: it returns a `MergeRun`
  (its `history` a MergeHistory) or a `RoundRun` (a RoundHistory). A page dispatches once on the
  run's class; its views and panels take the typed run and ask it, never its kind again.
- Derived objects are built on first use and kept with the run: `@run_property` on the run
  classes (what the history and the layers below give: the tokenizer, the trace's JSON, a merge
  run's token ids), and `@per_run` on a function of a run for what a layer above builds (a table,
  a figure's labels, a program). Both are typed by their function's signature and keyed by the
  function itself, not by a name. They live in `Run.derived`, which a run loaded from the store
  shares with every session showing it (explorer.session.stored_runs); `@per_session` keeps an object
  that names this session's run (its number) or changes as it is used in `Run.own`.
  Runs compare by identity.
- `RunCache` is a small LRU by store key (explorer.session.serving): at most `max_entries` runs and at
  most `max_characters` corpus characters in total (a stand-in for memory: a history grows with its
  corpus). `remember` bounds the list of earlier runs the same two ways.

Run numbers are per session (the caller passes `number`): a visitor never learns from "#57" how
many runs other visitors made.

What it does not do: train (explorer.train) or render.
"""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, cast, overload

from explorer.runs.settings import Settings
from explorer.train import tokenizer_from_trace
from explorer.training.history import TrainingHistory

if TYPE_CHECKING:
    from explorer.pipeline.tokenizer import Tokenizer
    from explorer.training.bpe.merge_history import MergeHistory
    from explorer.training.unigram.round_history import RoundHistory


def corpus_digest(text: str) -> str:
    """sha256 of the corpus's UTF-8 (lone surrogates kept), the content half of a cache key."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


COLUMN_KEY_DIGITS = 16  # hex digits of a store key that name a run among a session's few
TOKENIZERS_KEPT = 2  # tokenizers at a step kept per run: one step view asks twice

R = TypeVar("R", bound="Run")
T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class RunKey:
    corpus_sha256: str
    settings: Settings


def _kept(store: dict[object, Any], key: object, build: Callable[[], T]) -> T:
    if key not in store:
        store[key] = build()
    return cast(T, store[key])


class run_property(Generic[R, T]):  # noqa: N801 (a decorator, named as functools.cached_property)
    """`functools.cached_property`, kept in `Run.derived` (shared by the sessions showing a stored
    run) rather than in this session's Run object."""

    def __init__(self, build: Callable[[R], T]) -> None:
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, run: None, owner: type) -> run_property[R, T]: ...

    @overload
    def __get__(self, run: R, owner: type) -> T: ...

    def __get__(self, run: R | None, owner: type) -> run_property[R, T] | T:
        if run is None:
            return self
        return _kept(run.derived, self, lambda: self.build(run))


def per_run(build: Callable[Concatenate[R, P], T]) -> Callable[Concatenate[R, P], T]:
    """`build(run, *args)` once per run and arguments, kept in `Run.derived` (shared by the
    sessions showing a stored run): for an object a layer above this one builds from a run."""
    return _kept_in(lambda run: run.derived, build)


def per_session(build: Callable[Concatenate[R, P], T]) -> Callable[Concatenate[R, P], T]:
    """`per_run`, kept in `Run.own`: an object that names this session's run (its number)."""
    return _kept_in(lambda run: run.own, build)


def _kept_in(
    store_of: Callable[[Run], dict[object, Any]], build: Callable[Concatenate[R, P], T]
) -> Callable[Concatenate[R, P], T]:
    @functools.wraps(build)
    def kept(run: R, *args: P.args, **kwargs: P.kwargs) -> T:
        key = (kept, args, tuple(sorted(kwargs.items())))  # the function itself, not a name
        return _kept(store_of(run), key, lambda: build(run, *args, **kwargs))

    return kept


@dataclass(eq=False)
class Run:
    """One training run: its history, where its corpus came from, and what is derived from it.
    Made by `make_run` as the `MergeRun` or the `RoundRun` it is."""

    key: RunKey
    history: TrainingHistory
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
    # Objects derived from the history alone (`run_property`, `per_run`); a run loaded from the store
    # shares them with every session showing it (explorer.session.stored_runs). Objects that name this
    # session's run (its number) live in `own` (`per_session`).
    derived: dict[object, Any] = field(default_factory=dict, repr=False)
    own: dict[object, Any] = field(default_factory=dict, repr=False)
    # The last tokenizers at a step asked for (`tokenizer_at`): this session's, as it moves the step.
    recent_tokenizers: dict[int, Tokenizer] = field(default_factory=dict, repr=False)

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

    @run_property
    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer (normalizer, pre-tokenizer, model, decoder) rebuilt from the trace."""
        return tokenizer_from_trace(self.history)

    @run_property
    def trace_json(self) -> str:
        """The run's trace (`TrainingHistory.to_json`): the Vocabulary page's and Merge history's
        downloads, whose pages rerun on every click (a 50 MB upload's trace is 110 MB of JSON and
        1.6 s to build)."""
        return self.history.to_json()

    def tokenizer_at(self, k: int) -> Tokenizer:
        """The tokenizer that knows only the first k steps (and the vocabulary they had made); the
        last `TOKENIZERS_KEPT` asked for are kept (a book-size run takes ~15 ms to build)."""
        kept = self.recent_tokenizers
        if k not in kept:
            while len(kept) >= TOKENIZERS_KEPT:
                kept.pop(next(iter(kept)))
            kept[k] = tokenizer_from_trace(self.history, k)
        return kept[k]


@dataclass(eq=False)
class MergeRun(Run):
    """A BPE or WordPiece run: its history records merges."""

    history: MergeHistory

    @property
    def first_step(self) -> int:
        """The step a player opens at: the first merge (0 when there is none)."""
        return min(1, self.history.steps)

    @run_property
    def token_ids(self) -> dict[str, int]:
        """Token -> id in the final vocabulary."""
        return self.history.token_ids()

    @run_property
    def words_by_frequency(self) -> list[int]:
        """The corpus words' indices, most frequent first."""
        return self.history.words_by_frequency()

    @run_property
    def merged_token_ids(self) -> list[int]:
        """Tokens made by a merge, in the order they were made."""
        ranks = self.history.merge_rank_of
        return sorted(ranks, key=ranks.__getitem__)


@dataclass(eq=False)
class RoundRun(Run):
    """A Unigram run: its history records rounds of pruning."""

    history: RoundHistory

    @property
    def first_step(self) -> int:
        """The step a player opens at: round 0, the seed pieces."""
        return 0


def make_run(history: TrainingHistory, **fields: Any) -> MergeRun | RoundRun:
    """The run of `history`'s kind, with `fields` (Run's other fields): the one place that asks a
    history which kind it is (its `step_noun`: RoundHistory is not imported here, numpy is not
    loaded for a merge run)."""
    if history.step_noun == "merge":
        return MergeRun(history=cast("MergeHistory", history), **fields)
    return RoundRun(history=cast("RoundHistory", history), **fields)


class RunCache:
    """LRU of runs by their store key, bounded by entry count and total corpus characters."""

    def __init__(self, max_entries: int = 4, max_characters: int = 12_000_000):
        self.max_entries = max_entries
        self.max_characters = max_characters
        self._runs: OrderedDict[str, MergeRun | RoundRun] = OrderedDict()

    def __len__(self) -> int:
        return len(self._runs)

    def get(self, store_key: str) -> MergeRun | RoundRun | None:
        run = self._runs.get(store_key)
        if run is not None:
            self._runs.move_to_end(store_key)
        return run

    def put(self, run: MergeRun | RoundRun) -> None:
        self._runs[run.store_key] = run
        self._runs.move_to_end(run.store_key)
        while len(self._runs) > 1 and (
            len(self._runs) > self.max_entries
            or sum(r.characters for r in self._runs.values()) > self.max_characters
        ):
            self._runs.popitem(last=False)


def remember(history: Sequence[R], run: R, limit: int, max_characters: int | None = None) -> list[R]:
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
