"""What the pages give to reproduce what they show in Python, built from a run: the program that
trains the run (plain `tokenizers` code for the library flavor, the explorer package's API for
either), its notebook, the program that prints merge step k from the run's trace download, and
Compare's program for the columns it shows.

- `corpus_source(run)`: the run's corpus as a program names it: a sample by its key, else a
  placeholder file ("corpus.txt") for a pasted or uploaded corpus, with the SHA-256 the program
  checks (the run's key holds it: the text need not be in the session, nor the store); a run
  without text by its origin (`Run.origin`): an uploaded count file ("counts.parquet", checked by
  its SHA-256), a host's count file or text file by its name (checked by its size, what the
  server checked); `corpus_note(run)` says so on the page.
- `program(run, style)`, `notebook(run)`: built once per run (`per_run`); `styles(run)` names
  the kinds of program a run has (the course flavor has no library code).
- `step_program(run, merge)`: Merge history's merge, read from the trace the Vocabulary page
  downloads (its file name).
- `compare_columns(...)`: Compare's columns as `CompareColumn`s, and the names of those no
  program writes yet (an upload of vocabulary files, Mistral's tekken, a run without text).

What it does not do: write the programs (explorer.reproduce) or draw them (explorer.ui).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from explorer.compare import TokenizerColumn, UploadedTokenizer
from explorer.corpora.inputs import CorpusInput, kind_of
from explorer.drawing.markdown_literal import markdown_literal
from explorer.reproduce import (
    CompareColumn,
    CorpusCounts,
    CorpusFiles,
    CorpusSource,
    has_library_program,
    merge_step_program,
    notebook_json,
    run_notebook,
    trained_config,
    training_program,
)
from explorer.reproduce.corpus_counts import PLACEHOLDER as COUNTS_PLACEHOLDER
from explorer.reproduce.corpus_source import PLACEHOLDER
from explorer.runs.run import Run, per_run
from explorer.samples import SAMPLES
from explorer.views.vocabulary_table import file_stem


def corpus_source(run: Run) -> CorpusSource | CorpusFiles | CorpusCounts:
    """The run's corpus as its programs read it (see the module docstring)."""
    if "count_file" in run.origin:
        return CorpusCounts(COUNTS_PLACEHOLDER, sha256=run.origin["count_file"]["sha256"])
    host = run.origin.get("host_file")
    if host is not None:
        kind, compression = kind_of(host["name"])
        if kind == "parquet":  # a count file of the server's folder
            return CorpusCounts(host["name"], size=host["size"])
        return CorpusFiles(
            (CorpusInput(host["name"], kind, compression, host["size"]),), run.settings.reading
        )
    reading = run.settings.reading
    if run.sample_key is not None and run.sample_key in SAMPLES:
        return replace(CorpusSource.from_sample(run.sample_key), reading=reading)
    # A pasted or uploaded text (kept in the store or not): the run's key holds its text's SHA-256.
    return CorpusSource(run.key.corpus_sha256, path=PLACEHOLDER, pasted=True, reading=reading)


def corpus_note(run: Run) -> str:
    """Where the program finds the run's corpus and what it checks, as Markdown (names escaped)."""
    source = corpus_source(run)
    if isinstance(source, CorpusCounts):
        if source.sha256 is not None:
            return (
                f"Save the count file this run was trained from as `{source.path}` beside the program: it "
                f"checks the file's SHA-256, `{source.sha256}`, and trains from its counts."
            )
        return (
            f"The program reads the server's count file {markdown_literal(source.path)} (put its path in "
            f"COUNTS): it checks its size, {source.size:,} bytes, and trains from its counts."
        )
    if isinstance(source, CorpusFiles):
        item = source.inputs[0]
        return (
            f"The program reads the server's corpus file {markdown_literal(item.path)} (put its path in "
            f"FILES): it checks its size, {item.size:,} bytes (the run streamed it and kept no digest)."
        )
    if source.sample is not None:
        return f"The corpus is the app's sample `{source.sample}`, read from the package."
    return (
        f"Save this run's corpus as `{source.path}` beside the program (UTF-8): it checks the text's "
        f"SHA-256, `{source.sha256}`."
    )


def styles(run: Run) -> list[str]:
    """The kinds of program a run has: library code for the library flavor (but a Unigram run
    the library would never finish, and a run from counts, which the library does not train
    from), the API for every run."""
    library = has_library_program(run.history) and not isinstance(corpus_source(run), CorpusCounts)
    return ["library", "api"] if library else ["api"]


@per_run
def program(run: Run, style: str) -> str:
    """The program that trains the run (`style` "library" or "api"), built once per run."""
    return training_program(trained_config(run.history, style)[0], corpus_source(run), style)


def program_file_name(run: Run, style: str) -> str:
    return f"{file_stem(run)}-{style}.py"


@per_run
def notebook(run: Run) -> str:
    """The run as a notebook (.ipynb text), built once per run."""
    return notebook_json(run_notebook(trained_config(run.history, "api")[0], corpus_source(run)))


def notebook_file_name(run: Run) -> str:
    return f"{file_stem(run)}.ipynb"


def trace_file_name(run: Run) -> str:
    """The name the Vocabulary page gives the run's trace download."""
    return f"{file_stem(run)}-trace.json"


def step_program(run: Run, merge: int) -> str:
    """The program that prints merge number `merge` of the run from its trace download."""
    return merge_step_program(merge, trace_file_name(run))


def compare_columns(
    shown: Sequence[TokenizerColumn],
    runs: Sequence[Run],
    uploads: Mapping[str, UploadedTokenizer],
) -> tuple[list[CompareColumn], list[str]]:
    """Compare's shown columns as programs write them, in the page's order, and the names of the
    columns no program writes (an upload of vocabulary files, Mistral's tekken)."""
    by_key = {run.column_key: run for run in runs}
    columns: list[CompareColumn] = []
    skipped: list[str] = []
    for column in shown:
        found = _compare_column(column, by_key, uploads)
        if found is None:
            skipped.append(column.name)
        else:
            columns.append(found)
    return columns, skipped


def _compare_column(
    column: TokenizerColumn, runs: Mapping[str, Run], uploads: Mapping[str, UploadedTokenizer]
) -> CompareColumn | None:
    run = runs.get(column.key)
    if run is not None:
        source = corpus_source(run)
        if not isinstance(source, CorpusSource):  # a run without text: Compare's program trains from text
            return None
        return CompareColumn("run", run.name, trained_config(run.history, "api")[0], source)
    upload = uploads.get(column.key)
    if upload is not None:
        names = [file.name for file in upload.files]
        if upload.sentencepiece is not None and len(names) == 1:
            return CompareColumn("sentencepiece", names[0])
        if len(names) == 1 and names[0].lower().endswith(".json"):
            return CompareColumn("tokenizer.json", names[0])
        return None
    name = (column.spec or {}).get("pretrained")
    if name is None:
        return None
    try:
        return CompareColumn("pretrained", name)
    except ValueError:  # Mistral's tekken
        return None
