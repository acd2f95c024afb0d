"""`python -m explorer`: train / encode / compare, and one clear line for every bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parent.parent
CORPUS = "This is the Hugging Face Course.\nThis chapter is about tokenization.\nHope you like it!\n"


def cli(*args, stdin: bytes | None = None):
    return subprocess.run(
        [sys.executable, "-m", "explorer", *map(str, args)], input=stdin, capture_output=True, cwd=ROOT, timeout=120
    )


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


def test_train_writes_a_tokenizer_the_library_loads_and_encode_matches(tmp_path, corpus):
    out, trace = tmp_path / "tok.json", tmp_path / "trace.json"
    result = cli("train", corpus, "--algorithm", "bpe", "--flavor", "library", "--vocab-size", 300,
                 "--pre-tokenizer", "byte-level", "--special-tokens", "", "--out", out, "--trace", trace)
    assert result.returncode == 0, result.stderr.decode()
    library = Tokenizer.from_file(str(out))
    encoded = cli("encode", "--tokenizer", out, "--json", "Hugging tokenization!")
    ours = json.loads(encoded.stdout)[0]["tokens"]
    expected = library.encode("Hugging tokenization!")
    assert [t["id"] for t in ours] == expected.ids
    assert [(t["start"], t["end"]) for t in ours] == expected.offsets
    assert json.loads(trace.read_text(encoding="utf-8"))["format"] == "tokenizer-explorer-trace"


def test_train_reads_stdin_and_wordpiece_course_flavor(tmp_path):
    out = tmp_path / "wp.json"
    result = cli("train", "-", "--algorithm", "wordpiece", "--flavor", "course", "--vocab-size", 70,
                 "--pre-tokenizer", "bert", "--out", out, stdin=CORPUS.encode())
    assert result.returncode == 0, result.stderr.decode()
    vocab = json.loads(out.read_text(encoding="utf-8"))["model"]["vocab"]
    assert len(vocab) == 70 and "[UNK]" in vocab


def test_encode_pretrained_gpt2_matches_the_tutorial_seed():
    result = cli("encode", "--pretrained", "gpt2", "--json", "A mouse called Petar sits on the legendary throne in the ivory tower.")
    ids = [t["id"] for t in json.loads(result.stdout)[0]["tokens"]]
    assert ids == [32, 10211, 1444, 4767, 283, 10718, 319, 262, 13273, 19262, 287, 262, 32630, 10580, 13]


def test_compare_prints_a_metrics_table(tmp_path, corpus):
    out = tmp_path / "tok.json"
    assert cli("train", corpus, "--vocab-size", 280, "--out", out).returncode == 0
    result = cli("compare", "--tokenizer", out, "--pretrained", "gpt2", "--corpus", corpus, "--json")
    assert result.returncode == 0, result.stderr.decode()
    rows = json.loads(result.stdout)
    assert len(rows) == 2


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["train", "missing.txt", "--vocab-size", "10", "--out", "x.json"], None, "does not exist"),
        (["train", "-", "--vocab-size", "10", "--out", "x.json"], b"\xff\xfe\x00bad", "not UTF-8"),
        (["train", "-", "--vocab-size", "10", "--out", "x.json"], b"  \n\t\n", "empty"),
        (["train", "-", "--vocab-size", "0", "--out", "x.json"], b"hello", "vocab_size"),
        (["train", "-", "--vocab-size", "ten", "--out", "x.json"], b"hello", "invalid int"),
        (["train", "-", "--vocab-size", "10", "--algorithm", "unigram", "--out", "x.json"], b"hello", "invalid choice"),
        (["train", "-", "--vocab-size", "10", "--pre-tokenizer", "spaces", "--out", "x.json"], b"hello", "invalid choice"),
        (["train", "-", "--vocab-size", "10", "--normalizer", "nfd,upper", "--out", "x.json"], b"hello", "unknown normalizer"),
        (["encode", "--tokenizer", "missing.json", "hi"], None, "does not exist"),
        (["encode", "--pretrained", "bert", "hi"], None, "invalid choice"),
        (["encode", "hi"], None, "exactly one"),
    ],
)
def test_bad_input_gets_one_clear_line(tmp_path, args, stdin, message):
    result = subprocess.run([sys.executable, "-m", "explorer", *args], input=stdin, capture_output=True,
                            cwd=tmp_path, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    stderr = result.stderr.decode()
    assert result.returncode == 2
    assert message in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1


def test_malformed_tokenizer_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "Foo"}}', encoding="utf-8")
    result = cli("encode", "--tokenizer", bad, "hi")
    assert result.returncode == 2 and "Traceback" not in result.stderr.decode()
