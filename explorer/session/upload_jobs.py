"""Uploaded tokenizer files (the Compare page's) read in a worker process of the server's pool, never in the
server: a large tokenizer.json took seconds of the server's GIL (every visitor's page and
/_stcore/health waited) and hundreds of MB of its memory.

`read_in_worker(uploads)`: each file is first checked against the limits in the server, from its
bytes alone (explorer.compare.upload_checks: size, and an estimate of its entries); the rest go
to `explorer.work.tasks.read_uploads_task`, which parses them, counts their entries exactly and
sends each tokenizer back in chunks (explorer.work.chunked) that the server loads a few
milliseconds at a time (a tokenizer.json only the `tokenizers` library reads is never parsed in
the server: its column encodes in workers, explorer.session.library_jobs). The script run waits
for the job without holding the GIL. Returns the tokenizers (with the server's copy of their
files, for links) and one sentence per file that cannot be used.

Each tokenizer comes back keyed by `serving.upload_key` (an HMAC of its files under the
deployment's secret), the key its column, links and the store know it by.

`stored_uploads(keys, known)`: the uploads a link names (`serving.upload_key`) that
the session does not hold, read again, in a worker, from the files the run store keeps
(explorer.session.serving.save_upload); a key the store no longer holds is simply absent. They come
back under a neutral name (`explorer.compare.uploads.shared_upload`): whoever opens someone else's
link never sees the names the uploader gave the files. Both
Compare's columns and the Vocabulary page's audit open links with it.

What it does not do: draw anything or keep the tokenizers in the session (explorer.ui.compare.sections,
explorer.ui.compare.compare_link, explorer.ui.vocabulary.audit_section).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Sequence
from dataclasses import replace

from explorer.checks import Limits
from explorer.compare import UploadedFile, UploadedTokenizer
from explorer.compare.upload_checks import SESSION_UPLOADS, check_upload
from explorer.compare.uploads import shared_upload
from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer
from explorer.runs.settings import limits_or_defaults
from explorer.runstore.keys import is_upload_key
from explorer.session import library_jobs, serving
from explorer.work import chunked, tasks
from explorer.work.jobs import result_of

READ_TIME_LIMIT = 120.0  # seconds a worker may take to read one upload (20 MB take about 10 s)


def _job_key(uploads: Sequence[UploadedFile], limits: Limits) -> str:
    digest = hashlib.sha256(f"{limits.max_tokenizer_entries}".encode())
    for upload in uploads:
        digest.update(hashlib.sha256(upload.name.encode("utf-8", "replace")).digest())
        digest.update(hashlib.sha256(upload.data).digest())
    return f"read-uploads:{digest.hexdigest()}"


def _rebuilt(packed, files: tuple[UploadedFile, ...]) -> UploadedTokenizer:
    tokenizer = chunked.loads(packed)
    if tokenizer.model_bytes is not None and tokenizer.sentencepiece is None:
        model = SentencePieceTokenizer.from_bytes(tokenizer.model_bytes, files[0].name if files else "")
        tokenizer = replace(tokenizer, sentencepiece=model)
    # The worker's key is the files' bare sha256: the server keys it under its secret (a run's HMAC).
    # A library-only tokenizer.json is encoded and decoded in workers, never parsed here.
    return replace(
        tokenizer,
        key=serving.upload_key(tokenizer.key),
        files=files,
        library_host=library_jobs.IN_WORKERS,
        _columns={},
    )


def read_in_worker(
    uploads: Sequence[UploadedFile], limits: Limits | None = None
) -> tuple[list[UploadedTokenizer], list[str]]:
    """The uploads as tokenizers, read in a worker, and one sentence per file that cannot be used
    (over a limit, unreadable, or the worker failed)."""
    limits = limits if limits is not None else limits_or_defaults()[0]
    checked, errors = [], []
    for upload in uploads:
        try:
            check_upload(upload, limits)
        except ValueError as error:
            errors.append(str(error))
        else:
            checked.append(upload)
    if not checked:
        return [], errors
    handle = serving.pool().request(
        _job_key(checked, limits),
        tasks.read_uploads_task,
        [(upload.name, upload.data) for upload in checked],
        limits.max_tokenizer_entries,
        time_limit=READ_TIME_LIMIT,
    )
    done, result = result_of(handle, READ_TIME_LIMIT + 30.0)
    if not done:
        return [], [*errors, f"Could not read the uploaded files: {result or 'it took too long'}."]
    found = [
        _rebuilt(packed, tuple(checked[index] for index in indexes))
        for indexes, packed in result["tokenizers"]
    ]
    return found, [*errors, *result["errors"]]


def stored_uploads(keys: Sequence[str], known: Collection[str] = ()) -> dict[str, UploadedTokenizer]:
    """The uploads named by `keys` (upload keys, not in `known`), read again from the files the
    store keeps, by key; those it does not keep (or cannot read) are left out. At most the last
    `SESSION_UPLOADS` of them are read (what a session keeps: `upload_checks.keep_uploads`), so a
    link naming forty costs no more than one naming four."""
    wanted = list(dict.fromkeys(key for key in keys if is_upload_key(key) and key not in known))
    found: dict[str, UploadedTokenizer] = {}
    for key in wanted[-SESSION_UPLOADS:]:
        files = serving.load_upload(key)
        if files is None:
            continue
        try:  # in a worker, like any upload
            tokenizers, _ = read_in_worker([UploadedFile(name, data) for name, data in files])
        except Exception:  # a reader bug: the upload is simply not there (as if expired)
            continue
        for tokenizer in tokenizers:
            if tokenizer.key == key:  # shown under a neutral name: the uploader's is theirs
                found[key] = shared_upload(tokenizer)
    return found
