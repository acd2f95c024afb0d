"""`explorer.session.training_jobs.start`, the one call that starts a training, without the app or
the pool: refused by the checks (with their sentences), reused from the session's cache (a pasted
corpus's run under this session's salt only), or submitted; the corpus digested once on the way."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from explorer.checks import Limits, check_corpus
from explorer.runs.run import Run, RunCache, RunKey
from explorer.runs.settings import Settings
from explorer.session import serving, training_jobs
from explorer.session.training_jobs import Refused, Reused, Submitted, TrainingCorpus

TEXT = "".join(f"low lower lowest {index}\n" for index in range(200))
SALT = b"s" * 16


@pytest.fixture
def submitted(monkeypatch) -> list[tuple]:
    """What reached the pool: (key, corpus, meta) for each job asked for (no pool is started)."""
    asked: list[tuple] = []

    def submit(key, corpus, settings, limits, meta):
        asked.append((key, corpus, meta))
        return object()

    monkeypatch.setattr(training_jobs, "_submit", submit)
    return asked


def start(corpus: TrainingCorpus, cache: RunCache, numbers: list[int], **options):
    def next_number() -> int:
        numbers.append(len(numbers) + 1)
        return numbers[-1]

    limits = options.pop("limits", Limits())
    salt = options.pop("salt", SALT)
    return training_jobs.start(
        corpus, Settings(vocab_size=300), limits, salt=salt, cache=cache, next_number=next_number, **options
    )


def test_inputs_that_block_training_are_refused_with_the_checks_sentences(submitted):
    numbers: list[int] = []
    refused = start(TrainingCorpus("", "pasted text"), RunCache(), numbers)
    assert isinstance(refused, Refused)
    assert refused.errors[0] == check_corpus("", Limits()).errors[0]
    too_large = start(TrainingCorpus(TEXT, "pasted text"), RunCache(), numbers, limits=Limits(max_vocab=100))
    assert isinstance(too_large, Refused) and any("100" in error for error in too_large.errors)
    assert not submitted and not numbers  # no job, no run number spent


def test_a_run_in_the_sessions_cache_is_reused_under_its_salt_only(submitted):
    corpus = TrainingCorpus(TEXT, "pasted text")
    key = serving.training_key(corpus.digest, Settings(vocab_size=300), Limits(), SALT)
    settings = Settings(vocab_size=300)
    run = Run(RunKey(corpus.digest, settings), None, "mine", len(TEXT), len(TEXT), store_key=key)
    cache = RunCache()
    cache.put(run)
    numbers: list[int] = []
    reused = start(corpus, cache, numbers)
    assert isinstance(reused, Reused) and reused.run is run and not submitted
    # Another session's salt: another key (its visitor never learns this text was trained here).
    other = start(corpus, cache, numbers, salt=b"o" * 16)
    assert isinstance(other, Submitted) and submitted[-1][0] != key
    # The same text as a sample is every visitor's run: another key, so trained (not this session's run).
    shared = start(TrainingCorpus(TEXT, "a sample", sample_key="tiny"), cache, numbers)
    assert isinstance(shared, Submitted) and submitted[-1][0] not in (key, submitted[0][0])


def test_a_submitted_job_carries_the_corpus_digested_once(submitted, monkeypatch):
    sha256 = hashlib.sha256
    digested: Counter = Counter()

    def counting(content=b"", *args, **kwargs):
        digested[len(content)] += 1
        return sha256(content, *args, **kwargs)

    monkeypatch.setattr(hashlib, "sha256", counting)
    corpus = TrainingCorpus(TEXT, "pasted text")
    numbers: list[int] = []
    started = start(corpus, RunCache(), numbers)
    assert isinstance(started, Submitted)
    job = started.job
    key, sent, meta = submitted[0]
    assert job.key == key and job.corpus is sent is corpus and job.number == numbers[-1] == 1
    assert meta["corpus_sha256"] == corpus.digest == sha256(TEXT.encode()).hexdigest()
    assert meta["corpus_label"] == serving.STORED_CORPUS_LABEL  # never a visitor's name for it
    assert digested[len(TEXT.encode())] == 1
