"""The Merge history page's views of a run at step k, as HTML and tables: the words and sample
sentences after k merges (the token merge k made outlined), the merge line, the candidates, the
course's splits and pair table, and the merge tree. Pure Python (no streamlit); every corpus or
vocabulary string is escaped by explorer.drawing.token_html.

What it does not do: draw the page (explorer.ui.history.step_panels, explorer.ui.history.player) or
Unigram runs
(explorer.ui.history.unigram_rounds).
"""

from __future__ import annotations

import pandas as pd

from explorer.compare.html import count_note, line_html
from explorer.drawing import charts
from explorer.drawing.token_html import PALETTE, escape_text, pieces_html, scroll_region
from explorer.drawing.wording import plural
from explorer.lessons.merge_step import MergeStep
from explorer.runs.run import MergeRun
from explorer.tokens import Piece
from explorer.train import encode_pieces
from explorer.views.run_views import (
    SENTENCE_CHARACTERS_SHOWN,
    SENTENCES_SHOWN,
    TOP_WORDS,
    WORD_CHARACTERS_SHOWN,
    labels,
)


def word_tokens(
    run: MergeRun, step: MergeStep, word_index: int, max_characters: int | None = None
) -> tuple[list[Piece], set[int]]:
    """A corpus word's tokens at `step`, and the positions among them of the tokens its merge
    just joined. With `max_characters`, only the tokens that start within that many characters."""
    byte_level = step.history.config.is_byte_level
    ids = run.token_ids
    pieces: list[Piece] = []
    new: set[int] = set()
    for token, start, end, made in step.word_spans(word_index, max_characters):
        if made:
            new.add(len(pieces))
        # Every token of a segmentation is in the vocabulary; -1 would only mark a broken trace.
        pieces.append(charts.vocab_piece(token, ids.get(token, -1), byte_level, start, end))
    return pieces, new


def vocab_token_html(run: MergeRun, token_id: int, new: bool = False) -> str:
    """One vocabulary token as a box (outlined when `new`: the token merge k made)."""
    piece = charts.vocab_piece(run.history.vocab[token_id], token_id, run.history.config.is_byte_level)
    return pieces_html([piece], new={0} if new else ())


def words_at_step_html(run: MergeRun, step: MergeStep, limit: int = TOP_WORDS, show_ids: bool = False) -> str:
    """The most frequent corpus words at `step`, as cards of token spans with their counts."""
    trace = step.history
    cards = []
    for index in run.words_by_frequency[:limit]:
        pieces, new = word_tokens(run, step, index, WORD_CHARACTERS_SHOWN)
        spans = pieces_html(pieces, show_ids, new)
        hidden = len(trace.words[index]) - WORD_CHARACTERS_SHOWN
        if hidden > 0:
            spans += f'<span class="more muted small">… +{plural(hidden, "character")}</span>'
        cards.append(
            f'<div class="word-card">{spans}'
            f'<span class="muted small word-count">×{trace.counts[index]:,}</span></div>'
        )
    return f'<div class="top-words">{"".join(cards)}</div>'


def sentences_at_step_html(
    run: MergeRun, step: MergeStep, sentences: list[str], show_ids: bool = False
) -> str:
    """The sample sentences encoded with the first k merges, the last merge's token outlined,
    characters the tokenizer drops or cannot spell marked, each with its token count. At most
    SENTENCES_SHOWN sentences of at most SENTENCE_CHARACTERS_SHOWN characters each are drawn."""
    tok = run.tokenizer_at(step.k)
    new_token = None if step.made is None else step.history.vocab[step.made]
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


def step_panels_html(run: MergeRun, step: MergeStep, sentences: list[str], show_ids: bool = False) -> str:
    """The panels of step k under the player, as one element: why merge k's pair won, the pairs
    that competed for it (table and bars), the most frequent words and the sample sentences after
    k merges. One element, so that a person never sees two steps at once while the player plays
    (drawn as several, "why" showed merge 381 while the table below still showed 361); each panel
    says the step it shows in `data-panel-step`. At step 0 the competition is merge 1's."""
    k, merge = step.k, step.merge
    names = labels(run)
    lead = "Next, merge 1. " if k == 0 else ""
    words_title = (
        f"<b>Most frequent corpus words after {plural(k, 'merge')}</b> "
        f"(the token merge {k:,} made is outlined)"
        if k
        else "<b>Most frequent corpus words before any merge</b>"
    )
    panels = [
        f"<b>Why this pair {'will win' if k == 0 else 'won'}.</b> {lead}{escape_text(step.why(names))}",
        f"<p><b>The pairs that competed for merge {merge:,}</b> (the chosen one first)</p>"
        + candidates_html(run, step),
        charts.competition_html(step.history, merge, names),
        f"<p>{words_title}</p>" + words_at_step_html(run, step, show_ids=show_ids),
        f"<p><b>Sample sentences after {plural(k, 'merge')}</b></p>"
        + sentences_at_step_html(run, step, sentences, show_ids=show_ids),
    ]
    why, candidates, bars, words, sentences_panel = (
        f'<div class="{kind}" data-panel-step="{k}">{panel}</div>'
        for kind, panel in zip(("why", "step-wide", "step-narrow", "step-wide", "step-narrow"), panels)
    )
    return (
        f'<div class="step-panels">{why}<div class="step-row">{candidates}{bars}</div>'
        f'<div class="step-row">{words}{sentences_panel}</div></div>'
    )


