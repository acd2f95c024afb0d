"""`python -m explorer`: train / encode / compare, and one clear line for every bad input."""

import io
import json
import subprocess
import sys

import pytest
from tokenizers import Tokenizer

from tests import ROOT
from tests.helpers.cli import cli

CORPUS = "This is the Hugging Face Course.\nThis chapter is about tokenization.\nHope you like it!\n"


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


def test_train_writes_a_tokenizer_the_library_loads_and_encode_matches(tmp_path, corpus):
    out, trace = tmp_path / "tok.json", tmp_path / "trace.json"
    result = cli(
        "train",
        corpus,
        "--algorithm",
        "bpe",
        "--flavor",
        "library",
        "--vocab-size",
        300,
        "--pre-tokenizer",
        "byte-level",
        "--special-tokens",
        "",
        "--out",
        out,
        "--trace",
        trace,
    )
    assert result.returncode == 0, result.stderr.decode()
    library = Tokenizer.from_file(str(out))
    encoded = cli("encode", "--tokenizer", out, "--json", "Hugging tokenization!")
    ours = json.loads(encoded.stdout)[0]["tokens"]
    expected = library.encode("Hugging tokenization!")
    assert [t["id"] for t in ours] == expected.ids
    assert [(t["start"], t["end"]) for t in ours] == expected.offsets
    assert json.loads(trace.read_text(encoding="utf-8"))["format"] == "tokenizer-explorer-trace"


def test_train_engine_choice_gives_the_same_files_and_says_which_ran(tmp_path, corpus):
    from explorer.training import engines

    made = {}
    for engine in ("python", "rust") if engines.compiled() else ("python",):
        out, trace = tmp_path / f"{engine}.json", tmp_path / f"{engine}-trace.json"
        options = ["--algorithm", "wordpiece", "--flavor", "course", "--vocab-size", 70, "--engine", engine]
        result = cli("train", corpus, *options, "--out", out, "--trace", trace, "--json")
        assert result.returncode == 0, result.stderr.decode()
        summary = json.loads(result.stdout)
        assert (summary["engine"], summary["algorithm"], summary["flavor"]) == (engine, "wordpiece", "course")
        assert f"({engine} engine)" in result.stderr.decode()
        recorded = json.loads(trace.read_text(encoding="utf-8"))
        assert (recorded["engine"], summary["merges"]) == (engine, len(recorded["merges"]))
        recorded.pop("engine"), recorded.pop("seconds")
        made[engine] = (out.read_bytes(), recorded)
    assert len(set(repr(files) for files in made.values())) == 1  # the same tokenizer.json and trace
    if not engines.compiled():
        refused = cli("train", corpus, "--vocab-size", 70, "--engine", "rust", "--out", tmp_path / "x.json")
        assert refused.returncode != 0 and "not built" in refused.stderr.decode()


SERVING_MODULES = (
    "explorer.session.serving",
    "explorer.work.pool",
    "explorer.runstore",
    "sqlite3",
    "multiprocessing",
)


