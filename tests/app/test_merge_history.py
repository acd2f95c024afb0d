"""The Merge history page through AppTest: at every step k, every panel shows step k's values, read
back from the run's trace (the step line, the candidates table, the sentence naming the rule that
decided, the merge tree, the course's tables), and the player stops cleanly at the last merge.

The expectations come from the trace the page trained (`current_run` in the session) and from
explorer.lessons.merge_step's own definitions checked against the course loop in
tests/parity/test_merge_step.py;
nothing here is a hard-coded output of the page.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from explorer.drawing.charts import TOP_CANDIDATES, pair_label, token_labels
from explorer.ui.common.live_text import box_state_key
from explorer.ui.common.state import Widget as W
from explorer.ui.history import player as player_module
from tests.app.helpers import (
    MERGES,
    html_bodies,
    html_table,
    new_app,
    open_compare,
    open_sections,
    player,
    player_act,
    player_tick,
    query,
    run_of,
)

COURSE_WORDPIECE = {"algorithm": "wordpiece", "flavor": "course", "vocab_size": "70", "sample": "hf-course"}
LIBRARY_BPE = {"algorithm": "bpe", "flavor": "library", "vocab_size": "330", "sample": "scarlet"}


def open_merge_history(params: dict[str, str]) -> AppTest:
    """The Merge history page opened from a link, as the session's first page (it trains the
    sample with those settings), with every closed section opened."""
    return open_sections(new_app(params, MERGES))


def trace_of(at: AppTest):
    return run_of(at).history


def body_with(at: AppTest, css_class: str) -> str:
    found = [body for body in html_bodies(at) if f'class="{css_class}"' in body]
    assert len(found) == 1, f"{len(found)} elements of class {css_class}"
    return found[0]


def go_to(at: AppTest, k: int) -> None:
    assert player_act(at, k)["step"] == k


def unescape(html_text: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


@pytest.fixture(scope="module")
def wordpiece_page():
    return open_merge_history(COURSE_WORDPIECE)


def test_every_panel_shows_step_k_of_a_course_wordpiece_run(wordpiece_page):
    at = wordpiece_page
    trace = trace_of(at)
    labels = token_labels(trace)
    assert trace.steps > 10
    for k in (1, 2, 7, trace.steps):
        go_to(at, k)
        left, right, new_id = trace.merges[k - 1]
        # The step line names merge k, its pair and its score.
        line = unescape(body_with(at, "merge-summary"))
        assert f"Merge {k:,} of {trace.steps:,}" in line
        assert f"{labels[left]} + {labels[right]} → {labels[new_id]}" in line
        assert f"score {trace.merge_scores[k - 1]:.4g}" in line
        # The candidates table is the trace's competition for merge k, chosen pair first, with
        # count(ab), count(a), count(b) and the score.
        table = html_table(body_with(at, "figures-table candidates"))
        recorded = trace.candidates[k - 1]
        symbol_counts = trace.candidates.symbol_counts_at(k - 1)
        assert [row["count(ab)"] for row in table] == [count for _, _, count, _ in recorded]
        assert [row["score"] for row in table] == [score for *_, score in recorded]
        assert [(row["count(a)"], row["count(b)"]) for row in table] == symbol_counts
        assert table[0]["rank"] == "1 ✓"
        assert table[0]["as stored"] == repr((trace.vocab[left], trace.vocab[right]))
        # The sentence says why, with the formula's numbers plugged in.
        why = unescape(body_with(at, "why"))
        a, b = symbol_counts[0]
        assert f"{recorded[0][2]:,} / ({a:,} × {b:,})" in why
        tied = [row for row in recorded if row[3] == recorded[0][3]]
        if len(tied) > 1:
            assert "The course keeps the first pair it meets" in why
        # The merge tree follows the step: the token merge k made, at its root.
        tree = body_with(at, "merge-tree")
        root = unescape(tree.split("\n")[0])
        assert root.startswith(labels[new_id]) and f"merge {trace.merge_rank_of[new_id] + 1:,}" in root
        # The course's tables: every word's split after k merges, every pair merge k chose from.
        splits = at.dataframe[0].value
        assert list(splits["split"]) == [
            repr(trace.segment_index(index, k)) for index in range(len(trace.words))
        ]
        pairs = at.dataframe[1].value
        chosen = pairs[pairs["chosen"] == "✓"]
        assert list(chosen["pair"]) == [repr((trace.vocab[left], trace.vocab[right]))]
        assert pairs["chosen"].iloc[0] == "✓"  # the winner first: in view without scrolling
        assert chosen["score"].iloc[0] == trace.merge_scores[k - 1]
    assert "Training ended after" in " ".join(caption.value for caption in at.caption)


def test_a_library_tie_names_the_smallest_id_pair_rule():
    at = open_merge_history(LIBRARY_BPE)
    trace = trace_of(at)
    tie_steps = [
        k
        for k in range(1, trace.steps + 1)
        if sum(row[2] == trace.candidates[k - 1][0][2] for row in trace.candidates[k - 1]) > 1
    ]
    assert tie_steps
    k = tie_steps[0]
    go_to(at, k)
    why = unescape(body_with(at, "why"))
    left, right, _ = trace.merges[k - 1]
    assert "The library breaks ties by the smallest pair of ids" in why
    assert f"({left}, {right}) wins" in why
    columns = html_table(body_with(at, "figures-table candidates"))[0]
    assert "count" in columns and "score" not in columns


def test_step_buttons_and_the_link_keep_the_step(wordpiece_page):
    at = open_merge_history({**COURSE_WORDPIECE, "step": "4"})
    assert player(at)["step"] == 4 and not player(at)["playing"]
    assert "Merge 4 of" in unescape(player(at)["line_html"])
    player_act(at, 5)  # Next
    assert player(at)["step"] == 5 and at.query_params["step"] == "5"
    player_act(at, 4)  # Back, twice
    player_act(at, 3)
    assert player(at)["step"] == 3 and at.query_params["step"] == "3"
    # A step beyond the run in a hand-edited link, or sent by a tampered browser, is the last one.
    assert player_act(at, 10**9)["step"] == trace_of(at).steps
    at = open_merge_history({**COURSE_WORDPIECE, "step": "99999"})
    assert player(at)["step"] == trace_of(at).steps


def test_an_action_older_than_the_last_one_taken_is_ignored(wordpiece_page):
    """A late action (numbered at or below the last one taken) never moves the step back: what the
    browser sent last is what the page shows; and what is not an action at all changes nothing."""
    at = open_merge_history(COURSE_WORDPIECE)
    player_act(at, 6)
    seq = at.session_state["player_ack"]
    at.session_state[W.PLAYER] = {"action": {"seq": seq, "step": 2, "playing": True}}
    at.run()
    assert (player(at)["step"], player(at)["playing"]) == (6, False)
    for junk in ({"seq": "x", "step": 1, "playing": False}, {"step": 1}, "step=1", None):
        at.session_state[W.PLAYER] = {"action": junk}
        at.run()
        assert not at.exception, at.exception
        assert player(at)["step"] == 6 and at.session_state["player_ack"] == seq


@pytest.mark.parametrize("speed", ["2 s per merge", "500 merges per tick"])
def test_playing_to_the_last_merge_stops_and_enables_play(speed):
    at = open_merge_history({**COURSE_WORDPIECE, "step": "20"})
    steps = trace_of(at).steps
    at.select_slider(key=W.SPEED).set_value(speed).run()
    interval, per_tick = player_module.SPEEDS[speed]
    assert (player(at)["interval_ms"], player(at)["per_tick"]) == (interval * 1000, per_tick)
    shown = player_act(at, 20, playing=True)  # Play
    while shown["playing"]:  # the browser's clock: one tick after each drawing
        before = shown["step"]
        shown = player_tick(at)
        assert shown["step"] == min(steps, before + per_tick)
        assert f"Merge {shown['step']:,} of" in unescape(shown["line_html"])
    assert shown["step"] == steps and not at.session_state["player_playing"]
    assert at.query_params["step"] == str(steps)


def test_competition_chart_shows_step_k_with_values(wordpiece_page):
    at = wordpiece_page
    trace = trace_of(at)
    go_to(at, 3)
    drawn = body_with(at, "competition")
    competition = unescape(drawn)
    assert "The competition for merge 3:" in competition
    assert "likelihood score" in competition
    a, b = trace.candidates.symbol_counts_at(2)[0]
    count, score = trace.candidates[2][0][2], trace.candidates[2][0][3]
    pair = unescape(pair_label(token_labels(trace), *trace.merges[2][:2]))
    assert f"#1 {pair} {score:.4g} = {count:,} / ({a:,} × {b:,})" in competition  # the chosen pair first
    assert drawn.count('<li class="bar') == min(len(trace.candidates[2]), TOP_CANDIDATES)


def test_step_by_step_panel_encodes_with_the_tokenizer_of_step_k(wordpiece_page):
    from explorer.train import tokenizer_from_trace

    at = wordpiece_page
    trace = trace_of(at)
    go_to(at, 6)
    at.session_state[box_state_key(W.STEPS_TEXT)] = {"text": "This is not a token."}  # typed in the live box
    at.run()
    panel = body_with(at, "encode-steps")
    tokenizer = tokenizer_from_trace(trace, 6)
    expected = tokenizer.encode("This is not a token.", add_special_tokens=False)
    assert f"<b>{len(expected.ids)} tokens</b>" in panel
    summaries = re.findall(r"<summary>.*?</summary>", panel)
    assert len(summaries) == len(tokenizer.pre_tokenize("This is not a token."))  # one block per pre-token
    shown = [int(i) for summary in summaries for i in re.findall(r'title="id (\d+)&#58;', summary)]
    assert shown == expected.ids  # each block ends on exactly what encode gives


def test_compare_shows_any_columns_steps(wordpiece_page):
    import tiktoken  # noqa: F401  (the GPT-2 column encodes with it)

    from explorer.pretrained import encode_pretrained

    at = wordpiece_page
    open_compare(at)
    assert not at.exception, at.exception
    at.selectbox(key=W.STEPS_COLUMN).set_value("pretrained:gpt2").run()
    at.session_state[box_state_key(W.COMPARE_STEPS_TEXT)] = {"text": "unbelievable tokenization"}
    at.run()
    assert query(at)["steps_text"] == "unbelievable tokenization"  # the link follows the live box
    panel = body_with(at, "encode-steps")
    ids = [piece.id for piece in encode_pretrained("gpt2", "unbelievable tokenization")]
    summaries = re.findall(r"<summary>.*?</summary>", panel)
    shown = [int(i) for summary in summaries for i in re.findall(r'title="id (\d+)&#58;', summary)]
    assert shown == ids
    assert "merge -> id " in unescape(panel) and "(rank" not in unescape(panel)
