"""Step-by-step encoding: ends exactly on `encode` (ours) and on tiktoken, each step follows the
rule (lowest rank present, leftmost; greedy longest match), and the course's own `tokenize()`
functions (tests/reference/course_tokenize.py) go through the same states."""

import ast
import functools
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.lessons.course_lessons import COURSE_BPE_MERGES, COURSE_BPE_TOKENIZE
from explorer.lessons.encode_steps import (
    MAX_SYMBOLS_WITH_STEPS,
    encode_steps,
    explain_initial_symbols,
    pretrained_encode_steps,
    tiktoken_bpe,
)
from explorer.pipeline.models import BPEModel, WordPieceModel
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pretrained import encode_pretrained, load_encoding
from explorer.run_config import RunConfig, TrainerConfig
from explorer.samples import GERMAN, HF_COURSE, MULTILINGUAL
from explorer.train import tokenizer_from_trace, train_corpus
from tests.helpers.cli import cli
from tests.reference import course_tokenize

BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
CORPUS = "\n".join([HF_COURSE.text, GERMAN.text, MULTILINGUAL.text])
# Characters of the corpus, characters it lacks (dropped or unknown), and special-token text.
SOME_CHARACTERS = (
    sorted(set(CORPUS)) + list("PQXZ#é서울😀\u0301\u200d \n\t") + ["[CLS]", "<|endoftext|>", "[UNK]"]
)
TEXTS = st.one_of(
    st.lists(st.sampled_from(SOME_CHARACTERS), max_size=30).map("".join),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=20),
)
DIFFERENTIAL = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# name -> (config, normalizers, pre-tokenizer, corpus)
TRAINED = {
    "bpe-library-byte-level": (
        TrainerConfig(vocab_size=400, special_tokens=("<|endoftext|>",)),
        (),
        "byte-level",
        CORPUS,
    ),
    "bpe-library-whitespace-unk": (
        TrainerConfig(vocab_size=200, special_tokens=("[UNK]",)),
        (),
        "whitespace",
        CORPUS,
    ),
    "bpe-library-whitespace-prefix-suffix": (
        TrainerConfig(vocab_size=700, continuing_subword_prefix="##", end_of_word_suffix="</w>"),
        ("nfd", "lowercase"),
        "whitespace-split",
        CORPUS,
    ),
    "bpe-course-byte-level": (
        TrainerConfig(flavor="course", vocab_size=50, special_tokens=("<|endoftext|>",)),
        (),
        "byte-level",
        HF_COURSE.text,
    ),
    "wordpiece-library-bert": (
        TrainerConfig(algorithm="wordpiece", vocab_size=300, special_tokens=BERT_SPECIALS),
        ("bert",),
        "bert",
        CORPUS,
    ),
    "wordpiece-course-bert": (
        TrainerConfig(algorithm="wordpiece", flavor="course", vocab_size=70, special_tokens=BERT_SPECIALS),
        (),
        "bert",
        HF_COURSE.text,
    ),
}


@functools.cache
def trained(name: str):
    config, normalizers, pre_tokenizer, corpus = TRAINED[name]
    return train_corpus(corpus, RunConfig(config, normalizers, pre_tokenizer))


@functools.cache
def tokenizer(name: str, k: int | None = None) -> Tokenizer:
    """The tokenizer after k merges (all of them when k is None or beyond the run)."""
    trace = trained(name)
    return tokenizer_from_trace(trace, None if k is None else min(k, trace.steps))


@functools.cache
def fused_unk_tokenizer() -> Tokenizer:
    """The whitespace BPE with unk, fusing runs of unknown characters into one unk token."""
    model = tokenizer("bpe-library-whitespace-unk").model
    fused = BPEModel(model.vocab, model.merges, unk_token=model.unk_token, fuse_unk=True)
    return Tokenizer(None, build_pre_tokenizer("whitespace"), fused, special_tokens=["[UNK]"])


# ------------------------------------------------------------------ checks shared by the tests


