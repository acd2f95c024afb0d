"""The one owner of `st.session_state`: every key the app uses is named here, and the rest of the
Streamlit layer reads and writes the session only through these names and the helpers below
(`get`, `put`, `put_all`, `has`, `setdefault`, and accessors such as `current_run`).

Three kinds of keys:
- data keys (module constants): values the app puts in the session itself (runs, the training
  cache, the step of the merge player, Compare's uploads). They survive page switches.
- widget keys (`Widget`): passed as `key=` to widgets; tests look widgets up by them. Widget
  state belongs to its page and Streamlit drops it when the page is left, so the Train page's
  widgets use `persist_state="session"`, and the merge player keeps its step in a data key.
- chart keys (`Chart`): the element keys of charts, which keep a chart's identity across reruns.

What it does not do: decide what a value means (the modules that set it do), or hold anything
outside the session (the run store and the worker pool are server-wide: explorer.session.serving).
"""

from __future__ import annotations

import secrets
from typing import Final

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.runs.run import MergeRun, RoundRun, Run, RunCache, corpus_digest, remember, runs_left
from explorer.runs.settings import other_algorithm
from explorer.ui.common import abandoned

# ---------------------------------------------------------------- data keys
RUN_CACHE = "training_cache"  # RunCache: finished runs by (corpus sha256, settings)
CURRENT_RUN = "current_run"  # Run: what every page shows
HISTORY = "earlier_runs"  # list[Run]: earlier runs of this session, newest first
OTHER_RUN = "other_algorithm_run"  # Run: the other algorithm trained on the current run's corpus
TRAINED_CORPUS = "trained_corpus"  # (sha256, text) of the current run's corpus, to train the other algorithm
URL_READ = "url_read"  # True once the Train page has applied the link's settings
SESSION_STARTED = "session_started"  # True after the session's first script run
FIRST_RUN = "first_run"  # True during the session's first script run (only then is the URL a link)
STEP = "player_step"  # int: merges applied in the merge player (survives leaving the page)
PLAYING = "player_playing"  # bool: the merge player is playing
PLAYER_ACK = "player_ack"  # int: the number of the player's last action taken from the browser
COMPARE_TEXT = "compare_text"  # str: the Compare page's sentences (survives leaving the page)
ENCODE_TEXT = "encode_steps_text"  # str: the text of the step-by-step panels (Merge history, Compare)
JOB = "training_job"  # training.TrainingJob: the run a worker is training for this session, until collected
RUN_SALT = "run_salt"  # bytes: in the keys of this session's runs of a pasted corpus (run_salt)
LINK_EXPIRED = "link_expired"  # str: why the run the URL named is not here (link.EXPIRED, link.UNFINISHED)
IGNORED_NOTE = "link_ignored_note"  # (store key, sentence): the link's settings its run overruled
TRAINED_FROM = "trained_from"  # (sha256 of the form's corpus, sha256 of the part of it Train used)
FORM_DIGEST = "form_corpus_digest"  # [(text, sha256)]: the last corpora digested, not digested again
DIGESTS_KEPT = 2  # the form's corpus and the part of it Train used (`note_trained_part`)
MEASURE_JOBS = "measure_jobs"  # {measurement key: JobHandle}: Compare's corpus measurements still running
OVERLAP_JOBS = "merge_overlap_jobs"  # {key: JobHandle}: Compare's merges-vs-pretrained comparisons running
MEASURE_WHOLE = "measure_whole"  # True once "Measure the whole corpus" was clicked (for the current run)
OUTCOME = (
    "training_outcome"  # list[(kind, message)]: what the last training started said ("error", "caption")
)
RUN_NUMBER = "run_number"  # int: the last run number given in this session
CORPUS_CHECK = "corpus_check"  # (sha256, Limits, Check): the last corpus checked, not checked again
CORPUS_RESTORED = "corpus_restored"  # store key of the run whose pasted corpus the text area got back
# corpus_input.Upload: the file read last, once (the uploader forgets it on a page switch)
UPLOADED_CORPUS = "uploaded_corpus"
SEEN_COLUMNS = (
    "compare_seen_columns"  # set[str]: Compare's column keys offered before (new ones start ticked)
)
UPLOADED_TOKENIZERS = "compare_uploaded"  # OrderedDict key -> UploadedTokenizer: the session's uploads
LAST_UPLOAD = "compare_last_upload"  # (digest of the uploader's files, messages): the upload read last
AUDIT_JOBS = "audit_jobs"  # {audit key: JobHandle}: the Vocabulary page's audits still running
SIGNAL_RUNS = (
    "drawn_signal_runs"  # {signal name: int}: the drawings of each signal (explorer.ui.common.drawn)
)

