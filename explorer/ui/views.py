"""What the pages show, computed from a Run: HTML for token spans at a merge step, the merge tree,
the vocabulary table and grid, the files to download. Pure Python (no streamlit): pages call
these and hand the result to `st.html`, `st.dataframe` or `st.download_button`.

Every string from the corpus or the vocabulary goes through `render.escape_text` (HTML-escaped,
quotes included, Markdown markup neutralised) before it becomes HTML. Messages that hold user text
(file names, special tokens, characters of the corpus, values from a link) and go to Streamlit's
Markdown elements (`st.error`, `st.warning`, `st.info`) go through `literal.markdown_literal`.

Derived objects that do not depend on the step are memoized on the Run (`Run.derive`), so moving
the merge player's slider only segments ~30 words and encodes the sample sentences.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from explorer import charts
from explorer.bytelevel import symbols_to_bytes
from explorer.checks import check_special_tokens
from explorer.compare.html import count_note, line_html
from explorer.explain import special_token_notes
from explorer.hf_json import tokenizer_to_json, write_vocab_merges, write_vocab_txt
from explorer.merge_step import candidates_at, pair_table, splits_at
from explorer.pipeline import encode_pieces, tokenizer_from_trace
from explorer.render import PALETTE, escape_text, pieces_html
from explorer.tokenizer import Tokenizer
from explorer.tokens import Piece
from explorer.trace import Trace
from explorer.ui import unigram_vocabulary
from explorer.ui.runs import Run
from explorer.wording import plural

TOP_WORDS = 30
# What one page draws at most, whatever was pasted: a word of 1,000,000 characters would be
# hundreds of thousands of spans (tens of MB of HTML) on every tick of the merge player.
WORD_CHARACTERS_SHOWN = 120  # a word's tokens drawn up to this many characters, then "+N more"
SENTENCES_SHOWN = 12  # sample sentences drawn by the merge player
SENTENCE_CHARACTERS_SHOWN = 600  # each cut to this many characters


# ---------------------------------------------------------------- memoized per run


def labels(run: Run) -> list[str]:
    """Readable form of every vocabulary token, by id (not escaped)."""
    return run.derive("labels", lambda: charts.token_labels(run.trace))


def token_ids(run: Run) -> dict[str, int]:
    return run.derive("token_ids", run.trace.token_ids)


def tokenizer(run: Run) -> Tokenizer:
    """The trained tokenizer (normalizer, pre-tokenizer, model, decoder) rebuilt from the trace."""
    return run.derive("tokenizer", lambda: tokenizer_from_trace(run.trace))


def top_word_indices(run: Run, limit: int = TOP_WORDS) -> list[int]:
    return run.derive(f"top_words_{limit}", lambda: run.trace.words_by_frequency()[:limit])


def special_token_messages(run: Run) -> list[str]:
    """What the run's special tokens do: notes from `check_special_tokens` (before training) and
    `special_token_notes` (tokens that are also corpus characters or were rebuilt by a merge)."""

    def build() -> list[str]:
        before = check_special_tokens(run.settings.special_token_list(), run.trace.config.pre_tokenizer)
        if run.trace.config.is_unigram:  # no merge can rebuild a special token
            return list(before.notes)
        return [*before.notes, *special_token_notes(run.trace)]

    return run.derive("special_token_messages", build)


# ---------------------------------------------------------------- the state after k merges


def tokenizer_at_step(run: Run, k: int) -> Tokenizer:
    """The tokenizer that knows only the first k merges (and the vocabulary they had made); the
    last two asked for are kept (one step view asks twice; a book-size run takes ~15 ms to build)."""
    kept: dict[int, Tokenizer] = run.derive("tokenizers_at_step", dict, own=True)
    if k not in kept:
        while len(kept) >= 2:
            kept.pop(next(iter(kept)))
        kept[k] = tokenizer_from_trace(run.trace, k)
    return kept[k]


def vocab_piece(token: str, token_id: int, byte_level: bool, start: int = 0, end: int = 0) -> Piece:
    """A vocabulary token as a Piece to draw; a byte-level token carries its bytes, so it shows as
    `charts.readable_vocab_token` shows it (a token that is no byte symbols shows its text)."""
    token_bytes = None
    if byte_level:
        try:
            token_bytes = symbols_to_bytes(token)
        except ValueError:
            pass
    return Piece(token_id, token, start, end, token_bytes)


def word_pieces(trace: Trace, word_index: int, k: int) -> list[tuple[str, int, int]]:
    """(token, start, end) of a corpus word after k merges; start/end index the word's symbols."""
    pieces = trace.segment(word_index, k)
    prefix, suffix = trace.prefix, trace.suffix
    spans, start = [], 0
    for position, piece in enumerate(pieces):
        length = len(piece)
        if position and prefix:
            length -= len(prefix)
        if position == len(pieces) - 1 and suffix:
            length -= len(suffix)
        spans.append((piece, start, start + length))
        start += length
    return spans


