"""Reproduce in Python (issue 35) in the pages: the Train page's closed section and the sidebar's
run card give the program that trains the run, which, run as pasted in a fresh interpreter, saves
the run's own tokenizer.json; Merge history gives the program that prints its merge from the
run's trace download; a pasted corpus is named by a file and its SHA-256, and a user's string
never leaves its Python literal."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit

from explorer.reproduce import (
    CompareColumn,
    CorpusSource,
    compare_program,
    merge_step_program,
    notebook_json,
    run_notebook,
    training_program,
)
from explorer.reproduce.corpus_source import PLACEHOLDER
from explorer.ui.common.state import Widget as W
from explorer.views.vocabulary_table import tokenizer_json
from tests.app.helpers import (
    MERGES,
    VOCABULARY,
    new_app,
    open_compare,
    open_sections,
    run_of,
    train,
    type_compare_text,
)

ROOT = Path(__file__).resolve().parents[2]


def shown(program: str) -> str:
    """A program as its code block holds it (st.code drops the last line break)."""
    return program.rstrip("\n")


def run_program(code: str, folder: Path) -> subprocess.CompletedProcess:
    """`code` as a reader runs it: a fresh interpreter in `folder`, the explorer package importable."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture
def served(monkeypatch) -> dict[str, tuple[str, str]]:
    """What every download button drawn serves, by label: (file name, data). AppTest runs the page
    in this process, so the button's arguments are recorded on their way to Streamlit."""
    from streamlit.delta_generator import DeltaGenerator

    found: dict[str, tuple[str, str]] = {}
    original = DeltaGenerator.download_button

    def recording(self, label, data, file_name=None, *args, **kwargs):
        found[label] = (file_name, data)
        return original(self, label, data, file_name, *args, **kwargs)

    def recording_main(label, data, file_name=None, *args, **kwargs):  # st.download_button
        found[label] = (file_name, data)
        return original_main(label, data, file_name, *args, **kwargs)

    original_main = streamlit.download_button
    monkeypatch.setattr(DeltaGenerator, "download_button", recording)
    monkeypatch.setattr(streamlit, "download_button", recording_main)
    return found


def test_the_train_page_gives_the_program_of_its_run_and_run_as_pasted_it_saves_the_same_tokenizer(
    tmp_path,
):
    at = train(new_app({"sample": "hf-course", "vocab_size": "300"}))
    run = run_of(at)
    assert not at.code  # closed: no code block (its highlighter is 1.5 MB of JavaScript)
    open_sections(at, W.SECTION_REPRODUCE)
    (block,) = at.code
    source = CorpusSource.from_sample("hf-course")
    assert block.value == shown(training_program(run.history.config, source, "library"))
    assert "tokenizers.trainers.BpeTrainer(" in block.value or "trainers.BpeTrainer(" in block.value
    run_program(block.value, tmp_path)
    assert (tmp_path / "tokenizer.json").read_text(encoding="utf-8") == tokenizer_json(run)

    at.radio(key=W.REPRODUCE_STYLE).set_value("api").run()
    (block,) = at.code
    assert block.value == shown(training_program(run.history.config, source, "api"))
    api_folder = tmp_path / "api"
    api_folder.mkdir()
    run_program(block.value, api_folder)
    assert (api_folder / "tokenizer.json").read_text(encoding="utf-8") == tokenizer_json(run)
    saved = json.loads((api_folder / "trace.json").read_text(encoding="utf-8"))
    ours = json.loads(run.history.to_json())
    assert {**saved, "seconds": None, "engine": None} == {**ours, "seconds": None, "engine": None}


def test_the_downloads_are_the_runs_notebook_and_program(served):
    at = train(new_app({"sample": "hf-course", "vocab_size": "300"}))
    open_sections(at, W.SECTION_REPRODUCE)
    run = run_of(at)
    expected = notebook_json(run_notebook(run.history.config, CorpusSource.from_sample("hf-course")))
    name, notebook = served["Notebook (.ipynb)"]
    assert notebook == expected and name == "bpe-300-run1.ipynb" and json.loads(notebook)["nbformat"] == 4
    name, program = served["Program (.py)"]
    assert shown(program) == at.code[0].value and name == "bpe-300-run1-library.py"


def test_every_page_has_the_code_in_the_sidebars_run_card():
    at = train(new_app({"sample": "hf-course", "vocab_size": "300", "flavor": "course"}))
    at.switch_page(VOCABULARY).run()
    assert not at.sidebar.code  # the popover draws nothing until it is opened
    open_sections(at, W.SIDEBAR_REPRODUCE)
    (block,) = at.sidebar.code
    run = run_of(at)
    # The course flavor has no library code: the explorer package's program, and no choice.
    assert block.value == shown(
        training_program(run.history.config, CorpusSource.from_sample("hf-course"), "api")
    )
    assert not at.sidebar.radio


