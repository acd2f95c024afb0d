"""The Train page's training settings: algorithm and flavor, vocabulary size, pre-tokenizer,
normalizers and reading (a text's lines with or without their endings), special tokens (these and
the next ones in a closed "Advanced settings" section whose label says what differs from the
defaults); for BPE and WordPiece min frequency, continuing-subword prefix and
end-of-word suffix; for Unigram seed size, longest piece, shrinking factor and unk token (empty
seed size or longest piece: the flavor's default, as in the CLI); and their check, shown at once.
A count file's corpus fixes the normalizers, pre-tokenizer and reading (its words were made with
them): the form shows them, disabled, and says so.

Widget values live under `state.Widget` keys with `persist_state="session"`, so they survive a
visit to another page. The vocabulary slider and the exact number input are kept in sync by
callbacks (the slider reaches `SLIDER_MAX_VOCAB_SIZE`, the number `Limits.max_vocab`); switching
algorithm loads that algorithm's pre-tokenizer, special tokens, prefix and suffix. Those callbacks
use `state.set_widget`, and the widgets they set undo a stale value (`state.undo_stale`): clicks
and typing while a slow run is drawn send the values the browser still shows, which would
otherwise overwrite them.

First values (`initialise`, once per session): from the run the link names (its settings, and its
sample or its pasted or uploaded corpus: the run wins over the link's other settings), else from
the link's settings and sample (a form not trained yet), else from the defaults (BPE on A Study in
Scarlet). A run that arrives after the first view (a reload during its training) gets its pasted
corpus back in the text area once, if the visitor has not typed anything meanwhile
(`restore_pasted_corpus`); `load_run` sets the form to what trained a run.

What it does not do: decide whether settings are valid (`explorer.session.requests.settings_check`
with explorer.checks does), or draw the corpus widgets (explorer.ui.train.corpus_input).
"""

from __future__ import annotations

import math

import streamlit as st

from explorer.checks import Limits
from explorer.corpora.counting import Counting
from explorer.runs.run import Run
from explorer.runs.settings import (
    ALGORITHM_LABELS,
    FLAVOR_LABELS,
    SHRINKING_FACTOR_RANGE,
    UNIGRAM_DEFAULTS,
    Settings,
    advanced_label,
    defaults_for,
    pre_tokenizer_choice,
    pre_tokenizer_name,
    slider_max_vocab_size,
    with_counting,
)
from explorer.session import requests
from explorer.ui.common import frame, link, state
from explorer.ui.train.corpus_input import NO_SAMPLE, text_area_text
from explorer.ui.train.pre_tokenization import fix_counting, keep_set_value, labelled_choice, pre_tokenization

W = state.Widget


def load_settings(settings: Settings, limits: Limits) -> None:
    """Every settings widget set to `settings` (before the widgets are drawn)."""
    state.put_all(
        {
            W.ALGORITHM: settings.algorithm,
            W.FLAVOR: settings.flavor,
            W.VOCAB_NUMBER: settings.vocab_size,
            W.VOCAB_SLIDER: max(1, min(settings.vocab_size, slider_max_vocab_size(limits))),
            W.PRE_TOKENIZER: pre_tokenizer_choice(settings.pre_tokenizer)[0],
            W.SPLIT_PATTERN: pre_tokenizer_choice(settings.pre_tokenizer)[1],
            W.NORMALIZERS: list(settings.normalizers),
            W.READING: settings.reading,
            W.MIN_FREQUENCY: settings.min_frequency,
            W.SPECIAL_TOKENS: settings.special_tokens,
            W.PREFIX: settings.prefix,
            W.SUFFIX: settings.suffix,
            W.SEED_SIZE: settings.seed_size,
            W.SHRINKING_FACTOR: settings.shrinking_factor,
            W.MAX_PIECE_LENGTH: settings.max_piece_length,
            W.UNK_TOKEN: settings.unk_token,
        }
    )


def settings_from_widgets() -> Settings:
    """What the settings widgets say (an emptied number input counts as 0, an invalid size; an
    emptied seed size or longest piece is the flavor's default), the fields the algorithm does
    not use at their defaults."""
    vocab_size = state.get(W.VOCAB_NUMBER)
    defaults = Settings()
    shrinking_factor = state.get(W.SHRINKING_FACTOR)
    seed_size, max_piece_length = state.get(W.SEED_SIZE), state.get(W.MAX_PIECE_LENGTH)
    return Settings(
        algorithm=state.get(W.ALGORITHM),
        flavor=state.get(W.FLAVOR),
        vocab_size=int(vocab_size) if vocab_size is not None else 0,
        pre_tokenizer=pre_tokenizer_name(state.get(W.PRE_TOKENIZER), state.get(W.SPLIT_PATTERN)),
        normalizers=tuple(state.get(W.NORMALIZERS)),
        reading=state.get(W.READING) or defaults.reading,
        min_frequency=int(state.get(W.MIN_FREQUENCY) or 0),
        special_tokens=state.get(W.SPECIAL_TOKENS) or "",
        prefix=state.get(W.PREFIX) or "",
        suffix=state.get(W.SUFFIX) or "",
        seed_size=None if seed_size is None else int(seed_size),
        shrinking_factor=defaults.shrinking_factor if shrinking_factor is None else float(shrinking_factor),
        max_piece_length=None if max_piece_length is None else int(max_piece_length),
        unk_token=state.get(W.UNK_TOKEN) if state.get(W.UNK_TOKEN) is not None else defaults.unk_token,
    ).canonical()