def word_tokens(
    run: Run, word_index: int, k: int, max_characters: int | None = None
) -> tuple[list[Piece], set[int]]:
    """A corpus word's tokens after k merges, and the positions among them of the tokens merge k
    just joined. With `max_characters`, only the tokens that start within that many characters."""
    trace = run.trace
    byte_level = trace.config.is_byte_level
    joined = trace.merge_positions(word_index, k)
    ids = token_ids(run)
    pieces: list[Piece] = []
    new: set[int] = set()
    for token, start, end in word_pieces(trace, word_index, k):
        if max_characters is not None and start >= max_characters:
            break
        if any(start < position < end for position in joined):
            new.add(len(pieces))
        # Every token of a segmentation is in the vocabulary; -1 would only mark a broken trace.
        pieces.append(vocab_piece(token, ids.get(token, -1), byte_level, start, end))
    return pieces, new


def vocab_token_html(run: Run, token_id: int, new: bool = False) -> str:
    """One vocabulary token as a box (outlined when `new`: the token merge k made)."""
    piece = vocab_piece(run.trace.vocab[token_id], token_id, run.trace.config.is_byte_level)
    return pieces_html([piece], new={0} if new else ())


def words_at_step_html(run: Run, k: int, limit: int = TOP_WORDS, show_ids: bool = False) -> str:
    """The most frequent corpus words after k merges, as cards of token spans with their counts."""
    trace = run.trace
    cards = []
    for index in top_word_indices(run, limit):
        pieces, new = word_tokens(run, index, k, WORD_CHARACTERS_SHOWN)
        spans = pieces_html(pieces, show_ids, new)
        hidden = len(trace.words[index]) - WORD_CHARACTERS_SHOWN
        if hidden > 0:
            spans += f'<span class="more muted small">… +{hidden:,} characters</span>'
        cards.append(
            f'<div class="word-card">{spans}'
            f'<span class="muted small word-count">×{trace.counts[index]:,}</span></div>'
        )
    return f'<div class="top-words">{"".join(cards)}</div>'


def sentences_at_step_html(run: Run, k: int, sentences: list[str], show_ids: bool = False) -> str:
    """The sample sentences encoded with the first k merges, the last merge's token outlined,
    characters the tokenizer drops or cannot spell marked, each with its token count. At most
    SENTENCES_SHOWN sentences of at most SENTENCE_CHARACTERS_SHOWN characters each are drawn."""
    trace = run.trace
    tok = tokenizer_at_step(run, k)
    new_token = trace.vocab[trace.merges[k - 1][2]] if k else None
    rows = []
    for sentence in sentences[:SENTENCES_SHOWN]:
        cut = sentence[:SENTENCE_CHARACTERS_SHOWN]
        pieces = encode_pieces(tok, cut)
        more = f" (first {SENTENCE_CHARACTERS_SHOWN:,} characters)" if len(sentence) > len(cut) else ""
        rows.append(
            f'<div class="step-sentence">{line_html(cut, pieces, show_ids, new_token)}'
            f'<span class="muted small">{escape_text(count_note(pieces))}{more}</span></div>'
        )
    if len(sentences) > SENTENCES_SHOWN:
        rows.append(
            f'<div class="muted small">The first {SENTENCES_SHOWN} of {len(sentences):,} sentences.</div>'
        )
    return f'<div class="step-sentences">{"".join(rows)}</div>'


def merge_summary_html(run: Run, k: int) -> str:
    """One line about step k: merge k's pair, the new token, its count (and score), what it
    rewrote; or, at k = 0, the corpus before any merge."""
    trace = run.trace
    if k == 0:
        return (
            '<div class="merge-summary">Before any merge: '
            f"{plural(trace.initial_vocab_size, 'initial token')}, "
            f"the corpus is {plural(trace.corpus_tokens[0], 'token')} long.</div>"
        )
    left, right, new_id = trace.merges[k - 1]
    score = trace.merge_scores[k - 1]
    score_text = f", score {score:.4g}" if score is not None else ""
    return (
        f'<div class="merge-summary">Merge <b>{k:,}</b> of {trace.steps:,}: '
        f"{vocab_token_html(run, left)} + {vocab_token_html(run, right)}"
        f" → {vocab_token_html(run, new_id, new=True)} "
        f"(count {trace.merge_counts[k - 1]:,}{score_text}; "
        f"rewrote {plural(trace.words_changed[k - 1], 'distinct word')}, "
        f"{plural(trace.occurrences[k - 1], 'occurrence')}). "
        f"Vocabulary: {plural(trace.vocab_sizes[k], 'token')}; "
        f"corpus: {plural(trace.corpus_tokens[k], 'token')}.</div>"
    )


