"""The first values of the Train page's widgets, set once per session: from the run the link
names (its settings, and its sample or its pasted or uploaded corpus: the run wins over the link's
other settings), else from the link's settings and sample (a form not trained yet), else from the
defaults (BPE on A Study in Scarlet).

A run that arrives after the first view (a reload during its training) gets its pasted corpus back
in the text area once, if the visitor has not typed anything meanwhile.

What it does not do: open the link's run (the frame does, explorer.ui.common.link), or draw any widget
(explorer.ui.train.corpus_input, explorer.ui.train.settings_form).
"""

from __future__ import annotations

from explorer.checks import Limits
from explorer.runs.run import Run
from explorer.runs.settings import defaults_for
from explorer.ui.common import link, state
from explorer.ui.train.corpus_input import NO_SAMPLE, text_area_text
from explorer.ui.train.settings_form import load_settings

W = state.Widget
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
