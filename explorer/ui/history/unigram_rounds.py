"""The Training history page of a Unigram run (the Merge history page shows it for a run whose
trace is a RoundHistory): a player over rounds (explorer.ui.history.player, round 0 = the seeds), and at
round r: what the round did in one sentence, the vocabulary shrinking and the loss curve, the
pieces it removed and why, the words and the sample sentences segmented after it (what it
changed outlined), and the lattice of one word.

Everything is read from the run's trace through explorer.lessons.rounds and
explorer.lessons.lattice (pure) and drawn by explorer.views.lattice_table and explorer.drawing.token_html
(escaped, classes only) and
explorer.drawing.charts.round_charts. Derived objects that do not depend on the round are kept
with the run (explorer.runs.run); a round's view segments ~30 words and the sample sentences
twice (round r and r - 1, for the changes) and one word's lattice.

What it does not do: train, or show the Viterbi table (the step-by-step encode panel's job).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.compare.columns import sentences_from
from explorer.compare.html import count_note, line_html
from explorer.drawing.charts import round_charts, vocab_piece
from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.token_html import escape_text, pieces_html, scroll_region
from explorer.drawing.wording import HISTORY_PAGE_NAMES, plural
from explorer.lessons import lattice as lattice_view
from explorer.lessons import rounds as history
from explorer.lessons.encode_steps.viterbi import viterbi_steps
from explorer.runs.run import RoundRun
from explorer.samples import SAMPLE_SENTENCES
from explorer.training.unigram.round_history import RoundHistory
from explorer.ui.common import encode_panel, state, tables
from explorer.ui.common import plotly_figures as figures
from explorer.ui.history import player
from explorer.views import lattice_table
from explorer.views import run_views as views

W = state.Widget
ROUND_SPEEDS: dict[str, tuple[float, int]] = {
    "4 s per round": (4.0, 1),
    "2 s per round": (2.0, 1),
    "1 s per round": (1.0, 1),
    "0.5 s per round": (0.5, 1),
}
REMOVED_SHOWN = 300  # rows of the removed-pieces table per reason
TITLE = HISTORY_PAGE_NAMES["round"]
INTRO = (
    "Play the run round by round, or scrub to any round: Unigram starts from many pieces and "
    "removes, each round, those whose loss matters least. Every panel shows that round."
)
CHANGED = "changed in this round"  # the title of an outlined piece


def show(run: RoundRun) -> bool:
    """The player over the run's rounds and every panel of the current round; False when the run
    has no round to play."""
    trace = run.history
    rounds = len(trace.rounds)
    if rounds == 0:
        st.info("This run has no round (its corpus has no word): there is nothing to play.")
        return False
    sentences = sentences_from(state.get(state.COMPARE_TEXT) or "\n".join(SAMPLE_SENTENCES))
    player.show(RoundTrack(run, sentences))
    return True


class RoundTrack(player.Track):
    """The rounds of a Unigram run, every panel below at each."""

    noun = "round"
    slider_label = "Round (0: the seeds)"
    speeds = ROUND_SPEEDS
    speed_key = W.ROUND_SPEED

    run: RoundRun

    def __init__(self, run: RoundRun, sentences: list[str]) -> None:
        super().__init__(run, len(run.history.rounds), "2 s per round")
        self.sentences = sentences

    def summary_html(self, k: int) -> str:
        return round_summary_html(self.run, k)

    def panels(self, k: int) -> None:
        panels(self.run, k, self.sentences)


# ---------------------------------------------------------------- panels at round r


def round_summary_html(run: RoundRun, r: int) -> str:
    last = r == len(run.history.rounds)
    sentence = history.round_sentence(run.history, r, views.final_loss(run) if last else None)
    return f'<div class="round-summary">{escape_text(sentence)}</div>'


def panels(run: RoundRun, r: int, sentences: list[str]) -> None:
    trace = run.history
    show_ids = state.show_ids()
    sizes, losses = st.columns(2)
    target = trace.config.trainer.vocab_size
    figures.plotly_chart(
        round_charts.vocabulary_figure(trace.sizes(), r, target), state.Chart.VOCABULARY_SIZES, sizes
    )
    series, first_round, x_title = history.loss_series(trace, views.final_loss(run))
    figures.plotly_chart(
        round_charts.loss_figure(series, r, x_title, first_round), state.Chart.LOSSES, losses
    )
    removed_panel(run, r)

    words, sentences_column = st.columns([3, 2], gap="large")
    with words:
        scope = "Every corpus word" if history.is_course_sized(trace) else "The most frequent corpus words"
        st.markdown(f"**{scope} after round {r}**" + (" (what it changed is outlined)" if r else ""))
        st.html(words_html(run, r, show_ids))
    with sentences_column:
        st.markdown(f"**Sample sentences after round {r}**")
        st.html(sentences_html(run, r, sentences, show_ids))

    lattice_panel(run, r)
    viterbi_panel(run, r)


def removed_panel(run: RoundRun, r: int) -> None:
    trace = run.history
    rows = history.removed_rows(trace, r, REMOVED_SHOWN)
    st.markdown(f"**The pieces round {r} removed**" if r else "**Round 0: nothing removed yet**")
    counts = history.removed_counts(trace, r)
    if len(rows) < sum(counts.values()):
        reasons = "; ".join(f"{count:,} {reason}" for reason, count in counts.items())
        st.caption(f"The first {REMOVED_SHOWN:,} of each reason, in removal order ({reasons}).")
    cutoff = history.cutoff_sentence(trace, r)
    if cutoff:
        st.html(f'<div class="why">{escape_text(cutoff)}</div>')
    if rows:
        tables.table(removed_frame(trace, rows), height=min(36 * (len(rows) + 1), 320))
    elif r:
        st.caption("This round removed no piece.")
    characters = history.single_characters(trace, r)
    if trace.flavor == "course":
        note = "Never removed: the single characters, so every word can still be spelled"
    else:
        note = "Single characters are never pruned; one dropped by EM is put back at the final assembly"
    boxes = pieces_html([vocab_piece(char, -1, trace.config.is_byte_level) for char in characters])
    st.html(f'<div class="muted small">{escape_text(note)} ({len(characters):,} now): {boxes}</div>')


def removed_frame(trace: RoundHistory, rows: list[history.RemovedRow]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "piece": [row.piece for row in rows],
            "score (log p)": [row.score for row in rows],
            history.value_name(trace): [row.value for row in rows],
            "why": [row.why for row in rows],
        }
    )


def words_html(run: RoundRun, r: int, show_ids: bool) -> str:
    trace = run.history
    cards = []
    for index in history.shown_word_indices(trace):
        word = trace.words[index][: views.WORD_CHARACTERS_SHOWN]
        pieces, changed = history.word_pieces(trace, word, r)
        more = len(trace.words[index]) - len(word)
        extra = f'<span class="more muted small">… +{plural(more, "character")}</span>' if more > 0 else ""
        cards.append(
            f'<div class="word-card">{pieces_html(pieces, show_ids, changed, CHANGED)}{extra}'
            f'<span class="muted small word-count">×{trace.counts[index]:,}</span></div>'
        )
    return f'<div class="top-words">{"".join(cards)}</div>'


def sentences_html(run: RoundRun, r: int, sentences: list[str], show_ids: bool) -> str:
    tokenizer = run.tokenizer  # its special tokens, normalizer and pre-tokenizer
    rows = []
    for sentence in sentences[: views.SENTENCES_SHOWN]:
        cut = sentence[: views.SENTENCE_CHARACTERS_SHOWN]
        pieces, changed = history.text_changes(run.history, tokenizer, cut, r)
        line = line_html(cut, pieces, show_ids, new_spans=changed, new_note=CHANGED)
        rows.append(
            f'<div class="step-sentence">{line}'
            f'<span class="muted small">{escape_text(count_note(pieces))}</span></div>'
        )
    if len(sentences) > views.SENTENCES_SHOWN:
        shown = f"The first {views.SENTENCES_SHOWN} of {len(sentences):,} sentences."
        rows.append(f'<div class="muted small">{shown}</div>')
    return f'<div class="step-sentences">{"".join(rows)}</div>'


def lattice_panel(run: RoundRun, r: int) -> None:
    trace = run.history
    st.subheader(f"The lattice of one word after round {r}")
    st.caption(
        "Every piece of the vocabulary found in the word, drawn over the characters it covers with its "
        "log-probability; the best path (the segmentation with the highest total) is highlighted."
    )
    state.setdefault(W.LATTICE_WORD, history.default_lattice_word(trace))
    text = st.text_input("Word", key=W.LATTICE_WORD, max_chars=200)
    word, note = lattice_view.lattice_word(trace, run.tokenizer, text)
    if note:
        st.caption(markdown_literal(note))  # it quotes what was typed
    if not word:
        return
    lattice, why_not = lattice_view.word_lattice(trace, word, r)
    if lattice is None:
        assert why_not is not None  # word_lattice says why it gives no lattice
        st.html(f'<div class="why">{escape_text(why_not)}</div>')
        return
    region = scroll_region("Lattice of the word")
    st.html(f'<div class="lattice-wrap"{region}>{lattice_table.lattice_html(trace, lattice)}</div>')
    st.html(f'<div class="why">{escape_text(lattice_view.best_path_sentence(trace, lattice))}</div>')


def viterbi_panel(run: RoundRun, r: int) -> None:
    """Any text encoded with the pieces alive after round r, as the Viterbi algorithm fills its
    table: for each end position the best total score, the piece that ends there, the back pointer."""
    st.subheader(f"How a text is tokenized after round {r}: the Viterbi table")
    st.caption(
        "Left to right, each position keeps the best score of any segmentation of the text up to it "
        "(the best score at the piece's start plus the piece's log-probability); the best path is read "
        "back from the end through the back pointers."
    )
    tokenizer = run.history.tokenizer_at(r)
    encode_panel.show(
        lambda text: viterbi_steps(tokenizer, text, name=f"{run.name}, after round {r}"), key=W.STEPS_TEXT
    )
