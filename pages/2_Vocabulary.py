"""Vocabulary: every token with its readable form, merge rank, parents and corpus frequency (for a
Unigram run: its score, and the pieces training removed with the round each went in), and an audit
of this run's or a bundled tokenizer's vocabulary on the run's corpus
(explorer.ui.vocabulary.audit_section)."""

import streamlit as st

from explorer.ui.common import frame, link, state, tables
from explorer.ui.vocabulary import audit_section
from explorer.views import run_views as views
from explorer.views import vocabulary_table as vocabulary_views

W = state.Widget
PAGE = "vocabulary"
with frame.page(
    "Vocabulary", "Every token of the trained vocabulary; byte-level tokens shown as the bytes they hold."
):
    run = frame.require_run(PAGE)
    run_tables = vocabulary_views.vocabulary_tables(run)
    table = run_tables.tokens
    run_kinds = vocabulary_views.kinds(run)
    sort_columns = vocabulary_views.sort_columns(run)
    if state.get(state.FIRST_RUN):  # a link: its search, filter and order
        linked = vocabulary_views.view_from_link(st.query_params, run_kinds, sort_columns)
        widgets = {"search": W.SEARCH, "kinds": W.KINDS, "sort": W.SORT, "descending": W.DESCENDING}
        state.put_all({widgets[name]: value for name, value in linked.items()})

    search, kinds, sort, order = st.columns([3, 3, 2, 1.4], vertical_alignment="bottom")
    query = search.text_input("Search tokens", key=W.SEARCH, placeholder="e.g. the, ing, ·")
    if any(
        kind not in run_kinds for kind in state.get(W.KINDS) or ()
    ):  # kept from a run of another algorithm
        state.put(W.KINDS, list(run_kinds))
    if state.get(W.SORT) not in (None, *sort_columns):
        state.put(W.SORT, "id")
    state.setdefault(W.KINDS, list(run_kinds))
    chosen_kinds = kinds.multiselect("Show", run_kinds, key=W.KINDS)
    sort_by = sort.selectbox("Sort by", sort_columns, key=W.SORT)
    descending = order.toggle("Descending", key=W.DESCENDING)
    shown = vocabulary_views.filter_vocabulary(table, query, tuple(chosen_kinds), sort_by, descending)
    st.caption(f"{len(shown):,} of {len(table):,} tokens")
    tables.table(
        shown,
        {
            "id": st.column_config.NumberColumn("id", format="%d"),
            "token": st.column_config.TextColumn("token", help="The token as stored in the vocabulary"),
            "readable": st.column_config.TextColumn(
                "readable", help="· space, ↵ newline, <0xE2> a byte that is part of a character"
            ),
            "merge rank": st.column_config.TextColumn(
                "merge rank",
                help="1 = the first merge; characters and special tokens are not made by a merge",
            ),
            "frequency": st.column_config.NumberColumn(
                "frequency",
                help="Occurrences in the corpus once every merge is applied (Unigram: in the best "
                "segmentation of every corpus word)",
            ),
            "score": st.column_config.NumberColumn(
                "score",
                format="%.6f",
                help="The piece's log-probability: a word's segmentation scores the sum",
            ),
        },
        height=420,
    )
    removed = run_tables.removed  # a Unigram run's, None for a merge run
    if removed is not None:
        st.subheader("Pieces removed during training")
        st.caption(
            f"{len(removed):,} of the {len(run.history.seeds):,} seed pieces, in the order the rounds "
            "removed them. value: the loss increase their removal costs (course), or their loss or "
            "expected count (library)."
        )
        tables.table(removed, height=320)

    st.subheader("Grid view")
    st.caption("Ids in columns of 40, as in the tutorial's vocabulary table.")
    names = views.labels(run)
    page_size = 400
    start = st.columns(4)[0].number_input(
        "Start at id", min_value=0, max_value=max(0, len(names) - 1), step=page_size, key=W.GRID_START
    )
    tables.table(vocabulary_views.vocabulary_grid(names, int(start)), height=41 * 35 + 3)

    st.subheader("Downloads")
    csv_name = vocabulary_views.vocabulary_csv_name(run, len(shown), len(table))
    label = "Table (CSV)" if len(shown) == len(table) else f"Table (CSV, {len(shown):,} rows shown)"
    files = [
        vocabulary_views.Download(label, shown.to_csv(index=False), csv_name, "text/csv"),
        *vocabulary_views.downloads(run),
    ]
    downloads_row = st.container(horizontal=True)  # the buttons flow in one row, wrapping as a line of text
    for file in files:
        downloads_row.download_button(
            file.label, file.data, file_name=file.file_name, mime=file.mime, on_click="ignore"
        )
    audit_params = audit_section.audit_section(run, run_tables.merge_run)  # last: it may wait for its worker
    page_params = vocabulary_views.link_params(query, chosen_kinds, run_kinds, sort_by, descending)
    frame.finish(PAGE, link.run_params(run, {**page_params, **audit_params}))