PENDING_WIDGETS = "pending_widget_values"  # {widget key: (value set, value the browser showed, run)}
SCRIPT_RUNS = "script_runs"  # int: the session's page script runs so far
FINISHED_RUN = "finished_run"  # int: the number of the session's last page script run that ran to its end
PERSIST: Final = "session"  # `persist_state=` of widgets whose value outlives a visit to another page

HISTORY_LIMIT = 4  # earlier runs kept for the Compare page
# list[str]: names of the runs that left the earlier runs (the Compare page says so), the last
# RUNS_LEFT_NAMED of them, oldest first
RUNS_LEFT = "compare_runs_left"
RUNS_LEFT_NAMED = 8
# list[str]: what a link's uploads left out to keep the session's bound (said under the picker)
LINK_UPLOAD_NOTES = "compare_link_upload_notes"
# One session's runs, bounded by count and by corpus characters (a trace grows with its corpus;
# 8,000,000 is two corpora at the default 4 MB limit). The cache and the earlier runs share the
# objects, so a session holds at most the current run, the other algorithm's and these.
CACHE_ENTRIES = 4
CACHE_CHARACTERS = 8_000_000
HISTORY_CHARACTERS = 8_000_000


class Widget:
    """Widget keys (also the names browser tests and AppTest look widgets up by)."""

    SAMPLE = "sample"
    CORPUS = "corpus"
    UPLOAD = "upload"
    ALGORITHM = "algorithm"
    FLAVOR = "flavor"
    VOCAB_SLIDER = "vocab_size_slider"
    VOCAB_NUMBER = "vocab_size"
    PRE_TOKENIZER = "pre_tokenizer"
    SPLIT_PATTERN = "split_pattern"  # byte-level only
    NORMALIZERS = "normalizers"
    READING = "reading"  # how a text is cut into sequences (explorer.runs.settings.READING_LABELS)
    MIN_FREQUENCY = "min_frequency"
    SPECIAL_TOKENS = "special_tokens"
    PREFIX = "prefix"
    SUFFIX = "suffix"
    SEED_SIZE = "seed_size"  # Unigram
    SHRINKING_FACTOR = "shrinking_factor"
    MAX_PIECE_LENGTH = "max_piece_length"
    UNK_TOKEN = "unk_token"
    TRAIN = "train"
    STOP = "stop_training"
    TRAIN_PREFIX = "train_prefix"  # "Train on the first X MB" of a corpus over the size limit
    TRAIN_SAMPLE = "train_sample"  # "Train on a random sample of lines"
    FORGET_UPLOAD = "forget_upload"
    ADVANCED = "advanced_settings"  # the Train page's closed section of advanced settings
    LESSON_PREFIX = "lesson_"  # + a lesson's key: its "Reproduce the course" button
    # Merge history
    PLAYER = "player"  # the transport component: {"action": {seq, step, playing}}
    SPEED = "speed"
    TREE_TOKEN = "tree_token"
    LOG_SCALE = "merge_counts_log_scale"
    STEPS_TEXT = "merge_history_steps_text"
    SECTION_CHARTS = "section_charts"  # the closed sections below the step's first panels
    SECTION_TREE = "section_merge_tree"
    SECTION_COURSE = "section_course_tables"
    SECTION_STEPS = "section_encode_steps"
    SECTION_COURSE_CHECK = "section_course_check"  # a lesson's run beside the course's printouts
    # Training history (a Unigram run on the Merge history page)
    ROUND_SPEED = "round_speed"
    LATTICE_WORD = "lattice_word"
    # Vocabulary
    SEARCH = "vocab_search"
    KINDS = "vocab_kinds"
    SORT = "vocab_sort"
    DESCENDING = "vocab_descending"
    GRID_START = "grid_start"
    AUDIT_SUBJECT = "vocab_audit_subject"  # the audit's tokenizer: this run or a bundled one
    AUDIT_STEP = "vocab_audit_step"  # ... this run after that many steps
    AUDIT_STONES = "vocab_audit_stones"  # the audit's tables (their links open Merge history's steps)
    AUDIT_UNREACHABLE = "vocab_audit_unreachable"
    AUDIT_UNUSED = "vocab_audit_unused"
    AUDIT_STAND_IN = "vocab_audit_stand_in"  # the sample audited instead (a run without running text)
    # Compare
    SENTENCES = "sentences"
    TRY_TEXT = "train_try_text"
    COLUMNS = "compare_columns"  # the multiselect of shown columns (column keys)
    TOKENIZER_UPLOAD = "compare_upload"
    DIFF_TOP = "compare_diff_top"  # the boundary diff's top-row tokenizer
    DIFF_BOTTOM = "compare_diff_bottom"  # ... and its bottom row
    TRAIN_OTHER = "train_other"
    STEPS_COLUMN = "compare_steps_column"
    MEASURE_WHOLE_BUTTON = "measure_whole_corpus"
    MEASURE_STAND_IN = "compare_measure_stand_in"  # the sample measured instead (no running text)
    COMPARE_STEPS_TEXT = "compare_steps_text"
    COMPARE_SPECIAL_TOKENS = "compare_special_tokens"  # "Treat special-token text as special tokens"
    DECODE_COLUMN = "compare_decode_column"  # the decode panel's tokenizer (a column key)
    DECODE_IDS = "compare_decode_ids"  # ... and its pasted ids
    OVERLAP_PRETRAINED = "compare_overlap_pretrained"  # the pretrained tokenizer the run's merges meet
    SECTION_FIGURES_CHART = "section_compare_figures_chart"  # Compare's closed sections (frame.section)
    SECTION_CURVE = "section_compare_curve"
    SECTION_OVERLAP = "section_compare_overlap"
    SECTION_COMPARE_CODE = "section_compare_code"  # "Reproduce these ids in Python"
    SECTION_STEP_CODE = "section_step_code"  # Merge history's "Reproduce this merge in Python"
    STEP_CODE_TRACE = "step_code_trace"  # ... its trace download
    # Every page (sidebar)
    SHOW_IDS = "show_token_ids"
    # "Reproduce in Python" (explorer.ui.common.reproduce_panel): on the Train page, and in the
    # sidebar's run card (a prefix each: both can be on one page)
    SECTION_REPRODUCE = "section_reproduce"
    REPRODUCE_STYLE = "reproduce_style"
    REPRODUCE_PROGRAM = "reproduce_program"  # its downloads
    REPRODUCE_NOTEBOOK = "reproduce_notebook"
    SIDEBAR_REPRODUCE = "sidebar_reproduce"  # the run card's popover (open or not)
    SIDEBAR_REPRODUCE_STYLE = "sidebar_reproduce_style"
    SIDEBAR_REPRODUCE_PROGRAM = "sidebar_reproduce_program"
    SIDEBAR_REPRODUCE_NOTEBOOK = "sidebar_reproduce_notebook"


