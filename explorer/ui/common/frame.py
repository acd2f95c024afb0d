"""The frame every page shares: page config, the sidebar (navigation, current run, legend), the
friendly "train first" stop for pages that need a run, and messages that may hold user text.

Every page's script is one `with page(...):` block: its run is one of the few the server admits
at once (explorer.work.admission), and it starts by setting the page up. It also collects a training
run that finished in the background (explorer.ui.common.training), so the new run is current on
whichever page the visitor is, and says when the server cannot keep runs (a run store that cannot be
written: explorer.session.serving).
`section(label, key)` is a part of a page a visitor opens, drawn only while open.
`error` / `warning` / `info` show a message through `literal.markdown_literal`: file names, special
tokens or link values in it stay characters, never Markdown, HTML or LaTeX.

An exception no page caught (a bug, or an input no check foresaw) is one error sentence on the
page instead of Streamlit's box with a traceback and server paths: `page()` installs
`unexpected_error` as the script run's error handler. Streamlit logs the traceback first (its
"Uncaught app exception" log line), and st.stop / st.rerun never reach the handler (they are
control flow, handled before it).

The tab icon is an emoji the frontend draws as a data URL, so no page makes a request to another
host.

Navigation uses the legacy `pages/` folder (no `st.navigation`: it breaks AppTest from the second
run and deep links on a fresh server). The automatic page list is hidden in
.streamlit/config.toml so the home page can be called "Train" rather than "app".
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.checks import Check
from explorer.drawing.markdown_literal import markdown_literal
from explorer.drawing.stylesheet import STYLESHEET
from explorer.drawing.token_html import escape_text, legend_html
from explorer.drawing.wording import history_page_name
from explorer.lessons.explain import stop_reason_text
from explorer.runs.run import MergeRun, RoundRun, Run
from explorer.session import serving, stored_runs
from explorer.ui.common import link, reproduce_panel, state, training
from explorer.work import admission

HISTORY_SCRIPT = "pages/1_Merge_history.py"  # st.page_link and st.switch_page name pages by their file
PAGES = (
    ("app.py", "Train", ":material/model_training:"),
    (HISTORY_SCRIPT, history_page_name(None), ":material/movie:"),
    ("pages/2_Vocabulary.py", "Vocabulary", ":material/dictionary:"),
    ("pages/3_Compare.py", "Compare", ":material/compare_arrows:"),
)
APP_TITLE = "Tokenizer Explorer"
UNEXPECTED = (
    "Something went wrong on this page ({kind}); it is in the server's log. "
    "Change what you entered or reload the page to try again."
)
# The tab icon is an emoji, which the frontend draws itself as an SVG data URL: a `:material/...:`
# page icon makes the browser fetch it from fonts.gstatic.com (measured in streamlit 1.67), and an
# image file makes `set_page_config` import numpy and PIL on the first view of every page.
TAB_ICON = "🔤"


@contextmanager
def page(
    title: str,
    intro: str = "",
    retitle: Callable[[Run], tuple[str, str] | None] | None = None,
    shows_form: bool = False,
) -> Iterator[None]:
    """A page, as a block: `with frame.page(...):` holds the page's whole script. The block runs as
    one of the page runs the server admits at once (explorer.work.admission: the visitors already
    on a page keep answering while a class arrives); it starts with the config, sidebar navigation
    and title. Call `finish()` last in it (the sidebar's run card must see a run trained during this
    script run).
    `retitle(run)` may give another (title, intro) for the current run (known only once a link
    is read, so the title is drawn in a placeholder above what reading it says). `shows_form`: the
    Train page, whose link without a run shows a form not trained yet (other pages need a run, and
    train a sample a link names without one)."""
    with admission.page_run():
        navigation = _set_up(title, intro, retitle, shows_form)
        try:
            yield
        finally:
            # A run trained (or a link read) during this script run: the history page's name follows it.
            _navigation(navigation, state.current_run())


def _set_up(
    title: str,
    intro: str,
    retitle: Callable[[Run], tuple[str, str] | None] | None,
    shows_form: bool,
) -> Any:
    """The page's config, sidebar and title; the sidebar's slot for the links to the pages."""
    # "auto": the sidebar starts collapsed on a screen up to 768 px wide (a phone), where it would
    # cover the page, and follows the window when it is resized (measured in streamlit 1.67).
    st.set_page_config(
        page_title=f"{title} · {APP_TITLE}",
        page_icon=TAB_ICON,
        layout="wide",
        initial_sidebar_state="auto",
    )
    context = get_script_run_ctx()
    if context is not None:
        context.on_script_error = unexpected_error
    state.put(state.FIRST_RUN, not state.get(state.SESSION_STARTED))
    state.put(state.SESSION_STARTED, True)
    state.script_started()
    training.collect()
    if not shows_form or not state.get(state.FIRST_RUN) or state.get(state.CURRENT_RUN) is not None:
        # Compare's first columns load in the background once a visitor is past the Train page's
        # first view (it stays light): on another page, on Train's next run (a paste, a setting)
        # or on Train with a run shown, so that they are ready by the time the training is.
        serving.warm_compare()
    st.html(f"<style>{STYLESHEET}</style>")  # the token displays' classes, once per page
    with st.sidebar:
        st.markdown(f"### {APP_TITLE}")
        navigation = st.empty()  # filled once the run is known: the history page's name is its kind's
        st.divider()
    heading = st.empty()
    if state.get(state.FIRST_RUN):
        link.open_from_url(train_sample=not shows_form)  # a reload, a bookmark, a shared link
    run = state.current_run()
    _navigation(navigation, run)
    ignored = state.get(state.IGNORED_NOTE)
    if ignored and run is not None and ignored[0] == run.store_key:
        info(ignored[1])  # the link's settings that contradicted its run, until another run is current
    retitled = retitle(run) if retitle is not None and run is not None else None
    if retitled is not None:
        title, intro = retitled
        st.set_page_config(page_title=f"{title} · {APP_TITLE}")  # the tab says the page's name too
    with heading.container():
        st.title(title)
        if intro:
            st.caption(intro)
    if not serving.runs_kept():
        warning(serving.RUNS_NOT_KEPT)
    elif run is not None and not stored_runs.run_kept(run.store_key):
        warning(stored_runs.RUN_NOT_KEPT)
    return navigation


def _navigation(slot: Any, run: Run | None) -> None:
    """The sidebar's links to the pages in `slot` (drawn again, in place, when called again), the
    history page named for `run`'s kind."""
    with slot.container():
        for path, label, icon in PAGES:
            name = (
                history_page_name(run.history.step_noun if run else None) if path == HISTORY_SCRIPT else label
            )
            st.page_link(path, label=name, icon=icon)


