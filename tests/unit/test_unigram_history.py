"""The pure functions behind the Training history page (explorer.lessons.rounds and
explorer.drawing.charts.round_charts), checked against the RoundHistory they read and the UnigramModel that
segments: the removed-at-round rows, the changes between rounds, the lattice's cells, the best
path, the round sentence's numbers, the figures' marks, and escaping."""

import dataclasses
import re
from collections import Counter
from html import unescape

import pytest

from explorer.compare.html import line_html
from explorer.drawing.charts import round_charts, token_labels
from explorer.drawing.token_html import pieces_html
from explorer.lessons import lattice as lattice_view
from explorer.lessons import rounds as history
from explorer.lessons.encode_steps.viterbi import viterbi_steps
from explorer.run_config import RunConfig
from explorer.samples import SAMPLE_SENTENCES
from explorer.train import encode_pieces, tokenizer_from_trace, train_corpus
from explorer.training.unigram import UnigramConfig
from explorer.ui.common.encode_panel import viterbi_html
from explorer.views import lattice_table
from explorer.views.unigram_table import removed_table
from tests.reference.course_corpus import COURSE_CORPUS

CORPUS = "\n".join(COURSE_CORPUS)
HOSTILE = "<script>alert(1)</script> **bold** $x$ :red[x] a|b `code` " * 3


def train(text, **settings):
    return train_corpus(text, RunConfig(UnigramConfig(**settings), (), "metaspace"))


@pytest.fixture(scope="module", params=["course", "library"])
def trace(request):
    if request.param == "course":
        return train(CORPUS, flavor="course", vocab_size=60)
    # Repeated with variations so the library prunes by loss for several rounds.
    text = "\n".join(f"{line} {line[::-1]} {index}" for index, line in enumerate(COURSE_CORPUS * 8))
    return train(text, vocab_size=60, special_tokens=("<s>",))


def every_round(trace):
    return range(len(trace.rounds) + 1)


def test_removed_rows_are_the_trace_removals_with_why(trace):
    for r in every_round(trace):
        rows = history.removed_rows(trace, r)
        removals = trace.removed_at(r) if r else []
        assert [row.piece for row in rows] == [history.readable(trace, removal.piece) for removal in removals]
        assert [row.score for row in rows] == [removal.score for removal in removals]
        assert [row.value for row in rows] == [removal.value for removal in removals]
        threshold = trace.rounds[r - 1].threshold if r else None
        for row, removal in zip(rows, removals):
            if removal.reason == "loss":
                assert removal.value <= threshold
                assert f"≤ cut-off {threshold:.4g}" in row.why
            if removal.reason == "em":
                assert removal.value < 0.5 and "< 0.5" in row.why


def test_removed_rows_can_show_the_first_of_each_reason(trace):
    for r in range(1, len(trace.rounds) + 1):
        every = history.removed_rows(trace, r)
        counts = history.removed_counts(trace, r)
        assert sum(counts.values()) == len(every) == len(trace.removed_at(r))
        some = history.removed_rows(trace, r, per_reason=2)
        assert len(some) == sum(min(count, 2) for count in counts.values())
        for reason in counts:
            assert [row for row in some if row.reason == reason] == [
                row for row in every if row.reason == reason
            ][:2]


def test_the_first_piece_kept_ranks_just_after_the_cut_off(trace):
    pruned = 0
    for r in range(1, len(trace.rounds) + 1):
        kept = trace.first_kept_at(r)
        by_loss = [removal.value for removal in trace.removed_at(r) if removal.reason == "loss"]
        if kept is None:
            continue
        pruned += 1
        piece, value = kept
        assert piece in {piece for piece, _ in trace.pieces_at(r)} or trace.rounds[r - 1].kind == "final"
        assert value >= max(by_loss) == trace.rounds[r - 1].threshold
        sentence = history.cutoff_sentence(trace, r)
        assert (
            history.readable(trace, piece) in sentence and f"{trace.rounds[r - 1].threshold:.4g}" in sentence
        )
    assert pruned >= 2


def test_course_single_characters_are_never_removed():
    trace = train(CORPUS, flavor="course", vocab_size=60)
    characters = history.single_characters(trace, 0)
    for r in every_round(trace):
        assert history.single_characters(trace, r) == characters
        assert all(len(row.piece) > 1 for row in history.removed_rows(trace, r))


def test_changed_pieces_are_the_spans_round_r_minus_1_did_not_have(trace):
    changed_somewhere = False
    for r in every_round(trace):
        for index in history.shown_word_indices(trace):
            word = trace.words[index]
            pieces, changed = history.word_pieces(trace, word, r)
            assert [word[piece.start : piece.end] for piece in pieces] == trace.segment(word, r)
            # A character the model cannot spell (the library's EM may drop one) is an unknown piece.
            assert all(
                piece.value == word[piece.start : piece.end] or piece.kind == "unknown" for piece in pieces
            )
            before = {
                (piece.start, piece.end) for piece in history.segment_pieces(trace, word, max(r - 1, 0))
            }
            expected = {i for i, piece in enumerate(pieces) if (piece.start, piece.end) not in before}
            assert changed == (expected if r else set())
            changed_somewhere |= bool(changed)
    assert changed_somewhere


