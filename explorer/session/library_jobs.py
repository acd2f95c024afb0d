"""The server's host of a tokenizer.json only the `tokenizers` library reads (WordLevel, some
Unigram files): every encode and decode is a job of the worker pool (`IN_WORKERS`), so the
server's process never parses the file. `tokenizers.Tokenizer.from_str` holds the GIL from start
to end (6.4 s for 500,000 WordLevel entries): in the server, /_stcore/health and every visitor
waited that long (docs/reliability.md).

A worker parses the file on its first job with it and keeps it (explorer.compare.library_host.parsed);
the job's key is the upload's key, the switch and the texts (or ids), so the same question asked
twice at once is one job; it goes to the front of the pool's queue (`first`: someone is typing),
ahead of measurements and trainings, not ahead of jobs already running. The asking thread waits
on the job's event, not holding the GIL (nor its page run's place: `admission.set_aside`), at
most `WAIT_SECONDS`; then the call raises a ValueError with a sentence, which the column shows
in its place.

What it does not do: build the column (explorer.compare.readers) or draw anything.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from explorer.compare.library_host import LibraryFile
from explorer.pretrained.decoding import Decoding
from explorer.session import serving
from explorer.tokens import Piece
from explorer.work import tasks
from explorer.work.jobs import result_of

WAIT_SECONDS = 60.0  # a first job parses the file: 6.4 s for 500,000 entries on an idle core


def _asked(what: object) -> str:
    return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


def _run(key: str, function, library: LibraryFile, argument: list):
    handle = serving.pool().request(key, function, library, argument, time_limit=WAIT_SECONDS, first=True)
    done, result = result_of(handle, WAIT_SECONDS + 5.0)
    if not done:
        raise ValueError(
            result or f"the server's workers did not answer within {WAIT_SECONDS:.0f} s: try again"
        )
    return result


class WorkerHost:
    """An `explorer.compare.library_host.LibraryHost` whose every call is a worker's job."""

    def encode(self, library: LibraryFile, texts: Sequence[str]) -> list[list[Piece]]:
        key = f"library-encode:{library.key}:{int(library.special_tokens)}:{_asked(list(texts))}"
        return _run(key, tasks.library_encode_task, library, list(texts))

    def decode(self, library: LibraryFile, ids: Sequence[int]) -> Decoding:
        key = f"library-decode:{library.key}:{_asked(list(ids))}"
        return _run(key, tasks.library_decode_task, library, list(ids))


IN_WORKERS = WorkerHost()
