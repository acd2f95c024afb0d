""" "Reproduce in Python": the program that trains the current run, in a code block with a copy
button (Streamlit's own), with its notebook and the program as downloads; on the Train page under
the run's result (in its closed section, explorer.ui.train.run_summary), and in the sidebar's
run card on every page (`popover`).

A library-flavor run offers two programs: plain `tokenizers` code (what a practitioner runs) and
the explorer package's API (the same tokenizer.json and trace, byte for byte); a course-flavor run
the API only. A pasted or uploaded corpus is read from a file named in the program, which checks
its SHA-256; a sample is read from the package.

What it does not do: write the programs (explorer.reproduce, through explorer.views.reproduce_views).
"""

from __future__ import annotations

import streamlit as st

from explorer.runs.run import Run
from explorer.ui.common import state

W = state.Widget

STYLE_NAMES = {"library": "tokenizers library", "api": "explorer package"}
STYLE_NOTES = {
    "library": (
        "Plain `tokenizers` code: it trains this tokenizer with the Hugging Face library and saves its "
        "tokenizer.json, the same as this run's (where the library's own order can differ, the code "
        "says so in a comment)."
    ),
    "api": (
        "The explorer package (this app's trainer): it saves the same tokenizer.json and trace as this "
        "run, byte for byte, and prints its first steps."
    ),
}


# The widget keys of each place the code is drawn: (kind of program, program download, notebook).
KEYS = {
    "page": (W.REPRODUCE_STYLE, W.REPRODUCE_PROGRAM, W.REPRODUCE_NOTEBOOK),
    "sidebar": (W.SIDEBAR_REPRODUCE_STYLE, W.SIDEBAR_REPRODUCE_PROGRAM, W.SIDEBAR_REPRODUCE_NOTEBOOK),
}


def code(run: Run, place: str = "page") -> None:
    """The program (its kind chosen when the run has two), what it gives, and the downloads;
    `place` ("page" or "sidebar") picks the widgets' keys."""
    # Here, not at the top: every page's sidebar imports this module, and a page's first view
    # imports no pandas or tokenizers (the programs' code writes tables and reads the registry).
    from explorer.reproduce import trained_config
    from explorer.views import reproduce_views as views

    style_key, program_key, notebook_key = KEYS[place]
    styles = views.styles(run)
    state.keep_choice(style_key, styles, styles[0])
    style = styles[0]
    if len(styles) > 1:
        style = (
            st.radio(
                "Code",
                styles,
                format_func=STYLE_NAMES.__getitem__,
                key=style_key,
                horizontal=True,
                help="Plain tokenizers code, or this app's own Python package (exact, with the trace).",
            )
            or style
        )
    # The RunConfig the program trains, and why it is not the run's own (a run stopped early, a
    # Unigram run the library would not finish).
    _, note = trained_config(run.history, style)
    st.caption(" ".join(filter(None, [STYLE_NOTES[style], views.corpus_note(run), note])))
    program = views.program(run, style)
    # Wrapped: a block that scrolls sideways is a region the keyboard cannot reach (axe), and a
    # phone shows the whole line. Not highlighted: Streamlit's code colours (strings #09ab3b,
    # keywords #1c83e1, comments #808495 on #fcfcfb) are below the 4.5:1 contrast text needs
    # (axe). The copy button copies the program as written. Every code block here does the same.
    st.code(program, language=None, wrap_lines=True)
    left, right = st.columns(2)
    left.download_button(
        "Program (.py)",
        program,
        views.program_file_name(run, style),
        "text/x-python",
        key=program_key,
        icon=":material/download:",
    )
    right.download_button(
        "Notebook (.ipynb)",
        views.notebook(run),
        views.notebook_file_name(run),
        "application/x-ipynb+json",
        key=notebook_key,
        icon=":material/download:",
        help="The corpus, the training, the first steps and the vocabulary, cell by cell, as the "
        "course's notebooks are laid out.",
    )


def popover(run: Run) -> None:
    """The sidebar run card's button: the same code in a popover, built only while it is open."""
    with st.popover(
        "Reproduce in Python",
        icon=":material/code:",
        width="stretch",
        key=W.SIDEBAR_REPRODUCE,
        on_change="rerun",
    ) as box:
        if box.open:
            code(run, "sidebar")