def test_train_loads_neither_the_pool_nor_the_store(tmp_path, corpus):
    """The command line shares the Train page's checks (explorer.session.requests) but trains in
    its own process: the server's worker pool and run store are not even imported."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['explorer', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('explorer', run_name='__main__')\n"
        "except SystemExit as end:\n"
        "    assert not end.code, end.code\n"
        f"print([name for name in {SERVING_MODULES!r} if name in sys.modules])\n"
    )
    out = tmp_path / "out.json"
    result = subprocess.run(
        [sys.executable, "-c", probe, "train", str(corpus), "--vocab-size", "300", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert out.exists()
    assert result.stdout.splitlines()[-1] == "[]"


def test_train_reads_stdin_and_wordpiece_course_flavor(tmp_path):
    out = tmp_path / "wp.json"
    result = cli(
        "train",
        "-",
        "--algorithm",
        "wordpiece",
        "--flavor",
        "course",
        "--vocab-size",
        70,
        "--pre-tokenizer",
        "bert",
        "--out",
        out,
        stdin=CORPUS.encode(),
    )
    assert result.returncode == 0, result.stderr.decode()
    vocab = json.loads(out.read_text(encoding="utf-8"))["model"]["vocab"]
    assert len(vocab) == 70 and "[UNK]" in vocab


def test_encode_pretrained_gpt2_matches_the_tutorial_seed():
    result = cli(
        "encode",
        "--pretrained",
        "gpt2",
        "--json",
        "A mouse called Petar sits on the legendary throne in the ivory tower.",
    )
    ids = [t["id"] for t in json.loads(result.stdout)[0]["tokens"]]
    assert ids == [32, 10211, 1444, 4767, 283, 10718, 319, 262, 13273, 19262, 287, 262, 32630, 10580, 13]


def test_compare_prints_a_metrics_table(tmp_path, corpus):
    out = tmp_path / "tok.json"
    assert cli("train", corpus, "--vocab-size", 280, "--out", out).returncode == 0
    result = cli("compare", "--tokenizer", out, "--pretrained", "gpt2", "--corpus", corpus, "--json")
    assert result.returncode == 0, result.stderr.decode()
    rows = json.loads(result.stdout)
    assert len(rows) == 2


def train_from_stdin(*options: str, vocab_size: str = "10") -> list[str]:
    """The arguments of `train` reading its corpus from stdin, with `options` before --out."""
    return ["train", "-", "--vocab-size", vocab_size, *options, "--out", "x.json"]


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["train", "missing.txt", "--vocab-size", "10", "--out", "x.json"], None, "does not exist"),
        (train_from_stdin(), b"\xff\xfe\x00bad", "not UTF-8"),
        (train_from_stdin(), b"  \n\t\n", "empty"),
        (train_from_stdin(vocab_size="0"), b"hello", "vocab_size"),
        (train_from_stdin(vocab_size="ten"), b"hello", "invalid int"),
        (train_from_stdin("--algorithm", "sentencepiece"), b"hello", "invalid choice"),
        (train_from_stdin("--pre-tokenizer", "spaces"), b"hello", "invalid choice"),
        (train_from_stdin("--normalizer", "nfd,upper"), b"hello", "unknown normalizer"),
        (train_from_stdin(), b"", "The corpus is empty: it has no text."),
        (
            train_from_stdin(),
            "hello world\n".encode("utf-16-le"),
            "is not UTF-8: it looks like UTF-16 (little-endian) text; "
            "open it in a text editor and save it as UTF-8",
        ),
        (
            train_from_stdin(),
            "Très café, déjà vu.\n".encode("latin-1"),
            "'stdin' is not UTF-8 text: the byte at offset 2 (0xe8, 'è' in Latin-1/Windows-1252) is not part",
        ),
        (train_from_stdin(), b"%PDF-1.7\n%\xe2\xe3", "looks like a PDF document, not text"),
        (train_from_stdin(), b"\x89PNG\r\n\x1a\n\x00", "looks like a PNG image"),
        (train_from_stdin(), b"text\x00\x00more", "looks like a binary file"),
        (
            train_from_stdin("--max-corpus-mb", "0.001"),
            b"word " * 400,
            "The corpus on stdin is more than --max-corpus-mb 0.001: train on a part of it",
        ),
        (train_from_stdin("--special-tokens", "[X],[X]"), b"hello", "'[X]' is listed twice"),
        (
            train_from_stdin("--special-tokens", "[X],[Y],[X],[X]"),
            b"hello",
            "'[X]' is listed 3 times; keep one.",
        ),
        (train_from_stdin("--max-steps", "0"), b"hello", "must be a whole number above 0"),
        (train_from_stdin("--max-seconds", "soon"), b"hello", "must be a number above 0"),
        (train_from_stdin(vocab_size="20000000"), b"hello", "vocab_size must be from 1 to"),
        (["encode", "--tokenizer", "-", "hi"], b"\xff\xfe{\x00}\x00", "tokenizer file '-' is not UTF-8"),
        (["encode", "--tokenizer", "missing.json", "hi"], None, "does not exist"),
        (["encode", "--pretrained", "bert", "hi"], None, "invalid choice"),
        (["encode", "hi"], None, "exactly one"),
    ],
)
def test_bad_input_gets_one_clear_line(tmp_path, args, stdin, message):
    result = cli(*args, stdin=stdin, cwd=tmp_path, bare=True)
    stderr = result.stderr.decode()
    assert result.returncode == 2
    assert message in stderr
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(("typed", "empty"), [(",,", 3), ("[CLS],,[SEP]", 1), ("[X],", 1), (" , ", 2)])
@pytest.mark.parametrize("algorithm", ["bpe", "unigram"])
def test_an_empty_special_token_is_refused_as_the_train_page_refuses_it(tmp_path, typed, empty, algorithm):
    """Issue 33: `train --special-tokens ",,"` trained (status 0) where the Train page refuses an
    empty entry; the CLI now splits and checks as the page does, with the page's sentence. Issue
    50: said once, however many entries are empty (",," repeated its sentence three times)."""
    from dataclasses import replace

    from explorer.checks import Limits
    from explorer.runs.settings import defaults_for
    from explorer.session.requests import settings_check

    settings = replace(defaults_for(algorithm), vocab_size=300, special_tokens=typed)
    page_errors = settings_check(settings, Limits()).errors
    assert list(page_errors) == [
        "A special token is empty: it would take an id and never match; remove it."
        if empty == 1
        else f"{empty} special tokens are empty: each would take an id and never match; remove them "
        "(two commas in a row, or one at either end, make an empty entry)."
    ]
    options = ("--algorithm", algorithm, "--special-tokens", typed)
    result = cli(*train_from_stdin(*options, vocab_size="300"), stdin=b"hello world", cwd=tmp_path, bare=True)
    assert result.returncode == 2 and not (tmp_path / "x.json").exists()
    assert result.stderr.decode().strip() == "error: " + " ".join(page_errors)


def test_a_malformed_tokenizer_file_is_an_error_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "Foo"}}', encoding="utf-8")
    result = cli("encode", "--tokenizer", bad, "hi")
    assert result.returncode == 2 and "Traceback" not in result.stderr.decode()


def test_train_prints_warnings_and_explains_the_vocab_size(tmp_path):
    out = tmp_path / "tok.json"
    corpus = b"beep\x07 beep\x07\nthe end\n"
    result = cli("train", "-", "--vocab-size", "100", "--special-tokens", "the", "--out", out, stdin=corpus)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert "warning: The corpus has 2 control characters (U+0007 BEL x2)" in stderr
    assert "warning: The special token 'the' is ordinary text" in stderr
    assert (
        "You asked for 100 tokens, but the starting alphabet alone has 257 "
        "(256 byte symbols + 'the')" in stderr
    )
    assert "Traceback" not in stderr


def test_train_stops_at_max_steps_and_says_so(tmp_path):
    out, trace_path = tmp_path / "tok.json", tmp_path / "trace.json"
    corpus = " ".join(f"w{n}x{n * 7 % 13}y{n % 5}" for n in range(3000)).encode()
    result = cli(
        "train",
        "-",
        "--vocab-size",
        "5000",
        "--max-steps",
        "40",
        "--out",
        out,
        "--trace",
        trace_path,
        stdin=corpus,
    )
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    steps = len(json.loads(trace_path.read_text(encoding="utf-8"))["merges"])
    assert steps == 40
    assert "after 40 merges, by the limit of 40 merges." in stderr


def test_train_stops_at_max_seconds_while_counting(tmp_path):
    out = tmp_path / "tok.json"
    result = cli(
        "train", "-", "--vocab-size", "5000", "--max-seconds", "0.000001", "--out", out, stdin=CORPUS.encode()
    )
    stderr = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in stderr
    assert stderr.strip() == (
        "error: Stopped by the time limit (1e-06 s) while counting the corpus, 0.0 KB into it: "
        "nothing was trained; raise --max-seconds or train on a part of the corpus."
    )
    assert not out.exists()


def test_a_reader_that_closes_the_pipe_early_ends_the_command_quietly():
    """`python -m explorer encode ... --json | head`: no traceback, the shell's status for SIGPIPE."""
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", "encode", "--pretrained", "gpt2", "--json", "word " * 20_000],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout.read(100).startswith(b"[")
    process.stdout.close()  # what `head -c 100` does after 100 bytes
    status = process.wait(timeout=120)
    stderr = process.stderr.read().decode()
    assert status == 141 and "Traceback" not in stderr, stderr


@pytest.mark.parametrize(
    "config",
    [
        ("bpe", "library", 300, "byte-level", ()),
        ("unigram", "course", 60, "metaspace", ()),
    ],
    ids=["bpe", "unigram"],
)
def test_the_trace_file_is_written_field_by_field_with_the_bytes_of_its_json(tmp_path, monkeypatch, config):
    from explorer.cli import common
    from explorer.cli.common import write_json_fields
    from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
    from explorer.train import train_corpus
    from explorer.training import packing

    algorithm, flavor, size, pre_tokenizer, specials = config
    trainer = (
        UnigramConfig(flavor, size, special_tokens=specials)
        if algorithm == "unigram"
        else TrainerConfig(algorithm, flavor=flavor, vocab_size=size, special_tokens=specials)
    )
    trace = train_corpus(CORPUS * 3 + "naïve café 東京 😀\n", RunConfig(trainer, (), pre_tokenizer))
    path = tmp_path / "trace.json"
    monkeypatch.setattr(packing, "PART_BYTES", 3 * 5)  # every column written in many parts
    monkeypatch.setattr(common, "LIST_PART_ITEMS", 3)  # and every list (words, counts, merges ...)
    write_json_fields(str(path), trace.json_fields(), "--trace")
    assert path.read_bytes() == trace.to_json().encode("utf-8")
    write_json_fields(str(path), trace.to_dict(), "--trace")
    assert path.read_bytes() == trace.to_json().encode("utf-8")


def test_the_tokenizer_file_is_written_in_parts_with_the_bytes_of_its_json(tmp_path, monkeypatch):
    from explorer.pipeline import tokenizer_json
    from explorer.run_config import RunConfig, TrainerConfig
    from explorer.train import tokenizer_from_trace, train_corpus

    trace = train_corpus(CORPUS * 3 + "naïve café 東京 😀\n", RunConfig(TrainerConfig(vocab_size=300)))
    tokenizer = tokenizer_from_trace(trace)
    monkeypatch.setattr(tokenizer_json, "PRETTY_BLOCK_LINES", 7)  # the vocabulary and merges in many parts
    path = tmp_path / "tokenizer.json"
    tokenizer_json.save_tokenizer(tokenizer, path)
    text = json.dumps(tokenizer_json.tokenizer_to_hf_dict(tokenizer), ensure_ascii=False, indent=2)
    assert path.read_bytes() == text.encode("utf-8")
    assert tokenizer_json.tokenizer_to_json(tokenizer, pretty=True) == text


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"a": {}},
        {"a": {"b": {"c": [1, "é\n"]}, "d": None}, "e": 1.5},
        {'k"': {"y": {"z": "\u2028"}}},
        {"a": [], "b": [[1, 2], ("x", "é"), None, 3, "\u2028"], "c": [{"d": [1]}]},
    ],
)
def test_nested_objects_are_written_field_by_field_with_the_same_bytes(tmp_path, monkeypatch, data):
    from explorer.cli import common
    from explorer.cli.common import write_json_fields

    monkeypatch.setattr(common, "LIST_PART_ITEMS", 2)  # lists written two items at a time
    dumps, listed = json.dumps, []

    def noting(value, **options):  # the lists in what is turned into text at once
        listed.extend(
            len(item)
            for item in (value.values() if isinstance(value, dict) else [value])
            if isinstance(item, list)
        )
        return dumps(value, **options)

    monkeypatch.setattr(common.json, "dumps", noting)
    path = tmp_path / "data.json"
    write_json_fields(str(path), data, "--trace")
    monkeypatch.setattr(common.json, "dumps", dumps)
    assert max(listed, default=0) <= 2  # never a whole list's text at once
    assert path.read_bytes() == json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def test_train_with_a_split_pattern_trains_what_the_library_trains_with_it(tmp_path):
    from tokenizers import Regex
    from tokenizers import models as hf_models
    from tokenizers import pre_tokenizers as hf_pre_tokenizers
    from tokenizers import trainers as hf_trainers

    from explorer.pipeline.pre_tokenizers.split_patterns import LIBRARY_PATTERNS

    corpus = tmp_path / "numbers.txt"
    corpus.write_text("Paid 12345 on 2026-11-26, it's 678.\nWe'll pay 9876543 more.\n" * 5, encoding="utf-8")
    outputs = {}
    for pattern in ("gpt2", "cl100k"):
        out = tmp_path / f"{pattern}.json"
        args = ["train", corpus, "--vocab-size", 290, "--special-tokens", "", "--out", out]
        result = cli(*args, "--pre-tokenizer", "byte-level", "--split-pattern", pattern)
        assert result.returncode == 0, result.stderr.decode()
        outputs[pattern] = json.loads(out.read_text(encoding="utf-8"))
    # Without --split-pattern: the same tokenizer.json as gpt2 (today's behaviour).
    default = tmp_path / "default.json"
    assert cli("train", corpus, "--vocab-size", 290, "--special-tokens", "", "--out", default).returncode == 0
    assert json.loads(default.read_text(encoding="utf-8")) == outputs["gpt2"]
    assert outputs["cl100k"]["model"]["merges"] != outputs["gpt2"]["model"]["merges"]

    library = Tokenizer(hf_models.BPE())
    library.pre_tokenizer = hf_pre_tokenizers.Sequence(
        [
            hf_pre_tokenizers.Split(Regex(LIBRARY_PATTERNS["cl100k"]), behavior="isolated"),
            hf_pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = hf_trainers.BpeTrainer(
        vocab_size=290, initial_alphabet=hf_pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    library.train([str(corpus)], trainer)  # each line with its ending: the CLI's default reading
    expected = json.loads(library.to_str())
    assert outputs["cl100k"]["model"]["vocab"] == expected["model"]["vocab"]
    assert outputs["cl100k"]["model"]["merges"] == expected["model"]["merges"]
    assert outputs["cl100k"]["pre_tokenizer"] == expected["pre_tokenizer"]


@pytest.mark.parametrize("pre_tokenizer", ["bert", "metaspace"])
def test_a_split_pattern_without_byte_level_is_a_one_line_error(tmp_path, corpus, pre_tokenizer):
    out = tmp_path / "tok.json"
    args = ["train", corpus, "--vocab-size", 100, "--out", out, "--split-pattern", "cl100k"]
    result = cli(*args, "--pre-tokenizer", pre_tokenizer)
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1 and "--split-pattern" in result.stderr.decode()
    assert not out.exists()
    # WordPiece's default pre-tokenizer (bert) is not byte-level either.
    result = cli(
        "train",
        corpus,
        "--algorithm",
        "wordpiece",
        "--vocab-size",
        100,
        "--out",
        out,
        "--split-pattern",
        "o200k",
    )
    assert result.returncode == 2 and "--split-pattern" in result.stderr.decode()


@pytest.mark.parametrize("min_frequency", [2**53, 2**64])
def test_a_min_frequency_past_the_largest_count_is_one_sentence_in_the_cli_and_the_app(
    tmp_path, min_frequency
):
    """Issue 50: `--min-frequency 18446744073709551616` ended in 'OverflowError ... (unexpected:
    please report it)'. Past the largest count setting the app takes (2**53 - 1, what the form's
    number fields hold exactly) the CLI and the Train page (whose links land in the same Settings)
    refuse it with one sentence."""
    from dataclasses import replace

    from explorer.checks import Limits
    from explorer.run_config import LARGEST_COUNT
    from explorer.runs.settings import Settings
    from explorer.session.requests import settings_check

    sentence = f"Min frequency must be a whole number from 0 to {LARGEST_COUNT:,}"
    options = ("--min-frequency", str(min_frequency))
    result = cli(*train_from_stdin(*options, vocab_size="300"), stdin=b"hello world", cwd=tmp_path, bare=True)
    stderr = result.stderr.decode()
    assert result.returncode == 2 and sentence in stderr and "unexpected" not in stderr
    assert len(stderr.strip().splitlines()) == 1 and not (tmp_path / "x.json").exists()
    page_errors = settings_check(replace(Settings(), min_frequency=min_frequency), Limits()).errors
    assert len(page_errors) == 1 and sentence in page_errors[0]


def test_the_largest_min_frequency_trains_and_stops_at_once(tmp_path):
    options = ("--min-frequency", str(2**53 - 1))
    result = cli(*train_from_stdin(*options, vocab_size="300"), stdin=b"hello world", cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert "stopped: best pair count below min_frequency" in result.stderr.decode()


class Stderr(io.StringIO):
    """A stand-in for stderr: a terminal or a redirected file, as `terminal` says."""

    def __init__(self, terminal: bool):
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def reported(monkeypatch, terminal: bool, reports: int = 1000, planned: int = 5000, line=None) -> str:
    """What `progress_printer` writes for `reports` evenly spread reports, the clock past its first
    second from the second report on (a clock the test moves, not a wait)."""
    from explorer.cli import common

    stderr = Stderr(terminal)
    now = iter([0.0, 0.5, *[2.0 + index for index in range(reports)]])
    monkeypatch.setattr(common.sys, "stderr", stderr)
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(now))
    report, finish = common.progress_printer(line=line)
    for index in range(1, reports + 1):
        report(index * planned // reports, planned)
    finish()
    return stderr.getvalue()


def test_counting_progress_is_bytes_read_of_the_total(monkeypatch):
    """Issue 51: while a corpus is counted, the progress is its bytes read of the total on disk."""
    from explorer.cli.common import counting_line

    written = reported(monkeypatch, terminal=False, reports=10, planned=10**10, line=counting_line)
    assert written.splitlines() == [f"counting: {tenth}.0 of 10.0 GB ({tenth}0%)" for tenth in range(2, 11)]


def test_redirected_progress_is_a_plain_line_per_tenth_of_the_run(monkeypatch):
    """Issue 50: the CLI's progress wrote `\\r` updates into a redirected stderr, one line of about
    1,000 updates in a log file. Redirected, each tenth of the planned steps is one plain line."""
    written = reported(monkeypatch, terminal=False)
    assert "\r" not in written
    # The first report falls in the first second; the second (step 10) is shown, then each tenth.
    assert written.splitlines() == [
        f"training: {step:,}/5,000 merges" for step in (10, *range(500, 5001, 500))
    ]


def test_progress_on_a_terminal_is_one_line_rewritten_in_place(monkeypatch):
    written = reported(monkeypatch, terminal=True)
    assert written.count("\r") == 999 and written.endswith("\rtraining: 5,000/5,000 merges\n")


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece", "unigram"])
def test_the_cli_trains_what_the_app_trains_from_the_same_words(tmp_path, algorithm):
    """Issue 50: the app's BPE added <|endoftext|> as id 0 and the CLI did not, so their ids
    differed by one. Options not given take the app's defaults (explorer.runs.settings.DEFAULTS):
    the same settings, tokenizer.json and trace configuration as the Train page's run. Issue 51:
    with `--reading lines` (the app's reading) the streamed file gives today's result."""
    from dataclasses import replace

    from explorer.checks import Limits
    from explorer.pipeline.tokenizer_json import save_tokenizer
    from explorer.runs.settings import defaults_for
    from explorer.train import tokenizer_from_trace, train_corpus

    corpus, out, trace = tmp_path / "corpus.txt", tmp_path / "cli.json", tmp_path / "trace.json"
    corpus.write_text(CORPUS, encoding="utf-8")
    result = cli(
        "train",
        corpus,
        "--algorithm",
        algorithm,
        "--vocab-size",
        60,
        "--out",
        out,
        "--trace",
        trace,
        "--reading",
        "lines",
        "--chunk-mb",
        "0.0001",
    )
    assert result.returncode == 0, result.stderr.decode()
    config = replace(defaults_for(algorithm), vocab_size=60).run_config(Limits())
    app_trace = train_corpus(CORPUS, config)
    app = save_tokenizer(tokenizer_from_trace(app_trace), tmp_path / "app.json")
    assert out.read_bytes() == app.read_bytes()
    assert json.loads(trace.read_text(encoding="utf-8"))["config"] == app_trace.config.to_dict()


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ((), "Initial vocabulary 257: 256 byte symbols + <|endoftext|>."),
        (("--special-tokens", ""), "Initial vocabulary 256: 256 byte symbols."),
        (("--special-tokens", "<s>,the"), "Initial vocabulary 258: 256 byte symbols + <s> + 'the'."),
        (
            ("--algorithm", "wordpiece"),
            "Initial vocabulary 45: 40 characters + [PAD] + [UNK] + [CLS] + [SEP] + [MASK].",
        ),
    ],
)
def test_the_result_names_every_special_token_training_added(tmp_path, corpus, options, named):
    """Issue 50: 'Initial vocabulary 257' did not say which special token made the 257th. The CLI
    prints the line the Train page's summary shows (explain.initial_vocabulary_text)."""
    result = cli("train", corpus, "--vocab-size", 300, *options, "--out", tmp_path / "tok.json")
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert named in stderr.splitlines()


def test_records_train_with_the_settings_warnings_and_say_their_reading(tmp_path):
    """A JSONL corpus has no text chunk for the corpus checks: the settings' warnings still show."""
    corpus = tmp_path / "records.jsonl"
    corpus.write_text('{"text": "the cat sat"}\n{"text": "the end"}\n', encoding="utf-8")
    options = ("--text-field", "text", "--vocab-size", 100, "--special-tokens", "the", "--json")
    result = cli("train", corpus, *options, "--out", tmp_path / "tok.json")
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert "warning: The special token 'the' is ordinary text" in stderr
    assert json.loads(result.stdout)["reading"] == "records" and "reading records" in stderr
