"""explorer.reproduce without running the programs (tests/parity/test_reproduce_code.py runs them):
every user string is one literal, the programs parse and are laid out as `ruff format` lays them
out, the corpus source and the program choice check what they are given."""

import ast
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.reproduce import (
    CompareColumn,
    CorpusCounts,
    CorpusSource,
    api_program,
    compare_program,
    library_program,
    merge_step_program,
    run_notebook,
    training_program,
)
from explorer.reproduce.python_source import Call, Items, literal, render
from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
from tests import ROOT


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.lists(st.text(), max_size=3).map(tuple), st.integers(), st.none()))
def test_a_literal_reads_back_as_its_value(value):
    assert ast.literal_eval(literal(value)) == value


def string_constants(code: str) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


TRICKY = ('"""', "'", "\\", "a\nb", "x'); import os; ('", "{text}", "\u2028", "é▁")


@pytest.mark.parametrize("token", TRICKY)
def test_user_strings_stay_inside_their_literals(token):
    config = RunConfig(
        TrainerConfig(vocab_size=40, special_tokens=(token,), continuing_subword_prefix=token + "#"),
        (),
        "whitespace",
    )
    corpus = CorpusSource.from_file(token + ".txt", "some text")
    for code in (library_program(config, corpus), api_program(config, corpus), merge_step_program(2, token)):
        constants = string_constants(code)  # parses: nothing broke out
        assert token in constants or token + ".txt" in constants or token + "#" in constants
    for special_tokens in (False, True):
        code = compare_program(token, compare_columns(token, config, corpus), special_tokens)
        assert {token, token + ".json", token + ".model"} <= string_constants(code)


def compare_columns(name: str, config: RunConfig, corpus: CorpusSource) -> list[CompareColumn]:
    """A column of every kind: each kind of bundled file, uploads named after `name`, a run."""
    pretrained = ("gpt2", "cl100k_base", "llama4", "qwen3.6", "deepseek-v4", "mistral-v3")
    return [CompareColumn("pretrained", one) for one in pretrained] + [
        CompareColumn("tokenizer.json", name + ".json"),
        CompareColumn("sentencepiece", name + ".model"),
        CompareColumn("run", name, config, corpus),
    ]