def candidates_frame(run: Run, merge: int) -> pd.DataFrame:
    """The pairs that competed for merge number `merge`, one row each, the chosen one first:
    rank, the pair readable and as stored, its count, and for likelihood scores count(a),
    count(b) and the score."""
    names = labels(run)
    candidates = candidates_at(run.trace, merge)
    scored = candidates[0].score is not None
    rows = []
    for candidate in candidates:
        row = {
            "rank": f"{candidate.rank} ✓" if candidate.rank == 1 else str(candidate.rank),
            "pair": f"{names[candidate.left_id]} + {names[candidate.right_id]}",
            "as stored": f"({candidate.left!r}, {candidate.right!r})",
            "count(ab)" if scored else "count": candidate.count,
        }
        if scored:
            row["count(a)"] = candidate.left_count
            row["count(b)"] = candidate.right_count
            row["score"] = candidate.score
        rows.append(row)
    return pd.DataFrame(rows)


def splits_frame(run: Run, k: int) -> pd.DataFrame:
    """Every distinct word with its count and its split after k merges, as the course prints
    its `splits` (a list of the tokens as stored)."""
    return pd.DataFrame(
        [
            {"word": word, "count": count, "split": repr(list(split))}
            for word, count, split in splits_at(run.trace, k)
        ]
    )


def pair_table_frame(run: Run, k: int) -> pd.DataFrame:
    """Every pair of the splits after k merges, in the course's dict order, with its frequency
    (and count(a), count(b), the likelihood score when the run scores pairs); the pair merge
    k + 1 chose is ticked."""
    trace = run.trace
    scored = charts.uses_scores(trace)
    chosen = None
    if k < trace.steps:
        left, right, _ = trace.merges[k]
        chosen = (trace.vocab[left], trace.vocab[right])
    rows = []
    for row in pair_table(trace, k, scored):
        record = {
            "chosen": "✓" if (row.left, row.right) == chosen else "",
            "pair": repr((row.left, row.right)),
            "count": row.count,
        }
        if scored:
            record.update({"count(a)": row.left_count, "count(b)": row.right_count, "score": row.score})
        rows.append(record)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- merge tree


def merged_token_ids(run: Run) -> list[int]:
    """Tokens made by a merge, in the order they were made."""
    return run.derive("merged_ids", lambda: sorted(run.trace.merge_rank_of, key=run.trace.merge_rank_of.get))


def merge_tree_html(tree: dict, names: list[str], k: int | None = None) -> str:
    """The merge tree as an indented text tree (box-drawing lines), escaped, in a <pre>. With `k`
    (the merges applied), tokens made by a later merge are marked "not made yet at step k"."""
    lines: list[str] = []

    def node_text(node: dict) -> str:
        how = "character" if node["rank"] is None else f"merge {node['rank'] + 1:,}"
        later = k is not None and node["rank"] is not None and node["rank"] >= k
        return (
            f'<span class="tok mono-tok{" later" if later else ""}" style="background:{PALETTE[2]};">'
            f"{escape_text(names[node['id']])}</span>"
            f' <span class="muted">id {node["id"]}, {how}'
            f"{f' (not made yet at step {k:,})' if later else ''}</span>"
        )

    def visit(node: dict, lead: str, branch: str) -> None:
        lines.append(f"{lead}{branch}{node_text(node)}")
        children = node["children"]
        child_lead = lead + ("" if not branch else ("│  " if branch == "├─ " else "   "))
        for index, child in enumerate(children):
            visit(child, child_lead, "└─ " if index == len(children) - 1 else "├─ ")

    visit(tree, "", "")
    return '<pre class="merge-tree">' + "\n".join(lines) + "</pre>"


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


def kinds(run: Run) -> tuple[str, ...]:
    """The kinds of token the run's vocabulary table tells apart."""
    return unigram_vocabulary.KINDS if run.trace.config.is_unigram else KINDS


def sort_columns(run: Run) -> list[str]:
    """The columns the run's vocabulary table can be sorted by."""
    has = "score" if run.trace.config.is_unigram else "merge rank"
    return [name for name in SORT_COLUMNS if name in (has, "id", "frequency", "length", "token")]


