"""The Compare page in its URL: which columns are shown (by stable ids: `pretrained:gpt2`, a run's
`run:` + the start of its store key, an upload's key: explorer.session.serving.upload_key), the
sentences (up to `TEXT_LINK_LIMIT` characters: whole lines that fit, and the page says so when
some do not), the special-token switch, the boundary diff's two rows, the step-by-step panel's
tokenizer and text, whether the whole corpus is measured, the decode panel's tokenizer and ids, and
the pretrained tokenizer the run's merges are compared with (`overlap`, when not GPT-2).

`open_link()` puts a link's values into the widgets on the session's first script run
(before they are drawn), and brings back the uploads it names from the run store (where every
upload is kept by its key, bounded: explorer.session.serving.save_upload, read back by
explorer.session.upload_jobs.stored_uploads);
`pick_from_link` ticks the link's columns; `link_params` is the other direction, from what the
page shows. The parameters, and what the page says of columns it does not have:
explorer.session.compare_params. explorer.ui.common.link adds the run and the session's runs.

What it does not do: draw anything but the notes about sentences too long for a link, or
decide which columns exist (explorer.ui.compare.sections).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import streamlit as st

from explorer.compare import TokenizerColumn, UploadedTokenizer
from explorer.compare.merge_overlap import BYTE_LEVEL_BPE, DEFAULT_PRETRAINED
from explorer.compare.upload_checks import SESSION_UPLOADS, keep_uploads
from explorer.compare.uploads import shared_upload
from explorer.runs.settings import limits_or_defaults
from explorer.runstore.keys import is_upload_key
from explorer.session import serving, upload_jobs
from explorer.session.compare_params import (
    COLUMNS_PARAM,
    DECODE_PARAM,
    DEFAULT_TEXT,
    DIFF_PARAM,
    IDS_PARAM,
    NO_COLUMNS,
    OVERLAP_PARAM,
    SHORT_TEXT_LIMIT,
    SPECIAL_PARAM,
    STEPS_PARAM,
    STEPS_TEXT_PARAM,
    TEXT_LINK_LIMIT,
    TEXT_PARAM,
    WHOLE_PARAM,
    column_ids,
    text_for_link,
)
from explorer.ui.common import state

W = state.Widget


def link_params(shown: Sequence[TokenizerColumn]) -> dict[str, str | None]:
    """Compare's own URL parameters, from what the page shows (its widgets' values)."""
    text, _ = text_for_link(state.get(W.SENTENCES) or "")
    ids = (state.get(W.DECODE_IDS) or "").strip()
    has_diff = len(shown) >= 2 and state.get(W.DIFF_TOP) and state.get(W.DIFF_BOTTOM)
    return {
        COLUMNS_PARAM: ",".join(column.key for column in shown) or NO_COLUMNS,
        TEXT_PARAM: None if text == DEFAULT_TEXT else text or "\n",
        SPECIAL_PARAM: "1" if state.get(W.COMPARE_SPECIAL_TOKENS) else None,
        DIFF_PARAM: f"{state.get(W.DIFF_TOP)},{state.get(W.DIFF_BOTTOM)}" if has_diff else None,
        STEPS_PARAM: state.get(W.STEPS_COLUMN) if shown else None,
        STEPS_TEXT_PARAM: (state.get(W.COMPARE_STEPS_TEXT) or "")[:SHORT_TEXT_LIMIT] or None,
        WHOLE_PARAM: "1" if state.get(state.MEASURE_WHOLE) else None,
        DECODE_PARAM: state.get(W.DECODE_COLUMN) if ids else None,
        IDS_PARAM: ids[:SHORT_TEXT_LIMIT] or None,
        OVERLAP_PARAM: overlap
        if (overlap := state.get(W.OVERLAP_PRETRAINED)) != DEFAULT_PRETRAINED
        else None,
    }


def dropped_lines_note() -> str | None:
    """A sentence when the link does not keep every line of the sentences, else None."""
    _, dropped = text_for_link(state.get(W.SENTENCES) or "")
    if not dropped:
        return None
    return (
        f"The link to this page keeps the sentences up to {TEXT_LINK_LIMIT:,} characters: its last "
        f"{dropped:,} line{'s' if dropped != 1 else ''} are not in it."
    )


def open_link() -> list[str]:
    """On the session's first script run: the link's sentences, switch, diff rows, step-by-step
    panel, decode panel and whole-corpus choice into the widgets, and its uploads back from the
    store into the session's uploads. Values that are not options are dropped where the widgets
    are drawn (explorer.ui.compare.sections keeps only choices that exist). Returns what the page
    says about the link: its sentences cut at `TEXT_LINK_LIMIT` (no link the app writes is longer;
    a longer one was made by hand)."""
    params = st.query_params
    notes = []
    if TEXT_PARAM in params:
        text = params[TEXT_PARAM][:TEXT_LINK_LIMIT]
        state.put(W.SENTENCES, text)
        state.put(state.COMPARE_TEXT, text)
        if len(params[TEXT_PARAM]) > TEXT_LINK_LIMIT:
            notes.append(
                f"The link's sentences are {len(params[TEXT_PARAM]):,} characters long: a link keeps at "
                f"most {TEXT_LINK_LIMIT:,}, so the first {TEXT_LINK_LIMIT:,} are shown. Paste longer text "
                "in the box."
            )
    state.put(W.COMPARE_SPECIAL_TOKENS, params.get(SPECIAL_PARAM) == "1")
    top, _, bottom = params.get(DIFF_PARAM, "").partition(",")
    if top and bottom:
        state.put(W.DIFF_TOP, top)
        state.put(W.DIFF_BOTTOM, bottom)
    if params.get(STEPS_PARAM):
        state.put(W.STEPS_COLUMN, params[STEPS_PARAM])
    if STEPS_TEXT_PARAM in params:
        state.put(W.COMPARE_STEPS_TEXT, params[STEPS_TEXT_PARAM][:SHORT_TEXT_LIMIT])
    state.put(state.MEASURE_WHOLE, params.get(WHOLE_PARAM) == "1")
    if IDS_PARAM in params:
        state.put(W.DECODE_IDS, params[IDS_PARAM][:SHORT_TEXT_LIMIT])
        if params.get(DECODE_PARAM):
            state.put(W.DECODE_COLUMN, params[DECODE_PARAM])
    if params.get(OVERLAP_PARAM) in BYTE_LEVEL_BPE:  # the section is open where the link was copied
        state.put(W.OVERLAP_PRETRAINED, params[OVERLAP_PARAM])
        state.put(W.SECTION_OVERLAP, True)
    state.put(state.LINK_UPLOAD_NOTES, uploads_from_store(column_ids(params) or []))
    return notes


def uploads_from_store(keys: Sequence[str]) -> list[str]:
    """The uploads a link names, read again from the files the store keeps, into the session's
    uploads within their bound (explorer.compare.upload_checks.keep_uploads); what was left out,
    in sentences (the picker says them: `state.LINK_UPLOAD_NOTES`)."""
    remembered: OrderedDict[str, UploadedTokenizer] = state.get(state.UPLOADED_TOKENIZERS) or OrderedDict()
    found = upload_jobs.stored_uploads(keys, remembered)
    remembered, notes = keep_uploads(remembered, list(found.values()), limits_or_defaults()[0])
    state.put(state.UPLOADED_TOKENIZERS, remembered)
    named = len({key for key in keys if is_upload_key(key)})
    if named > SESSION_UPLOADS:
        notes.append(
            f"This link names {named} uploaded tokenizers; a session keeps {SESSION_UPLOADS}: the last "
            f"{SESSION_UPLOADS} it names are opened."
        )
    return notes


def remember_uploads(found: Sequence[UploadedTokenizer]) -> None:
    """Keep the files of newly read uploads in the store, so that links to their columns open;
    under names for their kind (`shared_upload`): the names the visitor gave them stay here."""
    for tokenizer in found:
        shared = shared_upload(tokenizer)
        serving.save_upload(tokenizer.key, [(file.name, file.data) for file in shared.files])


def pick_from_link(columns: Sequence[TokenizerColumn]) -> list[str]:
    """On the session's first script run: the link's columns ticked (those that exist here), every
    other one unticked; returns the ids the link names that are not here (expired: their sentences
    are explorer.session.compare_params.missing_notes)."""
    wanted = column_ids(st.query_params)
    if wanted is None:
        return []
    available = {column.key for column in columns}
    state.put(W.COLUMNS, [key for key in wanted if key in available])
    state.put(state.SEEN_COLUMNS, available)
    return [key for key in wanted if key not in available]
