"""The runs the server parses once for every session (explorer.session.stored_runs) are
bounded by their traces' JSON, so that runs without running text (a large upload, a count file),
whose corpus has no characters here, are bounded too; and a stored run read twice is parsed once."""

from __future__ import annotations

import dataclasses
import hashlib

from explorer.checks import Limits
from explorer.runs.settings import Settings
from explorer.samples import SAMPLES
from explorer.session import serving, stored_runs
from explorer.train import train_corpus

SETTINGS = Settings(vocab_size=300)


def store_from_counts(name: str) -> tuple[str, int]:
    """A run stored as a large upload's is (no corpus, `from_counts`): its key and its JSON's size."""
    key = hashlib.sha256(name.encode()).hexdigest()
    text = SAMPLES["multilingual"].text + name
    payload = train_corpus(text, SETTINGS.run_config(Limits())).to_json().encode()
    meta = {
        "settings": dataclasses.asdict(SETTINGS),
        "corpus_label": "uploaded file",
        "sample_key": None,
        "corpus_sha256": key,
        "characters": 0,
        "from_counts": True,
    }
    assert serving.store().put(key, payload, None, meta)
    return key, len(payload)


def test_runs_without_text_are_bounded_by_their_traces_json(monkeypatch):
    first, size = store_from_counts("first")
    second, _ = store_from_counts("second")
    monkeypatch.setattr(stored_runs, "SHARED_TRACE_BYTES", size + size // 2)  # room for one of them
    stored_runs._shared.clear()
    run, text = stored_runs.load_run(first)
    assert text is None and run.from_counts and first in stored_runs._shared
    assert stored_runs.load_run(first)[0].history is run.history  # parsed once, shared
    stored_runs.load_run(second)
    assert second in stored_runs._shared and first not in stored_runs._shared
