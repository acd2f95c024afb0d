"""Compare: the same sentences tokenized by our trained tokenizers, GPT-2, GPT-4 and GPT-4o and any
uploaded tokenizer, side by side; where two of them cut differently; how they measure on the
sentences and on the whole training corpus; how our tokenizers improve as their vocabulary grows."""

import streamlit as st

from explorer.ui import compare, frame, state

frame.page(
    "Compare",
    "Edit the sentences; each tokenizer shows its tokens (hover for ids) and how many it needs.",
)
run = frame.require_run()

sentences = compare.sentences_input()
other = compare.other_run(run)
with st.expander("Upload a tokenizer", icon=":material/upload_file:"):
    uploads = compare.uploaded_tokenizers()
columns, hidden = compare.available_columns(run, other, uploads)
shown = compare.with_memo(compare.column_picker(columns, hidden))
compare.legend()

if not sentences:
    st.info("Type at least one sentence above.")
elif not shown:
    st.info("Pick at least one tokenizer above.")
else:
    compare.token_columns(shown, sentences)
    compare.boundary_diff_section(shown, sentences)
if shown:
    compare.steps_section(shown)
    compare.metrics_section(run, shown, sentences)
    compare.curve_section(
        compare.runs_shown(shown, [run, *([other] if other else []), *state.earlier_runs()])
    )
frame.finish()
