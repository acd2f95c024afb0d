"""The Vocabulary page's views of a run: the table (id, token, readable form, length, merge rank,
parents, corpus frequency; a Unigram run's scores through explorer.views.unigram_table), its
filters and sorting, the tutorial's grid, and the files to download. Pure Python (no streamlit).
The table is built by the run's kind (`MergeRun`, `RoundRun`); the words that differ are looked up
in tables keyed by `TrainingHistory.step_noun`, the files by algorithm.

What it does not do: draw the page (pages/2_Vocabulary.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pandas as pd

from explorer.pipeline.models import BPEModel, WordPieceModel
from explorer.pipeline.tokenizer_json import tokenizer_to_json, write_vocab_merges, write_vocab_txt
from explorer.runs.run import MergeRun, RoundRun, Run, per_run, per_session
from explorer.training.bpe.merge_history import MergeHistory
from explorer.views import unigram_table as unigram_vocabulary
from explorer.views.run_views import labels

# ---------------------------------------------------------------- vocabulary


KINDS = ("special", "character", "merged")
SORT_COLUMNS = {
    "id": "id",
    "frequency": "frequency",
    "length": "length",
    "merge rank": "merge rank",
    "score": "score",  # Unigram
    "token": "readable",
}


KINDS_BY_STEP = {"merge": KINDS, "round": unigram_vocabulary.KINDS}
RANKED_BY = {"merge": "merge rank", "round": "score"}  # the column only one kind of run has


def kinds(run: Run) -> tuple[str, ...]:
    """The kinds of token the run's vocabulary table tells apart."""
    return KINDS_BY_STEP[run.history.step_noun]


def sort_columns(run: Run) -> list[str]:
    """The columns the run's vocabulary table can be sorted by."""
    has = RANKED_BY[run.history.step_noun]
    return [name for name in SORT_COLUMNS if name in (has, "id", "frequency", "length", "token")]


def token_lengths(trace: MergeHistory) -> list[int]:
    """How many initial symbols (characters, or bytes for byte-level) each token covers."""
    specials = set(trace.special_tokens)
    lengths = [len(token) if token in specials else 1 for token in trace.vocab[: trace.initial_vocab_size]]
    lengths.extend([0] * (len(trace.vocab) - len(lengths)))
    for left, right, new_id in trace.merges:
        if not lengths[new_id]:
            lengths[new_id] = lengths[left] + lengths[right]
    return lengths


@dataclass(frozen=True, eq=False)
class VocabularyTables:
    """The Vocabulary page's tables of a run: one row per token (id, token, readable, kind, length,
    merge rank, parents, corpus frequency; a Unigram run's: id, token, readable, kind, length,
    score, corpus frequency), and a Unigram run's removed pieces with the round each went in (None
    for a merge run: nothing is removed); `merge_run`, the run itself when it learned merges (the
    audit's tokens link to the Merge history step that made them), else None."""

    tokens: pd.DataFrame
    removed: pd.DataFrame | None
    merge_run: MergeRun | None


@per_run
def vocabulary_tables(run: MergeRun | RoundRun) -> VocabularyTables:
    """The run's tables, built by its kind (the Vocabulary page's one question of it)."""
    if isinstance(run, MergeRun):
        return VocabularyTables(_merge_table(run), None, run)
    tokens = unigram_vocabulary.vocabulary_table(run.history, labels(run), run.tokenizer.model)
    return VocabularyTables(tokens, unigram_vocabulary.removed_table(run.history), None)


def _merge_table(run: MergeRun) -> pd.DataFrame:
    trace = run.history
    names = labels(run)
    specials = set(trace.special_tokens)
    ranks = trace.merge_rank_of
    frequencies = trace.final_token_frequencies
    lefts, rights = [""] * len(trace.vocab), [""] * len(trace.vocab)
    for token_id, rank in ranks.items():
        left, right, _ = trace.merges[rank]
        lefts[token_id], rights[token_id] = names[left], names[right]
    kinds = [
        "special" if token in specials else "character" if token_id < trace.initial_vocab_size else "merged"
        for token_id, token in enumerate(trace.vocab)
    ]
    table = pd.DataFrame(
        {
            "id": range(len(trace.vocab)),
            "token": trace.vocab,
            "readable": names,
            "kind": kinds,
            "length": token_lengths(trace),
            # Text: a rank, or what the token is when no merge made it ("character", "special").
            "merge rank": [f"{ranks[i] + 1}" if i in ranks else kinds[i] for i in range(len(trace.vocab))],
            "left parent": lefts,
            "right parent": rights,
            "frequency": [frequencies.get(token, 0) for token in trace.vocab],
        }
    )
    return table


def filter_vocabulary(
    table: pd.DataFrame,
    search: str = "",
    kinds: tuple[str, ...] = KINDS,
    sort: str = "id",
    descending: bool = False,
) -> pd.DataFrame:
    """Rows whose token or readable form contains `search` (case-insensitive), of the given kinds,
    sorted by one of SORT_COLUMNS (ties by id)."""
    rows = table[table["kind"].isin(kinds)]
    if search:
        needle = search.casefold()
        matches = rows["token"].str.casefold().str.contains(needle, regex=False) | rows[
            "readable"
        ].str.casefold().str.contains(needle, regex=False)
        rows = rows[matches]
    column = SORT_COLUMNS.get(sort, "id")
    if column == "id":
        return rows.sort_values("id", ascending=not descending)
    if column == "merge rank":  # by the number; tokens no merge made (characters, specials) last
        order = pd.to_numeric(rows["merge rank"], errors="coerce")
        return (
            rows.assign(_order=order)
            .sort_values(["_order", "id"], ascending=[not descending, True], na_position="last")
            .drop(columns="_order")
        )
    return rows.sort_values([column, "id"], ascending=[not descending, True], na_position="last")


