"""Merge history: watch the merges happen, step by step, and see how any token was built."""

import streamlit as st

from explorer import charts
from explorer.samples import SAMPLE_SENTENCES
from explorer.ui import compare, frame, player, state, views

frame.page("Merge history", "Play the training run merge by merge, or scrub to any step.")
run = frame.require_run()
trace = run.trace

if trace.steps == 0:
    st.info(f"This run learned no merge ({views.stop_reason_text(trace)}): there is nothing to play.")
else:
    player.controls(run)
    sentences = compare.sentences_from(state.get(state.COMPARE_TEXT) or "\n".join(SAMPLE_SENTENCES))
    player.step_view(run, sentences)

    st.subheader("The competition at each merge")
    st.caption(
        "The top pairs by " + ("likelihood score" if charts.uses_scores(trace) else "count")
        + " when each merge was chosen; the winner is the red bar. Plays in your browser"
        + (f" ({charts.MAX_FRAMES} of {trace.steps:,} merges sampled)." if trace.steps > charts.MAX_FRAMES else ".")
    )
    st.plotly_chart(run.derive("candidates_animation", lambda: charts.candidates_animation(trace, views.labels(run))))

    st.subheader("How a token was built")
    merged = views.merged_token_ids(run)
    names = views.labels(run)
    token_id = st.selectbox(
        "Token",
        merged,
        index=len(merged) - 1,
        format_func=lambda token_id: f"{names[token_id]}   (id {token_id})",
        key=state.Widget.TREE_TOKEN,
        help="Type to search among the tokens made by merges.",
    )
    if token_id is not None:
        tree = trace.merge_tree(token_id)
        left, right = st.columns([2, 3])
        left.html(views.merge_tree_html(tree, names))
        right.plotly_chart(charts.merge_tree_figure(tree, names), key="merge_tree")
frame.finish()
