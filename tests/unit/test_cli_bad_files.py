"""`python -m explorer` answers every file it cannot use with one line and status 2 (issue 20's
eleven CLI tracebacks): endless or binary input is refused after its first bytes, output paths are
checked before training, and JSON nested too deep for Python's parser is refused before parsing.

The endless inputs run under a 3 GB address-space limit (RLIMIT_AS), as in the issue, so a read
without a bound would be a MemoryError rather than a slow test."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from tests import ROOT
from tests.helpers.cli import cli

CORPUS = "This is the Hugging Face Course.\nThis chapter is about tokenization.\nHope you like it!\n"
TRAIN = ("train", "--vocab-size", "300", "--special-tokens", "")
ADDRESS_SPACE = 3 * 1024**3


def cli_capped(*args: str) -> subprocess.CompletedProcess:
    """`python -m explorer ARGS` with at most 3 GB of address space."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))

    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        preexec_fn=cap,
    )


def one_error_line(result: subprocess.CompletedProcess) -> str:
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


@pytest.fixture()
def trained(tmp_path, corpus):
    out = tmp_path / "tok.json"
    result = cli(*TRAIN, corpus, "--out", out)
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "args",
    [
        ("train", "/dev/zero", "--vocab-size", "300"),
        ("train", "/dev/zero", "--vocab-size", "300", "--max-corpus-mb", "1"),
        ("compare", "--corpus", "/dev/zero", "--pretrained", "gpt2"),
    ],
)
def test_an_endless_binary_input_is_refused_after_its_first_bytes(tmp_path, args):
    out = tmp_path / "tok.json"
    out.write_text("kept", encoding="utf-8")
    extra = ("--out", str(out)) if args[0] == "train" else ()
    line = one_error_line(cli_capped(*args, *extra))
    assert "'/dev/zero' looks like a binary file" in line
    assert out.read_text(encoding="utf-8") == "kept"  # the --out check changed nothing


def test_endless_text_on_stdin_is_read_only_up_to_the_corpus_limit(tmp_path):
    result = cli(
        *TRAIN,
        "-",
        "--max-corpus-mb",
        "1",
        "--chunk-mb",
        "0.1",
        "--out",
        tmp_path / "tok.json",
        stdin=b"hello\n" * 400_000,
    )
    stderr = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in stderr
    # The last line (a progress line may come before it on a slow machine: the counting went on).
    assert stderr.strip().splitlines()[-1] == (
        "error: The corpus on stdin is more than --max-corpus-mb 1: "
        "train on a part of it, or raise --max-corpus-mb."
    )


def test_a_corpus_larger_than_max_corpus_mb_is_refused_by_its_size_before_reading(tmp_path, corpus):
    result = cli(*TRAIN, corpus, corpus, "--max-corpus-mb", "0.0001", "--out", tmp_path / "tok.json")
    size = 2 * corpus.stat().st_size / 1000
    assert one_error_line(result) == (
        f"error: The corpus is {size:.1f} KB on disk; the limit of --max-corpus-mb is 0.1 KB: "
        "train on a part of it, or raise --max-corpus-mb."
    )


def test_every_file_read_whole_has_a_configurable_bound(tmp_path, corpus):
    # A corpus to train on is streamed (no bound but --max-corpus-mb); a tokenizer file is read whole.
    result = subprocess.run(
        [sys.executable, "-m", "explorer", "encode", "--tokenizer", str(corpus), "hello"],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "EXPLORER_CLI_MAX_FILE_MB": "0.00005"},
    )
    assert "set EXPLORER_CLI_MAX_FILE_MB to read larger files" in one_error_line(result)


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("/nonexistent/dir/tok.json", "the folder '/nonexistent/dir' does not exist"),
        ("{tmp}", "is a directory: give a file name, such as {tmp}/tokenizer.json"),
    ],
)
def test_an_unwritable_out_is_refused_before_training(tmp_path, corpus, out, message):
    line = one_error_line(cli(*TRAIN, corpus, "--out", out.format(tmp=tmp_path)))
    assert line.startswith("error: ") and message.format(tmp=tmp_path) in line


def test_a_trace_that_cannot_be_written_is_one_line(tmp_path, corpus):
    line = one_error_line(cli(*TRAIN, corpus, "--out", tmp_path / "tok.json", "--trace", "/proc/version"))
    assert line.startswith("error: cannot write --trace '/proc/version': ")
    assert not (tmp_path / "tok.json").exists()  # refused before training: nothing written


