"""A run leaves Compare's picker only with a word: past the session's earlier runs
(`state.HISTORY_LIMIT`), the oldest run goes, and the picker names it and says why."""

from __future__ import annotations

from explorer.ui.common import state
from explorer.ui.common.state import Widget as W
from tests.app.helpers import new_app, open_compare, run_of
from tests.app.test_serving import train_pasted, words


def test_the_run_that_leaves_the_picker_is_named_under_it():
    at = new_app()
    for seed in range(state.HISTORY_LIMIT + 2):  # the current run, the earlier ones, and one more
        train_pasted(at, words(60, seed=100 + seed), vocab_size=120)
    assert run_of(at).number == state.HISTORY_LIMIT + 2
    open_compare(at)
    options = at.multiselect(key=W.COLUMNS).options
    assert not any(option.startswith("Your runs · #1 ") for option in options)
    assert any(option.startswith("Your runs · #2 ") for option in options)
    said = [caption.value for caption in at.caption if caption.value.startswith("No longer in the list")]
    assert len(said) == 1 and "#1 " in said[0] and "#2 " not in said[0], said
    assert f"the {state.HISTORY_LIMIT} runs before them" in said[0]
