"""The lattice of one word after round r of a Unigram run as an HTML table: every candidate piece
as a cell spanning the characters it covers, with its log-probability, the best path marked.
Every string is escaped (explorer.drawing.token_html.escape_text); the markup has classes only
(explorer.drawing.stylesheet).

What it does not do: choose the word or word the best path (explorer.lessons.lattice), search
(explorer.pipeline.models.unigram), or import streamlit.
"""

from __future__ import annotations

from explorer.drawing.token_html import escape_text
from explorer.lessons.rounds import readable
from explorer.pipeline.models.unigram import Lattice, LatticeEdge
from explorer.training.unigram.round_history import RoundHistory


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