class Chart:
    """Element keys of the charts: a chart drawn in a fragment keeps its identity across reruns."""

    TIMELINE = "merge_timeline"
    COMPRESSION = "compression_curve"
    MERGE_TREE = "merge_tree"
    VOCABULARY_SIZES = "unigram_vocabulary_sizes"
    LOSSES = "unigram_losses"
    COMPARE_BARS = "compare_bars"
    COMPARE_CURVE = "compare_curve"
    MERGE_OVERLAP = "compare_merge_overlap"


def keep_choice(key: str, options: list[str], default: str) -> None:
    """Before a selectbox is drawn: drop a remembered choice that is no longer an option."""
    if get(key) not in options:
        put(key, default)


def show_ids() -> bool:
    """The sidebar's "Show token ids" toggle: ids written under tokens, not only on hover."""
    return bool(st.session_state.get(Widget.SHOW_IDS))


def get(key: str, default=None):
    return st.session_state.get(key, default)


def put(key: str, value) -> None:
    st.session_state[key] = value


def put_all(values: dict) -> None:
    """Several keys at once (a form's widgets loaded from settings)."""
    for key, value in values.items():
        st.session_state[key] = value


def set_widget(key: str, value) -> None:
    """Set a widget's value from a callback. The browser learns of it only when a script run that
    draws the widget reaches it: every message it sends before that (a paste followed at once by
    Enter in another field, or clicks while a slow run is drawn) still holds the value it showed
    before, which `undo_stale` recognizes."""
    pending = dict(get(PENDING_WIDGETS) or {})
    pending[key] = (value, get(key), get(SCRIPT_RUNS, 0) + 1)  # callbacks run before `script_started`
    put(PENDING_WIDGETS, pending)
    put(key, value)


