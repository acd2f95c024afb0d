"""Count files as a corpus on the Train page: one uploaded (`.parquet`), or one of the host's
(explorer.session.host_corpora lists them), trained from its words and counts, never its text.

- `read_count_upload(name, data, limits)`: an uploaded file read and checked in a worker of the
  pool (explorer.work.count_tasks.read_count_file_task: every row), never in the server; a `CountFile`
  (the file's settings, figures and distinct words, and its bytes for the worker that trains), or
  the one sentence saying why it cannot be used: not Parquet, a Parquet file that is not a count
  file (it lacks the metadata `python -m explorer count` writes), damaged, or made with settings
  the Train form does not offer (`explorer.runs.settings.counting_problem`).
- `CountFile.fingerprint`: what stands for the corpus's digest in its run's key: the SHA-256 of
  the file's bytes, told apart from any text's.
- `worker_input(count_file)`: what `train_task` is sent in place of a text.
- `count_file_of(run)`: the count file a stored run was trained from, as far as the run tells (its
  SHA-256, size, settings, figures and distinct words), without its bytes: a link opened in a
  fresh session brings back the run, whose form shows that file as its corpus; training other
  settings needs the file uploaded again (`REUPLOAD`).

The run store keeps the run, not the file: the run's trace holds every word and count of the file
(`TrainingHistory.words`, `counts`), so the file's bytes would be the same counts twice; the run
is stored `from_counts` (no running text), and its link reopens it in any browser.

What it does not do: draw the upload or the form (explorer.ui.train), or train.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from explorer.checks import MB, Limits, format_size
from explorer.corpora.counting import Counting
from explorer.runs.run import Run
from explorer.runs.settings import counting_problem
from explorer.work import count_tasks
from explorer.work.config import default_pool
from explorer.work.jobs import result_of

READ_TIME_LIMIT = 120.0  # seconds a worker may take to read and check one count file
COUNT_FILE_SUFFIX = ".parquet"
REUPLOAD = (
    "A link brings back a count file's run, which keeps the file's words and counts but not the file: "
    "upload the count file again to train other settings."
)


@dataclass(frozen=True)
class CountFile:
    """A count file read and checked: its name, the SHA-256 and size of its bytes, the settings
    that made it, its corpus figures and distinct words, and (an upload's) its bytes."""

    name: str
    sha256: str
    size: int
    counting: Counting
    figures: dict[str, int]
    distinct_words: int
    data: bytes | None = field(
        default=None, repr=False, compare=False
    )  # None: a stored run's (`count_file_of`)

    @property
    def fingerprint(self) -> str:
        """The corpus's digest in its run's key: the file's SHA-256, never equal to a text's."""
        return hashlib.sha256(f"count-file\0{self.sha256}".encode()).hexdigest()

    def describe(self) -> str:
        """What the page says of it: its size, distinct words, its corpus's lines, and the settings
        it was made with."""
        lines = self.figures.get("lines", 0)
        return (
            f"{format_size(self.size)}, {self.distinct_words:,} distinct words from {lines:,} lines "
            f"({self.counting.describe()})"
        )


def is_count_file_name(name: str) -> bool:
    return name.lower().endswith(COUNT_FILE_SUFFIX)


def read_count_upload(name: str, data: bytes, limits: Limits) -> CountFile | str:
    """The uploaded count file, read and checked in a worker, or one sentence saying why it cannot
    be used."""
    if len(data) > limits.max_upload_mb * MB:
        return f"The count file {name!r} is over the upload limit of {limits.max_upload_mb:,} MB."
    sha256 = hashlib.sha256(data).hexdigest()
    handle = default_pool().request(  # the server's pool (serving.pool)
        f"read-count-file:{sha256}:{hashlib.sha256(name.encode('utf-8', 'replace')).hexdigest()}",
        count_tasks.read_count_file_task,
        name,
        data,
        time_limit=READ_TIME_LIMIT,
    )
    done, result = result_of(handle, READ_TIME_LIMIT + 30.0)
    if not done:
        return f"Could not read the count file {name!r}: {result or 'it took too long'}."
    if "error" in result:
        return result["error"]
    counting = Counting.from_dict(result["counting"])
    problem = counting_problem(counting)
    if problem is not None:
        return (
            f"The count file {name!r} was made with the {problem}, which the Train form does not offer: "
            "train it with the command line, python -m explorer train --counts FILE."
        )
    return CountFile(name, sha256, len(data), counting, result["figures"], result["distinct_words"], data)


def worker_input(count_file: CountFile) -> dict:
    """What `train_task` is sent for an uploaded count file in place of a text."""
    return {"count_file": count_file.data, "name": count_file.name}


def count_file_of(run: Run) -> CountFile | None:
    """The count file `run` was trained from, without its bytes (see the module docstring); None
    for a run of anything else. Its fingerprint is the run's corpus digest."""
    origin = run.origin.get("count_file")
    if origin is None:
        return None
    settings = run.settings
    figures = dict(getattr(run.history, "corpus", None) or {})
    counting = Counting(settings.normalizers, settings.pre_tokenizer, settings.reading)
    return CountFile(
        run.corpus_label, origin["sha256"], origin["size"], counting, figures, run.distinct_words
    )
