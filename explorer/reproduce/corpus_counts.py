"""Where a generated program finds the word counts a run was trained from, and how it checks they
are the run's: a count file (`python -m explorer count`'s Parquet, explorer.corpora.count_files).

`CorpusCounts(path, sha256=..., size=...)` writes, for `api_program` and `run_notebook`:
- `corpus_lines()`: the count file (`COUNTS`), the check that it is the run's, then its counts read
  with the package (`read_count_files`: every row checked). An uploaded count file is checked by
  the SHA-256 of its bytes (the run's key holds it); a host's count file by its size in bytes,
  what the server checked when it read it (the server keeps no digest of a host's file);
- `train_corpus_call()`: `train_counted(counts.words, counts.figures, config)`, the trainers the app's
  worker ran on the same counts.

There is no `tokenizers` code for it: the library trains from text or files, not from counts.

What it does not do: read the file (the program does when it runs), or name a text corpus
(corpus_source.CorpusSource, corpus_files.CorpusFiles).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.reproduce.python_source import literal

PLACEHOLDER = "counts.parquet"


@dataclass(frozen=True)
class CorpusCounts:
    """A count file as a program reads it: its path (a placeholder for an upload) and what checks
    it: the SHA-256 of its bytes, or (a host's file) its size."""

    path: str
    sha256: str | None = None
    size: int | None = None

    def __post_init__(self):
        if (self.sha256 is None) == (self.size is None):
            raise ValueError("a count file is checked by its SHA-256 or by its size, one of them")

    @property
    def description(self) -> str:
        if self.sha256 is not None:
            return f"the run's uploaded count file, saved in {self.path!r}"
        return f"the server's count file {self.path!r}"

    def imports(self) -> list[str]:
        return [
            "from explorer.corpora.count_files import read_count_files",
            "from explorer.training.trainers import train_counted",
        ]

    def corpus_lines(self) -> list[str]:
        """Code that checks the count file is the run's and sets `counts` to its word counts."""
        lines = [
            f"# The corpus: {self.description}: its words and counts, not its text.",
            f"COUNTS = {literal(self.path)}",
        ]
        if self.sha256 is not None:
            lines += [
                "# The SHA-256 of the count file the run was trained from: the same file, the same"
                " tokenizer.",
                f"COUNTS_SHA256 = {literal(self.sha256)}",
                "digest = hashlib.sha256(Path(COUNTS).read_bytes()).hexdigest()",
                "if digest != COUNTS_SHA256:",
                "    raise SystemExit(",
                "        f\"This is not the run's count file: its SHA-256 is {digest}, the run's is "
                '{COUNTS_SHA256}."',
                "    )",
            ]
        else:
            lines += [
                "# Its size when the run read it: a file of another size is another corpus.",
                f"SIZE = {literal(self.size)}",
                "if Path(COUNTS).stat().st_size != SIZE:",
                "    raise SystemExit(",
                "        f\"{COUNTS} is not the run's file: {Path(COUNTS).stat().st_size:,} bytes, "
                'the run read {SIZE:,}."',
                "    )",
            ]
        return [*lines, "counts = read_count_files([COUNTS])  # every row checked"]

    def summary_line(self) -> str:
        """A line that prints what the corpus is (a notebook's corpus cell ends with it)."""
        return 'print(f"{len(counts.words):,} distinct words, {sum(counts.words.values()):,} in all")'

    def train_corpus_call(self) -> str:
        """The API's call that trains `config` on these counts."""
        return "train_counted(counts.words, counts.figures, config)"
