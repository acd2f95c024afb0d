"""A run as a Jupyter notebook (nbformat 4), laid out as the Hugging Face course's notebooks are: a
title, the corpus cell, the training cell, the first merges (or Unigram rounds), the vocabulary
table, and tokenizer.json and the trace saved in the folder it runs in. Every cell trains and
prints with the explorer package's API (api_program.py's lines), for either flavor.

`run_notebook(config, corpus)` gives the notebook as a dict (JSON-ready, no outputs: it has not run);
`notebook_json(notebook)` its .ipynb text. Written without nbformat (a plain JSON document whose
fields nbformat 4.5 defines), so the app needs no Jupyter package.

What it does not do: execute the notebook (a reader does; the tests run its cells in order).
"""

from __future__ import annotations

import hashlib
import json

from explorer.reproduce.api_program import SAVE_LINES, api_imports, first_steps_lines, training_lines
from explorer.reproduce.corpus_counts import CorpusCounts
from explorer.reproduce.corpus_files import CorpusFiles
from explorer.reproduce.corpus_source import CorpusSource
from explorer.reproduce.run_line import run_summary
from explorer.run_config import RunConfig

VOCABULARY_ROWS = 30
# Where `import explorer` comes from: a notebook downloaded into a fresh folder fails with
# ModuleNotFoundError unless its kernel has the package (the README's set-up says the same).
INSTALL_NOTE = (
    "It needs the `explorer` package: run it with the Python of Tokenizer Explorer's `.venv` "
    "(`python3 tasks.py app` installs the package there), or install it into your own environment "
    "from the repository's folder with `pip install . ./engine` (`pip install .` alone: the Python "
    "engine, the same results)."
)


def _cell(kind: str, lines: list[str], number: int) -> dict:
    source = "\n".join(lines)
    cell: dict = {
        "cell_type": kind,
        # nbformat 4.5: a cell id, stable for the same notebook (a hash of its place and text).
        "id": hashlib.sha256(f"{number}:{source}".encode("utf-8", "surrogatepass")).hexdigest()[:8],
        "metadata": {},
        "source": source.splitlines(keepends=True),
    }
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def vocabulary_lines(config: RunConfig, rows: int = VOCABULARY_ROWS) -> list[str]:
    """Print the first `rows` tokens of the vocabulary with their ids (Unigram: and scores)."""
    if config.is_unigram:
        return [
            f"# The first {rows} pieces of the vocabulary: id, piece, score (log probability).",
            f"for token_id, (piece, score) in enumerate(trace.final_pieces[:{rows}]):",
            '    print(f"{token_id:>6}  {piece!r:<20} {score:.4f}")',
        ]
    return [
        f"# The first {rows} tokens of the vocabulary, by id, and the last ones the merges made.",
        f"for token_id, token in enumerate(trace.vocab[:{rows}]):",
        '    print(f"{token_id:>6}  {token!r}")',
        'print("...")',
        f"for token_id in range(max({rows}, len(trace.vocab) - 10), len(trace.vocab)):",
        '    print(f"{token_id:>6}  {trace.vocab[token_id]!r}")',
    ]


def run_notebook(config: RunConfig, corpus: CorpusSource | CorpusFiles | CorpusCounts) -> dict:
    """The notebook that trains `config` on `corpus` step by step, as an nbformat 4 dict."""
    steps = "rounds" if config.is_unigram else "merges"
    cells = [
        (
            "markdown",
            [
                "# Training a tokenizer step by step",
                "",
                f"{run_summary(config)}, as trained by Tokenizer Explorer (its Python package, `explorer`).",
                "",
                INSTALL_NOTE,
            ],
        ),
        (
            "code",
            [
                "import hashlib",
                "from pathlib import Path",
                "",
                *api_imports(config, corpus.train_corpus_call()),
                *corpus.imports(),
            ],
        ),
        ("markdown", ["## The corpus"]),
        ("code", [*corpus.corpus_lines(), corpus.summary_line()]),
        ("markdown", ["## Training"]),
        ("code", training_lines(config, corpus.train_corpus_call())),
        ("markdown", [f"## The first {steps}"]),
        ("code", first_steps_lines(config)),
        ("markdown", ["## The vocabulary"]),
        ("code", vocabulary_lines(config)),
        ("markdown", ["## Saving the tokenizer"]),
        ("code", SAVE_LINES),
    ]
    return {
        "cells": [_cell(kind, lines, number) for number, (kind, lines) in enumerate(cells)],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def notebook_json(notebook: dict) -> str:
    """The .ipynb text of a notebook (as Jupyter writes it: indent 1, a final line break)."""
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
