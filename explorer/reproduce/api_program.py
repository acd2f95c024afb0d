"""A run as code of the `explorer` package's public API, as the package docstring's worked example
writes it: the corpus, `RunConfig(...)` with every setting of the run, `train_corpus(text, config)`,
the first steps of the trace, then tokenizer.json and the trace saved in the folder it runs in
(byte for byte the app's and the CLI's, but for the trace's "seconds").

`run_expression(config)` is the `RunConfig(...)` expression (settings left at their defaults are left
out); `api_program(config, corpus)` the whole program; `training_program(config, corpus)` picks the
program a run is shown with: plain `tokenizers` code for the library flavor, this API for the course.

What it does not do: write the library's code (library_program.py) or a notebook (notebook.py).
"""

from __future__ import annotations

from dataclasses import fields

from explorer.pipeline.bytelevel import BYTE_LEVEL_ALPHABET
from explorer.reproduce.corpus_counts import CorpusCounts
from explorer.reproduce.corpus_files import CorpusFiles
from explorer.reproduce.corpus_source import CorpusSource
from explorer.reproduce.library_program import library_program
from explorer.reproduce.python_source import Call, Expression, Items, assignment, literal
from explorer.reproduce.run_line import run_summary
from explorer.run_config import COURSE_DEFAULTS, LIBRARY_DEFAULTS, RunConfig, UnigramConfig


def _value(value: object) -> Expression:
    if isinstance(value, tuple):
        return Items(tuple(literal(item) for item in value), "()")
    return literal(value)


def trainer_expression(config: RunConfig) -> Call:
    """`TrainerConfig(...)` or `UnigramConfig(...)` with the run's settings that are not defaults."""
    trainer = config.trainer
    defaults: dict[str, object] = {item.name: item.default for item in fields(trainer)}
    if isinstance(trainer, UnigramConfig):
        defaults.update(LIBRARY_DEFAULTS if trainer.flavor == "library" else COURSE_DEFAULTS)
        defaults["flavor"] = None  # always written
    else:
        defaults["algorithm"] = defaults["flavor"] = None
        if config.is_byte_level and trainer.flavor == "library":
            # train_corpus gives a byte-level library run all 256 byte symbols
            # (explorer.training.trainers.effective_config).
            defaults["initial_alphabet"] = tuple(BYTE_LEVEL_ALPHABET)
    keywords = tuple(
        (item.name, _value(getattr(trainer, item.name)))
        for item in fields(trainer)
        if getattr(trainer, item.name) != defaults[item.name]
        and not (item.name == "initial_alphabet" and not getattr(trainer, item.name))
    )
    name = "UnigramConfig" if isinstance(trainer, UnigramConfig) else "TrainerConfig"
    return Call(name, (), keywords)


def run_expression(config: RunConfig) -> Call:
    """`RunConfig(trainer, normalizers=..., pre_tokenizer=...)` for `config` (and `reading=` when it
    is not the default, "lines")."""
    keywords: tuple[tuple[str, Expression], ...] = (
        ("normalizers", _value(tuple(config.normalizers))),
        ("pre_tokenizer", literal(config.pre_tokenizer)),
    )
    if config.reading != "lines":
        keywords += (("reading", literal(config.reading)),)
    return Call("RunConfig", (trainer_expression(config),), keywords)


def api_imports(config: RunConfig, call: str = "train_corpus(") -> list[str]:
    """The package's names the program uses (`train_corpus` when its training `call` does)."""
    trainer_class = "UnigramConfig" if isinstance(config.trainer, UnigramConfig) else "TrainerConfig"
    names = ["RunConfig", trainer_class, "save_tokenizer", "tokenizer_from_trace"]
    names += ["train_corpus"] if call.startswith("train_corpus(") else []
    return [f"from explorer import {', '.join(names)}"]


def training_lines(config: RunConfig, call: str = "train_corpus(text, config)") -> list[str]:
    """`config = RunConfig(...)` and `trace = train_corpus(text, config)` (or the corpus's own `call`),
    with what the run was."""
    return [
        assignment("config", run_expression(config)),
        f"trace = {call}",
        'print(f"{trace.steps} {trace.step_noun}s, vocabulary of {len(trace.vocab):,}, '
        'stopped: {trace.stop_reason}")',
    ]


def first_steps_lines(config: RunConfig, count: int = 10) -> list[str]:
    """Print the first merges (pair and count) or, for Unigram, the first rounds (size, loss)."""
    if config.is_unigram:
        return [
            f"# The first {count} rounds: the vocabulary's size before and after, and the loss.",
            f"for number, round_ in enumerate(trace.rounds[:{count}], 1):",
            '    print(number, round_.kind, round_.size_before, "->", round_.size_after, round_.losses[-1:])',
        ]
    return [
        f"# The first {count} merges: the pair and its count (WordPiece: and its score).",
        "merges = trace.merge_strings()",
        f"for number in range(1, min({count}, trace.steps) + 1):",
        "    left, right = merges[number - 1]",
        "    count, score = trace.merge_counts[number - 1], trace.merge_scores[number - 1]",
        '    print(number, repr(left), "+", repr(right), count, "" if score is None else score)',
    ]


SAVE_LINES = [
    'save_tokenizer(tokenizer_from_trace(trace), "tokenizer.json")',
    'Path("trace.json").write_text(trace.to_json(), encoding="utf-8")',
    'print("-> tokenizer.json, trace.json")',
]


def api_program(config: RunConfig, corpus: CorpusSource | CorpusFiles | CorpusCounts) -> str:
    """The program that trains `config` on `corpus` with the explorer package and saves tokenizer.json
    and trace.json in the folder it runs in."""
    lines = [
        '"""'
        + "Train this run with Tokenizer Explorer's Python API (the explorer package): "
        + f"{run_summary(config)}.",
        "",
        "Saves tokenizer.json and the run's trace (trace.json) in the current folder.",
        '"""',
        "",
        "import hashlib",
        "from pathlib import Path",
        "",
        *api_imports(config, corpus.train_corpus_call()),
        *corpus.imports(),
        "",
        *corpus.corpus_lines(),
        "",
        *training_lines(config, corpus.train_corpus_call()),
        "",
        *first_steps_lines(config),
        "",
        *SAVE_LINES,
    ]
    return "\n".join(lines) + "\n"


def training_program(
    config: RunConfig, corpus: CorpusSource | CorpusFiles | CorpusCounts, style: str | None = None
) -> str:
    """The program for a run: `style` "library" (plain `tokenizers` code; library flavor only, and
    not from counts, which the library does not train from) or "api" (the explorer package); None:
    "library" for the library flavor, "api" for the course's and for counts."""
    style = style or (
        "library" if config.flavor == "library" and not isinstance(corpus, CorpusCounts) else "api"
    )
    if style == "library":
        if isinstance(corpus, CorpusCounts):
            raise ValueError("the tokenizers library trains from text, not from word counts: use style 'api'")
        return library_program(config, corpus)
    if style == "api":
        return api_program(config, corpus)
    raise ValueError(f"style must be 'library' or 'api', not {style!r}")
