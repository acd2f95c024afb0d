"""Shareable URLs that reproduce exactly what a page shows. One invariant, kept in one place: each
page derives its URL from what it shows, with one function, at the end of every script run, and
writes it with `write`:

- `train_params`: the form's settings and sample, and `run` only when the summary below the form
  is that run's (the form says exactly what trained it). A changed setting or sample, not yet
  trained, drops `run` and the page hides the summary until Train: link and page agree.
- `run_params` (Merge history, Vocabulary, Compare): the run the page shows (`run`) with the
  settings *of that run* and its sample, and the page's own parameters (the player's `step`, the
  vocabulary's search and filters, Compare's columns, sentences, switch and decode ids:
  explorer.ui.compare.compare_link).
- every page: `runs`, the session's runs as `number.key` (the current one, the other algorithm's,
  the earlier ones), so that a reload or the link elsewhere brings back the same run numbers and
  the same runs in Compare's picker. Without `run`, the first of `runs` is the session's current
  run (what the other pages show).

A course lesson's link (`lesson=course-bpe`: explorer.lessons.course_lessons) is read as the link of its
settings
and the course's sample; on a page other than Train it is trained here and the player starts at
step 1 (the Train page reproduces it itself: explorer.ui.train.lesson_buttons), and the page then writes its
ordinary URL, which no longer names the lesson.

`open_from_url()` (the frame calls it on a session's first script run, on any page) turns a URL
back into runs: from the store (a run key is an HMAC of the corpus and settings under the
deployment's secret, unguessable without the corpus); else the job still training it (a reload
during training waits for it); else, for a sample, by training it again; else the visitor is
told the run has expired, or never finished (`UNFINISHED`: a restart during its training), and
what to do. A run the store could not keep is left out of every link (`stored_runs.run_kept`). When
the link's settings contradict the run it names, the run wins and one sentence says what was
ignored (`ignored_note`).

A pasted or uploaded corpus never appears in a URL, nor its file name: only its run's key does,
and the store keeps the corpus with the run. A run reached by content (a link, or the same corpus
trained before) is named by a neutral label, never another visitor's file name.

What it does not do: read Compare's own parameters (explorer.ui.compare.compare_link), or train.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.drawing.markdown_literal import markdown_literal
from explorer.lessons.course_lessons import LESSON_SAMPLE, LESSONS, lesson_by_key
from explorer.runs.run import MergeRun, RoundRun, Run
from explorer.runs.settings import Settings, from_query_params, limits_or_defaults, read_whole_number
from explorer.runstore import is_run_key
from explorer.samples import SAMPLES, sample_by_key
from explorer.session import host_corpora, stored_runs
from explorer.ui.common import state, training

SAMPLE_PARAM = "sample"
LESSON_PARAM = (
    "lesson"  # a course lesson (explorer.lessons.course_lessons): its settings and sample, at step 1
)
RUN_PARAM = "run"
RUNS_PARAM = "runs"
RUNS_LIMIT = 8  # entries of `runs` read from a link (a session keeps at most 6)
RUN_NUMBER_LIMIT = 999_999  # the largest run number a link's `runs` may give
EXPIRED = (
    "The run in this link is no longer on this server: runs are kept for a while and the least recently "
    "used go first when the store is full. Its corpus went with it, and links never hold a corpus: paste or "
    "upload it again on the Train page and train it (the link's settings are already set)."
)
UNFINISHED = (
    "The run in this link never finished training on this server (the server restarted during its "
    "training, or the training failed or was stopped), so there is nothing to show. Links never hold a "
    "corpus: paste or upload it again on the Train page and train it (the link's settings are already set)."
)
REPRODUCES = {
    "train": "the corpus choice and the settings, and the run's summary when one is shown",
    "history": "this run at this step (the player opens paused there)",
    "vocabulary": "this run's vocabulary with this search, filter and order",
    "compare": "these tokenizers on these sentences, the special-token switch and the decoded ids",
}


def params_for(settings: Settings, sample_key: str | None, run_key: str | None = None) -> dict[str, str]:
    """The URL form of settings, a sample and a run key (without the session's runs)."""
    params = settings.to_query_params()
    if sample_key:
        params[SAMPLE_PARAM] = sample_key
    if run_key and stored_runs.run_kept(run_key):  # a run the store could not keep has no link
        params[RUN_PARAM] = run_key
    return params


def session_runs_param() -> str | None:
    """`runs`: the session's runs as 'number.key', the current one first; None without runs."""
    runs = [state.current_run(), state.get(state.OTHER_RUN), *state.earlier_runs()]
    seen: dict[str, int] = {}
    for run in runs:
        if (
            run is not None
            and run.store_key
            and run.store_key not in seen
            and stored_runs.run_kept(run.store_key)
        ):
            seen[run.store_key] = run.number
    return ",".join(f"{number}.{key}" for key, number in seen.items()) or None


def parse_runs_param(value: str | None) -> list[tuple[int, str]]:
    """(number, key) pairs from `runs`, invalid entries left out, at most RUNS_LIMIT.

    >>> parse_runs_param("2." + "a" * 64 + ",x.y,1." + "b" * 64)[1][0]
    1
    """
    pairs = []
    for entry in (value or "").split(",")[:RUNS_LIMIT]:
        number, _, key = entry.partition(".")
        run_number = read_whole_number(number, 1, RUN_NUMBER_LIMIT)
        if run_number is not None and is_run_key(key):
            pairs.append((run_number, key))
    return pairs


def with_session_runs(params: dict[str, str]) -> dict[str, str]:
    """`params` with `runs`, unless it would only repeat `run` as the session's run #1."""
    runs = session_runs_param()
    if runs and runs != f"1.{params.get(RUN_PARAM)}":
        params[RUNS_PARAM] = runs
    return params


def shows_form(
    run: Run | None,
    settings: Settings,
    corpus_text: str | None,
    sample_key: str | None,
    digest: str | None = None,
) -> bool:
    """True when `run` is exactly what the Train form says: its settings, its sample, its corpus
    (or the corpus it was trained from, when Train used only a part of it). `digest`: what stands
    for the corpus's when it has no text here (a host's file: its fingerprint)."""
    if run is None or corpus_text is None:
        return False
    if run.settings.canonical() != settings.canonical() or run.sample_key != (sample_key or None):
        return False
    return (digest or state.digest_trained_for(corpus_text)) == run.key.corpus_sha256


def job_shows_form(settings: Settings, corpus_text: str | None, sample_key: str | None) -> bool:
    """True when the session's training job trains what the form says (a job a reload attached
    to is taken as the link's: the form was loaded from that link)."""
    job = training.current_job()
    if job is None:
        return False
    if not job.corpus.text:
        return True
    return (
        job.settings.canonical() == settings.canonical()
        and job.corpus.sample_key == (sample_key or None)
        and corpus_text is not None
        and state.digest_trained_for(corpus_text) == job.corpus.digest
    )


def train_params(
    settings: Settings, sample_key: str | None, shown: Run | None, job_shown: bool
) -> dict[str, str]:
    """The Train page's URL: the form, and the run its summary shows or the job training it."""
    job = training.current_job()
    key = job.key if job is not None and job_shown else (shown.store_key if shown else None)
    return with_session_runs(params_for(settings, sample_key, key))


def train_page_view(settings: Settings, corpus) -> tuple[MergeRun | RoundRun | None, dict[str, str]]:
    """The Train page's run to summarize (None: the form is not what trained the current run)
    and its URL, for the form's `settings` and `corpus` (explorer.ui.train.corpus_input.Corpus)."""
    text, sample_key = (corpus.text, corpus.sample_key) if corpus else (None, None)
    digest = corpus.source.fingerprint if corpus is not None and corpus.source is not None else None
    run = state.current_run()
    shown = run if shows_form(run, settings, text, sample_key, digest) else None
    return shown, train_params(settings, sample_key, shown, job_shows_form(settings, text, sample_key))


def run_params(run: Run, page_params: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The URL of a page that shows `run`: its settings, sample and key, the page's own values."""
    params = params_for(run.settings, run.sample_key, run.store_key)
    params.update({name: value for name, value in dict(page_params or {}).items() if value})
    return with_session_runs(params)


def write(params: dict[str, str]) -> None:
    """Put exactly `params` in the URL (no write when it already says so). A parameter the URL
    repeats is written once: the pages read its last value (`st.query_params[name]`), and a link
    with two values would not say which one it shows."""
    current = {key: st.query_params.get_all(key) for key in st.query_params}
    if current != {key: [value] for key, value in params.items()}:
        st.query_params.from_dict(params)


def copy_link(page: str, in_sidebar: bool = True) -> None:
    """The "Copy link" box: the URL the browser shows (with a copy button) and what it reproduces.

    The URL is read in the browser, as it is now, not written by the script: a live part of a page
    (a fragment: Compare's text box, the player) rewrites the URL without rerunning the sidebar."""
    with st.popover("Copy link", icon=":material/link:", width="stretch" if in_sidebar else "content"):
        view: Any = _copy_link_view
        view(key=f"copy-link-{'sidebar' if in_sidebar else 'main'}")
        st.caption(f"Opens, in any browser: {REPRODUCES[page]}. It never holds a pasted corpus.")


_COPY_LINK_JS = Path(__file__).with_name("copy_link.js").read_text(encoding="utf-8")

_COPY_LINK_HTML = (
    '<div class="copy-link"><code class="copy-link-url"></code>'
    '<div><button type="button">Copy</button> <span class="copy-link-status"></span></div></div>'
)

_COPY_LINK_CSS = """
.copy-link { font-family: var(--st-font); color: var(--st-text-color); }
.copy-link-url { display: block; font-family: var(--st-code-font, monospace); font-size: 0.8rem;
  overflow-wrap: anywhere; background: var(--st-secondary-background-color); padding: 0.5rem;
  border-radius: 0.4rem; margin-bottom: 0.4rem; }
.copy-link button { font: inherit; font-size: 0.85rem; padding: 0.2rem 0.8rem; cursor: pointer;
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); border-radius: 0.4rem;
  background: var(--st-background-color); color: var(--st-text-color); }
.copy-link button:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 2px; }
.copy-link-status { font-size: 0.8rem; opacity: 0.7; }
"""

_copy_link_view = st.components.v2.component(
    "explorer_copy_link", html=_COPY_LINK_HTML, css=_COPY_LINK_CSS, js=_COPY_LINK_JS
)


def read() -> tuple[Settings, str | None, list[str]] | None:
    """Settings and sample from the URL, with notes about ignored values; None without params."""
    params = {key: st.query_params[key] for key in st.query_params}
    if not params:
        return None
    lesson_notes = []
    if LESSON_PARAM in params:  # a lesson is the link of its settings and the course's sample
        lesson = lesson_by_key(params[LESSON_PARAM])
        if lesson is not None:
            params = {**lesson.params, SAMPLE_PARAM: LESSON_SAMPLE}
        else:
            lesson_notes.append(
                f"Unknown lesson {params[LESSON_PARAM]!r} in the link (choose from {', '.join(LESSONS)})."
            )
    settings, notes = from_query_params(params, limits_or_defaults()[0])
    notes = lesson_notes + notes
    sample_key = params.get(SAMPLE_PARAM)
    if sample_key and sample_key not in SAMPLES and host_corpora.find(sample_key) is None:
        notes.append(f"Unknown sample {sample_key!r} in the link (choose from {', '.join(SAMPLES)}).")
        sample_key = None
    return settings, sample_key, notes


def names_run(run: Run) -> bool:
    """True when the URL's `run` is `run` (the link was written while its summary showed)."""
    return st.query_params.get(RUN_PARAM) == run.store_key


def ignored_note(run: Run, params: Mapping[str, str]) -> str | None:
    """One sentence naming the link's settings that contradict the run it names, or None."""
    own = params_for(run.settings, run.sample_key, run.store_key)
    names = [
        name for name in (*Settings.__dataclass_fields__, SAMPLE_PARAM) if params.get(name) != own.get(name)
    ]
    names = [name for name in names if name in params]  # a setting the link leaves out ignores nothing
    if not names:
        return None
    shown = ", ".join(f"{name}={params[name]}" for name in names)
    return (
        "This link names a stored run: the page shows that run with its own settings "
        f"({run.settings.short_name()}); the link's other settings ({shown}) were ignored."
    )


def _load(number: int, key: str) -> tuple[MergeRun | RoundRun, str | None] | None:
    loaded = stored_runs.load_run(key, number)
    if loaded is not None:
        state.run_cache().put(loaded[0])
    return loaded


def _restore_session_runs(current: Run | None, pairs: list[tuple[int, str]]) -> None:
    """The runs `runs` names, back as the session's other algorithm's and earlier runs."""
    for number, key in reversed(pairs):  # oldest first: each joins the front of the earlier runs
        if current is not None and key == current.store_key:
            continue
        loaded = _load(number, key)
        if loaded is None:
            continue
        run = loaded[0]
        if (
            current is not None
            and state.is_other_algorithm_run(current, run)
            and state.get(state.OTHER_RUN) is None
        ):
            state.set_other_run(run)
        else:
            state.add_earlier_run(run)


def open_from_url(train_sample: bool = True) -> MergeRun | RoundRun | None:
    """The run the URL names, made current, and the session's runs it lists (see the module
    docstring); None when there is none, or while it is still training (the session then holds
    the job: `training.current_job()`). A sample the link names is trained when its run expired,
    and, with `train_sample`, when the link names no run (a hand-made link to a page that needs
    one; the Train page's own link without a run is a form not trained yet)."""
    if state.current_run() is not None or training.current_job() is not None:
        return state.current_run()
    params = {key: st.query_params[key] for key in st.query_params}
    pairs = parse_runs_param(params.get(RUNS_PARAM))
    numbers = {key: number for number, key in pairs}
    state.put(state.RUN_NUMBER, max(numbers.values(), default=0))
    key = params.get(RUN_PARAM)
    current_key = key if key and is_run_key(key) else (pairs[0][1] if pairs and not key else None)
    if current_key:
        number = numbers.get(current_key)
        loaded = _load(number or int(state.get(state.RUN_NUMBER) or 0) + 1, current_key)
        if loaded is not None and number is None:
            state.next_run_number()  # the number it took (a run still training takes it when done)
        if loaded is not None:
            run, text = loaded
            state.set_current_run(run, text)
            _restore_session_runs(run, pairs)
            if current_key == key:
                note = ignored_note(run, params)
                state.put(state.IGNORED_NOTE, (run.store_key, note) if note else None)
            return run
        if current_key == key and training.attach(key):
            return None
    _restore_session_runs(None, pairs)
    link = read()
    sample = sample_by_key(link[1]) if link else None
    if link is not None:
        for note in link[2]:
            st.warning(markdown_literal(note))
    if link is not None and sample is not None and (key or (train_sample and not pairs)):
        trained = training.train_run(sample.text, link[0], sample.label, sample.key)
        if trained is not None:
            state.set_current_run(trained, sample.text)
            if lesson_by_key(params.get(LESSON_PARAM)) is not None:
                state.start_player_at(1)  # a lesson opens at its first step
        return trained
    if key:
        state.put(state.LINK_EXPIRED, UNFINISHED if stored_runs.never_finished(key) else EXPIRED)
    return None
