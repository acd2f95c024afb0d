"""The Train page's corpus: a sample picker, a text area (a preview for a large sample) and an
upload; then the corpus check, shown as soon as there is text.

Choosing a sample fills the text area; editing the text area unselects the sample. An upload wins
over the text area, which it replaces on the page while it is used (a note names the file, with
"Forget it"), and is read once per file (`read_upload`: decoded, checked, its size and lines
counted) and remembered in the session (`state.UPLOADED_CORPUS`), because the uploader forgets its
file when the visitor goes to another page: a rerun with a 49 MB upload reads nothing again. Every
input goes through explorer.checks: an upload through `decode_upload`, the corpus through
`check_corpus` (via `training.corpus_check`; errors block training, warnings do not); a corpus over
the size limit gets "Train on the first X MB" and "Train on a random sample of lines"
(`corpus_prefix`, `sample_lines`). A `.parquet` upload is a count file, read and checked in a
worker (explorer.session.count_uploads): a corpus with no text (`Corpus.counts`), whose settings
the form shows fixed (`fixed_counting`). Messages that hold user text go through `frame.error` /
`frame.warning`.

What it does not do: give the widgets their first values (explorer.ui.train.settings_form), start
training (explorer.ui.train.train_controls), or check the settings (explorer.ui.train.settings_form).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.checks import (
    InputError,
    Limits,
    corpus_prefix,
    decode_upload,
    format_size,
    over_size,
    sample_lines,
    utf8_size,
)
from explorer.corpora.counting import Counting
from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.token_html import escape_text, scroll_region
from explorer.drawing.wording import character_count, plural
from explorer.samples import SAMPLES, Sample
from explorer.session.count_uploads import (
    REUPLOAD,
    CountFile,
    count_file_of,
    is_count_file_name,
    read_count_upload,
)
from explorer.session.host_corpora import HostCorpus, host_corpora
from explorer.ui.common import frame, state, training

W = state.Widget
PASTED_LABEL = "pasted text"
UPLOADED_LABEL = "uploaded file"  # a file's name stays in its visitor's session
NO_SAMPLE = ""  # the sample picker's "none: paste or upload your own"
PASTE_LIMIT_FACTOR = 2  # the text area takes up to twice the corpus limit (in characters)
PREVIEW_LINES = 12  # lines of a large sample shown instead of its text
AREA_HEIGHT = 220


@dataclass(frozen=True)
class Corpus:
    """The text to train on, how the run will name it, and the built-in sample it is (or None).
    A host's file (`host`, explorer.session.host_corpora) has no text here: its `sample_key` is
    the file's key in the sample picker, and a worker reads it where it is."""

    text: str
    label: str
    sample_key: str | None
    # What others may see it called (the store keeps this): the label without a file name.
    shared_label: str = PASTED_LABEL
    host: HostCorpus | None = None
    counts: CountFile | None = None  # an uploaded count file: its words and counts, no text

    @property
    def source(self) -> HostCorpus | CountFile | None:
        """What a run without text here trains from: a host's file or a count file (else None)."""
        return self.host if self.host is not None else self.counts


def text_area_text(sample_key: str | None) -> str:
    """What the corpus text area holds for a sample: its text, or nothing for a large one (every
    rerun would send a 1 MB text area back to the server; a preview is shown instead)."""
    sample = SAMPLES.get(sample_key) if sample_key else None
    return "" if sample is None or sample.large else sample.text


@dataclass(frozen=True)
class Upload:
    """A file from the uploader, read once (`read_upload`): Streamlit's id of the file (a new one
    for every file chosen), the corpus it is or the sentence saying why it cannot be one (both None
    once the visitor forgot it), and its size in bytes and lines for the page's note (counted here,
    not on every rerun)."""

    file_id: str
    corpus: Corpus | None
    problem: str | None
    size: int
    lines: int


def read_upload(file_id: str, data: bytes, name: str, limits: Limits) -> Upload:
    """An uploaded file as a corpus, or the message saying why it cannot be one (decode_upload;
    a count file: explorer.session.count_uploads, read in a worker)."""
    if is_count_file_name(name):
        counts = read_count_upload(name, data, limits)
        if isinstance(counts, str):
            return Upload(file_id, None, counts, len(data), 0)
        corpus = Corpus("", name, None, UPLOADED_LABEL, counts=counts)
        return Upload(file_id, corpus, None, len(data), counts.figures.get("lines", 0))
    try:
        text = decode_upload(data, name)
    except InputError as error:
        return Upload(file_id, None, str(error), len(data), 0)
    return Upload(file_id, Corpus(text, name, None, UPLOADED_LABEL), None, utf8_size(text), _line_count(text))


