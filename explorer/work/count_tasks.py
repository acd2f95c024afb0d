"""The worker pool's jobs on a corpus that is not a text here: a count file or a host's file,
read or streamed in the worker, never in the server.

- `read_count_file_task(reporter, name, data)`: the Train page's uploaded count file read and
  checked (explorer.corpora.count_files: every row); its settings, figures and distinct words
  come back, its words stay here.
- `train_from_file(reporter, source, run, budget, should_stop, jobs, engine)`: `train_task`'s
  training of such a corpus (explorer.work.tasks): an uploaded count file's bytes
  (explorer.session.count_uploads.worker_input) read and checked, a host's count file read where
  it is, or a host's text file (explorer.session.host_corpora.worker_input) streamed into the
  counter where it is (`count_inputs`, progress in bytes); then `train_counted`.

A problem is a ValueError of one sentence naming the file (gone, changed since it was listed, not
a count file, made with other settings than the run's, stopped while counting), which becomes
the job's error.

What it does not do: store a run or report its training's steps (explorer.work.tasks.train_task),
or list the host's files (explorer.session.host_corpora).
"""

from __future__ import annotations

from explorer.checks import Budget
from explorer.run_config import RunConfig


def read_count_file_task(reporter, name: str, data: bytes) -> dict:
    """The Train page's uploaded count file read and checked here, not in the server
    (explorer.corpora.count_files: every row checked): {"counting": Counting.to_dict(), "figures",
    "distinct_words", "sources"}, or {"error": the sentence saying why it is not a count file this
    explorer reads}. Its words stay here: the server needs only what the page shows."""
    from explorer.corpora.count_files import read_count_files

    reporter.report(phase="reading")
    try:
        counts = read_count_files([_named_bytes(name, data)])
    except ValueError as error:  # its sentence names the file
        return {"error": _sentence(error)}
    return {
        "counting": counts.counting.to_dict(),
        "figures": counts.figures,
        "distinct_words": len(counts.words),
        "sources": counts.sources,
    }


def train_from_file(
    reporter, source: dict, config: RunConfig, budget: Budget, should_stop, jobs: int, engine
):
    """A corpus that is not a text: an uploaded count file's bytes ("count_file",
    explorer.session.count_uploads.worker_input), or a host's file
    (explorer.session.host_corpora.worker_input): a count file read where it is, a text file
    streamed into the counter in chunks (progress in bytes). Trained from its counts; a ValueError
    of one sentence when the file is gone, changed since it was listed, not the run's settings'
    counts, or stopped while counting."""
    import os

    from explorer.corpora.counting import Counting
    from explorer.training.trainers import train_counted

    if "count_file" in source:
        counts = _read_counts(_named_bytes(source["name"], source["count_file"]), source["name"], config)
    else:
        path = source["host_path"]
        name = os.path.basename(path)
        try:
            status = os.stat(path)
        except OSError as error:
            raise ValueError(f"The server's corpus {name!r} cannot be read ({error.strerror}).") from None
        if (status.st_size, status.st_mtime_ns) != (source["size"], source["mtime_ns"]):
            raise ValueError(f"The server's corpus {name!r} changed since it was listed: choose it again.")
        if source.get("count_file_on_host"):
            counts = _read_counts(path, name, config)
        else:
            counts = _count_host_file(reporter, path, name, Counting.of(config), should_stop, jobs, engine)
    return train_counted(
        counts.words,
        counts.figures,
        config,
        progress=budget.progress,
        should_stop=should_stop,
        max_steps=budget.step_limit,
        engine=engine,
    )


def _named_bytes(name: str, data: bytes):
    """`data` as a binary file named `name` (a count file's sentences name it)."""
    import io

    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


def _sentence(error: ValueError) -> str:
    """A count file's problem (explorer.corpora.count_files: a clause) as the page's sentence."""
    message = str(error)
    return message[:1].upper() + message[1:] + "."


def _read_counts(source, name: str, config: RunConfig):
    """A count file's counts, checked (explorer.corpora.count_files) and made with the run's settings."""
    from explorer.corpora.count_files import read_count_files
    from explorer.corpora.counting import Counting

    try:
        counts = read_count_files([source])
    except ValueError as error:  # its sentence names the file
        raise ValueError(_sentence(error)) from None
    if counts.counting != Counting.of(config):
        raise ValueError(
            f"The count file {name!r} was made with {counts.counting.describe()}, not this run's "
            f"{Counting.of(config).describe()}."
        )
    return counts


def _count_host_file(reporter, path: str, name: str, counting, should_stop, jobs: int, engine):
    """A host's text file streamed into the counter in chunks, progress in bytes."""
    from explorer.corpora.inputs import expand_inputs
    from explorer.corpora.streaming import CountingStopped, count_inputs

    try:
        return count_inputs(
            expand_inputs([path]),
            counting,
            jobs=jobs,
            engine=engine,
            progress=lambda done, total: reporter.report(
                phase="counting", bytes_read=done, total_bytes=total
            ),
            should_stop=should_stop,
        )
    except CountingStopped:
        raise ValueError(f"Training stopped while it counted the words of {name!r}.") from None
    except OSError as error:
        raise ValueError(f"The server's corpus {name!r} cannot be read ({error.strerror}).") from None
