"""`python -m explorer train --counts FILE...`: training from count files gives the tokenizer.json and
the trace (but for its `seconds` and `engine`) of training on the corpora they counted, one after
the other, byte for byte; their settings are theirs, and an option that says otherwise is one
sentence. Run in this process (`explorer.cli.main`): the same code as the command, without a new
interpreter per run."""

from __future__ import annotations

import re

import pytest

from explorer.cli import main
from explorer.corpora.count_files import write_count_file
from explorer.corpora.counting import Counting, WordCounts
from explorer.samples import GERMAN, HF_COURSE, MULTILINGUAL, STUDY_IN_SCARLET
from explorer.training.word_counts import count_corpus


def _lines(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


FIRST = _lines(HF_COURSE.text) + _lines(STUDY_IN_SCARLET.text)
SECOND = _lines(MULTILINGUAL.text) + _lines(GERMAN.text)

# (algorithm, flavor, vocabulary size, more options): every algorithm and flavor, and settings
# other than the defaults (normalizers, a split pattern) that must come from the count files.
RUNS = [
    ("bpe", "library", 300, ()),
    ("bpe", "library", 280, ("--normalizer", "nfkc,lowercase", "--split-pattern", "cl100k")),
    ("bpe", "course", 300, ()),
    ("wordpiece", "library", 150, ()),
    ("wordpiece", "course", 150, ()),
    ("unigram", "library", 250, ()),
    ("unigram", "course", 120, ()),
]


def _count_file(path, text: str, counting: Counting):
    """A count file of `text` (one-shot counting, reading "lines")."""
    words, figures = count_corpus(text, counting.normalizers, counting.pre_tokenizer)
    assert figures is not None
    write_count_file(path, WordCounts(words, figures, counting, [path.name]))
    return path


def _trained(tmp_path, name: str, *args) -> tuple[bytes, bytes]:
    """tokenizer.json and the trace of `train ARGS`, the trace without its `seconds` and `engine`."""
    out, trace = tmp_path / f"{name}.json", tmp_path / f"{name}-trace.json"
    assert main(["train", *map(str, args), "--out", str(out), "--trace", str(trace)]) == 0
    run_facts = rb'"seconds":[^,}]+|"engine":"[a-z]*"'
    return out.read_bytes(), re.sub(run_facts, b"", trace.read_bytes())


def _counting(algorithm: str, options: tuple[str, ...]) -> Counting:
    """The settings `train` counts with for these options (the app's defaults per algorithm)."""
    from explorer.cli import build_parser
    from explorer.cli.train_command import _settings

    args = build_parser("train").parse_args(
        ["train", "-", "--algorithm", algorithm, "--vocab-size", "9", "--out", "x", *options]
    )
    settings = _settings(args)
    return Counting(settings.normalizers, settings.pre_tokenizer)


@pytest.mark.parametrize(("algorithm", "flavor", "vocab_size", "options"), RUNS)
def test_training_from_count_files_is_training_on_the_concatenated_corpora(
    tmp_path, algorithm, flavor, vocab_size, options
):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(FIRST + SECOND, encoding="utf-8")
    counting = _counting(algorithm, options)
    first = _count_file(tmp_path / "first.parquet", FIRST, counting)
    second = _count_file(tmp_path / "second.parquet", SECOND, counting)
    whole = _count_file(tmp_path / "whole.parquet", FIRST + SECOND, counting)
    common = ["--algorithm", algorithm, "--flavor", flavor, "--vocab-size", vocab_size]
    on_text = _trained(tmp_path, "text", corpus, *common, *options)
    assert _trained(tmp_path, "two", "--counts", first, second, *common) == on_text
    # Options that agree with the count files' settings may be given.
    assert _trained(tmp_path, "one", "--counts", whole, *common, *options) == on_text


def test_count_files_of_different_settings_are_refused_in_one_sentence(tmp_path, capsys):
    first = _count_file(tmp_path / "first.parquet", FIRST, Counting())
    second = _count_file(tmp_path / "second.parquet", SECOND, Counting(("lowercase",)))
    assert (
        main(
            [
                "train",
                "--counts",
                str(first),
                str(second),
                "--vocab-size",
                "300",
                "--out",
                str(tmp_path / "t.json"),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert (
        error.startswith("error: the count file '")
        and "second.parquet' was counted with other settings" in error
    )
    assert error.count("\n") == 1 and not (tmp_path / "t.json").exists()


@pytest.mark.parametrize(
    ("options", "flag"),
    [
        (("--pre-tokenizer", "whitespace"), "--pre-tokenizer whitespace"),
        (("--split-pattern", "o200k"), "--split-pattern o200k"),
        (("--normalizer", "nfkc"), "--normalizer nfkc"),
        (("--normalizer", ""), "--normalizer "),
    ],
)
def test_an_option_that_contradicts_the_count_files_is_refused_in_one_sentence(
    tmp_path, capsys, options, flag
):
    counts = _count_file(tmp_path / "c.parquet", FIRST, Counting(("lowercase",), "byte-level-cl100k"))
    out = tmp_path / "t.json"
    assert main(["train", "--counts", str(counts), "--vocab-size", "300", *options, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"error: {flag} says otherwise than the count files, counted with lowercase, pre-tokenizer "
        f"byte-level-cl100k, reading lines: leave {flag.split()[0]} out, or count the corpora again with it\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["corpus.txt", "--counts", "c.parquet"],
            "give a corpus to train on, or --counts FILE... (count files), not both",
        ),
        ([], "give a corpus to train on, or --counts FILE... (count files), not both"),
        (
            ["--counts", "c.parquet", "--print-code"],
            "--print-code writes a program that trains on the corpus text",
        ),
        (["--counts", "c.parquet", "--max-corpus-mb", "5"], "--max-corpus-mb limits a corpus read as text"),
        (["--counts", "corpus.txt"], "'corpus.txt' is not a count file: it is not a Parquet file"),
        (["--counts", "c.parquet", "--seed-size", "9"], "--seed-size is a Unigram setting"),
    ],
)
def test_bad_count_options_are_one_sentence(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus.txt").write_text(FIRST, encoding="utf-8")
    _count_file(tmp_path / "c.parquet", FIRST, Counting())
    assert main(["train", *args, "--vocab-size", "300", "--out", "t.json"]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_out_naming_a_count_file_is_refused_before_any_work(tmp_path, capsys):
    counts = _count_file(tmp_path / "c.parquet", FIRST, Counting())
    before = counts.read_bytes()
    assert main(["train", "--counts", str(counts), "--vocab-size", "300", "--out", str(counts)]) == 2
    assert "is the same file as a count file" in capsys.readouterr().err
    assert counts.read_bytes() == before