def assert_final_is_encode(tok: Tokenizer, text: str) -> None:
    result = encode_steps(tok, text)
    expected = tok.encode(text, add_special_tokens=False)
    final = result.final_pieces()
    assert [p.id for p in final] == expected.ids
    assert [p.value for p in final] == expected.tokens
    assert [(p.start, p.end) for p in final] == expected.offsets
    for pre_token in result.pre_tokens:
        if pre_token.steps and pre_token.steps[-1].kind not in ("no-match", "too-long"):
            assert [p for p in pre_token.steps[-1].pieces if p.is_token] == list(pre_token.final)
        if isinstance(tok.model, BPEModel):
            assert_bpe_steps_follow_the_rule(
                pre_token, lambda a, b: (tok.model.merge_map.get((a, b)) or (None,))[0]
            )
        elif not pre_token.special:
            assert_wordpiece_steps_follow_the_rule(pre_token, tok.model)


def assert_bpe_steps_follow_the_rule(pre_token, rank_of) -> None:
    """Each merge is the lowest-rank adjacent pair present, leftmost among equals; the pieces after
    it are the pieces before with that pair replaced; no pair is left to merge at the end."""
    if not pre_token.steps:
        return
    start, *later = pre_token.steps
    assert start.kind == "start"
    previous = start.pieces
    merges = 0
    for step in later:
        tokens = [(index, piece) for index, piece in enumerate(previous) if piece.kind != "dropped"]
        present = [
            (rank_of(left.id, right.id), left_index, right_index)
            for (left_index, left), (right_index, right) in zip(tokens, tokens[1:])
            if rank_of(left.id, right.id) is not None
        ]
        if step.kind == "whole-word":
            assert len(step.pieces) == 1
            break
        assert step.kind == "merge"
        merges += 1
        assert (step.rank, *step.pair_positions) == min(present)
        left_index, right_index = step.pair_positions
        assert step.pair == (previous[left_index].value, previous[right_index].value)
        expected = list(previous)
        del expected[right_index]
        assert step.pieces[:left_index] == tuple(expected[:left_index])
        assert step.pieces[left_index + 1 :] == tuple(expected[left_index + 1 :])
        merged = step.pieces[left_index]
        assert merged.value == step.merged and merged.kind == "token"
        assert (merged.start, merged.end) == (previous[left_index].start, previous[right_index].end)
        previous = step.pieces
    else:
        tokens = [piece for piece in previous if piece.kind != "dropped"]
        assert all(rank_of(a.id, b.id) is None for a, b in zip(tokens, tokens[1:]))
        initial = sum(1 for piece in start.pieces if piece.kind != "dropped")
        assert merges == initial - len(pre_token.final)


def assert_wordpiece_steps_follow_the_rule(pre_token, model) -> None:
    """Pieces are found left to right without gaps, each in the vocabulary, every longer candidate
    tried not; a failure turns the whole word into the unknown token."""
    start, *later = pre_token.steps
    assert start.kind == "start" and start.pieces[0].kind == "rest"
    position = 0
    for step in later:
        if step.kind == "too-long":
            assert len(pre_token.text) > model.max_input_chars_per_word
        elif step.kind == "no-match":
            assert step.word_span == (position, position)
        else:
            first, end = step.word_span
            assert first == position < end
            assert step.kind == ("prefix" if first == 0 else "continuation")
            assert step.merged == (
                pre_token.text[first:end] if first == 0 else "##" + pre_token.text[first:end]
            )
            assert step.merged in model.vocab
            assert all(len(candidate) > len(step.merged) for candidate in step.tried)
            position = end
        assert all(candidate not in model.vocab for candidate in step.tried)
    if later and later[-1].kind in ("no-match", "too-long"):
        assert [p.kind for p in pre_token.final] == ["unk"]
        assert pre_token.final[0].source_span == (pre_token.start, pre_token.end)
    else:
        assert position == len(pre_token.text)


# ------------------------------------------------------------------ differential: ours


@pytest.mark.parametrize("name", list(TRAINED))
@pytest.mark.parametrize("k", [0, 3, 25, None])
@DIFFERENTIAL
@given(text=TEXTS)
def test_final_pieces_are_encode_and_every_step_follows_the_rule(name, k, text):
    assert_final_is_encode(tokenizer(name, k), text)