def undo_stale(key: str) -> bool:
    """In a widget's on_change callback: True, and the server's value put back, when the value just
    received is the one the browser showed before `set_widget` changed it and the browser may not
    know the change yet (no script run has drawn it to the end before this one). A visitor who
    really does choose that value again right after is ignored once; a busy page's messages, each
    sent before a run could draw the change, are all undone."""
    pending = get(PENDING_WIDGETS) or {}
    if key not in pending or get(key) != pending[key][1]:
        return False
    put(key, pending[key][0])
    return True


def script_started() -> None:
    """At the start of every page's script run, after the callbacks: a change `set_widget` made in
    a run that has since run to its end (`script_finished`) is known to the browser, which has
    had a message's time to send it back. A run interrupted by the visitor's next message (a slow
    run) may have drawn nothing the browser kept, so its changes stay pending."""
    put(SCRIPT_RUNS, get(SCRIPT_RUNS, 0) + 1)
    drawn = get(FINISHED_RUN, 0)
    pending = get(PENDING_WIDGETS) or {}
    if any(made <= drawn for _, _, made in pending.values()):
        put(PENDING_WIDGETS, {key: entry for key, entry in pending.items() if entry[2] > drawn})


def script_finished() -> None:
    """At the end of every page's script run (explorer.ui.common.frame.finish): its widgets, with the
    values callbacks gave them, are on their way to the browser."""
    put(FINISHED_RUN, get(SCRIPT_RUNS, 0))


def release_when_gone(*keys: str) -> None:
    """This session's values under `keys` are dropped once its visitor has gone (closed the tab:
    explorer.ui.common.abandoned.when_gone), not when Streamlit drops the session, minutes later."""
    context = get_script_run_ctx()
    # The session's state itself, not the script run's wrapper of it (`_state`, which Streamlit's
    # interface does not promise): the release runs in the watcher's thread, after the last run.
    # The watcher holds it until then, at most the grace period after the visitor left.
    session_state = getattr(context.session_state, "_state", None) if context is not None else None
    if session_state is None:
        return

    def release() -> None:
        for key in keys:
            if key in session_state:
                del session_state[key]

    abandoned.when_gone(",".join(keys), release)


def has(key: str) -> bool:
    return key in st.session_state


def setdefault(key: str, value):
    """The key's value, after giving it `value` if it has none (a widget's first value)."""
    if key not in st.session_state:
        st.session_state[key] = value
    return st.session_state[key]


def player_step() -> int:
    """Merges applied in the merge player (explorer.ui.history.player)."""
    return get(STEP, 0)


def start_player_at(step: int) -> None:
    """The merge player paused at `step` (a lesson opens at step 1, a link at its step)."""
    put(STEP, step)
    put(PLAYING, False)


def is_playing() -> bool:
    return bool(get(PLAYING))


def run_cache() -> RunCache:
    if RUN_CACHE not in st.session_state:
        st.session_state[RUN_CACHE] = RunCache(CACHE_ENTRIES, CACHE_CHARACTERS)
    return st.session_state[RUN_CACHE]


def numbered(loaded):
    """A (run, text) loaded from the store, given the session's next run number (None stays None)."""
    if loaded is not None:
        loaded[0].number = next_run_number()
    return loaded


def next_run_number() -> int:
    number = int(st.session_state.get(RUN_NUMBER, 0)) + 1
    st.session_state[RUN_NUMBER] = number
    return number


def next_signal_run(name: str) -> int:
    """The number of this drawing of the signal `name` in the session, counted from 1."""
    runs = setdefault(SIGNAL_RUNS, {})
    runs[name] = runs.get(name, 0) + 1
    return runs[name]


def current_run() -> MergeRun | RoundRun | None:
    return st.session_state.get(CURRENT_RUN)


def earlier_runs() -> list[MergeRun | RoundRun]:
    return list(st.session_state.get(HISTORY, []))


