"""Both training histories (BPE/WordPiece merges, Unigram rounds) are a `TrainingHistory`, answer
its questions alike, and the code outside explorer/training/ works with a run of its kind
(`MergeRun`, `RoundRun`, made once by explorer.runs.run.make_run) instead of asking which algorithm
made a run (at most 5 such checks, settings forms included)."""

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.pipeline.tokenizer_json import save_tokenizer
from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
from explorer.runs.run import MergeRun, RoundRun, RunKey, make_run
from explorer.runs.settings import Settings
from explorer.samples import HF_COURSE
from explorer.train import tokenizer_from_trace, trace_from_json, train_corpus
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.history import TrainingHistory
from explorer.training.unigram.round_history import RoundHistory

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "bpe-course": RunConfig(TrainerConfig(vocab_size=50, flavor="course"), (), "byte-level"),
    "bpe-library": RunConfig(TrainerConfig(vocab_size=300, flavor="library"), (), "byte-level"),
    "wordpiece-course": RunConfig(TrainerConfig("wordpiece", flavor="course", vocab_size=70), (), "bert"),
    "wordpiece-library": RunConfig(TrainerConfig("wordpiece", vocab_size=70), (), "bert"),
    "unigram-course": RunConfig(UnigramConfig("course", 100), (), "metaspace"),
    "unigram-library": RunConfig(UnigramConfig("library", 100), (), "metaspace"),
}


@pytest.fixture(scope="module", params=list(CONFIGS))
def history(request):
    return train_corpus(HF_COURSE.text, CONFIGS[request.param])


def test_both_histories_are_training_histories(history):
    assert isinstance(history, TrainingHistory)
    merges = isinstance(history, MergeHistory)
    assert merges != isinstance(history, RoundHistory)
    assert history.algorithm == history.config.algorithm
    assert (history.step_noun, history.vocabulary_grows) == (("merge", True) if merges else ("round", False))
    assert history.steps == (len(history.merges) if merges else len(history.rounds)) > 0
    assert history.words and len(history.words) == len(history.counts)
    assert history.vocab_at(None) == history.vocab and history.vocab_at(history.steps) == history.vocab
    assert history.special_tokens == list(history.config.special_tokens)
    assert isinstance(history.stop_reason_text(), str) and history.stop_reason_text()
    assert (
        history.tokenizer_at().encode(HF_COURSE.text).tokens
        == tokenizer_from_trace(history).encode(HF_COURSE.text).tokens
    )
    again = trace_from_json(history.to_json())
    assert again.to_json() == history.to_json()
    assert trace_from_json(history.to_json()).to_json() == history.to_json()
    assert type(history).from_dict(history.to_dict()).steps == history.steps


def test_a_run_is_made_of_its_historys_kind_once(history):
    """`make_run` gives a MergeRun for merges and a RoundRun for rounds, its `history` the very
    object it was given (typed as its class from then on)."""
    run = make_run(
        history, key=RunKey("0" * 64, Settings()), corpus_label="c", characters=1, perceived_characters=1
    )
    assert type(run) is (MergeRun if isinstance(history, MergeHistory) else RoundRun)
    assert run.history is history
    assert run.first_step == (min(1, history.steps) if isinstance(run, MergeRun) else 0)


def test_a_words_spans_at_step_k_are_its_tokens_and_the_new_ones_are_those_merge_k_made(history):
    """`MergeHistory.spans_at` (what the Merge history page's words show): the tokens are
    `segment_index`'s, the spans tile the word, and a token is flagged made by merge k exactly
    when its span was not a span one step before."""
    if not isinstance(history, MergeHistory):
        pytest.skip("a round history has no merges")
    for index in history.words_by_frequency()[:20]:
        for k in range(history.steps + 1):
            spans = history.spans_at(index, k)
            assert [token for token, *_ in spans] == history.segment_index(index, k)
            assert [start for _, start, _, _ in spans] == [0, *(end for _, _, end, _ in spans[:-1])]
            assert spans[-1][2] == len(history.words[index])
            before = {(start, end) for _, start, end, _ in history.spans_at(index, k - 1)} if k else set()
            assert [made for *_, made in spans] == [
                bool(k) and (start, end) not in before for _, start, end, _ in spans
            ]
            for limit in (1, 3, 7):  # a long word's first tokens only: those that start before the limit
                assert history.spans_at(index, k, limit) == [span for span in spans if span[1] < limit]


