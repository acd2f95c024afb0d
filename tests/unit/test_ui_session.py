"""The session's memory and its link, without the app: the run cache and the list of earlier runs
(explorer.runs.run) are bounded by count and by characters, and a link's vocabulary size is checked
against the limits (explorer.runs.settings). Moved here from the app's tests: they need no app."""

from __future__ import annotations

from explorer.checks import Limits
from explorer.runs.run import Run, RunCache, RunKey, remember
from explorer.runs.settings import Settings, from_query_params


def _run(characters: int, name: str) -> Run:
    return Run(
        key=RunKey(name, Settings()),
        history=None,
        corpus_label=name,
        characters=characters,
        perceived_characters=characters,
        store_key=name,
    )


def test_run_cache_and_earlier_runs_are_bounded_by_count_and_characters():
    cache = RunCache(max_entries=3, max_characters=1_000)
    for index in range(10):
        cache.put(_run(300, f"c{index}"))
    assert len(cache) == 3
    cache.put(_run(900, "big"))
    assert len(cache) == 1  # the big one alone fits
    history: list[Run] = []
    for index in range(10):
        history = remember(history, _run(400, f"h{index}"), limit=4, max_characters=1_000)
    assert [run.corpus_label for run in history] == ["h9", "h8"]


def test_link_vocab_size_is_checked_against_the_limits():
    settings, notes = from_query_params({"vocab_size": "600"}, Limits(max_vocab=500))
    assert settings.vocab_size == 1000 and "vocab_size must be from 1 to 500" in notes[0]
    settings, notes = from_query_params({"vocab_size": "400"}, Limits(max_vocab=500))
    assert settings.vocab_size == 400 and not notes