def _line_count(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))


# ---------------------------------------------------------------- callbacks


def _on_sample_change() -> None:
    if state.undo_stale(W.SAMPLE):  # the sample a paste just replaced, sent before the browser knew
        return
    key = state.get(W.SAMPLE)
    if key:
        state.set_widget(W.CORPUS, text_area_text(key))


def _on_corpus_change() -> None:
    if state.undo_stale(W.CORPUS):  # the text a sample just replaced, sent before the browser knew
        return
    key = state.get(W.SAMPLE)
    if key and state.get(W.CORPUS) != text_area_text(key):
        state.set_widget(W.SAMPLE, NO_SAMPLE)


def _on_upload_change() -> None:
    """The visitor added or removed a file: a removed one is forgotten. (A page switch clears the
    uploader without this callback: the file read last is kept, see `corpus_input`.)"""
    if state.get(W.UPLOAD) is None:
        _forget_upload()


def _forget_upload() -> None:
    """The file read last is no longer used; its id is kept, so that the same file, still in the
    uploader, is not read (and used) again: only another file is."""
    upload = state.get(state.UPLOADED_CORPUS)
    if upload is not None:
        state.put(state.UPLOADED_CORPUS, replace(upload, corpus=None, problem=None))


# ---------------------------------------------------------------- widgets


def corpus_input(limits: Limits) -> Corpus | None:
    """Sample picker and text area, or the uploaded file in use in their place; then the uploader.
    None on a bad upload (its message is shown).

    The text area takes at most twice the corpus limit in characters (the browser cuts a longer
    paste), so a paste a little too large still gets the prefix / sample offer while a huge one
    never reaches the server's memory; the uploader takes `Limits.max_upload_mb`, and a larger
    file is pointed to the command line. A forgotten upload (`_forget_upload`) gives the text area
    back."""
    upload = _current_upload(limits)
    if upload is not None and upload.corpus is not None:
        _upload_note(upload)
        _uploader(limits)
        return upload.corpus
    sample = _sample_picker()
    if isinstance(sample, HostCorpus):
        _host_note(sample)
        _uploader(limits)
        return Corpus("", sample.name, sample.key, sample.name, host=sample)
    if sample is not None and sample.large:
        _sample_preview(sample)
    else:
        _text_area(limits)
    linked = _linked_count_file() if sample is None and not state.get(W.CORPUS) else None
    _uploader(limits)
    if upload is not None and upload.problem is not None:
        frame.error(upload.problem)
        return None
    if sample is not None and (sample.large or state.get(W.CORPUS) == sample.text):
        return Corpus(sample.text, sample.label, sample.key, sample.label)
    return linked or Corpus(state.get(W.CORPUS) or "", PASTED_LABEL, None)


def _linked_count_file() -> Corpus | None:
    """The count file of the session's run when this session has no copy of it (a link opened in
    a fresh session, or the upload forgotten), with a note saying so: the form's corpus is the
    run's, as the link says, until a sample, a text or another file is chosen."""
    run = state.current_run()
    counts = count_file_of(run) if run is not None else None
    if run is None or counts is None:
        return None
    frame.note(
        f"The corpus of run #{run.number} is an uploaded count file ({counts.describe()}). "
        f"{REUPLOAD} Or paste a text, pick a sample or upload another file."
    )
    return Corpus("", run.corpus_label, None, run.shared_label, counts=counts)


def _sample_picker() -> Sample | HostCorpus | None:
    """The sample corpus selectbox, the host's corpora files after the samples; the one chosen, if any."""
    hosted, problem = host_corpora()
    if problem:
        frame.warning(problem)
    by_key: dict[str, Sample | HostCorpus] = {**SAMPLES, **{corpus.key: corpus for corpus in hosted}}
    chosen = state.get(W.SAMPLE)
    if chosen and chosen not in by_key:  # a host's file gone since it was chosen
        state.put(W.SAMPLE, NO_SAMPLE)
    st.selectbox(
        "Sample corpus",
        [NO_SAMPLE, *by_key],
        format_func=lambda key: by_key[key].label if key else "none: paste or upload your own",
        key=W.SAMPLE,
        on_change=_on_sample_change,
        persist_state=state.PERSIST,
    )
    sample_key = state.get(W.SAMPLE)
    return by_key.get(sample_key) if sample_key else None


