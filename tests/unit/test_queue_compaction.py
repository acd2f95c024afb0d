"""The course queues rebuild their lazy heap when stale entries pile up (`Ranking.compact`): a run
rebuilt at every merge gives exactly the trace of a run never rebuilt (every merge, count,
candidate and score), for the course's BPE and WordPiece."""

from __future__ import annotations

import pytest

from explorer.run_config import TrainerConfig
from explorer.samples import SHAKESPEARE
from explorer.training.bpe import queues
from explorer.training.bpe.trainer import train
from explorer.training.word_counts import count_words


@pytest.mark.parametrize(
    ("algorithm", "pre_tokenizer", "special_tokens"),
    [("bpe", "byte-level", ()), ("wordpiece", "bert", ("[UNK]",))],
)
def test_rebuilding_the_heap_at_every_merge_changes_nothing(
    algorithm, pre_tokenizer, special_tokens, monkeypatch
):
    words = count_words(SHAKESPEARE.text[:60_000], (), pre_tokenizer)
    config = TrainerConfig(algorithm, flavor="course", vocab_size=900, special_tokens=special_tokens)
    traces, rebuilds = [], []
    compact = queues.Ranking.compact
    monkeypatch.setattr(
        queues.Ranking, "compact", lambda self, keys: rebuilds.append(1) or compact(self, keys)
    )
    for factor, kept in ((2, 10**12), (0, 0)):  # never rebuilt, rebuilt after every merge
        monkeypatch.setattr(queues, "STALE_FACTOR", factor)
        monkeypatch.setattr(queues, "STALE_ENTRIES_KEPT", kept)
        trace = train(words, config, engine="python")  # the Python engine's heap
        record = trace.to_dict()
        record.pop("seconds")
        traces.append(record)
    assert traces[0] == traces[1]
    assert len(traces[0]["merges"]) > 500
    assert len(rebuilds) >= len(traces[0]["merges"])  # the second run rebuilt after every merge
