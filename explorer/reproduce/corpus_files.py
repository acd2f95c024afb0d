"""Where a generated program finds a corpus the CLI streamed from files, and how it cuts it into the
trainer's sequences as the run did (`explorer.run_config.READINGS`).

`CorpusFiles(inputs, reading)` writes, for `library_program` and `api_program`:
- `corpus_lines()`: the files (`FILES`) and the check that each still has the size the run read
  (the run streamed them and kept no digest of their text; stdin is a placeholder file to save it in);
- `sequence_lines()` and `train_statement()`: the library's own way to read them:
  "lines-with-endings" is `tokenizer.train(FILES, trainer)` for plain files (each line keeps its
  ending), and a generator of the same lines for .gz and .zst files, which `Tokenizer.train`
  cannot open; "lines" is today's list of lines (UTF-8, a leading byte order mark removed, line
  breaks removed, empty lines dropped), file after file; "records" yields each JSONL record's
  field or each Parquet row's column;
- `train_corpus_call()`: the explorer API's call on the same files.

What it does not do: read the files (the program does when it runs), or name a sample or a pasted
corpus (corpus_source.CorpusSource).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.corpora.inputs import CorpusInput
from explorer.reproduce.python_source import literal

_OPEN_FILE = [
    "def open_file(path):",
    '    """The bytes of a file, decompressed when its name ends with .gz or .zst."""',
    '    if path.lower().endswith(".gz"):',
    "        return gzip.open(path)",
    '    if path.lower().endswith(".zst"):',
    '        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(open(path, "rb")))',
    '    return open(path, "rb")',
    "",
    "",
]


@dataclass(frozen=True)
class CorpusFiles:
    """Files a run streamed, in order, and the reading that cut them into sequences."""

    inputs: tuple[CorpusInput, ...]
    reading: str

    @property
    def description(self) -> str:
        files = f"{len(self.inputs)} file{'s' if len(self.inputs) != 1 else ''}"
        return f"{files} read with the reading {self.reading!r}"

    @property
    def _paths(self) -> list[str]:
        return [item.path for item in self.inputs]

    @property
    def _field(self) -> str | None:
        return next((item.field for item in self.inputs if item.field), None)

    def _opens_files(self) -> bool:
        """Whether the program opens the files itself (else `Tokenizer.train` reads them)."""
        plain = all(not item.compression for item in self.inputs)
        return not (self.reading == "lines-with-endings" and plain)

    def imports(self) -> list[str]:
        names = []
        if self._opens_files():
            names += ["import gzip", "import io"]
            if any(item.compression == "zstd" for item in self.inputs):
                names.append("import zstandard")
        if any(item.kind == "jsonl" for item in self.inputs):
            names.append("import json")
        if any(item.kind == "parquet" for item in self.inputs):
            names.append("import pyarrow.parquet as pq")
        return names

    def corpus_lines(self) -> list[str]:
        """Code that sets `FILES` and stops with a sentence when a file's size is not the run's."""
        return [
            f"# The corpus: {self.description}.",
            f"FILES = {literal(self._paths)}",
            "# Their sizes when the run read them: a file of another size is another corpus.",
            f"SIZES = {literal([item.size for item in self.inputs])}",
            *(
                ["# The run read stdin: save that text in the file named here first."]
                if any(item.size is None for item in self.inputs)
                else []
            ),
            "for path, size in zip(FILES, SIZES):",
            "    if size is not None and Path(path).stat().st_size != size:",
            "        raise SystemExit(f\"{path} is not the run's file: {Path(path).stat().st_size:,} bytes, "
            'the run read {size:,}.")',
        ]

    def sequence_lines(self) -> list[str]:
        """Code that defines the sequences `train_statement()` trains on."""
        if not self._opens_files():
            return [
                "# Each line keeps its ending, as the run read the files: Tokenizer.train(files) reads them."
            ]
        lines = ["", *_OPEN_FILE]
        if self.reading == "lines-with-endings":
            return lines + [
                "def sequences():",
                '    """Each line with its ending ("\\n" only ends a line), as Tokenizer.train(files)',
                '    reads a file: it cannot open a compressed one."""',
                "    for path in FILES:",
                "        with open_file(path) as file:",
                "            for line in file:",
                '                yield line.decode("utf-8")',
            ]
        if self.reading == "lines":
            return lines + [
                "# One sequence per line, as the app counts words: UTF-8, a leading byte order mark removed,",
                "# line breaks removed and empty lines dropped, file after file.",
                "lines = []",
                "for path in FILES:",
                "    with open_file(path) as file:",
                '        text = file.read().decode("utf-8-sig")',
                '    lines += [line for line in text.replace("\\r\\n", "\\n").split("\\n") if line]',
            ]
        return lines + [
            f"FIELD = {literal(self._field)}",
            "",
            "",
            "def texts():",
            '    """Each record\'s text is one sequence: a JSONL line\'s field, a Parquet row\'s column."""',
            "    for path in FILES:",
            '        if path.lower().endswith(".parquet"):',
            "            for batch in pq.ParquetFile(path).iter_batches(columns=[FIELD]):",
            "                yield from batch.column(0).to_pylist()",
            "            continue",
            "        with open_file(path) as file:",
            "            for line in file:",
            "                if line.strip():",
            "                    yield json.loads(line)[FIELD]",
        ]

    def summary_line(self) -> str:
        """A line that prints what the corpus is (a notebook's corpus cell ends with it)."""
        return 'print(f"{len(FILES)} file(s)")'

    def train_statement(self) -> str:
        if not self._opens_files():
            return "tokenizer.train(FILES, trainer)"
        iterable = {"lines-with-endings": "sequences()", "lines": "lines"}.get(self.reading, "texts()")
        return f"tokenizer.train_from_iterator({iterable}, trainer)"

    def train_corpus_call(self) -> str:
        """The API's call that trains `run` on these files (streamed, with the run's reading)."""
        field = self._field
        return "train_corpus(FILES, config" + (f", text_field={literal(field)}" if field else "") + ")"
