"""A run of each kind keeps what is derived from it: `run_property` and `per_run` once per stored
run, shared by the sessions showing it (they share `Run.derived`, as explorer.session.serving
makes them), `per_session` once per session's run, and the last tokenizers at a step."""

from explorer.run_config import RunConfig, TrainerConfig
from explorer.runs.run import MergeRun, Run, RunKey, make_run, per_run, per_session
from explorer.runs.settings import Settings
from explorer.samples import HF_COURSE
from explorer.train import tokenizer_from_trace, train_corpus

HISTORY = train_corpus(
    HF_COURSE.text, RunConfig(TrainerConfig(vocab_size=40, flavor="course"), (), "byte-level")
)


def two_sessions() -> tuple[MergeRun, MergeRun]:
    """One stored run as two sessions hold it: two Run objects, one dict of derived objects."""
    fields = {
        "key": RunKey("0" * 64, Settings()),
        "corpus_label": "c",
        "characters": 1,
        "perceived_characters": 1,
    }
    first = make_run(HISTORY, number=1, **fields)
    second = make_run(HISTORY, number=2, derived=first.derived, **fields)
    assert isinstance(first, MergeRun) and isinstance(second, MergeRun)
    return first, second


def test_a_run_property_is_built_once_for_every_session_showing_the_run():
    first, second = two_sessions()
    assert first.tokenizer is second.tokenizer
    assert (
        first.tokenizer.encode(HF_COURSE.text).ids == tokenizer_from_trace(HISTORY).encode(HF_COURSE.text).ids
    )
    assert first.token_ids is second.token_ids and first.token_ids == HISTORY.token_ids()
    assert first.merged_token_ids == sorted(HISTORY.merge_rank_of, key=HISTORY.merge_rank_of.__getitem__)
    assert first.trace_json == HISTORY.to_json()


def test_per_run_is_shared_by_the_sessions_and_per_session_is_not():
    built: list[tuple[str, int, int]] = []

    @per_run
    def shared(run: Run, extra: int) -> list[int]:
        built.append(("shared", run.number, extra))
        return [extra]

    @per_session
    def own(run: Run) -> str:
        built.append(("own", run.number, 0))
        return run.name

    first, second = two_sessions()
    assert shared(first, 1) is shared(second, 1) is shared(first, 1)
    assert shared(second, 2) == [2]  # another argument: another object
    assert own(first) != own(second) and own(first) is own(first)
    assert built == [("shared", 1, 1), ("shared", 2, 2), ("own", 1, 0), ("own", 2, 0)]


def test_a_run_keeps_its_last_two_tokenizers_at_a_step():
    run, _ = two_sessions()
    at_one = run.tokenizer_at(1)
    assert run.tokenizer_at(1) is at_one
    assert run.tokenizer_at(1).encode("hug").tokens == tokenizer_from_trace(HISTORY, 1).encode("hug").tokens
    run.tokenizer_at(2)
    run.tokenizer_at(3)  # the oldest goes
    assert list(run.recent_tokenizers) == [2, 3]
