"""What the pages show, computed from a Run: the things every view needs (the run's token labels,
ids, tokenizer at any step, the words shown, special-token notes). Pure Python (no streamlit): the
Merge history's HTML and tables are in explorer.views.merge_views, the Vocabulary page's table, grid
and downloads in explorer.views.vocabulary_table.

Every string from the corpus or the vocabulary goes through `render.escape_text` (HTML-escaped,
quotes included, Markdown markup neutralised) before it becomes HTML. Messages that hold user text
(file names, special tokens, characters of the corpus, values from a link) and go to Streamlit's
Markdown elements (`st.error`, `st.warning`, `st.info`) go through `literal.markdown_literal`.

Derived objects that do not depend on the step are memoized on the Run (`Run.derive`), so moving
the merge player's slider only segments ~30 words and encodes the sample sentences.

What it does not do: draw (the pages hand its results to `st.html`, `explorer.ui.common.tables`).
"""

from __future__ import annotations

from dataclasses import replace

from explorer.compare.columns import TokenizerColumn, plain_text_tokenizer, tokenizer_column
from explorer.drawing import charts
from explorer.lessons.explain import special_token_notes
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.runs.run import Run
from explorer.train import tokenizer_from_trace
from explorer.training.history_kinds import as_merge_history, as_round_history
from explorer.training.settings_checks import check_special_tokens

TOP_WORDS = 30
# What one page draws at most, whatever was pasted: a word of 1,000,000 characters would be
# hundreds of thousands of spans (tens of MB of HTML) on every tick of the merge player.
WORD_CHARACTERS_SHOWN = 120  # a word's tokens drawn up to this many characters, then "+N more"
SENTENCES_SHOWN = 12  # sample sentences drawn by the merge player
SENTENCE_CHARACTERS_SHOWN = 600  # each cut to this many characters
# ---------------------------------------------------------------- memoized per run


def labels(run: Run) -> list[str]:
    """Readable form of every vocabulary token, by id (not escaped)."""
    return run.derive("labels", lambda: charts.token_labels(run.history))


def token_ids(run: Run) -> dict[str, int]:
    return run.derive("token_ids", as_merge_history(run.history).token_ids)  # (the Merge history page's)


def tokenizer(run: Run) -> Tokenizer:
    """The trained tokenizer (normalizer, pre-tokenizer, model, decoder) rebuilt from the trace."""
    return run.derive("tokenizer", lambda: tokenizer_from_trace(run.history))


def top_word_indices(run: Run, limit: int = TOP_WORDS) -> list[int]:
    return run.derive(
        f"top_words_{limit}", lambda: as_merge_history(run.history).words_by_frequency()[:limit]
    )


def special_token_messages(run: Run) -> list[str]:
    """What the run's special tokens do: notes from `check_special_tokens` (before training) and
    `special_token_notes` (tokens that are also corpus characters or were rebuilt by a merge)."""

    def build() -> list[str]:
        before = check_special_tokens(run.settings.special_token_list(), run.history.config.pre_tokenizer)
        if run.history.config.is_unigram:  # no merge can rebuild a special token
            return list(before.notes)
        return [*before.notes, *special_token_notes(as_merge_history(run.history))]

    return run.derive("special_token_messages", build)


# ---------------------------------------------------------------- the state after k merges


def tokenizer_at_step(run: Run, k: int) -> Tokenizer:
    """The tokenizer that knows only the first k merges (and the vocabulary they had made); the
    last two asked for are kept (one step view asks twice; a book-size run takes ~15 ms to build)."""
    kept: dict[int, Tokenizer] = run.derive("tokenizers_at_step", dict, own=True)
    if k not in kept:
        while len(kept) >= 2:
            kept.pop(next(iter(kept)))
        kept[k] = tokenizer_from_trace(run.history, k)
    return kept[k]


def run_column(run: Run, role: str, special_tokens: bool = True) -> TokenizerColumn:
    """A column for a run trained in this app; `role` says which one it is ('this run', ...).
    `special_tokens` False: the run's special tokens are plain text (the Compare page's switch)."""

    def build() -> TokenizerColumn:
        # The exports are shared by every session showing the run (thirty visitors of a Compare
        # link exported the same JSON thirty times: a third of the server's time in py-spy); the
        # column names this session's run, so it is the session's own.
        tok = tokenizer(run)
        exported = run.derive("tokenizer_json_compact", lambda: tokenizer_to_json(tok))
        plain = (
            None
            if special_tokens or not tok.special_tokens
            else run.derive(
                "tokenizer_json_compact_plain", lambda: tokenizer_to_json(plain_text_tokenizer(tok))
            )
        )
        return tokenizer_column(
            tok,
            run.name,
            key=run.column_key,
            exported=exported,
            special_tokens=special_tokens,
            source=f"trained here: run {run.number}",
            plain_exported=plain,
        )

    name = "compare_column" if special_tokens else "compare_column_plain"
    return replace(run.derive(name, build, own=True), caption=role)


def final_loss(run: Run) -> float | None:
    """A Unigram run's final loss (`lessons.rounds.final_loss`), computed once per run where the
    trace does not carry it (a course trace stored before the trainer recorded it: one Viterbi per
    word)."""
    from explorer.lessons import rounds  # here: numpy, for Unigram runs only

    return run.derive("unigram_final_loss", lambda: rounds.final_loss(as_round_history(run.history)))
