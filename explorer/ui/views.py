"""What the pages show, computed from a Run: HTML for token spans at a merge step, the merge tree,
the vocabulary table and grid, the files to download. Pure Python (no streamlit): pages call
these and hand the result to `st.html`, `st.dataframe` or `st.download_button`.

Every string from the corpus or the vocabulary goes through `render.escape_text` (HTML-escaped,
quotes included, Markdown markup neutralised) before it becomes HTML.

Derived objects that do not depend on the step are memoized on the Run (`Run.derive`), so moving
the merge player's slider only segments ~30 words and encodes the sample sentences.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from explorer import charts
from explorer.hf_json import build_tokenizer, tokenizer_to_json, write_vocab_merges, write_vocab_txt
from explorer.pipeline import encode_pieces, tokenizer_from_trace
from explorer.render import PALETTE, escape_text, readable_token
from explorer.tokenizer import Tokenizer
from explorer.trace import Trace
from explorer.trainers import STOP_REASONS
from explorer.ui.runs import Run

TOP_WORDS = 30
HIGHLIGHT_STYLE = "outline:2px solid #d1495b;outline-offset:0;font-weight:700;background:#ffd6a5;"
SPAN_STYLE = "display:inline-block;color:#111;border-radius:3px;padding:1px 2px;margin:0 1px;font-family:ui-monospace,monospace;"


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


def stop_reason_text(trace: Trace) -> str:
    return STOP_REASONS.get(trace.stop_reason, trace.stop_reason or "")


# ---------------------------------------------------------------- the state after k merges


def tokenizer_at_step(trace: Trace, k: int) -> Tokenizer:
    """The tokenizer that knows only the first k merges (and the vocabulary they had made)."""
    config = trace.config
    size = trace.vocab_sizes[k]
    return build_tokenizer(
        config["algorithm"],
        trace.vocab[:size],
        trace.merge_strings()[:k] if k else [],
        list(config.get("normalizers") or []),
        config.get("pre_tokenizer"),
        list(trace.special_tokens),
        continuing_subword_prefix=trace.prefix or None,
        end_of_word_suffix=trace.suffix or None,
    )


@dataclass(frozen=True)
class SpanToken:
    """One token to draw: what to show, its hover text, and whether the last merge made it."""

    text: str
    title: str
    highlight: bool = False


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


def word_span_tokens(run: Run, word_index: int, k: int) -> list[SpanToken]:
    """A corpus word's tokens after k merges; the token that merge k just joined is highlighted."""
    trace = run.trace
    byte_level = charts.is_byte_level(trace)
    joined = trace.merge_positions(word_index, k)
    ids = token_ids(run)
    tokens = []
    for piece, start, end in word_pieces(trace, word_index, k):
        readable = charts.readable_vocab_token(piece, byte_level)
        highlight = any(start < position < end for position in joined)
        title = f"id {ids.get(piece, '?')}: {readable}" + (" (just merged)" if highlight else "")
        tokens.append(SpanToken(readable, title, highlight))
    return tokens


def sentence_span_tokens(tok: Tokenizer, text: str, new_token: str | None) -> list[SpanToken]:
    """`text` encoded by `tok`; tokens equal to `new_token` (the last merge's result) highlighted."""
    tokens = []
    for piece in encode_pieces(tok, text):
        shown = piece.token_bytes if piece.token_bytes is not None else piece.value.encode("utf-8")
        readable = readable_token(shown)
        highlight = new_token is not None and piece.value == new_token
        tokens.append(SpanToken(readable, f"id {piece.id}: {readable}", highlight))
    return tokens


def spans_html(tokens: list[SpanToken]) -> str:
    """Coloured, escaped spans; highlighted ones outlined and bold."""
    parts = []
    for position, token in enumerate(tokens):
        colour = PALETTE[position % len(PALETTE)]
        extra = HIGHLIGHT_STYLE if token.highlight else ""
        css_class = "tok tok-new" if token.highlight else "tok"
        parts.append(
            f'<span class="{css_class}" title="{escape_text(token.title)}" '
            f'style="background:{colour};{SPAN_STYLE}{extra}">{escape_text(token.text)}</span>'
        )
    return "".join(parts)


def words_at_step_html(run: Run, k: int, limit: int = TOP_WORDS) -> str:
    """The most frequent corpus words after k merges, as cards of token spans with their counts."""
    trace = run.trace
    cards = []
    for index in top_word_indices(run, limit):
        spans = spans_html(word_span_tokens(run, index, k))
        cards.append(
            '<div style="display:inline-block;margin:3px 8px 3px 0;padding:2px 4px;'
            'border:1px solid #e3e3e3;border-radius:4px;white-space:nowrap;">'
            f'{spans}<span style="color:#777;font-size:0.8em;margin-left:4px;">×{trace.counts[index]:,}</span></div>'
        )
    return f'<div class="top-words" style="line-height:2.1;">{"".join(cards)}</div>'