def test_the_vocabulary_at_step_k(history):
    if isinstance(history, MergeHistory):
        assert history.vocab_at(0) == history.vocab[: history.initial_vocab_size]
        assert [len(history.vocab_at(k)) for k in range(history.steps + 1)] == history.vocab_sizes
    else:
        assert history.vocab_at(0) == history.seeds
        assert [len(history.vocab_at(r)) for r in range(history.steps)] == history.sizes()[:-1]


def test_segment_a_word_at_step_k_agrees_with_the_old_methods(history):
    for k in sorted({0, 1, history.steps // 2, history.steps, None}, key=lambda k: -1 if k is None else k):
        for index, word in enumerate(history.words):
            pieces = history.segment(word, k)
            if isinstance(history, MergeHistory):
                assert pieces == history.segment_index(index, k)
            else:  # the tokenizer after round k segments the word alike
                model = history.tokenizer_at(k).model
                assert pieces == [token.value for token in model.tokenize(word)]
            assert "".join(pieces).replace(history.config.prefix or "\0", "") or not word


def test_a_history_writes_the_tokenizer_json_of_its_tokenizer(history, tmp_path):
    history.save_tokenizer(tmp_path / "streamed.json")
    save_tokenizer(history.tokenizer_at(), tmp_path / "built.json")
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "built.json").read_bytes()


@pytest.mark.parametrize(
    "trainer",
    [
        TrainerConfig(vocab_size=80, special_tokens=("[UNK]", "[CLS]", "[SEP]")),
        TrainerConfig(vocab_size=80, continuing_subword_prefix="##", end_of_word_suffix="</w>"),
        TrainerConfig(vocab_size=80, flavor="course", special_tokens=("<s>",), end_of_word_suffix="</w>"),
        TrainerConfig("wordpiece", vocab_size=80, special_tokens=("[PAD]", "[CLS]", "[SEP]")),
    ],
)
def test_a_merge_history_writes_its_tokenizer_json_with_special_tokens_and_affixes(trainer, tmp_path):
    history = train_corpus(HF_COURSE.text, RunConfig(trainer, ("lowercase",), "whitespace"))
    history.save_tokenizer(tmp_path / "streamed.json")
    save_tokenizer(history.tokenizer_at(), tmp_path / "built.json")
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "built.json").read_bytes()


def _kept_by_a_table(merges: list[tuple[int, int, int]], keep_first: bool) -> list[tuple[int, int]]:
    """The model's merges as a table keyed by pair keeps them: the library's map (the last rank
    wins) or the course's dict (a key stays at its first position)."""
    position: dict[tuple[int, int], int] = {}
    for rank, (left, right, _) in enumerate(merges):
        if not (keep_first and (left, right) in position):
            position[(left, right)] = rank
    return [pair for pair, _ in sorted(position.items(), key=lambda item: item[1])]


@pytest.mark.parametrize("flavor", ["library", "course"])
def test_a_pair_merged_twice_is_kept_once_where_the_flavor_keeps_it(flavor):
    trace = train_corpus(
        HF_COURSE.text, RunConfig(TrainerConfig(vocab_size=60, flavor=flavor), (), "whitespace")
    )
    merges = trace.merges
    # Pairs merged again later (a stale library queue entry, a pair the course re-forms).
    repeated = [*merges[:6], merges[1], *merges[6:12], merges[4], merges[1], *merges[12:]]
    twice = replace(trace, merges=repeated)
    expected = _kept_by_a_table(repeated, keep_first=flavor == "course")
    assert twice.model_merges() == [(trace.vocab[left], trace.vocab[right]) for left, right in expected]
    assert twice.model_merges(9) == [
        (trace.vocab[left], trace.vocab[right])
        for left, right in _kept_by_a_table(repeated[:9], flavor == "course")
    ]
    assert len(twice.model_merges()) == len(merges)


def test_a_merge_history_segments_only_its_corpus_words():
    trace = train_corpus(HF_COURSE.text, CONFIGS["bpe-course"])
    with pytest.raises(ValueError, match="not a word of this run's corpus"):
        trace.segment("Ġnever-seen")


def test_record_final_frequencies():
    unigram = train_corpus(HF_COURSE.text, CONFIGS["unigram-course"])
    assert unigram.final_frequencies is None
    unigram.record_final_frequencies()
    assert unigram.final_frequencies == unigram.piece_frequencies()
    bpe = train_corpus(HF_COURSE.text, CONFIGS["bpe-course"])
    before = bpe.to_json()
    bpe.record_final_frequencies()
    assert bpe.to_json() == before