def token_lengths(trace: Trace) -> list[int]:
    """How many initial symbols (characters, or bytes for byte-level) each token covers."""
    specials = set(trace.special_tokens)
    lengths = [len(token) if token in specials else 1 for token in trace.vocab[: trace.initial_vocab_size]]
    lengths.extend([0] * (len(trace.vocab) - len(lengths)))
    for left, right, new_id in trace.merges:
        if not lengths[new_id]:
            lengths[new_id] = lengths[left] + lengths[right]
    return lengths


def vocabulary_table(run: Run) -> pd.DataFrame:
    """One row per token: id, token, readable, kind, length, merge rank, parents, corpus frequency
    (Unigram: id, token, readable, kind, length, score, corpus frequency)."""
    if run.trace.config.is_unigram:
        return run.derive(
            "vocabulary_table",
            lambda: unigram_vocabulary.vocabulary_table(run.trace, labels(run), tokenizer(run).model),
        )

    def build() -> pd.DataFrame:
        trace = run.trace
        names = labels(run)
        specials = set(trace.special_tokens)
        ranks = trace.merge_rank_of
        frequencies = trace.final_token_frequencies
        lefts, rights = [""] * len(trace.vocab), [""] * len(trace.vocab)
        for token_id, rank in ranks.items():
            left, right, _ = trace.merges[rank]
            lefts[token_id], rights[token_id] = names[left], names[right]
        kinds = [
            "special"
            if token in specials
            else "character"
            if token_id < trace.initial_vocab_size
            else "merged"
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
                "merge rank": [
                    f"{ranks[i] + 1}" if i in ranks else kinds[i] for i in range(len(trace.vocab))
                ],
                "left parent": lefts,
                "right parent": rights,
                "frequency": [frequencies.get(token, 0) for token in trace.vocab],
            }
        )
        return table

    return run.derive("vocabulary_table", build)


def removed_pieces(run: Run) -> pd.DataFrame:
    """A Unigram run's removed pieces with the round each went in (explorer.ui.unigram_vocabulary)."""
    return run.derive("removed_pieces", lambda: unigram_vocabulary.removed_table(run.trace))


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
    return tokenizer_to_json(tokenizer(run), pretty=True)


def vocab_and_merges(run: Run) -> tuple[str, str]:
    """vocab.json and merges.txt as the `tokenizers` library writes them (BPE)."""
    with tempfile.TemporaryDirectory() as folder:
        vocab_path, merges_path = write_vocab_merges(tokenizer(run).model, folder)
        return vocab_path.read_text(encoding="utf-8"), merges_path.read_text(encoding="utf-8")


def vocab_txt(run: Run) -> str:
    """vocab.txt as the library writes it (WordPiece)."""
    with tempfile.TemporaryDirectory() as folder:
        return Path(write_vocab_txt(tokenizer(run).model, folder)).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Download:
    label: str
    data: str
    file_name: str
    mime: str


def downloads(run: Run) -> list[Download]:
    """The run's files (tokenizer.json, vocab.json + merges.txt or vocab.txt, the trace), built
    once per run. The Vocabulary page hands their text to `st.download_button` directly rather than
    a callable: Streamlit keeps a file made by a callable referenced by no session, and deletes it
    after two script runs of any session, which under load can come before the browser fetches it
    (measured: 2 of 8 simultaneous sessions got a cancelled download)."""

    def build() -> list[Download]:
        stem = file_stem(run)
        files = [Download("tokenizer.json", tokenizer_json(run), "tokenizer.json", "application/json")]
        if run.trace.config.is_unigram:
            pass  # tokenizer.json holds its pieces and scores: there is no vocab file of its own
        elif run.settings.algorithm == "bpe":
            vocab, merges = vocab_and_merges(run)
            files += [
                Download("vocab.json", vocab, "vocab.json", "application/json"),
                Download("merges.txt", merges, "merges.txt", "text/plain"),
            ]
        else:
            files.append(Download("vocab.txt", vocab_txt(run), "vocab.txt", "text/plain"))
        files.append(Download("Trace (JSON)", run.trace.to_json(), f"{stem}-trace.json", "application/json"))
        return files

    return run.derive("downloads", build, own=True)


def file_stem(run: Run) -> str:
    settings = run.settings
    return f"{settings.algorithm}-{settings.vocab_size}-run{run.number}"


def vocabulary_csv_name(run: Run, shown: int, total: int) -> str:
    """'bpe-1000-run1-vocabulary.csv', or with '-filtered-12-of-1000' when rows are left out."""
    filtered = f"-filtered-{shown}-of-{total}" if shown != total else ""
    return f"{file_stem(run)}-vocabulary{filtered}.csv"
