"""Corpora a host keeps on the server: the text files and count files of the folder
`EXPLORER_CORPORA_DIR` names, listed on the Train page beside the samples, by file name, and read
where they are.

- `host_corpora()`: the folder's text files (plain, `.gz`, `.zst`) and count files (`.parquet`
  with the metadata `python -m explorer count` writes: its settings read from the file's footer,
  `HostCorpus.counting`; another Parquet file is not listed), not its subfolders nor hidden
  files, sorted by name, with their size and modification time; or one sentence saying why the
  folder cannot be listed.
- `HostCorpus.fingerprint`: what stands for the corpus's digest in its run's key: the file's
  name, size and modification time, so that a changed file is a new corpus, never the old run.
- `worker_input(corpus)`: what a worker is sent (the path, size and time, not the text); the
  worker streams the file into the counter (explorer.corpora.streaming.count_inputs), or reads a
  count file's counts, after checking it is still the file listed (explorer.work.tasks.train_task).
  Neither the text nor the file is ever copied into the run store or the session: the run is
  kept, its link names the file.

A host's own files are trusted in size; their training runs in a worker under the worker's time
budget like any other (EXPLORER_MAX_SECONDS).

What it does not do: read a file's text or rows, or draw the list (explorer.ui.train.corpus_input).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass

from explorer.checks import format_size
from explorer.corpora.count_files import read_count_header
from explorer.corpora.counting import Counting
from explorer.corpora.inputs import kind_of

CORPORA_DIR = "EXPLORER_CORPORA_DIR"
KEY_PREFIX = "host:"  # a host corpus's key among the samples' (the sample picker, links)


@dataclass(frozen=True)
class HostCorpus:
    """One file of the host's corpora folder: its name, path, size in bytes and modification time."""

    name: str
    path: str
    size: int
    mtime_ns: int
    counting: Counting | None = None  # a count file's settings (None: a text file)

    @property
    def key(self) -> str:
        return KEY_PREFIX + self.name

    @property
    def label(self) -> str:
        kind = "count file " if self.counting is not None else ""
        return f"{self.name} ({kind}on the server, {format_size(self.size)})"

    @property
    def fingerprint(self) -> str:
        """The corpus's digest in its run's key: its name, size and modification time."""
        described = f"host-corpus\0{self.name}\0{self.size}\0{self.mtime_ns}"
        return hashlib.sha256(described.encode("utf-8", "surrogatepass")).hexdigest()


def host_corpora(environ: Mapping[str, str] | None = None) -> tuple[list[HostCorpus], str | None]:
    """The text files of EXPLORER_CORPORA_DIR (none when it is unset), and the sentence saying why
    the folder cannot be listed, if it cannot."""
    environ = os.environ if environ is None else environ
    folder = (environ.get(CORPORA_DIR) or "").strip()
    if not folder:
        return [], None
    try:
        with os.scandir(folder) as entries:
            found = []
            for entry in entries:
                kind = kind_of(entry.name)
                if entry.name.startswith(".") or not entry.is_file() or kind[0] not in ("text", "parquet"):
                    continue
                status = entry.stat()
                counting = None
                if kind == ("parquet", None):
                    counting = _count_file_settings(entry.path, status.st_size, status.st_mtime_ns)
                    if counting is None:
                        continue
                elif kind[0] != "text":
                    continue
                found.append(HostCorpus(entry.name, entry.path, status.st_size, status.st_mtime_ns, counting))
    except OSError as error:
        return (
            [],
            f"The server's corpora folder ({CORPORA_DIR}={folder}) cannot be read ({error.strerror}): "
            "none is listed.",
        )
    return sorted(found, key=lambda corpus: corpus.name), None


@functools.lru_cache(maxsize=256)
def _count_file_settings(path: str, size: int, mtime_ns: int) -> Counting | None:
    """A count file's settings, read from its footer once per file version; None for a Parquet file
    that is not a count file this explorer reads (not listed)."""
    try:
        return read_count_header(path)[0]
    except ValueError:
        return None


def find(key: str, environ: Mapping[str, str] | None = None) -> HostCorpus | None:
    """The host corpus of a key (`HostCorpus.key`), as the folder holds it now, or None."""
    return next((corpus for corpus in host_corpora(environ)[0] if corpus.key == key), None)


def worker_input(corpus: HostCorpus) -> dict:
    """What `train_task` is sent for a host corpus in place of a text."""
    found = {"host_path": corpus.path, "size": corpus.size, "mtime_ns": corpus.mtime_ns}
    return {**found, "count_file_on_host": True} if corpus.counting is not None else found