def _host_note(corpus: HostCorpus) -> None:
    """A host's file, in place of the text area: what it is and how it is read."""
    if corpus.counting is not None:
        frame.note(
            f"{corpus.name}: a count file of {format_size(corpus.size)} on the server, read where it is "
            "(never copied). Its run keeps its words and counts, not its text: the views that need "
            "running text use a sample instead."
        )
        return
    frame.note(
        f"{corpus.name}: {format_size(corpus.size)} on the server, read where it is and counted as it "
        "streams (never copied). Its run keeps its words and counts, not its text: the views that need "
        "running text use a sample instead."
    )


def _sample_preview(sample: Sample) -> None:
    """A large sample's size and first lines, in place of the text area. Plain HTML, not `st.code`:
    a code block makes the browser load Streamlit's syntax highlighter, whose script took about
    0.75 s of CPU on every load of a page that shows one, before the rest of the page was drawn
    (a large sample's run opened by its link: docs/serving.md)."""
    lines = sample.text.splitlines()
    size = f"{plural(character_count(sample.text), 'character')}, {plural(len(lines), 'line')}"
    st.caption(f"{sample.label}: {size} ({sample.source}). The first lines:")
    region = scroll_region(f"The first lines of {sample.label}")
    first_lines = escape_text("\n".join(lines[:PREVIEW_LINES]))
    st.html(f'<pre class="sample-preview"{region}>{first_lines}</pre>')


def _text_area(limits: Limits) -> None:
    unlimited = math.isinf(limits.max_corpus_mb)
    st.text_area(
        "Corpus",
        key=W.CORPUS,
        height=AREA_HEIGHT,
        on_change=_on_corpus_change,
        placeholder="Paste text here: each line is one training sequence.",
        max_chars=None if unlimited else PASTE_LIMIT_FACTOR * limits.max_corpus_bytes,
        help="Each line is one sequence, like `train_from_iterator(lines)` in the tokenizers library, or "
        "with its line break kept, like `train(files)` (the reading, in Advanced settings).",
        persist_state=state.PERSIST,
    )


def _current_upload(limits: Limits) -> Upload | None:
    """The file in the uploader, read once per file (the session remembers it, and a rerun reads
    nothing again), or the file read last when the uploader has forgotten it (a page switch)."""
    remembered = state.get(state.UPLOADED_CORPUS)
    file = state.get(W.UPLOAD)
    if file is None or (remembered is not None and remembered.file_id == file.file_id):
        return remembered
    # A spinner (shown after half a second): a 49 MB file takes seconds to decode and check.
    with st.spinner(f"Reading {markdown_literal(file.name)} ({format_size(file.size)})..."):
        upload = read_upload(file.file_id, file.getvalue(), file.name, limits)
    state.put(state.UPLOADED_CORPUS, upload)
    # Its text (and what digested or checked it) goes when the visitor does (a closed tab).
    state.release_when_gone(state.UPLOADED_CORPUS, state.FORM_DIGEST, state.CORPUS_CHECK)
    _let_go(file.file_id)
    return upload


def _let_go(file_id: str) -> None:
    """Streamlit's copy of a file read: dropped, as its uploader's "x" drops it (the server held
    the 49 MB of bytes beside their text for as long as the session lasted). The uploader's value
    is None from the next rerun; the browser still shows the file's name in it."""
    context = get_script_run_ctx()
    # The memory manager Streamlit serves with has it; its interface does not promise it.
    remove_file = getattr(context.uploaded_file_mgr, "remove_file", None) if context is not None else None
    if context is not None and remove_file is not None:
        remove_file(context.session_id, file_id)