def unexpected_error(exception: Exception) -> bool:
    """The script run's error handler: one sentence naming only the kind of error (its message may
    hold server paths); True tells Streamlit not to draw its own box. Streamlit has logged the
    traceback before calling it."""
    st.error(UNEXPECTED.format(kind=type(exception).__name__))
    return True


def finish(page: str, params: dict[str, str] | None = None, copy_link: bool = True) -> None:
    """The end of every page: its URL written (`params`, derived by explorer.ui.common.link from what the
    page shows; None: the page wrote it), then the sidebar: the "Copy link" box (unless the page
    draws its own: `copy_link` False), the current run and the legend of token markers."""
    if params is not None:
        link.write(params)
    with st.sidebar:
        if copy_link:
            link.copy_link(page)
        run = state.current_run()
        if run is None:
            st.caption("No tokenizer trained yet.")
        else:
            run_card(run)
            reproduce_panel.popover(run)
        if training.current_job() is not None:
            st.caption("A new run is training: its progress and Stop button are on the Train page.")
        st.toggle(
            "Show token ids",
            key=state.Widget.SHOW_IDS,
            persist_state="session",
            help="Write each token's id under it (otherwise it shows when you hover over the token).",
        )
        with st.expander("How tokens are shown"):
            st.html(legend_html())
    state.script_finished()


def run_progress_text(run: Run) -> str:
    """'120 merges', or for a Unigram run '11 rounds'."""
    trace = run.history
    return f"{trace.steps:,} {trace.step_noun}{'s' if trace.steps != 1 else ''}"


def run_card(run: Run) -> None:
    """The current run in a few lines (names come from the user: escaped, shown as HTML)."""
    trace = run.history
    st.html(
        '<div class="run-card">'
        f"<b>Current run</b><br>{html.escape(run.name, quote=True)}<br>"
        f"{run_progress_text(run)} · vocabulary {len(trace.vocab):,}<br>"
        f'<span class="muted">{html.escape(stop_reason_text(trace), quote=True)}</span></div>'
    )


@contextmanager
def section(label: str, key: str, icon: str | None = None) -> Iterator[bool]:
    """A section a visitor opens (closed at first; it stays as the visitor left it across reruns;
    a link may open it by putting True under `key` first), yielding whether it is open. Its
    content is drawn only while it is open: a closed section builds no figure on the server and
    mounts no chart in the browser, so the page's first screen comes sooner (a Plotly chart costs
    the browser about a second of CPU to mount)."""
    with st.expander(label, key=key, on_change="rerun", icon=icon) as box:
        yield bool(box.open)


def error(text: str) -> None:
    st.error(markdown_literal(text))


def warning(text: str) -> None:
    st.warning(markdown_literal(text))


def info(text: str) -> None:
    st.info(markdown_literal(text))


def show_check(check: Check) -> None:
    """A check's errors and warnings (explorer.checks.Check), each message kept literal."""
    for message in check.errors:
        error(message)
    for message in check.warnings:
        warning(message)


def note(text: str) -> None:
    """A small grey line of plain text (user text stays literal: escaped, shown as HTML)."""
    st.html(f'<div class="note">{escape_text(text)}</div>')


def require_run(page: str) -> MergeRun | RoundRun:
    """The current run; else, while the run this session waits for is training (a reload during
    training), its progress; else a friendly message (train first, or the link's run expired) with
    a link to the Train page, and a stop."""
    run = state.current_run()
    if run is None and training.current_job() is not None:
        st.info("The run in this link is still training: it shows here as soon as it is done.")
        training.show_job(stop_button=False)
        finish(page)
        st.stop()
    if run is None:
        if state.get(state.LINK_EXPIRED):
            info(state.get(state.LINK_EXPIRED))
        else:
            st.info("No tokenizer yet: train one on the Train page first, then come back here.")
        st.page_link("app.py", label="Train", icon=":material/model_training:")
        finish(page)
        st.stop()
    return run