# ---------------------------------------------------------------- callbacks


def _on_algorithm_change() -> None:
    defaults = defaults_for(state.get(W.ALGORITHM))
    for key, value in {
        W.PRE_TOKENIZER: defaults.pre_tokenizer,
        W.SPLIT_PATTERN: "gpt2",
        W.SPECIAL_TOKENS: defaults.special_tokens,
        W.PREFIX: defaults.prefix,
        W.SUFFIX: defaults.suffix,
        W.MIN_FREQUENCY: defaults.min_frequency,
    }.items():
        state.set_widget(key, value)


def _on_slider_change() -> None:
    # Undone: the slider a size typed just moved, sent again before the browser knew.
    if not state.undo_stale(W.VOCAB_SLIDER):
        state.set_widget(W.VOCAB_NUMBER, state.get(W.VOCAB_SLIDER))


def _on_number_change(slider_max: int) -> None:
    value = state.get(W.VOCAB_NUMBER)
    if not state.undo_stale(W.VOCAB_NUMBER) and value is not None:
        state.set_widget(W.VOCAB_SLIDER, int(max(1, min(value, slider_max))))


# ---------------------------------------------------------------- widgets


def settings_input(limits: Limits, fixed: Counting | None = None) -> Settings:
    """The training settings widgets, in rows; returns what they say (checked by
    `settings_feedback`). `fixed`: a count file's settings (normalizers, pre-tokenizer, reading),
    which its words were made with: shown, and not to be changed."""
    if fixed is not None:
        fix_counting(fixed)
    _algorithm_and_flavor()
    _vocabulary_size(limits)
    if fixed is not None:
        st.caption(
            f"The normalizers, pre-tokenizer and reading come from the count file ({fixed.describe()}): "
            "its words were made with them, so they cannot change here."
        )
    # The rest in a closed section whose label says what differs from the defaults (read from the
    # widgets' values as this script run starts, so it follows every change).
    with st.expander(advanced_label(_with_fixed(settings_from_widgets(), fixed)), key=W.ADVANCED):
        pre_tokenization(disabled=fixed is not None)
        if state.get(W.ALGORITHM) == "unigram":
            _unigram_settings()
        else:
            _special_tokens_and_markers()
    return _with_fixed(settings_from_widgets(), fixed)


def _with_fixed(settings: Settings, fixed: Counting | None) -> Settings:
    return settings if fixed is None else with_counting(settings, fixed)


def _algorithm_and_flavor() -> None:
    left, right = st.columns(2)
    with left:
        labelled_choice(
            st.radio,
            "Algorithm",
            ALGORITHM_LABELS,
            W.ALGORITHM,
            on_change=_on_algorithm_change,
            horizontal=True,
        )
    with right:
        labelled_choice(
            st.radio,
            "Flavor",
            FLAVOR_LABELS,
            W.FLAVOR,
            horizontal=True,
            help="`tokenizers` library: bit-exact with BpeTrainer / WordPieceTrainer (UnigramTrainer: the "
            "same pieces, scores within 1e-3). Hugging Face course: the course notebooks' loops (WordPiece "
            "scores pairs by likelihood; Unigram removes 10 % of the pieces per round by loss increase).",
        )


def _vocabulary_size(limits: Limits) -> None:
    """A slider for the usual range and a number input for the exact size, kept in sync."""
    slider_max = slider_max_vocab_size(limits)
    left, right = st.columns([3, 1])
    with left:
        st.slider(
            "Vocabulary size",
            min_value=1,
            max_value=slider_max,
            key=W.VOCAB_SLIDER,
            on_change=_on_slider_change,
            persist_state=state.PERSIST,
        )
    with right:
        st.number_input(
            "Exact vocabulary size",
            step=1,
            key=W.VOCAB_NUMBER,
            on_change=_on_number_change,
            args=(slider_max,),
            help=f"From 1 to {_shown_limit(limits.max_vocab)}; the slider goes to {slider_max:,}.",
            persist_state=state.PERSIST,
        )


def _shown_limit(value: float) -> str:
    return "any size" if math.isinf(value) else f"{int(value):,}"


