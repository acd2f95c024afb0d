"""Unigram through the pipeline and the CLI: corpus -> trace -> tokenizer.json that the
`tokenizers` library loads and encodes exactly like our encoder; the CLI's flags and errors."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as LibraryTokenizer

from explorer.lessons.explain import explain_unigram_size, stop_reason_text
from explorer.pipeline.json_numbers import library_float, library_json_float
from explorer.pipeline.tokenizer_json import tokenizer_from_json, tokenizer_to_json
from explorer.run_config import RunConfig
from explorer.train import tokenizer_from_trace, trace_from_json, train_corpus
from explorer.training.unigram import UnigramConfig
from tests.helpers.cli import cli

CORPUS = "\n".join(
    [
        "This is the Hugging Face Course.",
        "This chapter is about tokenization.",
        "This section shows several tokenizer algorithms.",
        "Hopefully, you will be able to understand how they are trained and generate tokens.",
        "Unigram starts from a big vocabulary and removes pieces until it reaches the target size.",
    ]
    * 2
)

texts = st.lists(
    st.one_of(
        st.sampled_from(
            ["This", " is", "token", "ization", "  ", "<unk>", "[CLS]", "中", "é", "\n", ".", "Qz", "▁"]
        ),
        st.text(max_size=4),
    ),
    max_size=8,
).map("".join)

CONFIGS = {
    "library": UnigramConfig(vocab_size=80, special_tokens=("[CLS]", "[SEP]")),
    "library-no-unk": UnigramConfig(vocab_size=60, unk_token=None),
    "course": UnigramConfig(flavor="course", vocab_size=100, special_tokens=("<s>",)),
}


@pytest.fixture(scope="module", params=list(CONFIGS))
def trained(request):
    config = CONFIGS[request.param]
    pre_tokenizer = "metaspace"
    normalizers = ("nfkc",) if request.param == "course" else ()
    trace = train_corpus(CORPUS, RunConfig(config, normalizers, pre_tokenizer))
    ours = tokenizer_from_trace(trace)
    library = LibraryTokenizer.from_str(tokenizer_to_json(ours))
    return trace, ours, library


@settings(max_examples=150, deadline=None)
@given(text=texts, pair=st.none() | texts)
def test_exported_tokenizer_encodes_like_ours_in_the_library(trained, text, pair):
    _, ours, library = trained
    try:
        expected = library.encode(text, pair)
    except Exception as error:  # no unk piece: the library refuses unknown characters
        assert "unk" in str(error)
        with pytest.raises(ValueError, match="unk"):
            ours.encode(text, pair)
        return
    encoding = ours.encode(text, pair)
    assert (encoding.ids, encoding.tokens, encoding.offsets, encoding.type_ids) == (
        expected.ids,
        expected.tokens,
        expected.offsets,
        expected.type_ids,
    )
    assert ours.decode(encoding.ids) == library.decode(expected.ids)


def test_tokenizer_json_round_trips(trained):
    trace, ours, library = trained
    document = tokenizer_to_json(ours)
    assert library.to_str() == document
    assert tokenizer_to_json(tokenizer_from_json(document)) == document
    # The trained scores, each as the library reads it back (at most one ulp away).
    written = json.loads(document, parse_float=library_json_float)["model"]["vocab"]
    assert written == [[piece, library_float(score)] for piece, score in trace.final_pieces]
    assert all(
        abs(held - score) <= math.ulp(score) for (_, held), (_, score) in zip(written, trace.final_pieces)
    )


def test_trace_config_names_the_pipeline(trained):
    trace, _, _ = trained
    assert trace.config.algorithm == "unigram"
    assert trace.config.pre_tokenizer == "metaspace"
    assert trace_from_json(trace.to_json()).to_dict() == trace.to_dict()


def test_step_limit_is_refused_for_unigram():
    with pytest.raises(ValueError, match="rounds"):
        train_corpus(CORPUS, RunConfig(UnigramConfig(vocab_size=50), (), "metaspace"), max_steps=3)


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


@pytest.mark.parametrize("flavor", ["library", "course"])
def test_the_cli_trains_unigram(tmp_path, corpus, flavor):
    out, trace_path = tmp_path / "tok.json", tmp_path / "trace.json"
    result = cli(
        "train",
        corpus,
        "--algorithm",
        "unigram",
        "--flavor",
        flavor,
        "--vocab-size",
        70,
        "--seed-size",
        400,
        "--max-piece-length",
        8,
        "--out",
        out,
        "--trace",
        trace_path,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert "rounds" in result.stderr.decode()
    library = LibraryTokenizer.from_file(str(out))
    encoded = json.loads(cli("encode", "--tokenizer", out, "--json", "Hugging tokenization!").stdout)[0][
        "tokens"
    ]
    expected = library.encode("Hugging tokenization!")
    assert [(t["id"], t["start"], t["end"]) for t in encoded] == list(
        zip(expected.ids, *zip(*expected.offsets))
    )
    trace = trace_from_json(trace_path.read_text(encoding="utf-8"))
    assert trace.config.flavor == flavor and trace.config.trainer.seed_size == 400
    assert trace.config.trainer.max_piece_length == 8
    assert max(len(piece) for piece in trace.seeds) <= 8
    # The CLI says what the app's Train summary says: the stop reason and the size note.
    stderr = result.stderr.decode()
    assert f"stopped: {stop_reason_text(trace)}," in stderr
    assert explain_unigram_size(trace) in stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--algorithm", "bpe", "--seed-size", "10"], "--seed-size is a Unigram setting"),
        (["--algorithm", "unigram", "--max-steps", "3"], "--max-seconds"),
        (["--algorithm", "unigram", "--shrinking-factor", "1.5"], "shrinking_factor"),
        (["--algorithm", "unigram", "--min-frequency", "2"], "BPE/WordPiece settings"),
        (["--algorithm", "unigram", "--vocab-size", "3"], "smaller than the"),
    ],
)
def test_cli_unigram_errors_are_one_line(tmp_path, corpus, args, message):
    if "--vocab-size" not in args:
        args = [*args, "--vocab-size", "60"]
    result = cli("train", corpus, *args, "--out", tmp_path / "tok.json")
    assert result.returncode == 2
    error = result.stderr.decode()
    assert error.startswith("error: ") and message in error and error.count("\n") == 1