def merge_summary_html(run: MergeRun, step: MergeStep) -> str:
    """One line about step k: merge k's pair, the new token, its count (and score), what it
    rewrote; or, at k = 0, the corpus before any merge."""
    trace, k = step.history, step.k
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


def candidates_frame(run: MergeRun, step: MergeStep) -> pd.DataFrame:
    """The pairs that competed for the step's merge (`step.merge`), one row each, the chosen one
    first: rank, the pair readable and as stored, its count, and for likelihood scores count(a),
    count(b) and the score."""
    names = labels(run)
    candidates = step.candidates()
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


# What each column of the candidates means (the tables' column headings say it on hover).
CANDIDATE_HELP = {
    "rank": "Counted from 1, the highest count (or score) first; ✓ the pair chosen",
    "chosen": "✓ the pair chosen",
    "pair": "· a space, ↵ a newline, <0xE2> a byte that is part of a character",
    "as stored": "The two tokens exactly as the vocabulary holds them",
    "count": "Occurrences of the pair in the corpus",
    "count(ab)": "Occurrences of the pair",
    "count(a)": "Occurrences of the left token",
    "count(b)": "Occurrences of the right token",
    "score": "count(ab) / (count(a) × count(b))",
}
_TEXT_COLUMNS = ("pair", "as stored")


def candidates_html(run: MergeRun, step: MergeStep) -> str:
    """`candidates_frame` as an HTML table (escaped; each number's exact value in `data-value`),
    the chosen pair's row first and marked: a plain table, so the first screen of Merge history
    loads no data grid, and a screen reader reads it as a table."""
    frame = candidates_frame(run, step)
    head = "".join(
        f'<th scope="col" title="{escape_text(CANDIDATE_HELP[column])}"'
        + (' class="text"' if column in _TEXT_COLUMNS else "")
        + f">{escape_text(column)}</th>"
        for column in frame.columns
    )
    rows = []
    for index, row in enumerate(frame.itertuples(index=False)):
        cells = []
        for column, value in zip(frame.columns, row):
            if column == "rank":
                cells.append(f'<th scope="row">{escape_text(value)}</th>')
            elif column in _TEXT_COLUMNS:
                cells.append(f'<td class="token">{escape_text(value)}</td>')
            else:
                shown = f"{value:.4g}" if column == "score" else f"{value:,}"
                cells.append(f'<td data-value="{value!r}">{shown}</td>')
        rows.append(f"<tr{' class=chosen' if index == 0 else ''}>{''.join(cells)}</tr>")
    region = scroll_region(f"The pairs that competed for merge {step.merge:,}")
    return (
        f'<div class="figures-table candidates"{region}><table><thead><tr>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def splits_frame(step: MergeStep) -> pd.DataFrame:
    """Every distinct word with its count and its split after k merges, as the course prints
    its `splits` (a list of the tokens as stored)."""
    return pd.DataFrame(
        [{"word": word, "count": count, "split": repr(list(split))} for word, count, split in step.splits()]
    )


def pair_table_frame(step: MergeStep) -> pd.DataFrame:
    """Every pair the step's merge (`step.merge`) was chosen from, in the course's dict order,
    with its frequency (and count(a), count(b), the likelihood score when the run scores pairs);
    the pair it chose is ticked."""
    scored = charts.uses_scores(step.history)
    chosen = step.chosen_pair()
    rows = []
    for row in step.pairs(scored):
        record: dict[str, object] = {
            "chosen": "✓" if (row.left, row.right) == chosen else "",
            "pair": repr((row.left, row.right)),
            "count": row.count,
        }
        if scored:
            record.update({"count(a)": row.left_count, "count(b)": row.right_count, "score": row.score})
        rows.append(record)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- merge tree


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