@functools.cache
def library_tokenizer(name: str):
    """The `tokenizers` library loading our tokenizer.json."""
    from tokenizers import Tokenizer as LibraryTokenizer

    from explorer.pipeline.tokenizer_json import tokenizer_to_json

    return LibraryTokenizer.from_str(tokenizer_to_json(tokenizer(name)))


@pytest.mark.parametrize("name", list(TRAINED))
@DIFFERENTIAL
@given(text=TEXTS)
def test_final_pieces_are_the_librarys(name, text):
    expected = library_tokenizer(name).encode(text, add_special_tokens=False)
    final = encode_steps(tokenizer(name), text).final_pieces()
    assert [(p.id, p.value, p.start, p.end) for p in final] == list(
        zip(expected.ids, expected.tokens, *zip(*expected.offsets))
    )


@DIFFERENTIAL
@given(text=TEXTS)
def test_steps_end_on_encode_with_fused_unknown_characters(text):
    assert_final_is_encode(fused_unk_tokenizer(), text)


@DIFFERENTIAL
@given(word=st.text(st.sampled_from("abcxyzé서"), max_size=12))
def test_initial_symbols_are_the_models(word):
    for model in (
        tokenizer("bpe-library-whitespace-unk").model,
        fused_unk_tokenizer().model,
        tokenizer("bpe-library-whitespace-prefix-suffix").model,
        tokenizer("bpe-course-byte-level").model,
    ):
        explained = explain_initial_symbols(model, word)
        ids, lengths = model._initial_symbols(word)
        assert [symbol_id for kind, symbol_id, *_ in explained if kind != "dropped"] == ids
        # Each character is accounted for once, in order: kept, unknown or dropped.
        assert [(first, end) for *_, first, end in explained] == [
            (a, b) for a, b in zip([0] + [end for *_, end in explained][:-1], [end for *_, end in explained])
        ]
        assert not explained or explained[-1][4] == len(word)
        assert len(ids) == len(lengths)


def test_dropped_and_unknown_characters_are_pieces_with_their_source():
    course = encode_steps(tokenizer("bpe-course-byte-level"), "A mouse called Petar")
    petar = course.pre_tokens[-1]
    assert [(p.kind, p.source) for p in petar.steps[0].pieces][:2] == [("token", " "), ("dropped", "P")]
    assert [p.source for p in petar.dropped] == ["P"]
    assert [p.source for p in course.pre_tokens[0].dropped] == ["A"] and course.pre_tokens[0].final == ()
    # The library's offsets after a dropped character shift left; the source says what is meant.
    e = petar.final[1]
    assert (e.value, e.start, e.end, e.source, e.source_span) == ("e", 15, 16, "e", (16, 17))

    assert [(p.kind, p.source) for p in course.unrepresented()] == [("dropped", "A"), ("dropped", "P")]

    unk = encode_steps(tokenizer("bpe-library-whitespace-unk"), "서울")
    assert [(p.value, p.source) for p in unk.final_pieces()] == [("[UNK]", "서"), ("[UNK]", "울")]
    fused = encode_steps(fused_unk_tokenizer(), "서울")
    assert [(p.value, p.kind, p.source) for p in fused.final_pieces()] == [("[UNK]", "unk", "서울")]
    wordpiece = encode_steps(tokenizer("wordpiece-course-bert"), "Hugging 서울 Face!")
    assert [(p.kind, p.source) for p in wordpiece.unrepresented()] == [("unk", "서울"), ("unk", "!")]


def test_special_tokens_are_cut_out_first_and_the_template_is_added_on_request():
    tok = tokenizer("wordpiece-course-bert")
    result = encode_steps(tok, "This[SEP]is", add_special_tokens=True)
    assert [(p.text, p.special, len(p.steps)) for p in result.pre_tokens] == [
        ("[CLS]", True, 0),
        ("This", False, 4),
        ("[SEP]", True, 0),
        ("is", False, 2),
        ("[SEP]", True, 0),
    ]
    expected = tok.encode("This[SEP]is")
    assert [p.id for p in result.final_pieces()] == expected.ids
    assert [(p.start, p.end) for p in result.final_pieces()] == expected.offsets