def test_sentence_pieces_follow_the_segmentation_of_each_pre_token(trace):
    tokenizer = tokenizer_from_trace(trace)
    text = "This is the Hugging Face Course. Hugs!"
    words = [pre_token.text for pre_token in tokenizer.pre_tokenize(text)]
    for r in every_round(trace):
        pieces, changed = history.text_changes(trace, tokenizer, text, r)
        expected = [token for word in words for token in trace.segment(word, r)]
        shown = [piece.value for piece in pieces]
        assert len(shown) == len(expected)
        assert all(
            value == token or piece.kind == "unknown" for value, token, piece in zip(shown, expected, pieces)
        )
        assert pieces[-1].end == len(text)
        before = set(history.spans(history.text_pieces(trace, tokenizer, text, max(r - 1, 0))))
        assert changed == ({span for span in history.spans(pieces) if span not in before} if r else set())


def test_lattice_cells_are_the_model_edges_and_the_best_path_is_the_segmentation(trace):
    for r in every_round(trace):
        for word in trace.words[:8]:
            lattice = trace.lattice(word, r)
            assert lattice == trace.model_at(r).lattice(word)
            lanes = lattice_table.lattice_lanes(lattice)
            # Every edge exactly once, and no two edges of one row overlap.
            assert Counter(edge for lane in lanes for edge in lane) == Counter(lattice.edges)
            for lane in lanes:
                assert all(a.end <= b.start for a, b in zip(lane, lane[1:]))
            assert [edge.piece for edge in lattice.best_path] == trace.segment(word, r)
            markup = lattice_table.lattice_html(trace, lattice)
            cells = re.findall(r'<td colspan="(\d+)" class="([^"]+)"', markup)
            assert len(cells) == len(lattice.edges)
            assert sum("lat-best" in classes for _, classes in cells) == len(lattice.best_path)
            for lane_markup in re.findall(r"<tr>(.*?)</tr>", markup)[1:]:
                assert sum(map(int, re.findall(r'colspan="(\d+)"', lane_markup))) == len(word)
            total = sum(edge.score for edge in lattice.best_path) + (
                -1.0 if trace.flavor == "course" else 0.0
            )
            assert total == pytest.approx(lattice.best_score, abs=1e-9)


def test_the_course_lattice_score_is_encode_words_score():
    trace = train(CORPUS, flavor="course", vocab_size=60)
    lattice = trace.lattice("▁Hopefully", len(trace.rounds))
    sentence = lattice_view.best_path_sentence(trace, lattice)
    assert f"= {-lattice.best_score:.4f} (1 + the sum of -log p)" in sentence


def test_round_sentence_numbers_come_from_the_trace(trace):
    assert history.round_sentence(trace, 0).startswith(
        f"Round 0: the seed vocabulary, {len(trace.seeds):,} pieces"
    )
    for r in range(1, len(trace.rounds) + 1):
        round_ = trace.rounds[r - 1]
        sentence = history.round_sentence(trace, r)
        assert sentence.startswith(f"Round {r}: {round_.size_before:,} → {round_.size_after:,} pieces")
        if trace.flavor == "course":
            assert (
                f"removed the {len(round_.removed_pieces):,} whose removal raises the loss least" in sentence
            )
            assert f"({history.raised_by(round_.threshold)})" in sentence
            assert f"loss {round_.losses[0]:,.4f} → {history.loss_after(trace, r):,.4f}" in sentence
        elif round_.kind != "final":
            assert f"loss {round_.losses[0]:.4f} → {round_.losses[-1]:.4f}" in sentence
            losses = [removal for removal in trace.removed_at(r) if removal.reason == "loss"]
            if losses:
                assert f"removed the {len(losses):,} whose removal costs least" in sentence


def test_final_loss_is_the_course_models_loss_or_the_librarys_last_em_objective(trace):

    if trace.flavor == "course":
        recomputed = history.course_loss(trace, len(trace.rounds))
        assert history.final_loss(trace) == trace.final_loss == pytest.approx(recomputed, abs=1e-9)
        stored_before = dataclasses.replace(trace, final_loss=None)  # a trace stored before it was recorded
        assert history.final_loss(stored_before) == recomputed
        assert history.final_loss(dataclasses.replace(trace, rounds=[])) is None
    else:
        last_round_with_em = [round_ for round_ in trace.rounds if round_.losses][-1]
        assert history.final_loss(trace) == last_round_with_em.losses[-1]