def _special_tokens_and_markers() -> None:
    """Special tokens, min frequency, and the prefix and suffix that mark a token's place in a word."""
    columns = st.columns(2) + st.columns(2)
    with columns[0]:
        _special_tokens_input()
    with columns[1]:
        st.number_input(
            "Min frequency",
            min_value=0,
            step=1,
            key=W.MIN_FREQUENCY,
            on_change=keep_set_value,
            args=(W.MIN_FREQUENCY,),
            persist_state=state.PERSIST,
        )
    with columns[2]:
        st.text_input(
            "Continuing-subword prefix",
            key=W.PREFIX,
            on_change=keep_set_value,
            args=(W.PREFIX,),
            help="Marks a token that continues a word (WordPiece: ##). Empty: none.",
            persist_state=state.PERSIST,
        )
    with columns[3]:
        st.text_input(
            "End-of-word suffix",
            key=W.SUFFIX,
            on_change=keep_set_value,
            args=(W.SUFFIX,),
            help="Marks a token that ends a word (e.g. </w>).",
            persist_state=state.PERSIST,
        )


def _special_tokens_input() -> None:
    st.text_input(
        "Special tokens (comma-separated)",
        key=W.SPECIAL_TOKENS,
        on_change=keep_set_value,
        args=(W.SPECIAL_TOKENS,),
        persist_state=state.PERSIST,
    )


def _unigram_settings() -> None:
    """Special tokens and the unk token, then the seed size, the longest piece and the shrinking
    factor; an empty number is the flavor's default (shown as the placeholder)."""
    flavor = state.get(W.FLAVOR) or "library"
    defaults = UNIGRAM_DEFAULTS[flavor]
    longest = defaults["max_piece_length"]
    columns = st.columns(2) + st.columns(3)
    with columns[0]:
        _special_tokens_input()
    with columns[1]:
        st.text_input(
            "Unk token",
            key=W.UNK_TOKEN,
            help="The piece a character the corpus never had becomes (first in the vocabulary).",
            persist_state=state.PERSIST,
        )
    with columns[2]:
        st.number_input(
            "Seed size",
            min_value=1,
            step=1,
            key=W.SEED_SIZE,
            placeholder=f"{defaults['seed_size']:,} ({flavor})",
            help="How many pieces training starts from (characters plus the most frequent substrings). "
            "Empty: the flavor's default, 1,000,000 (library) or 300 (course).",
            persist_state=state.PERSIST,
        )
    with columns[3]:
        st.number_input(
            "Longest piece",
            min_value=1,
            step=1,
            key=W.MAX_PIECE_LENGTH,
            placeholder=f"{longest} ({flavor})" if longest else "no limit (course)",
            help="The longest seed piece, in characters. Empty: the flavor's default, 16 (library) or no "
            "limit (course).",
            persist_state=state.PERSIST,
        )
    with columns[4]:
        st.number_input(
            "Shrinking factor",
            min_value=SHRINKING_FACTOR_RANGE[0],
            max_value=SHRINKING_FACTOR_RANGE[1],
            step=0.05,
            key=W.SHRINKING_FACTOR,
            disabled=flavor == "course",
            help="Library flavor: the share of pieces each round keeps (0.75). The course's loop removes "
            "10 % of the pieces per round instead.",
            persist_state=state.PERSIST,
        )


def settings_feedback(settings: Settings, limits: Limits) -> bool:
    """The settings check (vocabulary size, special tokens, the trainer's rules): errors and
    warnings shown at once. Returns whether training may start."""
    check = requests.settings_check(settings, limits)
    frame.show_check(check)
    return check.ok


# ---------------------------------------------------------------- first values

DEFAULT_SAMPLE = "scarlet"


def initialise(limits: Limits) -> None:
    """Set every widget's first value once per session (see the module docstring)."""
    if state.get(state.URL_READ):
        return
    state.put(state.URL_READ, True)
    from_link = link.read()
    run = state.current_run()
    if run is not None:
        state.put(state.CORPUS_RESTORED, run.store_key)
    if run is not None and (from_link is None or link.names_run(run)):
        # The run the link names wins over the link's other settings (frame.ignored_link_settings).
        load_run(run, limits)
    elif from_link is not None:
        settings, sample_key, _ = from_link
        load_settings(settings, limits)
        _load_sample(sample_key)
    else:
        load_settings(defaults_for("bpe"), limits)
        _load_sample(DEFAULT_SAMPLE)


def load_run(run: Run, limits: Limits) -> None:
    """The form set to what trained `run`: its settings, and its sample or its pasted corpus."""
    load_settings(run.settings, limits)
    _load_sample(run.sample_key)
    if run.sample_key is None:
        _load_pasted(run)


def restore_pasted_corpus() -> None:
    """A run that arrived after the first view (a reload during its training): when it was pasted
    or uploaded and the text area is still empty, its corpus comes back there, once."""
    run = state.current_run()
    if run is None or run.sample_key is not None or state.get(state.CORPUS_RESTORED) == run.store_key:
        return
    state.put(state.CORPUS_RESTORED, run.store_key)
    if not state.get(W.CORPUS) and not state.get(W.SAMPLE):
        _load_pasted(run)


def _load_sample(sample_key: str | None) -> None:
    state.put_all({W.SAMPLE: sample_key or NO_SAMPLE, W.CORPUS: text_area_text(sample_key)})


def _load_pasted(run: Run) -> None:
    """The corpus of a pasted or uploaded run, back in the text area (a reload brings it back)."""
    text = state.trained_corpus_text(run)
    if text is not None:
        state.put(W.CORPUS, text)