def test_ignore_merges_looks_the_whole_word_up():
    vocab = {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}
    model = BPEModel(vocab, [("a", "b")], ignore_merges=True)
    tok = Tokenizer(None, build_pre_tokenizer("whitespace"), model)
    (pre_token,) = encode_steps(tok, "abc").pre_tokens
    assert [step.kind for step in pre_token.steps] == ["start", "merge", "whole-word"]
    assert [p.value for p in pre_token.steps[1].pieces] == ["ab", "c"]
    assert [p.value for p in pre_token.final] == ["abc"] == tok.encode("abc").tokens


def test_wordpiece_word_longer_than_the_limit_becomes_unknown():
    tok = tokenizer("wordpiece-library-bert")
    (pre_token,) = encode_steps(tok, "a" * 101).pre_tokens
    assert [step.kind for step in pre_token.steps] == ["start", "too-long"]
    assert (
        [p.value for p in pre_token.final]
        == tok.encode("a" * 101, add_special_tokens=False).tokens
        == ["[UNK]"]
    )


# ------------------------------------------------------------------ differential: tiktoken


@functools.lru_cache(maxsize=3)
def _ranks_from_the_file(name: str) -> dict[bytes, int]:
    from explorer.pretrained.tiktoken_backend import mergeable_ranks

    return mergeable_ranks(name)[0]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
@DIFFERENTIAL
@given(text=TEXTS)
def test_pretrained_steps_end_on_tiktoken(name, text):
    result = pretrained_encode_steps(name, text)
    encoding = load_encoding(name)
    final = result.final_pieces()
    assert [p.id for p in final] == encoding.encode_ordinary(text)
    assert [(p.id, p.token_bytes, p.start, p.end) for p in final] == [
        (p.id, p.token_bytes, p.start, p.end) for p in encode_pretrained(name, text)
    ]
    ranks = _ranks_from_the_file(name)  # read again from the verified file: independent of the steps' lookups
    decoder = {rank: token for token, rank in ranks.items()}
    for pre_token in result.pre_tokens:
        assert_bpe_steps_follow_the_rule(pre_token, lambda a, b: ranks.get(decoder[a] + decoder[b]))
        assert b"".join(p.token_bytes for p in pre_token.steps[0].pieces) == pre_token.token_bytes


def test_the_gpt2_tutorial_sentence_step_by_step():
    result = pretrained_encode_steps(
        "gpt2", "A mouse called Petar sits on the legendary throne in the ivory tower."
    )
    assert [p.id for p in result.final_pieces()] == [
        32,
        10211,
        1444,
        4767,
        283,
        10718,
        319,
        262,
        13273,
        19262,
        287,
        262,
        32630,
        10580,
        13,
    ]  # tests/unit/test_cli.py's seed ids
    petar = next(p for p in result.pre_tokens if p.text == " Petar")
    assert [p.value for p in petar.steps[0].pieces] == ["·", "P", "e", "t", "a", "r"]
    assert [p.value for p in petar.final] == ["·Pet", "ar"]


def test_a_pretrained_token_unreachable_by_merges_is_looked_up_whole(monkeypatch):
    """tiktoken looks a pre-token up before merging; with ranks where "abc" cannot be built
    (no "ab", no "bc"), it still gives "abc", and so does the last step."""
    import regex
    import tiktoken

    ranks = {bytes([byte]): byte for byte in range(256)} | {b"abc": 256, b"cd": 257}
    encoding = tiktoken.Encoding("test", pat_str=r"\w+| ", mergeable_ranks=ranks, special_tokens={})
    tables = (regex.compile(r"\w+| "), tiktoken_bpe._Ranks(encoding))
    monkeypatch.setattr(tiktoken_bpe, "_tiktoken_tables", lambda name: tables)
    result = tiktoken_bpe.tiktoken_encode_steps("gpt2", "abc abcd")
    expected = encoding.encode_ordinary("abc abcd")
    assert [p.id for p in result.final_pieces()] == expected == [256, 32, 97, 98, 257]
    assert [step.kind for step in result.pre_tokens[0].steps] == ["start", "whole-word"]
    assert [step.kind for step in result.pre_tokens[2].steps] == ["start", "merge"]


# ------------------------------------------------------------------ bounds


