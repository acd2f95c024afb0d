"""The Train page's widgets (corpus, settings), the checks shown next to them, the Train / Stop
controls and the summary of a finished run.

Widget values live under `state.Widget` keys with `persist_state="session"`, so they survive a
visit to another page. They are initialised once per session: from the link's query parameters,
else from the current run, else from the defaults; the vocabulary slider and the exact number
input are kept in sync by callbacks; switching algorithm loads that algorithm's defaults.

Every input goes through explorer.checks (via explorer.ui.training's checks): an upload through
`decode_upload`, the corpus through `check_corpus` (shown as soon as it is typed; errors block
training, warnings do not), a corpus over the size limit gets "Train on the first X MB" and "Train
on a random sample of lines" (`corpus_prefix` / `sample_lines`), the special tokens and the
vocabulary size through `check_special_tokens` and `check_vocab_size`. Messages that hold user
text are shown through `frame.error` / `frame.warning` (Markdown kept literal).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import streamlit as st

from explorer.checks import (
    InputError,
    Limits,
    corpus_prefix,
    decode_upload,
    format_size,
    sample_lines,
    utf8_size,
)
from explorer.explain import explain_vocab_size
from explorer.samples import SAMPLE_SENTENCES, SAMPLES
from explorer.tokens import lost_characters
from explorer.ui import frame, link, literal, state, training
from explorer.ui.runs import Run
from explorer.ui.settings import (
    ALGORITHM_LABELS,
    FLAVOR_LABELS,
    NORMALIZER_LABELS,
    PRE_TOKENIZER_LABELS,
    Settings,
    defaults_for,
    slider_max_vocab_size,
)
from explorer.wording import format_seconds, plural

W = state.Widget
DEFAULT_SAMPLE = "scarlet"
NO_SAMPLE = ""
PERSIST = "session"


@dataclass(frozen=True)
class Corpus:
    text: str
    label: str
    sample_key: str | None


# ---------------------------------------------------------------- initial values


def _load_settings(settings: Settings, limits: Limits) -> None:
    st.session_state[W.ALGORITHM] = settings.algorithm
    st.session_state[W.FLAVOR] = settings.flavor
    st.session_state[W.VOCAB_NUMBER] = settings.vocab_size
    st.session_state[W.VOCAB_SLIDER] = max(1, min(settings.vocab_size, slider_max_vocab_size(limits)))
    st.session_state[W.PRE_TOKENIZER] = settings.pre_tokenizer
    st.session_state[W.NORMALIZERS] = list(settings.normalizers)
    st.session_state[W.MIN_FREQUENCY] = settings.min_frequency
    st.session_state[W.SPECIAL_TOKENS] = settings.special_tokens
    st.session_state[W.PREFIX] = settings.prefix
    st.session_state[W.SUFFIX] = settings.suffix


def _load_sample(sample_key: str | None) -> None:
    st.session_state[W.SAMPLE] = sample_key or NO_SAMPLE
    st.session_state[W.CORPUS] = _text_area_text(sample_key)


def _text_area_text(sample_key: str | None) -> str:
    """What the corpus text area holds for a sample: its text, or nothing for a large one (every
    rerun would send a 1 MB text area back to the server; a preview is shown instead)."""
    sample = SAMPLES.get(sample_key) if sample_key else None
    return "" if sample is None or sample.large else sample.text


def initialise(limits: Limits) -> None:
    """Set every widget's first value once per session: from the link (its settings; its sample,
    or the corpus of the run it names when that was pasted or uploaded), else from the current
    run, else from the defaults. (The frame has already opened the link's run: explorer.ui.link.)"""
    if state.get(state.URL_READ):
        return
    state.put(state.URL_READ, True)
    from_link = link.read()
    run = state.current_run()
    if run is not None:
        state.put(state.CORPUS_RESTORED, run.store_key)
    if from_link is not None:
        settings, sample_key, _ = from_link
        _load_settings(settings, limits)
        _load_sample(sample_key)
        if not sample_key and run is not None and run.sample_key is None:
            _load_pasted(run)
    elif run is not None:
        _load_settings(run.settings, limits)
        _load_sample(run.sample_key)
        if run.sample_key is None:
            _load_pasted(run)
    else:
        _load_settings(defaults_for("bpe"), limits)
        _load_sample(DEFAULT_SAMPLE)


def restore_pasted_corpus() -> None:
    """A run that arrived after the first view (a reload during its training): when it was pasted
    or uploaded and the text area is still empty, its corpus comes back there, once."""
    run = state.current_run()
    if run is None or run.sample_key is not None or state.get(state.CORPUS_RESTORED) == run.store_key:
        return
    state.put(state.CORPUS_RESTORED, run.store_key)
    if not st.session_state.get(W.CORPUS) and not st.session_state.get(W.SAMPLE):
        _load_pasted(run)


def _load_pasted(run: Run) -> None:
    """The corpus of a pasted or uploaded run, back in the text area (a reload brings it back)."""
    text = state.trained_corpus_text(run)
    if text is not None:
        st.session_state[W.CORPUS] = text


# ---------------------------------------------------------------- callbacks


def _on_sample_change() -> None:
    key = st.session_state[W.SAMPLE]
    if key:
        st.session_state[W.CORPUS] = _text_area_text(key)


def _on_corpus_change() -> None:
    key = st.session_state.get(W.SAMPLE)
    if key and st.session_state[W.CORPUS] != _text_area_text(key):
        st.session_state[W.SAMPLE] = NO_SAMPLE


def _on_upload_change() -> None:
    """The visitor added or removed a file: a removed one is forgotten. (A page switch clears the
    uploader without this callback: the file read last is kept, see `corpus_input`.)"""
    if st.session_state.get(W.UPLOAD) is None:
        state.put(state.UPLOADED_CORPUS, None)


def _forget_upload() -> None:
    state.put(state.UPLOADED_CORPUS, None)


def _on_algorithm_change() -> None:
    defaults = defaults_for(st.session_state[W.ALGORITHM])
    st.session_state[W.PRE_TOKENIZER] = defaults.pre_tokenizer
    st.session_state[W.SPECIAL_TOKENS] = defaults.special_tokens
    st.session_state[W.PREFIX] = defaults.prefix
    st.session_state[W.SUFFIX] = defaults.suffix


def _on_slider_change() -> None:
    st.session_state[W.VOCAB_NUMBER] = st.session_state[W.VOCAB_SLIDER]


def _on_number_change(slider_max: int) -> None:
    value = st.session_state[W.VOCAB_NUMBER]
    if value is not None:
        st.session_state[W.VOCAB_SLIDER] = int(max(1, min(value, slider_max)))


# ---------------------------------------------------------------- widgets


def uploaded_corpus(data: bytes, name: str) -> tuple[Corpus | None, str | None]:
    """An uploaded file as a corpus, or the message saying why it cannot be one (decode_upload)."""
    try:
        return Corpus(decode_upload(data, name), name, None), None
    except InputError as error:
        return None, str(error)


PASTE_LIMIT_FACTOR = 2  # the text area takes up to twice the corpus limit (in characters)


def corpus_input(limits: Limits) -> Corpus | None:
    """Sample picker, text area and upload; an upload wins over the text area. None on a bad upload
    (its message is shown).

    The text area takes at most twice the corpus limit in characters (the browser cuts a longer
    paste), so a paste a little too large still gets the prefix / sample offer while a huge one
    never reaches the server's memory; the uploader takes `Limits.max_upload_mb`."""
    st.selectbox(
        "Sample corpus",
        [NO_SAMPLE, *SAMPLES],
        format_func=lambda key: SAMPLES[key].label if key else "none: paste or upload your own",
        key=W.SAMPLE,
        on_change=_on_sample_change,
        persist_state=PERSIST,
    )
    sample_key = st.session_state.get(W.SAMPLE) or None
    sample = SAMPLES.get(sample_key) if sample_key else None
    if sample is not None and sample.large:
        lines = sample.text.splitlines()
        st.caption(
            f"{sample.label}: {len(sample.text):,} characters, {len(lines):,} lines ({sample.source}). The first lines:"
        )
        st.code("\n".join(lines[:12]), language=None, height=220)
    else:
        st.text_area(
            "Corpus",
            key=W.CORPUS,
            height=220,
            on_change=_on_corpus_change,
            placeholder="Paste text here: each line is one training sequence.",
            max_chars=None
            if math.isinf(limits.max_corpus_mb)
            else PASTE_LIMIT_FACTOR * limits.max_corpus_bytes,
            help="Each line is one sequence, like `train_from_iterator(lines)` in the tokenizers library.",
            persist_state=PERSIST,
        )
    upload = st.file_uploader(
        f"Or upload a .txt file (UTF-8, up to {limits.max_upload_mb:,} MB)",
        type=["txt"],
        key=W.UPLOAD,
        on_change=_on_upload_change,
        help="The file is used instead of the text above; it stays when you visit other pages, and it is "
        "stored with its run so that a reload or the run's link brings it back. A link never shows it to "
        "anyone who does not have the link.",
        max_upload_size=limits.max_upload_mb,
    )
    if upload is not None:
        corpus, problem = uploaded_corpus(upload.getvalue(), upload.name)
        if corpus is None:
            frame.error(problem)
            state.put(state.UPLOADED_CORPUS, None)
            return None
        state.put(state.UPLOADED_CORPUS, corpus)
    remembered = state.get(state.UPLOADED_CORPUS)
    if remembered is not None:
        note, forget = st.columns([4, 1], vertical_alignment="center")
        with note:
            frame.note(
                f"Using the uploaded file {remembered.label!r} ({len(remembered.text):,} characters, "
                f"{format_size(utf8_size(remembered.text))}) instead of the text above."
            )
        forget.button("Forget it", key=W.FORGET_UPLOAD, on_click=_forget_upload, icon=":material/close:")
        return remembered
    if sample is not None and (sample.large or st.session_state.get(W.CORPUS) == sample.text):
        return Corpus(sample.text, sample.label, sample_key)
    return Corpus(st.session_state.get(W.CORPUS) or "", "pasted text", None)


def shrunk_corpus(corpus: Corpus, limits: Limits, how: str) -> Corpus:
    """A corpus over the size limit made to fit: its first X MB, cut after a line break
    (`how="prefix"`), or a random sample of its lines in their order, the same sample every time
    (`how="sample"`)."""
    limit = limits.max_corpus_bytes
    shown = format_size(limit)
    if how == "prefix":
        return Corpus(corpus_prefix(corpus.text, limit), f"first {shown} of {corpus.label}", None)
    return Corpus(sample_lines(corpus.text, limit), f"random lines ({shown}) of {corpus.label}", None)


def corpus_feedback(corpus: Corpus | None, limits: Limits) -> tuple[bool, Corpus | None]:
    """The corpus check, shown as soon as there is text: errors (`st.error`, they block training)
    and warnings (`st.warning`). Over the size limit, two buttons offer a smaller corpus.

    Returns (whether the corpus can be trained, the smaller corpus if one of the buttons was
    clicked in this script run)."""
    if corpus is None:
        return False, None
    if not corpus.text.strip():
        return False, None  # "empty" is said when Train is clicked, not while typing
    check = training.corpus_check(corpus.text, limits)
    for message in check.errors:
        frame.error(message)
    for message in check.warnings:
        frame.warning(message)
    if utf8_size(corpus.text) <= limits.max_corpus_bytes:
        return check.ok, None
    shown = format_size(limits.max_corpus_bytes)
    # One per row, full width: side by side, the second label was cut off ("Train on a random sa…").
    clicked_prefix = st.button(
        f"Train on the first {shown}",
        key=W.TRAIN_PREFIX,
        icon=":material/content_cut:",
        disabled=training.current_job() is not None,
        width="stretch",
    )
    clicked_sample = st.button(
        f"Train on a random sample of lines ({shown})",
        key=W.TRAIN_SAMPLE,
        icon=":material/shuffle:",
        disabled=training.current_job() is not None,
        width="stretch",
    )
    if clicked_prefix or clicked_sample:
        return False, shrunk_corpus(corpus, limits, "prefix" if clicked_prefix else "sample")
    return False, None


def settings_input(limits: Limits) -> Settings:
    """The training settings widgets; returns what they say (checked by `settings_feedback`)."""
    left, right = st.columns(2)
    with left:
        st.radio(
            "Algorithm",
            list(ALGORITHM_LABELS),
            format_func=ALGORITHM_LABELS.get,
            key=W.ALGORITHM,
            on_change=_on_algorithm_change,
            horizontal=True,
            persist_state=PERSIST,
        )
    with right:
        st.radio(
            "Flavor",
            list(FLAVOR_LABELS),
            format_func=FLAVOR_LABELS.get,
            key=W.FLAVOR,
            horizontal=True,
            help="`tokenizers` library: bit-exact with BpeTrainer / WordPieceTrainer. "
            "Hugging Face course: the course notebooks' loops (WordPiece scores pairs by likelihood).",
            persist_state=PERSIST,
        )
    left, right = st.columns([3, 1])
    with left:
        st.slider(
            "Vocabulary size",
            min_value=1,
            max_value=slider_max_vocab_size(limits),
            key=W.VOCAB_SLIDER,
            on_change=_on_slider_change,
            persist_state=PERSIST,
        )
    with right:
        st.number_input(
            "Exact vocabulary size",
            step=1,
            key=W.VOCAB_NUMBER,
            on_change=_on_number_change,
            args=(slider_max_vocab_size(limits),),
            help=f"From 1 to {_shown_limit(limits.max_vocab)}; the slider goes to {slider_max_vocab_size(limits):,}.",
            persist_state=PERSIST,
        )
    left, right = st.columns(2)
    with left:
        st.selectbox(
            "Pre-tokenizer",
            list(PRE_TOKENIZER_LABELS),
            format_func=PRE_TOKENIZER_LABELS.get,
            key=W.PRE_TOKENIZER,
            persist_state=PERSIST,
        )
    with right:
        st.multiselect(
            "Normalizers",
            list(NORMALIZER_LABELS),
            format_func=NORMALIZER_LABELS.get,
            key=W.NORMALIZERS,
            help="Applied in the order chosen.",
            persist_state=PERSIST,
        )
    columns = st.columns(2) + st.columns(2)
    with columns[0]:
        st.text_input("Special tokens (comma-separated)", key=W.SPECIAL_TOKENS, persist_state=PERSIST)
    with columns[1]:
        st.number_input("Min frequency", min_value=0, step=1, key=W.MIN_FREQUENCY, persist_state=PERSIST)
    with columns[2]:
        st.text_input(
            "Continuing-subword prefix",
            key=W.PREFIX,
            help="Marks a token that continues a word (WordPiece: ##). Empty: none.",
            persist_state=PERSIST,
        )
    with columns[3]:
        st.text_input(
            "End-of-word suffix",
            key=W.SUFFIX,
            help="Marks a token that ends a word (e.g. </w>).",
            persist_state=PERSIST,
        )
    vocab_size = st.session_state.get(W.VOCAB_NUMBER)
    return Settings(
        algorithm=st.session_state[W.ALGORITHM],
        flavor=st.session_state[W.FLAVOR],
        vocab_size=int(vocab_size) if vocab_size is not None else 0,
        pre_tokenizer=st.session_state[W.PRE_TOKENIZER],
        normalizers=tuple(st.session_state[W.NORMALIZERS]),
        min_frequency=int(st.session_state[W.MIN_FREQUENCY] or 0),
        special_tokens=st.session_state[W.SPECIAL_TOKENS] or "",
        prefix=st.session_state[W.PREFIX] or "",
        suffix=st.session_state[W.SUFFIX] or "",
    )


def _shown_limit(value: float) -> str:
    return "any size" if math.isinf(value) else f"{int(value):,}"


def settings_feedback(settings: Settings, limits: Limits) -> bool:
    """The settings check (vocabulary size, special tokens, the trainer's rules): errors and
    warnings shown at once. Returns whether training may start."""
    check = training.settings_check(settings, limits)
    for message in check.errors:
        frame.error(message)
    for message in check.warnings:
        frame.warning(message)
    return check.ok


# ---------------------------------------------------------------- Train / Stop


def train_controls(
    corpus: Corpus | None,
    corpus_ok: bool,
    shrunk: Corpus | None,
    settings: Settings,
    settings_ok: bool,
    limits: Limits,
) -> None:
    """The Train button, the run in progress (Stop button, progress) and what the last training
    said. A click on Train with inputs that block training says what to fix."""
    job = training.current_job()
    clicked = st.button(
        "Train",
        key=W.TRAIN,
        type="primary",
        icon=":material/play_arrow:",
        disabled=job is not None,
        help="Trains in the background: a Stop button ends it early and keeps the merges learned so far.",
    )
    chosen = shrunk
    if clicked and corpus is not None:
        if not corpus.text.strip():
            empty = training.corpus_check(corpus.text, limits).errors[0]
            frame.error(f"{empty} Paste some text, upload a .txt file or pick a sample corpus.")
        elif not (corpus_ok and settings_ok):
            frame.error("Cannot train yet: fix the problems shown above first.")
        else:
            chosen = corpus
    if chosen is not None and job is None:
        if isinstance(
            training.start(chosen.text, settings, chosen.label, chosen.sample_key), training.TrainingJob
        ):
            st.rerun()  # draw the page again with Train disabled and the Stop button
    training.show_job()
    for kind, message in state.get(state.OUTCOME) or ():
        if kind == "caption":
            st.caption(message)
        else:
            frame.error(message)


# ---------------------------------------------------------------- summary


def summary(run: Run) -> None:
    """Metric rows about a finished run, then the sample sentences it tokenizes (with what it cannot
    represent of them, marked and counted)."""
    from explorer.ui import compare, views  # here: the page's first view (no run yet) needs neither

    trace = run.trace
    st.html(f'<div style="font-weight:600;">Result of run {html.escape(run.name, quote=True)}</div>')
    row = st.columns(4)
    row[0].metric("Merges learned", f"{trace.steps:,}")
    row[1].metric("Final vocabulary size", f"{len(trace.vocab):,}")
    row[2].metric(
        "Initial vocabulary", f"{trace.initial_vocab_size:,}", help="Special tokens and the alphabet."
    )
    row[3].metric("Time taken", format_seconds(trace.seconds))
    row = st.columns([2, 1, 1, 1])
    # A sentence, not a metric: a metric cuts long text off.
    row[0].markdown(f"Stop reason: **{literal.stop_reason_text(trace)}**")
    row[1].metric("Corpus characters", f"{run.characters:,}")
    row[2].metric("Words", f"{run.words:,}", help="Pre-tokenized words (pieces), counted with repeats.")
    row[3].metric("Distinct words", f"{run.distinct_words:,}")
    frame.info(explain_vocab_size(trace, run.settings.vocab_size, run.stopped_by))
    if trace.stop_reason == "stopped":
        frame.warning(
            f"Training was stopped by {run.stopped_by or 'the Stop button or a limit'} after {plural(trace.steps, 'merge')}. "
            "The merges learned so far are kept: every page shows this partial history."
        )
    notes = views.special_token_messages(run)
    if notes:
        with st.expander(f"Special tokens: {plural(len(notes), 'note')}"):
            for message in notes:
                frame.info(message)
    st.subheader("The tutorial's sample sentences with this tokenizer")
    column = compare.run_column(run, "this run")
    sentences = list(SAMPLE_SENTENCES)
    body, _ = compare.column_html(column, sentences, show_ids=state.show_ids())
    st.html(body)
    lost = sum(lost_characters(column.encode(sentence)) for sentence in sentences)
    if lost:
        frame.warning(
            f"This tokenizer cannot represent {plural(lost, 'character')} of these sentences: each is shown in a "
            "dashed box, as the unknown token with the text it stands for, or as dropped. A character it never saw "
            "in the corpus has no token (byte-level BPE with the library's 256-byte alphabet never drops one)."
        )
    else:
        st.caption("Every character of these sentences is represented by some token.")
    st.page_link("pages/1_Merge_history.py", label="Watch the merges happen", icon=":material/movie:")
