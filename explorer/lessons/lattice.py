"""The lattice view of one word after round r of a Unigram run: every candidate piece as a cell
spanning the characters it covers, with its log-probability, the best path marked, and the
sentence that adds the best path up (for a course run, also the course's encode_word score).

The lattice itself is UnigramModel.lattice's (through RoundHistory.lattice: the course's rules
for a course run); this module only lays it out and words it. Every string is escaped
(explorer.drawing.token_html.escape_text); the markup has classes only (explorer.drawing.stylesheet).

What it does not do: import streamlit, search (explorer.pipeline.models.unigram), or show the Viterbi table.
"""

from __future__ import annotations

from explorer.drawing.token_html import escape_text
from explorer.drawing.wording import either
from explorer.lessons.rounds import readable
from explorer.pipeline.models.unigram import Lattice, LatticeEdge
from explorer.pipeline.tokenizer import Tokenizer
from explorer.training.unigram.round_history import RoundHistory

LATTICE_MAX_CHARACTERS = 40  # the longest word drawn (its edges grow with length x longest piece)


def lattice_lanes(lattice: Lattice) -> list[list[LatticeEdge]]:
    """The edges packed into rows that never overlap: single characters first, then longer
    pieces, each in the first row with room (rows sorted by start)."""
    lanes: list[list[LatticeEdge]] = []
    for edge in sorted(lattice.edges, key=lambda edge: (edge.end - edge.start, edge.start)):
        for lane in lanes:
            if all(edge.end <= other.start or edge.start >= other.end for other in lane):
                lane.append(edge)
                break
        else:
            lanes.append([edge])
    return [sorted(lane, key=lambda edge: edge.start) for lane in lanes]


def best_path_sentence(trace: RoundHistory, lattice: Lattice) -> str:
    """The best path and its total score (plain text); for a course run also encode_word's score."""
    if not lattice.best_path:
        return "An empty word has no piece."
    terms = " + ".join(f"{readable(trace, edge.piece)} ({edge.score:.3f})" for edge in lattice.best_path)
    if trace.flavor == "course":
        total = sum(edge.score for edge in lattice.best_path)
        return (
            f"Best path: {terms} = {total:.4f}; the course's encode_word score is "
            f"1 + {-total:.4f} = {-lattice.best_score:.4f} (1 + the sum of -log p)."
        )
    return f"Best path: {terms} = {lattice.best_score:.4f}, the highest total log-probability."


def lattice_html(trace: RoundHistory, lattice: Lattice) -> str:
    """The lattice as a table: the word's characters on top, then every candidate piece as a cell
    spanning the characters it covers, with its log-probability; the best path's cells marked
    (class `lat-best`), unknown-character edges too (`lat-unk`). Escaped; classes only."""
    word = lattice.word
    path = set(lattice.best_path)
    head = "".join(f'<th class="lat-char">{escape_text(readable(trace, char))}</th>' for char in word)
    rows = [f"<tr>{head}</tr>"]
    for lane in lattice_lanes(lattice):
        cells, at = [], 0
        for edge in lane:
            if edge.start > at:
                cells.append(f'<td colspan="{edge.start - at}"></td>')
            classes = (
                "lat-edge" + (" lat-best" if edge in path else "") + (" lat-unk" if edge.unknown else "")
            )
            name = readable(trace, edge.piece)
            title = (
                f"{name}: characters {edge.start}–{edge.end}, log p = {edge.score:.4f}"
                + (" (unknown character)" if edge.unknown else "")
                + (" (on the best path)" if edge in path else "")
            )
            cells.append(
                f'<td colspan="{edge.end - edge.start}" class="{classes}" title="{escape_text(title)}">'
                f'{escape_text(name)}<span class="lat-score">{edge.score:.2f}</span></td>'
            )
            at = edge.end
        if at < len(word):
            cells.append(f'<td colspan="{len(word) - at}"></td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return f'<table class="lattice">{"".join(rows)}</table>'


def lattice_word(trace: RoundHistory, tokenizer: Tokenizer, text: str) -> tuple[str, str | None]:
    """The word the lattice view draws for what was typed: its first pre-token (as the model sees
    it: "▁hugs" for "hugs" with metaspace), at most LATTICE_MAX_CHARACTERS long; and a note
    (plain text) when something was left out, or when there is nothing to draw."""
    pre_tokens = [piece.text for piece in tokenizer.pre_tokenize(text)] if text.strip() else []
    if not pre_tokens:
        return "", "Type a word to see its lattice."
    word, notes = pre_tokens[0], []
    if len(pre_tokens) > 1:
        notes.append(
            f"The lattice is that of one pre-token: the first of {len(pre_tokens)}, {readable(trace, word)}."
        )
    if len(word) > LATTICE_MAX_CHARACTERS:
        word = word[:LATTICE_MAX_CHARACTERS]
        notes.append(f"Only its first {LATTICE_MAX_CHARACTERS} characters are drawn.")
    return word, " ".join(notes) or None


def word_lattice(trace: RoundHistory, word: str, r: int) -> tuple[Lattice | None, str | None]:
    """The lattice of `word` after round r, or None and why (plain text) when the model cannot
    segment it: a course model has no unknown piece (its encode_word gives "<unk>")."""
    try:
        return trace.lattice(word, r), None
    except ValueError:
        missing = either([readable(trace, char) for char in trace.model_at(r).missing_characters(word)])
        return None, (
            f"After round {r} the vocabulary has no piece for {missing} and no unknown piece, "
            'so this word cannot be segmented (the course\'s encode_word gives "<unk>").'
        )