def set_current_run(run: MergeRun | RoundRun, corpus_text: str | None) -> None:
    """Make `run` the one every page shows; the previous one joins the earlier runs. `corpus_text`:
    None for a run without running text (`Run.from_counts`)."""
    previous = current_run()
    if previous is run:
        return
    if previous is not None:
        _keep_earlier(remember(earlier_runs(), previous, HISTORY_LIMIT, HISTORY_CHARACTERS), run)
    st.session_state[HISTORY] = [r for r in earlier_runs() if r.store_key != run.store_key]
    st.session_state[CURRENT_RUN] = run
    st.session_state[TRAINED_CORPUS] = None if corpus_text is None else (run.key.corpus_sha256, corpus_text)
    st.session_state[STEP] = run.first_step
    st.session_state[PLAYING] = False
    st.session_state[MEASURE_WHOLE] = False


def run_salt() -> bytes:
    """This session's salt in the keys of the runs it trains on a pasted or uploaded corpus
    (`serving.training_key`'s `owner`), made once per session."""
    return setdefault(RUN_SALT, secrets.token_bytes(16))


def add_earlier_run(run: MergeRun | RoundRun) -> None:
    """`run` first among the earlier runs (a run a link names, back after a reload)."""
    _keep_earlier(remember(earlier_runs(), run, HISTORY_LIMIT, HISTORY_CHARACTERS), current_run())


def _keep_earlier(kept: list[MergeRun | RoundRun], staying: Run | None) -> None:
    """`kept` as the earlier runs; the names of those it leaves out (but `staying`, the current
    run, and the other algorithm's) noted under RUNS_LEFT, for the Compare page to say."""
    left = runs_left(earlier_runs(), kept, [staying, st.session_state.get(OTHER_RUN)])
    st.session_state[HISTORY] = kept
    if left:
        named = [*st.session_state.get(RUNS_LEFT, []), *(run.name for run in left)]
        st.session_state[RUNS_LEFT] = named[-RUNS_LEFT_NAMED:]


def runs_left_names() -> list[str]:
    """The names of the runs that left the earlier runs, oldest first (`RUNS_LEFT`)."""
    return list(st.session_state.get(RUNS_LEFT, []))


def is_other_algorithm_run(run: Run, other: Run) -> bool:
    """True when `other` is what Compare's "Train the other algorithm" makes beside `run`."""
    return (
        other is not run
        and other.key.corpus_sha256 == run.key.corpus_sha256
        and other.settings.algorithm == other_algorithm(run.settings.algorithm)
    )


def form_corpus_digest(text: str) -> str:
    """sha256 of a corpus (the Train form's, compared with its run's on every rerun), remembered
    for the last `DIGESTS_KEPT` texts: the form's and the part Train used are not digested again."""
    kept = st.session_state.get(FORM_DIGEST) or []
    for earlier, digest in kept:
        if earlier is text or earlier == text:
            return digest
    digest = corpus_digest(text)
    st.session_state[FORM_DIGEST] = [(text, digest), *kept][:DIGESTS_KEPT]
    return digest


def note_trained_part(form_text: str, trained_text: str) -> None:
    """Train used `trained_text` for the form's corpus `form_text` (its first MB, or a sample of its
    lines, when the corpus is over the size limit), or all of it (each digested once)."""
    put(TRAINED_FROM, (form_corpus_digest(form_text), form_corpus_digest(trained_text)))


def digest_trained_for(form_text: str) -> str:
    """The sha256 of the corpus a run of this form's corpus was trained on: the corpus itself, or
    the part of it Train used (`note_trained_part`)."""
    digest = form_corpus_digest(form_text)
    kept = get(TRAINED_FROM)
    return kept[1] if kept is not None and kept[0] == digest else digest


def trained_corpus_text(run: Run) -> str | None:
    """The corpus text of `run` if it is the one kept in the session (only the current one is)."""
    kept = st.session_state.get(TRAINED_CORPUS)
    if kept and kept[0] == run.key.corpus_sha256:
        return kept[1]
    return None


def other_run(run: Run) -> MergeRun | RoundRun | None:
    """The other algorithm's run on the same corpus, if it was trained."""
    other = st.session_state.get(OTHER_RUN)
    if other is not None and other.key.corpus_sha256 == run.key.corpus_sha256 and other is not run:
        return other
    return None


def set_other_run(run: MergeRun | RoundRun) -> None:
    st.session_state[OTHER_RUN] = run