def test_figures_mark_the_current_round(trace):
    sizes = trace.sizes()
    series, first_round, x_title = history.loss_series(trace)
    for r in every_round(trace):
        figure = round_charts.vocabulary_figure(sizes, r, 60)
        assert list(figure.data[0].y) == sizes
        assert list(figure.data[1].x) == [r] and list(figure.data[1].y) == [sizes[r]]
        losses = round_charts.loss_figure(series, r, x_title, first_round)
        values = [loss for round_losses in series for loss in round_losses]
        assert list(losses.data[0].y) == values
        marked = series[r - first_round] if 0 <= r - first_round < len(series) else []
        shown = list(losses.data[1].y) if len(losses.data) > 1 else []
        assert shown == marked
    if trace.flavor == "library":
        with_losses = [round_losses for round_losses in series if round_losses]  # not the final assembly
        assert len(losses.layout.shapes) == len(with_losses) - 1  # a line between rounds


def test_every_corpus_string_is_escaped():
    trace = train(HOSTILE + "\n" + CORPUS, vocab_size=60)
    tokenizer = tokenizer_from_trace(trace)
    r = len(trace.rounds)
    for word in trace.words:
        markup = lattice_table.lattice_html(trace, trace.lattice(word, r))
        assert "<script" not in markup and "**" not in markup and "$x$" not in markup
        text = unescape(re.sub(r"<[^>]+>", "", markup))
        assert all(char in text for char in history.readable(trace, word))
    word, note = lattice_view.lattice_word(trace, tokenizer, HOSTILE)
    assert word == "▁<script>alert(1)</script>" and "first of" in note
    for r in every_round(trace):
        for row in history.removed_rows(trace, r):
            assert isinstance(row.piece, str)  # plain text, for st.dataframe (never HTML)


def test_lattice_word_cuts_and_refuses_clearly():
    trace = train(CORPUS, flavor="course", vocab_size=60)
    tokenizer = tokenizer_from_trace(trace)
    assert lattice_view.lattice_word(trace, tokenizer, "   ") == ("", "Type a word to see its lattice.")
    word, note = lattice_view.lattice_word(trace, tokenizer, "x" * 100)
    assert len(word) == lattice_view.LATTICE_MAX_CHARACTERS and "first 40 characters" in note
    lattice, why = lattice_view.word_lattice(trace, "▁Qé", len(trace.rounds))
    assert lattice is None and "has no piece for Q or é and no unknown piece" in why  # each one named
    lattice, why = lattice_view.word_lattice(trace, "▁東京東", 1)
    assert lattice is None and "has no piece for 東 or 京 and" in why


@pytest.mark.parametrize("count", [2, 3, 7, 30, 31, 95, 400, 2_500])
def test_the_figures_x_axes_count_in_whole_steps(count):
    # Plotly's own ticks on a short axis fall at halves ("1.5" EM iterations); ours never do.
    losses = round_charts.loss_figure([[1.0 / (i + 1) for i in range(count)]], 1)
    sizes = round_charts.vocabulary_figure(list(range(count, 0, -1)), 0)
    for axis in (losses.layout.xaxis, sizes.layout.xaxis):
        assert axis.tickmode == "linear" and axis.tick0 == 0
        assert isinstance(axis.dtick, int) and axis.dtick >= 1
        assert count / axis.dtick <= round_charts.MOST_TICKS  # and few enough to read


def test_a_byte_level_run_shows_text_and_byte_tokens_as_a_bpe_run_does():
    # Issue 50: its sentences showed "Ġ" and mojibake ("legendÃ¤ren"), not "·" and <0xC3> tokens.
    lines = [*COURSE_CORPUS, *SAMPLE_SENTENCES, "Die legendären Bären wären gern Äpfel."]
    text = "\n".join(f"{line} {line[::-1]} {index}" for index, line in enumerate(lines * 6))
    trace = train_corpus(text, RunConfig(UnigramConfig(vocab_size=90), (), "byte-level"))
    tokenizer = tokenizer_from_trace(trace)
    sentence = SAMPLE_SENTENCES[1]
    last = len(trace.rounds)
    shown = [
        line_html(sentence, encode_pieces(tokenizer, sentence)),  # Train page, Compare
        line_html(sentence, history.text_pieces(trace, tokenizer, sentence, last)),  # Training history
        *(pieces_html(history.word_pieces(trace, word, last)[0]) for word in trace.words),
        *(lattice_table.lattice_html(trace, trace.lattice(word, last)) for word in trace.words),
        viterbi_html(viterbi_steps(tokenizer, sentence)),  # Training history's and Compare's table
    ]
    removed = [row.piece for r in every_round(trace) for row in history.removed_rows(trace, r)]
    assert removed and any("·" in piece for piece in removed)
    assert list(removed_table(trace)["readable"]) == removed  # the Vocabulary page's removed pieces
    for markup in [*shown, *removed, *token_labels(trace)]:
        assert "Ġ" not in markup and "Ã" not in markup
    assert all(">·legend<" in markup for markup in shown[:2])
    assert any("&lt;0xC3&gt;" in markup for markup in shown[2:])  # half of "ä", a token of its own
    assert tokenizer.decode(tokenizer.encode(sentence, add_special_tokens=False).ids) == sentence
