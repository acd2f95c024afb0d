"""Reproduce in Python: programs (and a notebook) that redo what the app did, for a reader to run.

- `training_program(config, corpus, style=None)`: the program that trains a run's tokenizer and saves
  tokenizer.json where it runs: plain `tokenizers` code for the library flavor
  (`library_program`, the same tokenizer.json as the run; library_program.py says where the
  library's own tie order can differ), the explorer package's API for the course's (`api_program`,
  which also saves the trace);
- `CorpusSource`: the corpus as a program names it (a sample's key, or a path or placeholder) with
  the SHA-256 the program checks; `CorpusFiles`: files the CLI streamed (or a host's file the app
  streamed), read with the run's reading; `CorpusCounts`: a count file a run was trained from;
- `merge_step_program(k, trace_path)`: the Merge history page's merge k, printed from a trace;
- `compare_program(text, columns, special_tokens=False)`: the Compare page's ids, one `CompareColumn`
  each, with the page's special-tokens switch;
- `trained_config(history, style)`: the settings a program trains to give a run's result (a run
  stopped early, a Unigram run the library would not finish);
- `run_notebook(config, corpus)`: a notebook (nbformat 4, as a dict; `notebook_json` writes it).

Pure: no Streamlit, nothing trained or read here; the page widgets call these functions.

>>> from explorer.run_config import RunConfig, TrainerConfig
>>> code = training_program(RunConfig(TrainerConfig(vocab_size=300)), CorpusSource.from_sample("hf-course"))
>>> "trainers.BpeTrainer(" in code and code.rstrip().endswith("-> tokenizer.json\\")")
True

What it does not do: run the programs (the tests do), or draw the page's widgets (explorer/ui/).
"""

from __future__ import annotations

from explorer.reproduce.api_program import api_program, run_expression, training_program
from explorer.reproduce.compare_program import CompareColumn, compare_program
from explorer.reproduce.corpus_counts import CorpusCounts
from explorer.reproduce.corpus_files import CorpusFiles
from explorer.reproduce.corpus_source import CorpusSource, text_sha256
from explorer.reproduce.history_program import merge_step_program
from explorer.reproduce.library_program import library_program
from explorer.reproduce.notebook import notebook_json, run_notebook
from explorer.reproduce.trained_config import has_library_program, trained_config

__all__ = [
    "CompareColumn",
    "CorpusCounts",
    "CorpusFiles",
    "CorpusSource",
    "api_program",
    "compare_program",
    "has_library_program",
    "library_program",
    "merge_step_program",
    "notebook_json",
    "run_expression",
    "run_notebook",
    "text_sha256",
    "trained_config",
    "training_program",
]