# ---------------------------------------------------------------- kind checks outside training/

# Asking a run (or its history) which kind it is: at most RUN_LIMIT places outside training/ (the
# one place a run is made, explorer.runs.run.make_run, and one per page: Train, Merge history,
# Vocabulary, Compare).
RUN_KINDS = {"MergeRun", "RoundRun", "MergeHistory", "RoundHistory"}
NARROWING = {"as_merge_history", "as_round_history"}  # the narrowing helpers, gone with Run.derive
# A history's kind, compared with ==, != or in (a run has no `kind`: `.kind` is a token's, a piece's).
KIND_ATTRIBUTES = {"step_noun"}
RUN_LIMIT = 5
# Asking the settings which algorithm was chosen (the Train form's widgets, a Settings, a
# RunConfig, the CLI's arguments): at most ALGORITHM_LIMIT places outside training/ and reproduce/.
ALGORITHM_KINDS = {"UnigramConfig", "TrainerConfig"}
ALGORITHM_LIMIT = 7


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
    }


def _is_isinstance_of(node: ast.AST, kinds: set[str]) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and bool(_names(node.args[1]) & kinds)
    )


def _is_run_kind_check(node: ast.AST) -> bool:
    """`isinstance(x, <a run or history class>)`, `as_merge_history(...)`, `as_round_history(...)`,
    `x.step_noun == ...` (and !=, in): what the grep `isinstance(... MergeRun)|as_merge_history|
    as_round_history|step_noun ==` finds, without imports, docstrings, comments and type hints."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NARROWING:
        return True
    if isinstance(node, ast.Compare):
        return any(
            isinstance(side, ast.Attribute) and side.attr in KIND_ATTRIBUTES
            for side in [node.left, *node.comparators]
        )
    return _is_isinstance_of(node, RUN_KINDS)


def _is_algorithm_check(node: ast.AST) -> bool:
    """`x.is_unigram`, `is_unigram(...)`, `isinstance(x, <a trainer config>)`, `... == "unigram"`
    (and !=, in): what the grep `is_unigram|isinstance(... UnigramConfig)|algorithm == "unigram"`
    finds, without imports, docstrings, comments and type hints."""
    if isinstance(node, ast.Attribute):
        return node.attr == "is_unigram"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "is_unigram":
        return True
    if isinstance(node, ast.Compare):
        return any(
            isinstance(side, ast.Constant) and side.value == "unigram"
            for side in [node.left, *node.comparators]
        )
    return _is_isinstance_of(node, ALGORITHM_KINDS)


def checks(is_check, skipped: tuple[str, ...] = ()) -> list[str]:
    files = [
        ROOT / "app.py",
        *sorted((ROOT / "pages").rglob("*.py")),
        *sorted((ROOT / "explorer").rglob("*.py")),
    ]
    found = []
    for path in files:
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(("explorer/training/", *skipped)):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{name}:{node.lineno}" for node in ast.walk(tree) if is_check(node)]
    return found


def test_the_counters_find_each_kind_of_check():
    run_checks = [
        "isinstance(run, MergeRun)",
        "isinstance(run, (MergeRun, RoundRun))",
        "isinstance(t, RoundHistory)",
        "as_merge_history(run.history)",
        "as_round_history(run.history)",
        'run.history.step_noun == "merge"',
        '"round" != trace.step_noun',
    ]
    algorithm_checks = [
        "a.is_unigram",
        "is_unigram(run)",
        'x.algorithm == "unigram"',
        "isinstance(c, UnigramConfig)",
    ]
    neither = [
        "isinstance(t, int)",
        "run.history.step_noun",
        "SHOW[run.history.step_noun]",
        "isinstance(r, Run)",
    ]
    for is_check, counted in ((_is_run_kind_check, run_checks), (_is_algorithm_check, algorithm_checks)):
        code = ast.parse("\n".join([*run_checks, *algorithm_checks, *neither]))
        assert sum(is_check(node) for node in ast.walk(code)) == len(counted)


def test_the_pages_work_with_a_run_of_its_kind_instead_of_asking_it():
    found = checks(_is_run_kind_check)
    assert len(found) <= RUN_LIMIT, "\n".join(found)


def test_the_settings_forms_ask_the_algorithm_in_few_places():
    # The programs that write a trainer's code ask which trainer to write: explorer/reproduce/.
    found = checks(_is_algorithm_check, ("explorer/reproduce/",))
    assert len(found) <= ALGORITHM_LIMIT, "\n".join(found)
