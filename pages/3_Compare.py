"""Compare: the same sentences tokenized by every tokenizer trained in this session, side by side."""

import streamlit as st

from explorer.samples import SAMPLE_SENTENCES
from explorer.ui import compare, frame, state, training
from explorer.ui.settings import ALGORITHM_LABELS, other_algorithm, settings_for_other_algorithm

W = state.Widget
frame.page("Compare", "Edit the sentences; each tokenizer shows its tokens (hover for ids) and how many it needs.")
run = frame.require_run()

if W.SENTENCES not in st.session_state:
    st.session_state[W.SENTENCES] = state.get(state.COMPARE_TEXT) or "\n".join(SAMPLE_SENTENCES)
text = st.text_area("Sentences (one per line)", key=W.SENTENCES, height=110)
state.put(state.COMPARE_TEXT, text)
sentences = compare.sentences_from(text)

other = state.other_run(run)
other_label = ALGORITHM_LABELS[other_algorithm(run.settings.algorithm)]
if other is None:
    corpus_text = state.trained_corpus_text(run)
    if st.button(f"Train the other algorithm ({other_label})", key=W.TRAIN_OTHER, disabled=corpus_text is None):
        other = training.train_run(
            corpus_text, settings_for_other_algorithm(run.settings), run.corpus_label, run.sample_key
        )
        if other is not None:
            state.set_other_run(other)

columns = [compare.run_column(run, "current run")]
if other is not None:
    columns.append(compare.run_column(other, f"{other_label} on the same corpus"))
columns += [compare.run_column(earlier, "earlier run") for earlier in state.earlier_runs() if earlier is not other]

if not sentences:
    st.info("Type at least one sentence above.")
else:
    per_row = 3
    for first in range(0, len(columns), per_row):
        for column, slot in zip(columns[first : first + per_row], st.columns(per_row, gap="medium")):
            with slot:
                body, total = compare.column_html(column, sentences)
                st.markdown(f"**{column.caption}**")
                frame.note(column.name)
                st.metric("Tokens", f"{total:,}")
                st.html(body)
    st.subheader("Figures")
    st.dataframe(
        compare.comparison_table(columns, sentences),
        column_config={
            "_index": st.column_config.TextColumn("tokenizer", width="medium"),
            "tokens": st.column_config.NumberColumn(format="%d"),
            "characters / token": st.column_config.NumberColumn(format="%.2f"),
            "bytes / token": st.column_config.NumberColumn(format="%.2f"),
            "tokens / word": st.column_config.NumberColumn(format="%.2f"),
            "words split": st.column_config.NumberColumn(format="percent"),
            "unknown rate": st.column_config.NumberColumn(format="percent"),
        },
    )
frame.finish()
