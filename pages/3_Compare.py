"""Compare: the same sentences tokenized by our trained tokenizers, the bundled pretrained ones (GPT,
Llama, Qwen, DeepSeek, Mistral) and any uploaded tokenizer, side by side; where two of them cut
differently; how they measure on the sentences and on the whole training corpus; how our
tokenizers improve as their vocabulary grows; how a BPE run's merges meet a pretrained tokenizer's;
and token ids decoded back into text."""

import streamlit as st

from explorer.session import compare_params
from explorer.ui.common import frame, link, state
from explorer.ui.compare import (
    compare_link,
    decode_panel,
    live_columns,
    measuring,
    merge_overlap_section,
    model_picker,
)
from explorer.ui.compare import sections as compare

PAGE = "compare"
with frame.page(
    "Compare",
    "Type or paste; every tokenizer's tokens follow as you type (hover for ids).",
):
    run = frame.require_run(PAGE)
    first_view = state.get(state.FIRST_RUN)
    if first_view:  # a link: its sentences, switch, panels and uploads
        for note in compare_link.open_link():
            frame.info(note)

    other = compare.other_run(run)
    with st.expander("Upload a tokenizer", icon=":material/upload_file:"):
        uploads = compare.uploaded_tokenizers()
    special_tokens = model_picker.special_tokens_switch()
    columns, hidden = compare.available_columns(run, other, uploads, special_tokens)
    if first_view:
        for note in compare_params.missing_notes(compare_link.pick_from_link(columns)):
            frame.info(note)
    shown = compare.with_memo(model_picker.pick(columns, hidden))
    measuring.start_corpus_figures(run, shown)  # the workers measure while the sections above it are drawn
    compare.legend()

    def page_url() -> dict[str, str]:
        """What this page shows, as its URL (the live parts rewrite it as their text changes)."""
        return link.run_params(run, compare_link.link_params(shown))

    live_columns.live_comparison(shown, page_url)  # the text box, counts, columns and diff, live
    if shown:
        compare.steps_section(shown, page_url)
        measuring.metrics_section(run, shown)
        runs = [run, *([other] if other else []), *state.earlier_runs()]
        compare.curve_section(compare.runs_shown(shown, runs))
        compare.code_section(shown, runs, uploads, special_tokens)
    merge_overlap_section.merge_overlap_section(run)
    decode_panel.show(columns, first_choice=shown[0].key if shown else None)
    frame.finish(PAGE, page_url())