def vocabulary_grid(names: list[str], start: int = 0, columns: int = 10, rows: int = 40) -> pd.DataFrame:
    """The tutorial's vocabulary table: columns of `rows` ids each ('0 -> 40'), cells 'id -> token'."""
    start = max(0, min(start, max(0, len(names) - 1)))
    grid = {}
    for first in range(start, min(len(names), start + columns * rows), rows):
        cells = [f"{i} -> {names[i]}" for i in range(first, min(first + rows, len(names)))]
        grid[f"{first} -> {first + rows}"] = cells + [""] * (rows - len(cells))
    return pd.DataFrame(grid)


# ---------------------------------------------------------------- downloads


def tokenizer_json(run: Run) -> str:
    return tokenizer_to_json(run.tokenizer, pretty=True)


def vocab_and_merges(run: Run) -> tuple[str, str]:
    """vocab.json and merges.txt as the `tokenizers` library writes them (BPE)."""
    with tempfile.TemporaryDirectory() as folder:
        model = cast(BPEModel, run.tokenizer.model)  # MODEL_FILES: a BPE run's
        vocab_path, merges_path = write_vocab_merges(model, folder)
        return vocab_path.read_text(encoding="utf-8"), merges_path.read_text(encoding="utf-8")


def vocab_txt(run: Run) -> str:
    """vocab.txt as the library writes it (WordPiece)."""
    with tempfile.TemporaryDirectory() as folder:
        model = cast(WordPieceModel, run.tokenizer.model)  # MODEL_FILES: a WordPiece run's
        return Path(write_vocab_txt(model, folder)).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Download:
    label: str
    data: str
    file_name: str
    mime: str


@per_session
def downloads(run: Run) -> list[Download]:
    """The run's files (tokenizer.json, vocab.json + merges.txt or vocab.txt, the trace), built
    once per run. The Vocabulary page hands their text to `st.download_button` directly rather than
    a callable: Streamlit keeps a file made by a callable referenced by no session, and deletes it
    after two script runs of any session, which under load can come before the browser fetches it
    (measured: 2 of 8 simultaneous sessions got a cancelled download)."""

    stem = file_stem(run)
    files = [Download("tokenizer.json", tokenizer_json(run), "tokenizer.json", "application/json")]
    files += MODEL_FILES[run.history.algorithm](run)
    files.append(Download("Trace (JSON)", run.trace_json, f"{stem}-trace.json", "application/json"))
    return files


def _bpe_files(run: Run) -> list[Download]:
    vocab, merges = vocab_and_merges(run)
    return [
        Download("vocab.json", vocab, "vocab.json", "application/json"),
        Download("merges.txt", merges, "merges.txt", "text/plain"),
    ]


def _wordpiece_files(run: Run) -> list[Download]:
    return [Download("vocab.txt", vocab_txt(run), "vocab.txt", "text/plain")]


# The model's own files beside tokenizer.json; a Unigram tokenizer.json holds its pieces and
# scores: there is no vocab file of its own.
MODEL_FILES = {"bpe": _bpe_files, "wordpiece": _wordpiece_files, "unigram": lambda run: []}


def file_stem(run: Run) -> str:
    settings = run.settings
    return f"{settings.algorithm}-{settings.vocab_size}-run{run.number}"


def vocabulary_csv_name(run: Run, shown: int, total: int) -> str:
    """'bpe-1000-run1-vocabulary.csv', or with '-filtered-12-of-1000' when rows are left out."""
    filtered = f"-filtered-{shown}-of-{total}" if shown != total else ""
    return f"{file_stem(run)}-vocabulary{filtered}.csv"


# ---------------------------------------------------------------- the page's link

SEARCH_PARAM, KINDS_PARAM, SORT_PARAM, DESCENDING_PARAM = "search", "show", "sort", "desc"
SEARCH_LINK_LIMIT = 200  # characters of a search a link keeps (the box takes any)


def link_params(
    search: str, chosen: Sequence[str], all_kinds: Sequence[str], sort_by: str, descending: bool
) -> dict[str, str | None]:
    """The Vocabulary page's own URL parameters: only what differs from the first view.

    >>> link_params("ing", ["merge"], ["character", "merge"], "id", True)
    {'search': 'ing', 'show': 'merge', 'sort': None, 'desc': '1'}
    """
    return {
        SEARCH_PARAM: search[:SEARCH_LINK_LIMIT] or None,
        KINDS_PARAM: None if list(chosen) == list(all_kinds) else ",".join(chosen) or "none",
        SORT_PARAM: None if sort_by == "id" else sort_by,
        DESCENDING_PARAM: "1" if descending else None,
    }


def view_from_link(
    params: Mapping[str, str], all_kinds: Sequence[str], sort_by: Sequence[str]
) -> dict[str, object]:
    """A link's search, filter and order, by the name of the widget they go in (`search`, `kinds`,
    `sort`, `descending`) before it is drawn; values that are not options are left out.

    >>> view_from_link({"show": "merge,bogus", "sort": "nope"}, ["character", "merge"], ["id"])
    {'kinds': ['merge'], 'descending': False}
    """
    values: dict[str, object] = {}
    if SEARCH_PARAM in params:
        values["search"] = params[SEARCH_PARAM][:SEARCH_LINK_LIMIT]
    if KINDS_PARAM in params:
        values["kinds"] = [kind for kind in all_kinds if kind in params[KINDS_PARAM].split(",")]
    if params.get(SORT_PARAM) in sort_by:
        values["sort"] = params[SORT_PARAM]
    values["descending"] = params.get(DESCENDING_PARAM) == "1"
    return values
