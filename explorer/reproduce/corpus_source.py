"""Where a generated program finds its run's corpus, and how it checks it holds the same text.

`CorpusSource` is either one of the app's samples (read from `explorer.samples` by its key) or a
file: the path the CLI trained on, or a placeholder path ("corpus.txt") where a reader saves a
pasted or uploaded corpus. Either way it carries the SHA-256 of the text the run trained on (its
UTF-8 bytes), and `corpus_lines()` writes the code that reads the text the way the app did (UTF-8,
a leading byte order mark removed: `explorer.checks.decode_upload`) and stops with a sentence
naming both digests when the text is not the run's. `sequence_lines()` cuts the text with the
run's reading: its lines without their breaks, or each line with its ending ("\n" only ends a
line, a "\r" before it kept), as the library's `Tokenizer.train(files)` reads a file.

What it does not do: read a corpus itself, or split it into the trainer's sequences (each program
says how it does).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from explorer.reproduce.python_source import literal
from explorer.run_config import TEXT_READINGS
from explorer.samples import SAMPLES

PLACEHOLDER = "corpus.txt"


def text_sha256(text: str) -> str:
    """The SHA-256 of `text`'s UTF-8 bytes (a lone surrogate as its three bytes), in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class CorpusSource:
    """The corpus of a run as a program names it: `sample` (a key of explorer.samples.SAMPLES) or
    `path` (a file, or a placeholder for a pasted corpus), and the SHA-256 of the text."""

    sha256: str
    sample: str | None = None
    path: str | None = None
    pasted: bool = False
    reading: str = "lines"  # TEXT_READINGS: a text has no records

    def __post_init__(self):
        if self.reading not in TEXT_READINGS:
            raise ValueError(f"a text is read as {' or '.join(TEXT_READINGS)}, not {self.reading!r}")
        if (self.sample is None) == (self.path is None):
            raise ValueError("a corpus source is either a sample or a path")
        if self.sample is not None and self.sample not in SAMPLES:
            raise ValueError(f"unknown sample {self.sample!r} (choose from {', '.join(SAMPLES)})")

    @classmethod
    def from_sample(cls, key: str) -> CorpusSource:
        """One of the app's samples, by its key ("hf-course", "shakespeare", ...)."""
        if key not in SAMPLES:
            raise ValueError(f"unknown sample {key!r} (choose from {', '.join(SAMPLES)})")
        return cls(text_sha256(SAMPLES[key].text), sample=key)

    @classmethod
    def from_file(cls, path: str, text: str) -> CorpusSource:
        """A corpus file at `path` whose text (as the app decoded it) is `text`."""
        return cls(text_sha256(text), path=str(path))

    @classmethod
    def from_pasted(cls, text: str, placeholder: str = PLACEHOLDER, reading: str = "lines") -> CorpusSource:
        """A pasted or uploaded corpus: the program reads it from `placeholder`, where the reader
        saves it."""
        return cls(text_sha256(text), path=placeholder, pasted=True, reading=reading)

    @property
    def description(self) -> str:
        """What a comment says the corpus is."""
        if self.sample is not None:
            return f"the app's sample {self.sample!r} ({SAMPLES[self.sample].label})"
        if self.pasted:
            return f"the run's pasted or uploaded text, saved as UTF-8 in {self.path!r}"
        return f"the file {self.path!r}"

    def imports(self) -> list[str]:
        """The import lines the corpus code needs (besides hashlib and pathlib, always imported)."""
        return ["from explorer.samples import SAMPLES"] if self.sample is not None else []

    def corpus_lines(self) -> list[str]:
        """Code that sets `text` to the corpus and checks its SHA-256 (`hashlib` and `Path` imported)."""
        lines = [f"# The corpus: {self.description}."]
        if self.sample is not None:
            lines.append(f"text = SAMPLES[{literal(self.sample)}].text")
        else:
            if self.pasted:
                lines.append("# Save the text there first (or put its path here).")
            lines += [
                f"CORPUS = {literal(self.path)}",
                "# As the app reads a file: UTF-8, a leading byte order mark removed.",
                'text = Path(CORPUS).read_bytes().decode("utf-8-sig")',
            ]
        lines += [
            "# The SHA-256 of the text the run trained on (its UTF-8 bytes): the same text, the same"
            " tokenizer.",
            f"CORPUS_SHA256 = {literal(self.sha256)}",
            'digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()',
            "if digest != CORPUS_SHA256:",
            "    raise SystemExit(f\"This is not the run's corpus: its SHA-256 is {digest}, "
            "the run's is {CORPUS_SHA256}.\")",
        ]
        return lines

    def sequence_lines(self) -> list[str]:
        """Code that cuts `text` into the sequences `train_statement()` trains on."""
        if self.reading == "lines-with-endings":
            return [
                '# Each line keeps its ending ("\\n" only ends a line, a "\\r" before it kept), as',
                "# Tokenizer.train(files) reads a file.",
                'pieces = text.split("\\n")',
                'lines = [piece + "\\n" for piece in pieces[:-1]]',
                "if pieces[-1]:  # a last line without its break",
                "    lines.append(pieces[-1])",
            ]
        return [
            "# One sequence per line, line breaks removed and empty lines dropped, as the app counts words.",
            'lines = [line for line in text.replace("\\r\\n", "\\n").split("\\n") if line]',
        ]

    def summary_line(self) -> str:
        """A line that prints what the corpus is (a notebook's corpus cell ends with it)."""
        return 'print(f"{len(text):,} characters")'

    def train_statement(self) -> str:
        return "tokenizer.train_from_iterator(lines, trainer)"

    def train_corpus_call(self) -> str:
        """The API's call that trains `config` on this corpus."""
        return "train_corpus(text, config)"