def test_a_huge_word_gets_its_tokens_without_steps_and_a_note():
    word = "ab" * 50_000
    result = pretrained_encode_steps("gpt2", word)
    (pre_token,) = result.pre_tokens
    assert pre_token.steps == () and "100,000 symbols" in pre_token.note and result.notes
    assert [p.id for p in result.final_pieces()] == load_encoding("gpt2").encode_ordinary(word)
    tok = tokenizer("bpe-library-byte-level")
    ours = encode_steps(tok, word)
    assert ours.pre_tokens[0].steps == () and ours.notes
    assert [p.id for p in ours.final_pieces()] == tok.encode(word, add_special_tokens=False).ids


def test_the_step_budget_stops_recording_and_says_so():
    text = " ".join(["x" * (MAX_SYMBOLS_WITH_STEPS - 1)] * 10)
    result = pretrained_encode_steps("gpt2", text)
    assert result.pre_tokens[0].steps and not result.pre_tokens[-1].steps
    assert "too long to show every step" in result.pre_tokens[-1].note
    assert [p.id for p in result.final_pieces()] == load_encoding("gpt2").encode_ordinary(text)


# ------------------------------------------------------------------ the course's own tokenize()

# Printed by the course, chapter 6 section 5: quoted once, in explorer.lessons.course_lessons.


def course_bpe_states(text: str) -> list[list[list[str]]]:
    """Per pre-token, the course's split at the start and after each merge rule that changed it."""
    merges = {}
    for left, right in trained("bpe-course-byte-level").merge_strings():
        merges[(left, right)] = left + right  # the course's `merges[best_pair] = ...`
    pre_tokenize_str = tokenizer("bpe-course-byte-level").pre_tokenizer.pre_tokenize
    states = [[[c for c in word]] for word, _ in pre_tokenize_str(text)]

    def on_rule(_pair, splits):
        for state, split in zip(states, splits):
            if split != state[-1]:
                state.append(split)

    tokens = course_tokenize.bpe_tokenize(text, pre_tokenize_str, merges, on_rule)
    assert tokens == sum((state[-1] for state in states), [])
    return states


def our_bpe_states(text: str) -> list[list[list[str]]]:
    """Per pre-token, our pieces at the start and after the last merge of each rank."""
    states = []
    for pre_token in encode_steps(tokenizer("bpe-course-byte-level"), text).pre_tokens:
        values = [[p.value for p in pre_token.steps[0].pieces]]
        for step, following in zip(pre_token.steps[1:], [*pre_token.steps[2:], None]):
            if following is None or following.rank != step.rank:
                values.append([p.value for p in step.pieces])
        states.append(values)
    return states


def test_course_bpe_reproduces_the_course_merges_and_tokenize():
    assert trained("bpe-course-byte-level").merge_strings() == list(COURSE_BPE_MERGES)
    result = encode_steps(tokenizer("bpe-course-byte-level"), "This is not a token.")
    assert [p.value for p in result.final_pieces()] == list(COURSE_BPE_TOKENIZE)
    assert our_bpe_states("This is not a token.") == course_bpe_states("This is not a token.")


COURSE_ALPHABET = sorted(set(HF_COURSE.text) - {"\n"})


@settings(max_examples=80, deadline=None)
@given(text=st.lists(st.sampled_from(COURSE_ALPHABET), max_size=40).map("".join))
def test_course_bpe_tokenize_goes_through_our_states(text):
    assert our_bpe_states(text) == course_bpe_states(text)


def test_course_bpe_keeps_unknown_characters_where_the_library_drops_them():
    """The course's tokenize() never looks characters up: 'A' and 'P' stay as symbols (its text
    warns that it would fail on them later); the library's BPE, and ours, drop them."""
    text = "A mouse called Petar"
    trace = trained("bpe-course-byte-level")
    merges = {(left, right): left + right for left, right in trace.merge_strings()}
    course = course_tokenize.bpe_tokenize(
        text, tokenizer("bpe-course-byte-level").pre_tokenizer.pre_tokenize, merges
    )
    ours = encode_steps(tokenizer("bpe-course-byte-level"), text)
    dropped = [p.source for pre_token in ours.pre_tokens for p in pre_token.dropped]
    assert dropped == ["A", "P"]
    assert [token for token in course if token not in dropped] == [p.value for p in ours.final_pieces()]