def test_a_pasted_corpus_is_a_file_and_its_digest_and_user_strings_stay_literals():
    at = new_app()
    corpus = 'low lower lowest\nnewer newest """ widest\nlow low'
    at.text_area(key=W.CORPUS).set_value(corpus).run()
    tokens = "<|a\"b'c|>,\\x,{x}"
    at.text_input(key=W.SPECIAL_TOKENS).set_value(tokens).run()
    at = train(at)
    open_sections(at, W.SECTION_REPRODUCE)
    code = at.code[0].value
    ast.parse(code)  # the program is Python, whatever the strings held
    literals = {
        node.value for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Constant) and node.value
    }
    assert {"<|a\"b'c|>", "\\x", "{x}", PLACEHOLDER} <= literals
    assert hashlib.sha256(corpus.encode("utf-8")).hexdigest() in literals
    assert any(PLACEHOLDER in caption.value for caption in at.caption)


def test_merge_history_gives_the_program_that_prints_its_merge_from_the_trace(tmp_path, served):
    course_wordpiece = {
        "algorithm": "wordpiece",
        "flavor": "course",
        "vocab_size": "70",
        "sample": "hf-course",
    }
    at = new_app({**course_wordpiece, "step": "3"}, MERGES)
    run = run_of(at)
    assert not at.code
    open_sections(at, W.SECTION_STEP_CODE)
    (block,) = at.code
    name, trace = served["Trace (JSON)"]
    assert block.value == shown(merge_step_program(3, name)) and name.endswith("-trace.json")
    (tmp_path / name).write_text(trace, encoding="utf-8")
    printed = run_program(block.value, tmp_path).stdout.splitlines()
    history = run.history
    left, right, new = history.merges[2]
    vocab = history.vocab
    assert printed[0].startswith(f"merge 3: {vocab[left]!r} + {vocab[right]!r} -> {vocab[new]!r}, ")
    assert len(printed) == 1 + len(history.candidates[2])
    assert (tmp_path / "tokenizer.json").read_text(encoding="utf-8") == tokenizer_json(run)


def test_the_trace_download_is_built_once_per_run_whatever_the_reruns_and_pages(served, monkeypatch):
    """Merge history's step code and the Vocabulary page hand out one JSON, built once: a 50 MB
    upload's trace is 110 MB and 1.6 s of the server's time to build."""
    from explorer.training.bpe.merge_history import MergeHistory

    built = []
    to_json = MergeHistory.to_json
    monkeypatch.setattr(MergeHistory, "to_json", lambda self: built.append(1) or to_json(self))
    at = new_app({"sample": "hf-course", "vocab_size": "300", "step": "3"}, MERGES)
    open_sections(at, W.SECTION_STEP_CODE)
    at.query_params["step"] = "4"
    at.run()
    open_sections(at, W.SECTION_STEP_CODE)
    trace = served["Trace (JSON)"][1]
    at.switch_page(VOCABULARY).run()
    assert not at.exception, at.exception
    assert served["Trace (JSON)"][1] == trace == run_of(at).history.to_json()
    assert len(built) == 2  # the download's, and this test's own call just above


def test_compare_gives_the_program_that_prints_each_columns_ids_for_the_text_in_the_box(tmp_path):
    from explorer.compare.columns import pretrained_column, sentences_from
    from explorer.compare.counts import count_rows
    from explorer.views.run_views import run_column

    at = train(new_app())
    open_compare(at)
    text = "Tokenizers cut <|endoftext|> text.\n\n東京 😀 and l'été"
    type_compare_text(at, text)
    assert not at.code
    open_sections(at, W.SECTION_COMPARE_CODE)
    (block,) = at.code
    run = run_of(at)
    names = ["gpt2", "cl100k_base", "o200k_base"]  # the page's first columns beside the run
    columns = [
        CompareColumn("run", run.name, run.history.config, CorpusSource.from_sample(run.sample_key)),
        *(CompareColumn("pretrained", name) for name in names),
    ]
    assert block.value == shown(compare_program(text, columns, special_tokens=False))
    printed = run_program(block.value, tmp_path).stdout.splitlines()
    page_columns = [run_column(run, "current run", False), *(pretrained_column(name) for name in names)]
    sentences = sentences_from(text)
    page = count_rows(
        [column.name for column in page_columns],
        [[column.encode(sentence) for sentence in sentences] for column in page_columns],
        sentences,
    )
    assert [json.loads(line[line.index("[") :]) for line in printed] == [
        json.loads(row.ids_json) for row in page
    ]