@pytest.mark.parametrize(
    ("outputs", "message"),
    [
        (("--out", "corpus.txt"), "--out 'corpus.txt' is the same file as the corpus"),
        (
            ("--out", "./sub/../corpus.txt"),
            "is the same file as the corpus: writing it would overwrite the corpus",
        ),
        (("--out", "link.txt"), "--out 'link.txt' is the same file as the corpus"),
        (("--out", "hard.txt"), "--out 'hard.txt' is the same file as the corpus"),
        (("--out", "o.json", "--trace", "corpus.txt"), "--trace 'corpus.txt' is the same file as the corpus"),
        (
            ("--out", "o.json", "--trace", "./o.json"),
            "--trace './o.json' is the same file as --out: writing it would overwrite the tokenizer; "
            "give --trace another file name.",
        ),
    ],
)
def test_an_output_that_names_an_input_or_the_other_output_is_refused_before_any_work(
    tmp_path, corpus, outputs, message
):
    """Issue 50: `train victim.txt --out victim.txt` exited 0 having overwritten the corpus, and
    `--out o.json --trace o.json` exited 0 with the tokenizer lost under the trace. Paths are
    compared resolved (a relative path, `..`, a symbolic or a hard link to the same file)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.txt").symlink_to(corpus)
    (tmp_path / "hard.txt").hardlink_to(corpus)
    (tmp_path / "o.json").write_text("kept", encoding="utf-8")
    line = one_error_line(cli(*TRAIN, "corpus.txt", *outputs, cwd=tmp_path))
    assert message in line
    assert corpus.read_text(encoding="utf-8") == CORPUS
    assert (tmp_path / "o.json").read_text(encoding="utf-8") == "kept"


def nested_array(depth: int) -> str:
    return "[" * depth + "]" * depth


def with_sequence_normalizer(tokenizer: dict, depth: int) -> dict:
    normalizer = {"type": "Lowercase"}
    for _ in range(depth):
        normalizer = {"type": "Sequence", "normalizers": [normalizer]}
    return {**tokenizer, "normalizer": normalizer}


@pytest.mark.parametrize("command", ["encode", "compare", "decode"])
@pytest.mark.parametrize("nesting", ["array 100,000 deep", "Sequence normalizer 400 deep"])
def test_a_tokenizer_json_nested_too_deep_is_one_line(tmp_path, trained, command, nesting):
    path = tmp_path / "deep.json"
    if nesting.startswith("array"):
        path.write_text(nested_array(100_000), encoding="utf-8")
    else:
        path.write_text(json.dumps(with_sequence_normalizer(trained, 400)), encoding="utf-8")
    argument = "1" if command == "decode" else "hi"
    line = one_error_line(cli(command, "--tokenizer", path, argument))
    assert "nests arrays and objects more than 128 levels deep" in line


DEEP = 50_000
DEEP_FILES = {"object": '{"a":' * DEEP + "1" + "}" * DEEP, "array": nested_array(DEEP)}
DEEP_SENTENCE = "the file nests arrays and objects more than 128 levels deep, which is not read."


@pytest.mark.parametrize("shape", list(DEEP_FILES))
@pytest.mark.parametrize(
    "args",
    [
        ("encode", "--tokenizer", "{json}", "hi"),
        ("compare", "--tokenizer", "{json}", "hi"),
        ("decode", "--tokenizer", "{json}", "1"),
        ("audit", "--tokenizer", "{json}", "--corpus", "{corpus}"),
        ("audit", "--trace", "{json}", "--corpus", "{corpus}"),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_every_command_reading_json_refuses_a_file_50000_deep_with_one_sentence(
    tmp_path, corpus, shape, args
):
    """Issue 33: `audit --trace` on such a file printed a RecursionError ("unexpected: please report
    it") where the other commands said the 128-levels sentence: every JSON read is bounded."""
    path = tmp_path / "deep.json"
    path.write_text(DEEP_FILES[shape], encoding="utf-8")
    line = one_error_line(cli(*(arg.format(json=path, corpus=corpus) for arg in args)))
    assert line == f"error: {path}: {DEEP_SENTENCE}"


def test_a_sequence_normalizer_nested_within_the_bound_still_encodes(tmp_path, trained):
    path = tmp_path / "sequence.json"
    path.write_text(json.dumps(with_sequence_normalizer(trained, 60)), encoding="utf-8")
    result = cli("encode", "--tokenizer", path, "--json", "Hi")
    assert result.returncode == 0, result.stderr.decode()
    assert [token["token"] for token in json.loads(result.stdout)[0]["tokens"]]


def test_decoding_ids_nested_deep_is_one_line():
    line = one_error_line(cli("decode", "--pretrained", "gpt2", "--", "[" * 100_000))
    assert (
        line == "error: The list of ids nests arrays and objects more than 2 levels deep, which is not read."
    )


def test_an_output_inside_a_directory_given_as_input_is_refused(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text("some text\n", encoding="utf-8")
    line = one_error_line(cli(*TRAIN, tmp_path / "corpus", "--out", tmp_path / "corpus" / "a.txt"))
    assert "is the same file as the corpus: writing it would overwrite the corpus" in line