def course_wordpiece(text: str) -> tuple[list[str], list[list[str]]]:
    """The course's tokenize() and, per word, the pieces its encode_word found in order."""
    vocab = trained("wordpiece-course-bert").vocab
    pre_tokenize_str = tokenizer("wordpiece-course-bert").pre_tokenizer.pre_tokenize
    found = []
    for word, _ in pre_tokenize_str(text):
        found.append([])
        course_tokenize.encode_word(word, vocab, found[-1].append)
    return course_tokenize.wordpiece_tokenize(text, pre_tokenize_str, vocab), found


def our_wordpiece(text: str) -> tuple[list[str], list[list[str]]]:
    result = encode_steps(tokenizer("wordpiece-course-bert"), text)
    found = [[s.merged for s in p.steps if s.kind in ("prefix", "continuation")] for p in result.pre_tokens]
    return [p.value for p in result.final_pieces()], found


def test_course_wordpiece_tokenize_from_the_seed_step_by_step():
    from tests.helpers.shared_files import seed_text

    seed = seed_text("hf-course-wordpiece.txt")
    printed = seed[seed.index('tokenize("This is the Hugging Face course!")') :].splitlines()[1]
    assert our_wordpiece("This is the Hugging Face course!")[0] == ast.literal_eval(printed)
    assert our_wordpiece("This is the Hugging Face course!") == course_wordpiece(
        "This is the Hugging Face course!"
    )
    (hugging,) = encode_steps(tokenizer("wordpiece-course-bert"), "Hugging").pre_tokens
    assert [(s.kind, s.merged, s.tried) for s in hugging.steps[1:]] == [
        ("prefix", "Hugg", ("Hugging", "Huggin", "Huggi")),
        ("continuation", "##i", ("##ing", "##in")),
        ("continuation", "##n", ("##ng",)),
        ("continuation", "##g", ()),
    ]
    (hogging,) = encode_steps(tokenizer("wordpiece-course-bert"), "HOgging").pre_tokens
    assert [s.kind for s in hogging.steps] == ["start", "prefix", "no-match"]
    assert hogging.steps[-1].word_span == (1, 1) and [p.value for p in hogging.final] == ["[UNK]"]


@settings(max_examples=100, deadline=None)
@given(text=st.lists(st.sampled_from(sorted(set(HF_COURSE.text)) + list("PQ!é")), max_size=40).map("".join))
def test_course_wordpiece_encode_word_finds_our_pieces(text):
    assert our_wordpiece(text) == course_wordpiece(text)


def test_course_encode_word_never_ends_when_the_prefix_characters_are_tokens():
    """The course's encode_word also tries "##" and "#" as candidates (it shortens "##z" down to
    one character). With "#" in the vocabulary (a corpus with '#', e.g. Python code) a word whose
    continuation cannot match loops for ever: "#" is found, the rest becomes "###z", and so on.
    The library (and we) never try the bare prefix: the word becomes [UNK]."""
    vocab = ["[UNK]", "T", "##a", "##g", "#"]
    found = []

    def stop_after_eight(piece):
        found.append(piece)
        if len(found) == 8:
            raise RuntimeError("still going")

    with pytest.raises(RuntimeError):
        course_tokenize.encode_word("Tagz", vocab, stop_after_eight)
    assert found == ["T", "##a", "##g"] + ["#"] * 5
    tok = Tokenizer(
        None, build_pre_tokenizer("bert"), WordPieceModel({token: i for i, token in enumerate(vocab)})
    )
    (pre_token,) = encode_steps(tok, "Tagz").pre_tokens
    assert [step.kind for step in pre_token.steps] == [
        "start",
        "prefix",
        "continuation",
        "continuation",
        "no-match",
    ]
    assert [p.value for p in pre_token.final] == ["[UNK]"]


def test_course_wordpiece_has_no_word_length_limit():
    """The course's encode_word splits a 101-character word; the library (and we) give [UNK]."""
    word = "a" * 101
    course, _ = course_wordpiece(word)
    ours, _ = our_wordpiece(word)
    assert ours == ["[UNK]"] and course == ["a"] + ["##a"] * 100


