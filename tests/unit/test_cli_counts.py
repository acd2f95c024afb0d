"""`python -m explorer train --counts FILE...`: training from count files gives the tokenizer.json and
the trace (but for its `seconds` and `engine`) of training on the corpora they counted, one after
the other, byte for byte; their settings are theirs, and an option that says otherwise is one
sentence. Run in this process (`explorer.cli.main`): the same code as the command, without a new
interpreter per run."""

from __future__ import annotations

import re

import pytest

from explorer.cli import main
from explorer.corpora.count_files import read_count_files, write_count_file
from explorer.corpora.counting import Counting, WordCounts
from explorer.run_config import RunConfig, TrainerConfig
from explorer.samples import GERMAN, HF_COURSE, MULTILINGUAL, STUDY_IN_SCARLET
from explorer.training.bpe import trainer as bpe_trainer
from explorer.training.trainers import train_counted
from explorer.training.word_counts import count_corpus
from tests.helpers.engines import trace_bytes


def _lines(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


FIRST = _lines(HF_COURSE.text) + _lines(STUDY_IN_SCARLET.text)
SECOND = _lines(MULTILINGUAL.text) + _lines(GERMAN.text)

# (algorithm, flavor, vocabulary size, count's options): every algorithm and flavor, with the
# algorithm's default pre-tokenizer, and settings other than the defaults (normalizers, a split
# pattern) that `train --counts` must take from the count files.
RUNS = [
    ("bpe", "library", 300, ()),
    ("bpe", "library", 300, ("--reading", "lines")),
    ("bpe", "library", 280, ("--normalizer", "nfkc,lowercase", "--split-pattern", "cl100k")),
    ("bpe", "course", 300, ()),
    ("wordpiece", "library", 150, ("--pre-tokenizer", "bert")),
    ("wordpiece", "course", 150, ("--pre-tokenizer", "bert")),
    ("unigram", "library", 250, ("--pre-tokenizer", "metaspace")),
    ("unigram", "course", 120, ("--pre-tokenizer", "metaspace")),
]


def _count_file(path, text: str, counting: Counting):
    """A count file of `text` made by the one-shot counter (reading "lines"), for the refusals."""
    words, figures = count_corpus(text, counting.normalizers, counting.pre_tokenizer)
    assert figures is not None
    write_count_file(path, WordCounts(words, figures, counting, [path.name]))
    return path


def _counted(tmp_path, name: str, *args) -> str:
    """`count ARGS --out NAME.parquet`: the count file's path."""
    out = tmp_path / f"{name}.parquet"
    assert main(["count", *map(str, args), "--out", str(out)]) == 0
    return str(out)


def _trained(tmp_path, name: str, *args) -> tuple[bytes, bytes]:
    """tokenizer.json and the trace of `train ARGS`, the trace without its `seconds` and `engine`."""
    out, trace = tmp_path / f"{name}.json", tmp_path / f"{name}-trace.json"
    assert main(["train", *map(str, args), "--out", str(out), "--trace", str(trace)]) == 0
    run_facts = rb'"seconds":[^,}]+|"engine":"[a-z]*"'
    return out.read_bytes(), re.sub(run_facts, b"", trace.read_bytes())


@pytest.mark.parametrize(("algorithm", "flavor", "vocab_size", "options"), RUNS)
def test_count_then_train_from_the_counts_is_training_on_the_concatenated_corpora(
    tmp_path, algorithm, flavor, vocab_size, options
):
    """`count` each part, `train --counts` the parts (or one count file of both): the tokenizer.json
    and trace of `train` on the two parts' text, one after the other, with the same reading."""
    (tmp_path / "first.txt").write_text(FIRST, encoding="utf-8")
    (tmp_path / "second.txt").write_text(SECOND, encoding="utf-8")
    (tmp_path / "corpus.txt").write_text(FIRST + SECOND, encoding="utf-8")
    first = _counted(tmp_path, "first", tmp_path / "first.txt", *options)
    second = _counted(tmp_path, "second", tmp_path / "second.txt", *options)
    both = _counted(tmp_path, "both", tmp_path / "first.txt", tmp_path / "second.txt", *options)
    added = _counted(tmp_path, "added", "--add", first, second)
    assert read_count_files([added]).words == read_count_files([both]).words
    common = ["--algorithm", algorithm, "--flavor", flavor, "--vocab-size", vocab_size]
    on_text = _trained(tmp_path, "text", tmp_path / "corpus.txt", *common, *options)
    assert _trained(tmp_path, "two", "--counts", first, second, *common) == on_text
    # Options that agree with the count files' settings may be given.
    assert _trained(tmp_path, "one", "--counts", both, *common, *options) == on_text
    assert _trained(tmp_path, "added", "--counts", added, *common) == on_text


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
        (("--reading", "lines-with-endings"), "--reading lines-with-endings"),
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
            "--print-code writes a program that trains on the corpus: count files have no text",
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


def test_count_add_refuses_count_files_of_different_settings_in_one_sentence(tmp_path, capsys):
    (tmp_path / "a.txt").write_text(FIRST, encoding="utf-8")
    first = _counted(tmp_path, "first", tmp_path / "a.txt")
    second = _counted(tmp_path, "second", tmp_path / "a.txt", "--normalizer", "lowercase")
    capsys.readouterr()
    out = tmp_path / "out.parquet"
    assert main(["count", "--add", first, second, "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert (
        error.startswith("error: the count file '")
        and "second.parquet' was counted with other settings" in error
    )
    assert "(lowercase, pre-tokenizer byte-level, reading lines-with-endings)" in error
    assert error.count("\n") == 1 and not out.exists()


def test_count_add_may_write_over_one_of_the_files_it_adds(tmp_path):
    (tmp_path / "a.txt").write_text(FIRST, encoding="utf-8")
    (tmp_path / "b.txt").write_text(SECOND, encoding="utf-8")
    (tmp_path / "ab.txt").write_text(FIRST + SECOND, encoding="utf-8")
    total = _counted(tmp_path, "total", tmp_path / "a.txt")
    more = _counted(tmp_path, "more", tmp_path / "b.txt")
    assert main(["count", "--add", total, more, "--out", total]) == 0
    whole = read_count_files([_counted(tmp_path, "whole", tmp_path / "ab.txt")])
    added = read_count_files([total])
    assert list(added.words.items()) == list(whole.words.items()) and added.figures == whole.figures


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["a.txt", "--add", "c.parquet"],
            "give inputs to count, or --add FILE... (count files to add), not both",
        ),
        ([], "give inputs to count, or --add FILE... (count files to add), not both"),
        (["--add", "c.parquet", "--normalizer", "nfkc"], "--normalizer is for counting inputs: --add adds"),
        (["a.txt", "--out", "a.txt"], "--out 'a.txt' is the same file as the input 'a.txt'"),
        (["*.txt", "--out", "./a.txt"], "--out './a.txt' is the same file as the input 'a.txt'"),
        (["missing.txt"], "missing.txt"),
        (
            ["a.txt", "--split-pattern", "cl100k", "--pre-tokenizer", "bert"],
            "--split-pattern is a byte-level setting",
        ),
        (["a.txt", "--reading", "records"], "argument --reading: invalid choice: 'records'"),
        (["a.txt", "--normalizer", "nope"], "unknown normalizer 'nope'"),
    ],
)
def test_bad_count_arguments_are_one_sentence(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text(FIRST, encoding="utf-8")
    _count_file(tmp_path / "c.parquet", FIRST, Counting())
    out = [] if "--out" in args else ["--out", "out.parquet"]
    assert main(["count", *args, *out]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1, error
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == FIRST


def test_count_writes_the_settings_figures_and_sources_and_says_what_it_counted(tmp_path, capsys):
    (tmp_path / "a.txt").write_text(FIRST, encoding="utf-8")
    out = _counted(tmp_path, "c", tmp_path / "a.txt", "--split-pattern", "o200k", "--normalizer", "nfkc")
    counts = read_count_files([out])
    assert counts.counting == Counting(("nfkc",), "byte-level-o200k", "lines-with-endings")
    assert counts.sources == [str(tmp_path / "a.txt")] and counts.figures["lines"] == FIRST.count("\n")
    assert capsys.readouterr().err.endswith(f"({counts.counting.describe()}) -> {out}\n")


def test_count_reports_its_progress_as_bytes_read_of_the_total(tmp_path, monkeypatch, capsys):
    """As train's progress (explorer.cli.common.progress_printer), in bytes: redirected, a line per
    tenth. The clock is moved by the test (two seconds a reading), not waited for."""
    from explorer.cli import common

    clock = iter(range(0, 10_000, 2))
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    text = "".join(f"line {number} of the corpus\n" for number in range(400))
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    _counted(tmp_path, "c", tmp_path / "a.txt", "--chunk-mb", "0.0005")
    lines = capsys.readouterr().err.splitlines()[:-1]
    assert 5 < len(lines) <= 11 and lines[-1] == "counting: 9.1 of 9.1 KB (100%)"
    assert all(line.startswith("counting: ") and " of 9.1 KB (" in line for line in lines)


def test_counts_handed_over_train_as_their_table_and_are_freed_before_the_vocabulary(monkeypatch):
    """`WordCounts.hand_over()` (what `train` gives the trainer) trains as the table itself, and the
    table is freed once the trainer has its own lists, before the initial vocabulary and the
    engine: training holds the words once, not twice."""
    freed: list[bool] = []

    class Table(dict):
        def __del__(self):
            freed.append(True)

    words, figures = count_corpus(FIRST, (), "byte-level")
    counts = WordCounts(Table(words), figures or {}, Counting())
    freed_at_vocabulary = []
    initial_vocabulary = bpe_trainer._initial_vocabulary

    def noting(*args):
        freed_at_vocabulary.append(bool(freed))
        return initial_vocabulary(*args)

    monkeypatch.setattr(bpe_trainer, "_initial_vocabulary", noting)
    config = RunConfig(TrainerConfig(vocab_size=300), (), "byte-level")
    handed = train_counted(counts.hand_over(), figures, config)
    assert freed_at_vocabulary == [True] and counts.words == {}
    assert trace_bytes(handed) == trace_bytes(train_counted(words, figures, config))