def _uploader(limits: Limits) -> None:
    """The file uploader (its file is read by `_current_upload`), and where a larger file goes."""
    st.file_uploader(
        f"Or upload a .txt file (UTF-8) or a count file (.parquet), up to {limits.max_upload_mb:,} MB",
        type=["txt", "parquet"],
        key=W.UPLOAD,
        on_change=_on_upload_change,
        help="The file is used instead of the text above; it stays when you visit other pages, and up to "
        "4 MB it is stored with its run so that a reload or the run's link brings it back. A link never "
        "shows it to anyone who does not have the link. A count file (`python -m explorer count FILE "
        "--out counts.parquet`) trains from its words and counts, with the settings it was made with.",
        max_upload_size=limits.max_upload_mb,
    )
    # The uploader refuses a larger file in the browser, with only a red mark whose reason is a tooltip.
    # Plain text, not inline code: a caption's code is drawn below the 4.5:1 contrast text needs.
    st.caption(
        f"A file over {limits.max_upload_mb:,} MB: train it with the command line, "
        f'"python -m explorer train FILE --vocab-size N" (README, "Command line").'
    )


def _upload_note(upload: Upload) -> None:
    """Which uploaded file is used (in place of the sample picker and text area), and a button to
    forget it."""
    corpus = upload.corpus
    assert corpus is not None  # only a file that is a corpus is used
    note, forget = st.columns([4, 1], vertical_alignment="center")
    with note:
        if corpus.counts is not None:
            frame.note(
                f"Using the uploaded count file {corpus.label!r} ({corpus.counts.describe()}) as the "
                "corpus: its run keeps its words and counts, not its text (the views that need running "
                "text use a sample instead)."
            )
        else:
            frame.note(
                f"Using the uploaded file {corpus.label!r} ({format_size(upload.size)}, "
                f"{plural(upload.lines, 'line')}) as the corpus."
            )
    forget.button("Forget it", key=W.FORGET_UPLOAD, on_click=_forget_upload, icon=":material/close:")


def fixed_counting(corpus: Corpus | None) -> Counting | None:
    """The settings a count file's words were made with, which the form shows fixed (else None)."""
    if corpus is None or corpus.source is None:
        return None
    return corpus.source.counting


# ---------------------------------------------------------------- the check


def shrunk_corpus(corpus: Corpus, limits: Limits, how: str) -> Corpus:
    """A corpus over the size limit made to fit: its first X MB, cut after a line break
    (`how="prefix"`), or a random sample of its lines in their order, the same sample every time
    (`how="sample"`)."""
    limit = limits.max_corpus_bytes
    shown = format_size(limit)
    if how == "prefix":
        return Corpus(
            corpus_prefix(corpus.text, limit),
            f"first {shown} of {corpus.label}",
            None,
            f"first {shown} of {corpus.shared_label}",
        )
    return Corpus(
        sample_lines(corpus.text, limit),
        f"random lines ({shown}) of {corpus.label}",
        None,
        f"random lines ({shown}) of {corpus.shared_label}",
    )


def corpus_feedback(corpus: Corpus | None, limits: Limits) -> tuple[bool, Corpus | None]:
    """The corpus check, shown as soon as there is text: errors (they block training) and
    warnings. Over the size limit, two buttons offer a smaller corpus.

    Returns (whether the corpus can be trained, the smaller corpus if one of the buttons was
    clicked in this script run)."""
    if corpus is not None and corpus.source is not None:  # a host's file (trusted), a count file (read)
        return True, None
    if corpus is None or not corpus.text or corpus.text.isspace():  # no copy of a large text
        return False, None  # "empty" is said when Train is clicked, not while typing
    with st.spinner("Checking the corpus..."):
        check = training.corpus_check(corpus.text, limits)
    frame.show_check(check)
    if not over_size(corpus.text, limits.max_corpus_bytes):
        return check.ok, None
    return False, _shrink_buttons(corpus, limits)


def _shrink_buttons(corpus: Corpus, limits: Limits) -> Corpus | None:
    """'Train on the first X MB' and 'Train on a random sample of lines': the smaller corpus of
    the one clicked in this script run, else None."""
    shown = format_size(limits.max_corpus_bytes)
    busy = training.current_job() is not None
    # One per row, full width: side by side, the second label was cut off ("Train on a random sa…").
    offers = (
        ("prefix", f"Train on the first {shown}", W.TRAIN_PREFIX, ":material/content_cut:"),
        ("sample", f"Train on a random sample of lines ({shown})", W.TRAIN_SAMPLE, ":material/shuffle:"),
    )
    clicked = [
        how
        for how, label, key, icon in offers
        if st.button(label, key=key, icon=icon, disabled=busy, width="stretch")
    ]
    return shrunk_corpus(corpus, limits, clicked[0]) if clicked else None