# ------------------------------------------------------------------ the command line


def final_of(stdout: bytes) -> list[list[dict]]:
    return [
        [{key: piece[key] for key in ("id", "token", "start", "end")} for piece in result["final"]]
        for result in json.loads(stdout)
    ]


def plain_tokens(stdout: bytes) -> list[list[dict]]:
    """Plain `encode --json`'s tokens, the fields the steps' final pieces have (id, token, offsets)."""
    return [
        [{key: token[key] for key in ("id", "token", "start", "end")} for token in result["tokens"]]
        for result in json.loads(stdout)
    ]


@pytest.mark.parametrize("algorithm, pre_tokenizer", [("bpe", "byte-level"), ("wordpiece", "bert")])
def test_cli_steps_end_on_plain_encode(tmp_path, algorithm, pre_tokenizer):
    corpus, out = tmp_path / "corpus.txt", tmp_path / "tok.json"
    corpus.write_text(CORPUS, encoding="utf-8")
    trained_run = cli(
        "train",
        corpus,
        "--algorithm",
        algorithm,
        "--vocab-size",
        300,
        "--pre-tokenizer",
        pre_tokenizer,
        "--out",
        out,
    )
    assert trained_run.returncode == 0, trained_run.stderr.decode()
    texts = ["Hugging tokenization!", "A mouse called Petar 서울 😀 [SEP] x"]
    steps = cli("encode", "--steps", "--tokenizer", out, "--json", *texts)
    plain = cli("encode", "--tokenizer", out, "--json", *texts)
    assert steps.returncode == 0, steps.stderr.decode()
    assert final_of(steps.stdout) == plain_tokens(plain.stdout)
    assert all(
        pre["special"] or pre["steps"][0]["kind"] == "start"
        for result in json.loads(steps.stdout)
        for pre in result["pre_tokens"]
    )
    text = cli("encode", "--steps", "--tokenizer", out, *texts).stdout.decode()
    if algorithm == "bpe":
        assert re.search(r"^ +\d+\. merge \d+: '.+' \+ '.+' -> '.+'   pieces: ", text, re.MULTILINE)
    else:
        assert "longest prefix found: " in text and "continuation found: '##" in text
    assert text.count("final: ") == sum(
        len(r["pre_tokens"]) - sum(p["special"] for p in r["pre_tokens"]) for r in json.loads(steps.stdout)
    )


def test_cli_steps_pretrained_ends_on_tiktoken():
    text = "Tokenizers split naïve café text 😀 into pieces."
    steps = cli("encode", "--steps", "--pretrained", "o200k_base", "--json", text)
    plain = cli("encode", "--pretrained", "o200k_base", "--json", text)
    assert steps.returncode == 0, steps.stderr.decode()
    assert final_of(steps.stdout) == plain_tokens(plain.stdout)
    (result,) = json.loads(steps.stdout)
    merge = next(step for pre in result["pre_tokens"] for step in pre["steps"] if step["kind"] == "merge")
    assert (
        isinstance(merge["rank"], int)
        and len(merge["pair"]) == 2
        and merge["description"].startswith(f"merge -> id {merge['rank']:,}: ")
    )
    lines = cli("encode", "--steps", "--pretrained", "o200k_base", text).stdout.decode().splitlines()
    assert lines[0] == f"GPT-4o (o200k_base) · BPE (tiktoken): {len(result['final'])} tokens for {text!r}"


@pytest.mark.parametrize(
    "args, message",
    [
        (["encode", "--steps", "hi"], "exactly one"),
        (["encode", "--steps", "--tokenizer", "missing.json", "hi"], "does not exist"),
        (["encode", "--steps", "--pretrained", "bert", "hi"], "invalid choice"),
        (
            ["encode", "--steps", "--tokenizer", "tok.json", b"a\xffb"],
            "is not UTF-8 (it holds the byte 0xFF)",
        ),
        (["encode", "--tokenizer", "tok.json", b"a\xffb"], "is not UTF-8 (it holds the byte 0xFF)"),
    ],
)
def test_cli_steps_bad_input_gets_one_clear_line(tmp_path, args, message):
    result = cli(*args, cwd=tmp_path, bare=True)
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2 and message in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
