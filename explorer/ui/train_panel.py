"""The Train page's widgets (corpus, settings) and its summary of a finished run.

Widget values live under `state.Widget` keys with `persist_state="session"`, so they survive a
visit to another page. They are initialised once per session: from the link's query parameters,
else from the current run, else from the defaults; the vocabulary slider and the exact number
input are kept in sync by callbacks; switching algorithm loads that algorithm's defaults.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import streamlit as st

from explorer.samples import SAMPLE_SENTENCES, SAMPLES
from explorer.ui import compare, frame, link, state, views
from explorer.ui.runs import Run
from explorer.ui.settings import (
    ALGORITHM_LABELS,
    FLAVOR_LABELS,
    MAX_VOCAB_SIZE,
    NORMALIZER_LABELS,
    PRE_TOKENIZER_LABELS,
    SLIDER_MAX_VOCAB_SIZE,
    Settings,
    defaults_for,
)

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


def _load_settings(settings: Settings) -> None:
    st.session_state[W.ALGORITHM] = settings.algorithm
    st.session_state[W.FLAVOR] = settings.flavor
    st.session_state[W.VOCAB_NUMBER] = settings.vocab_size
    st.session_state[W.VOCAB_SLIDER] = max(1, min(settings.vocab_size, SLIDER_MAX_VOCAB_SIZE))
    st.session_state[W.PRE_TOKENIZER] = settings.pre_tokenizer
    st.session_state[W.NORMALIZERS] = list(settings.normalizers)
    st.session_state[W.MIN_FREQUENCY] = settings.min_frequency
    st.session_state[W.SPECIAL_TOKENS] = settings.special_tokens
    st.session_state[W.PREFIX] = settings.prefix
    st.session_state[W.SUFFIX] = settings.suffix


def _load_sample(sample_key: str | None) -> None:
    st.session_state[W.SAMPLE] = sample_key or NO_SAMPLE
    st.session_state[W.CORPUS] = SAMPLES[sample_key].text if sample_key else ""


def initialise() -> tuple[list[str], bool]:
    """Set every widget's first value once per session.

    Returns notes about the link and whether this first run came with a link (then the page
    trains it, so that the link reproduces the view)."""
    if state.get(state.URL_READ):
        return [], False
    state.put(state.URL_READ, True)
    from_link = link.read()
    run = state.current_run()
    notes: list[str] = []
    if from_link is not None:
        settings, sample_key, notes = from_link
        _load_settings(settings)
        _load_sample(sample_key)
    elif run is not None:
        _load_settings(run.settings)
        _load_sample(run.sample_key)
    else:
        _load_settings(defaults_for("bpe"))
        _load_sample(DEFAULT_SAMPLE)
    return notes, from_link is not None and bool(state.get(state.FIRST_RUN))


# ---------------------------------------------------------------- callbacks


def _on_sample_change() -> None:
    key = st.session_state[W.SAMPLE]
    if key:
        st.session_state[W.CORPUS] = SAMPLES[key].text


def _on_corpus_change() -> None:
    key = st.session_state.get(W.SAMPLE)
    if key and st.session_state[W.CORPUS] != SAMPLES[key].text:
        st.session_state[W.SAMPLE] = NO_SAMPLE


def _on_algorithm_change() -> None:
    defaults = defaults_for(st.session_state[W.ALGORITHM])
    st.session_state[W.PRE_TOKENIZER] = defaults.pre_tokenizer
    st.session_state[W.SPECIAL_TOKENS] = defaults.special_tokens
    st.session_state[W.PREFIX] = defaults.prefix
    st.session_state[W.SUFFIX] = defaults.suffix


def _on_slider_change() -> None:
    st.session_state[W.VOCAB_NUMBER] = st.session_state[W.VOCAB_SLIDER]


def _on_number_change() -> None:
    value = st.session_state[W.VOCAB_NUMBER]
    if value is not None:
        st.session_state[W.VOCAB_SLIDER] = int(max(1, min(value, SLIDER_MAX_VOCAB_SIZE)))


# ---------------------------------------------------------------- widgets


def corpus_input() -> Corpus | None:
    """Sample picker, text area and upload; an upload wins over the text area. None on a bad upload."""
    st.selectbox(
        "Sample corpus",
        [NO_SAMPLE, *SAMPLES],
        format_func=lambda key: SAMPLES[key].label if key else "none: paste or upload your own",
        key=W.SAMPLE,
        on_change=_on_sample_change,
        persist_state=PERSIST,
    )
    st.text_area(
        "Corpus",
        key=W.CORPUS,
        height=220,
        on_change=_on_corpus_change,
        placeholder="Paste text here: each line is one training sequence.",
        help="Each line is one sequence, like `train_from_iterator(lines)` in the tokenizers library.",
        persist_state=PERSIST,
    )
    upload = st.file_uploader(
        "Or upload a .txt file (UTF-8)",
        type=["txt"],
        key=W.UPLOAD,
        help="The file is used instead of the text above. Links never contain an uploaded corpus.",
    )
    if upload is not None:
        try:
            text = upload.getvalue().decode("utf-8-sig")
        except UnicodeDecodeError as error:
            st.error(
                f"The uploaded file is not UTF-8 text (invalid byte at position {error.start:,}). "
                "Save it as UTF-8 and upload it again."
            )
            return None
        frame.note(f"Using the uploaded file {upload.name!r} ({len(text):,} characters) instead of the text above.")
        return Corpus(text, upload.name, None)
    text = st.session_state.get(W.CORPUS) or ""
    sample_key = st.session_state.get(W.SAMPLE) or None
    if sample_key and text == SAMPLES[sample_key].text:
        return Corpus(text, SAMPLES[sample_key].label, sample_key)
    return Corpus(text, "pasted text", None)


def settings_input() -> Settings:
    """The training settings widgets; returns what they say (validated only when training)."""
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
            max_value=SLIDER_MAX_VOCAB_SIZE,
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
            help=f"From 1 to {MAX_VOCAB_SIZE:,}; the slider goes to {SLIDER_MAX_VOCAB_SIZE:,}.",
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
            "End-of-word suffix", key=W.SUFFIX, help="Marks a token that ends a word (e.g. </w>).", persist_state=PERSIST
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


# ---------------------------------------------------------------- summary


def summary(run: Run) -> None:
    """Metric rows about a finished run, then the sample sentences it tokenizes."""
    trace = run.trace
    st.html(f'<div style="font-weight:600;">Result of run {html.escape(run.name, quote=True)}</div>')
    row = st.columns(4)
    row[0].metric("Merges learned", f"{trace.steps:,}")
    row[1].metric("Final vocabulary size", f"{len(trace.vocab):,}")
    row[2].metric("Initial vocabulary", f"{trace.initial_vocab_size:,}", help="Special tokens and the alphabet.")
    row[3].metric("Time taken", f"{trace.seconds:.2f} s")
    row = st.columns([2, 1, 1, 1])
    row[0].metric("Stop reason", views.stop_reason_text(trace))
    row[1].metric("Corpus characters", f"{run.characters:,}")
    row[2].metric("Words", f"{run.words:,}", help="Pre-tokenized words (pieces), counted with repeats.")
    row[3].metric("Distinct words", f"{run.distinct_words:,}")
    if trace.steps == 0:
        st.info(
            f"No merge was learned ({views.stop_reason_text(trace)}). The initial vocabulary already has "
            f"{trace.initial_vocab_size:,} tokens: choose a larger vocabulary size or a longer corpus."
        )
    st.subheader("The tutorial's sample sentences with this tokenizer")
    column = compare.run_column(run, "this run")
    body, _ = compare.column_html(column, list(SAMPLE_SENTENCES))
    st.html(body)
    st.page_link("pages/1_Merge_history.py", label="Watch the merges happen", icon=":material/movie:")