def sentences_at_step_html(run: Run, k: int, sentences: list[str]) -> str:
    """The sample sentences encoded with the first k merges; each with its token count."""
    trace = run.trace
    tok = tokenizer_at_step(trace, k)
    new_token = trace.vocab[trace.merges[k - 1][2]] if k else None
    rows = []
    for sentence in sentences:
        tokens = sentence_span_tokens(tok, sentence, new_token)
        rows.append(
            f'<div style="margin:4px 0 10px 0;line-height:2.1;">{spans_html(tokens)}'
            f'<span style="color:#777;font-size:0.8em;margin-left:6px;white-space:nowrap;">{len(tokens)} tokens</span></div>'
        )
    return f'<div class="step-sentences">{"".join(rows)}</div>'


def merge_summary_html(run: Run, k: int) -> str:
    """One line about merge k: the pair, the new token, its count (and score), what it rewrote."""
    trace = run.trace
    names = labels(run)
    if k == 0:
        return (
            f'<div class="merge-summary">Before any merge: {trace.initial_vocab_size:,} initial tokens, '
            f"the corpus is {trace.corpus_tokens[0]:,} tokens long.</div>"
        )
    left, right, new_id = trace.merges[k - 1]
    score = trace.merge_scores[k - 1]
    score_text = f", score {score:.4g}" if score is not None else ""
    return (
        f'<div class="merge-summary">Merge <b>{k:,}</b> of {trace.steps:,}: '
        f"{spans_html([SpanToken(names[left], f'id {left}')])} + {spans_html([SpanToken(names[right], f'id {right}')])}"
        f" → {spans_html([SpanToken(names[new_id], f'id {new_id}', True)])} "
        f"(count {trace.merge_counts[k - 1]:,}{score_text}; rewrote {trace.words_changed[k - 1]:,} distinct words, "
        f"{trace.occurrences[k - 1]:,} occurrences). Vocabulary: {trace.vocab_sizes[k]:,} tokens; "
        f"corpus: {trace.corpus_tokens[k]:,} tokens.</div>"
    )


# ---------------------------------------------------------------- merge tree


def merged_token_ids(run: Run) -> list[int]:
    """Tokens made by a merge, in the order they were made."""
    return run.derive("merged_ids", lambda: sorted(run.trace.merge_rank_of, key=run.trace.merge_rank_of.get))


def merge_tree_html(tree: dict, names: list[str]) -> str:
    """The merge tree as an indented text tree (box-drawing lines), escaped, in a <pre>."""
    lines: list[str] = []

    def node_text(node: dict) -> str:
        how = "character" if node["rank"] is None else f"merge {node['rank'] + 1:,}"
        return (
            f'<span class="tok" style="background:{PALETTE[2]};{SPAN_STYLE}">{escape_text(names[node["id"]])}</span>'
            f' <span style="color:#777;">id {node["id"]}, {how}</span>'
        )

    def visit(node: dict, lead: str, branch: str) -> None:
        lines.append(f"{lead}{branch}{node_text(node)}")
        children = node["children"]
        child_lead = lead + ("" if not branch else ("│  " if branch == "├─ " else "   "))
        for index, child in enumerate(children):
            visit(child, child_lead, "└─ " if index == len(children) - 1 else "├─ ")

    visit(tree, "", "")
    return '<pre class="merge-tree" style="line-height:1.7;font-size:0.95em;">' + "\n".join(lines) + "</pre>"


# ---------------------------------------------------------------- vocabulary


KINDS = ("special", "character", "merged")
SORT_COLUMNS = {"id": "id", "frequency": "frequency", "length": "length", "merge rank": "merge rank", "token": "readable"}


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
    """One row per token: id, token, readable, kind, length, merge rank, parents, corpus frequency."""

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
                "merge rank": pd.array([ranks[i] + 1 if i in ranks else None for i in range(len(trace.vocab))], dtype="Int64"),
                "left parent": lefts,
                "right parent": rights,
                "frequency": [frequencies.get(token, 0) for token in trace.vocab],
            }
        )
        return table

    return run.derive("vocabulary_table", build)


def filter_vocabulary(
    table: pd.DataFrame, search: str = "", kinds: tuple[str, ...] = KINDS, sort: str = "id", descending: bool = False
) -> pd.DataFrame:
    """Rows whose token or readable form contains `search` (case-insensitive), of the given kinds,
    sorted by one of SORT_COLUMNS (ties by id)."""
    rows = table[table["kind"].isin(kinds)]
    if search:
        needle = search.casefold()
        matches = rows["token"].str.casefold().str.contains(needle, regex=False) | rows["readable"].str.casefold().str.contains(
            needle, regex=False
        )
        rows = rows[matches]
    column = SORT_COLUMNS.get(sort, "id")
    if column == "id":
        return rows.sort_values("id", ascending=not descending)
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


def file_stem(run: Run) -> str:
    settings = run.settings
    return f"{settings.algorithm}-{settings.vocab_size}-run{run.number}"
