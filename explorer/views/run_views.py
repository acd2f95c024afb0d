"""What the pages show, computed from a Run: the things every view needs (the run's token labels,
ids, tokenizer at any step, the words shown, special-token notes). Pure Python (no streamlit): the
Merge history's HTML and tables are in explorer.views.merge_views, the Vocabulary page's table, grid
and downloads in explorer.views.vocabulary_table.

Every string from the corpus or the vocabulary goes through `render.escape_text` (HTML-escaped,
quotes included, Markdown markup neutralised) before it becomes HTML. Messages that hold user text
(file names, special tokens, characters of the corpus, values from a link) and go to Streamlit's
Markdown elements (`st.error`, `st.warning`, `st.info`) go through `literal.markdown_literal`.

Derived objects that do not depend on the step are kept with the run (`per_run`, `per_session`:
explorer.runs.run), so moving the merge player's slider only segments ~30 words and encodes the
sample sentences. What the history and the layers below give (the tokenizer, a merge run's token
ids) are the run's own properties (`Run.tokenizer`, `MergeRun.token_ids`).

What it does not do: draw (the pages hand its results to `st.html`, `explorer.ui.common.tables`).
"""

from __future__ import annotations

from dataclasses import replace

from explorer.compare.columns import TokenizerColumn, plain_text_tokenizer, tokenizer_column
from explorer.drawing import charts
from explorer.lessons.explain import special_token_notes
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.runs.run import MergeRun, RoundRun, Run, per_run, per_session
from explorer.training.settings_checks import check_special_tokens

TOP_WORDS = 30
# What one page draws at most, whatever was pasted: a word of 1,000,000 characters would be
# hundreds of thousands of spans (tens of MB of HTML) on every tick of the merge player.
WORD_CHARACTERS_SHOWN = 120  # a word's tokens drawn up to this many characters, then "+N more"
SENTENCES_SHOWN = 12  # sample sentences drawn by the merge player
SENTENCE_CHARACTERS_SHOWN = 600  # each cut to this many characters
# ---------------------------------------------------------------- kept per run


@per_run
def labels(run: Run) -> list[str]:
    """Readable form of every vocabulary token, by id (not escaped)."""
    return charts.token_labels(run.history)


@per_run
def special_token_messages(run: MergeRun) -> list[str]:
    """What the run's special tokens do: notes from `check_special_tokens` (before training) and
    `special_token_notes` (tokens that are also corpus characters or were rebuilt by a merge)."""
    before = check_special_tokens(run.settings.special_token_list(), run.history.config.pre_tokenizer)
    return [*before.notes, *special_token_notes(run.history)]


@per_run
def exported_json(run: Run, special_tokens: bool = True) -> str:
    """The run's tokenizer.json, compact (its special tokens plain text when not `special_tokens`):
    shared by every session showing the run (thirty visitors of a Compare link exported the same
    JSON thirty times: a third of the server's time in py-spy)."""
    tok = run.tokenizer
    return tokenizer_to_json(tok if special_tokens else plain_text_tokenizer(tok))


@per_session
def _run_column(run: Run, special_tokens: bool) -> TokenizerColumn:
    # The column names this session's run, so it is the session's own.
    tok = run.tokenizer
    return tokenizer_column(
        tok,
        run.name,
        key=run.column_key,
        exported=exported_json(run),
        special_tokens=special_tokens,
        source=f"trained here: run {run.number}",
        plain_exported=None if special_tokens or not tok.special_tokens else exported_json(run, False),
    )


def run_column(run: Run, role: str, special_tokens: bool = True) -> TokenizerColumn:
    """A column for a run trained in this app; `role` says which one it is ('this run', ...).
    `special_tokens` False: the run's special tokens are plain text (the Compare page's switch)."""
    return replace(_run_column(run, special_tokens), caption=role)


@per_run
def final_loss(run: RoundRun) -> float | None:
    """A Unigram run's final loss (`lessons.rounds.final_loss`), computed once per run where the
    trace does not carry it (a course trace stored before the trainer recorded it: one Viterbi per
    word)."""
    from explorer.lessons import rounds  # here: numpy, for Unigram runs only

    return rounds.final_loss(run.history)