RUNS = [
    RunConfig(TrainerConfig(vocab_size=1000, special_tokens=("<|endoftext|>",))),
    RunConfig(
        TrainerConfig(
            "wordpiece", vocab_size=30000, special_tokens=("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
        ),
        ("bert",),
        "bert",
    ),
    RunConfig(
        TrainerConfig(vocab_size=500, end_of_word_suffix="</w>", min_frequency=2),
        ("nfd", "lowercase", "strip-accents"),
        "whitespace",
    ),
    RunConfig(TrainerConfig(vocab_size=5000), ("nfkc",), "byte-level-o200k"),
    RunConfig(UnigramConfig(vocab_size=8000, special_tokens=("<s>", "</s>")), (), "metaspace"),
    RunConfig(UnigramConfig("course", 100), (), "metaspace"),
    RunConfig(TrainerConfig("wordpiece", "course", 70), (), "bert"),
]


def code_cells(notebook: dict) -> list[str]:
    """The notebook's code cells' sources, in order (what running it all runs)."""
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_programs_are_formatted_as_ruff_formats_them(tmp_path):
    programs = [merge_step_program(5)]
    for special_tokens in (False, True):
        columns = compare_columns("my run", RUNS[1], CorpusSource.from_sample("hf-course"))
        programs.append(compare_program("Hi <|endoftext|> [INST] 東京", columns, special_tokens))
    for run in RUNS:
        counts = (CorpusCounts("counts.parquet", sha256="0" * 64), CorpusCounts("host.parquet", size=12_345))
        for corpus in (CorpusSource.from_sample("hf-course"), CorpusSource.from_pasted("text"), *counts):
            programs.append(training_program(run, corpus))
            programs.append("\n\n".join(code_cells(run_notebook(run, corpus))) + "\n")
    for index, program in enumerate(programs):
        ast.parse(program)
        (tmp_path / f"program_{index}.py").write_text(program, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "format",
            "--diff",
            "--isolated",
            "--line-length",
            "110",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]


def test_compare_programs_import_what_they_use_in_isorts_order(tmp_path):
    """Whatever the columns: no import missing or unused (a sample needs no Path, an uploaded file
    no importlib.resources), imports sorted and wrapped as ruff's isort rules want them."""
    columns = compare_columns("x", RUNS[0], CorpusSource.from_sample("hf-course"))
    columns.append(CompareColumn("run", "y", RUNS[5], CorpusSource.from_file("corpus.txt", "text")))
    subsets = [columns, columns[:-1], columns[-4:-1], columns[-3:-2], columns[:3], columns[4:6]]
    for index, subset in enumerate(subsets):
        for special_tokens in (False, True):
            program = compare_program("Hi <|endoftext|>", subset, special_tokens)
            (tmp_path / f"program_{index}_{special_tokens}.py").write_text(program, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--line-length", "110", "--select", "I,F"]
        + [str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]


def test_training_program_picks_the_library_for_the_library_flavor():
    corpus = CorpusSource.from_sample("german")
    assert "trainers.BpeTrainer(" in training_program(RUNS[0], corpus)
    assert "train_corpus(text, config)" in training_program(RUNS[0], corpus, style="api")
    assert "train_corpus(text, config)" in training_program(RUNS[5], corpus)
    with pytest.raises(ValueError, match="library-flavor"):
        training_program(RUNS[5], corpus, style="library")
    with pytest.raises(ValueError, match="style"):
        training_program(RUNS[0], corpus, style="rust")


def test_library_program_states_the_librarys_tie_order():
    corpus = CorpusSource.from_sample("german")
    assert "smallest (id, id)" in library_program(RUNS[0], corpus)
    assert "hash-map order" in library_program(RUNS[1], corpus)
    assert "within 1e-3" in library_program(RUNS[4], corpus)


def test_corpus_sources():
    assert (
        CorpusSource.from_sample("hf-course").sha256
        == CorpusSource.from_pasted(__import__("explorer.samples").samples.HF_COURSE.text).sha256
    )
    with pytest.raises(ValueError, match="unknown sample"):
        CorpusSource.from_sample("nope")
    with pytest.raises(ValueError, match="either a sample or a path"):
        CorpusSource("0" * 64)
    with pytest.raises(ValueError, match="kind"):
        CompareColumn("tiktoken", "gpt2")
    with pytest.raises(ValueError, match="merge number"):
        merge_step_program(0)


def test_render_breaks_only_what_does_not_fit():
    short = Call("f", ("1",), (("b", Items(("'x'",))),))
    assert render(short) == "f(1, b=['x'])"
    long = Call("trainers.BpeTrainer", (), tuple((f"setting_{i}", "'" + "v" * 20 + "'") for i in range(5)))
    assert render(long).splitlines()[1] == "    setting_0='vvvvvvvvvvvvvvvvvvvv',"


def test_notebook_is_nbformat_4():
    notebook = run_notebook(RUNS[0], CorpusSource.from_sample("hf-course"))
    assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)
    kinds = [cell["cell_type"] for cell in notebook["cells"]]
    assert kinds[0] == "markdown" and kinds.count("code") == 6
    assert len({cell["id"] for cell in notebook["cells"]}) == len(kinds)


def test_the_notebook_says_where_its_import_explorer_comes_from():
    """Issue 50: a notebook downloaded into a fresh folder failed with ModuleNotFoundError: explorer,
    and nothing said how to install the package. Its first cell says so, with the README's command."""
    title = "".join(run_notebook(RUNS[0], CorpusSource.from_sample("hf-course"))["cells"][0]["source"])
    assert "`pip install . ./engine`" in title and "`python3 tasks.py app`" in title
    assert "`pip install . ./engine`" in (ROOT / "README.md").read_text()


def test_the_readmes_example_is_what_print_code_prints():
    """README.md shows lines of `train corpus.txt --vocab-size 300 --print-code`: they are the
    program's own lines, in order, for that command's run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## From the explorer to your own code") :]
    example = section[
        section.index("```python\n") + len("```python\n") : section.index("\n```", section.index("```python"))
    ]
    assert "--vocab-size 300" in section and "--print-code" in section
    from dataclasses import replace

    from explorer.corpora.inputs import CorpusInput
    from explorer.reproduce import CorpusFiles
    from explorer.runs.settings import defaults_for

    # The CLI's run: the app's defaults, a file read with its line endings.
    run = replace(replace(defaults_for("bpe"), vocab_size=300).run_config(), reading="lines-with-endings")
    program = training_program(run, CorpusFiles((CorpusInput("corpus.txt", size=10),), run.reading))
    assert example in program
