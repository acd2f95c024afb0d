"""Uploaded tokenizer files checked against the limits before anything parses them.

- `estimated_entries(upload)`: about how many entries (vocabulary tokens plus merges) a file
  holds, from a count of bytes, without parsing it: lines of a .txt, strings of a .json (a merge
  written as a pair of strings counts once); None for a SentencePiece model (its size alone is
  checked here).
- `check_upload(upload, limits)`: a ValueError whose one sentence names the file and the limit
  when the file is over `Limits.max_tokenizer_mb` or `Limits.max_tokenizer_entries`.
- `tokenizer_entries(tokenizer)`: the exact count, once a worker has parsed the file, whatever
  its model (WordLevel and Unigram too): a file written to fool the estimate is refused there.
- `over_session_bound(sizes, limits)`: how many of a session's oldest uploads to drop to stay
  under `Limits.max_session_uploads_mb`.
- `keep_uploads(held, added, limits)`: a session's uploads with new ones added, within its bound
  (the last `SESSION_UPLOADS`, at most `Limits.max_session_uploads_mb` of files; the oldest go
  first), and one sentence per upload dropped: whether the visitor uploaded it or a link named it.

A count of bytes over 20 MB takes about 10 ms; `json.loads` of the same file takes seconds and
holds the server's GIL meanwhile.

What it does not do: parse anything (explorer.compare.uploads, in a worker: explorer.work.tasks),
or keep uploads (explorer.session.upload_jobs).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence

from explorer.checks.limits import MB, Limits
from explorer.compare.readers import UploadedFile, UploadedTokenizer
from explorer.compare.uploads import is_sentencepiece_name

SESSION_UPLOADS = 4  # uploaded tokenizers a session keeps (a GPT-2 sized one holds ~50k merges)


def estimated_entries(upload: UploadedFile) -> int | None:
    """Vocabulary entries plus merges, about, from bytes alone (see the module docstring).

    >>> estimated_entries(UploadedFile("vocab.txt", b"[UNK]\\nhello\\nworld\\n"))
    3
    >>> estimated_entries(UploadedFile("vocab.json", b'{"a": 0, "b": 1, "ab": 2}'))
    3
    >>> estimated_entries(UploadedFile("m.json", b'{"merges": [["a", "b"], ["ab", "c"]]}'))  # + "merges"
    3
    >>> estimated_entries(UploadedFile("v.json", b'{"a": 0, "' + b"[" * 1000 + b'": 1}'))  # its last "["
    1
    """
    data = upload.data
    name = upload.name.lower()
    if is_sentencepiece_name(name):
        return None
    if name.endswith(".json"):
        strings = (data.count(b'"') - data.count(b'\\"')) // 2
        # A merge written as a pair ["a", "b"] is one entry, two strings: its "[" is followed by a
        # string (or the line break and spaces of an indented file). A "[" inside a token is not,
        # but for the last one of its token: "[[[[" counts once, not four times.
        pairs = data.count(b'["') + data.count(b"[\n") + data.count(b"[ ")
        return max(0, strings - pairs)
    lines = data.count(b"\n")
    return lines + (1 if data and not data.endswith(b"\n") else 0)


def check_upload(upload: UploadedFile, limits: Limits) -> None:
    """Nothing when the file is within the limits, else a ValueError saying which one it is over."""
    limit_bytes = limits.max_tokenizer_mb * MB
    if len(upload.data) > limit_bytes:
        raise ValueError(
            f"{upload.name}: {len(upload.data) / MB:.1f} MB is over the limit of "
            f"{limits.max_tokenizer_mb:g} MB for an uploaded tokenizer file on this server"
        )
    entries = estimated_entries(upload)
    if entries is not None and entries > limits.max_tokenizer_entries:
        raise ValueError(
            f"{upload.name}: about {entries:,} entries (tokens and merges) is over the limit of "
            f"{int(limits.max_tokenizer_entries):,} for an uploaded tokenizer on this server"
        )


def tokenizer_entries(tokenizer: UploadedTokenizer) -> int:
    """Vocabulary entries plus merges of a parsed upload, exactly, whatever its model (a
    SentencePiece model: its vocabulary; a tokenizer.json only the library reads: its vocabulary
    with added tokens, plus merges, counted where it was read: `LibraryFacts`)."""
    if tokenizer.tokenizer is not None:
        merges = getattr(tokenizer.tokenizer.model, "merge_map", None) or ()
        return tokenizer.tokenizer.vocab_size() + len(merges)
    if tokenizer.sentencepiece is not None:
        return tokenizer.sentencepiece.vocab_size
    if tokenizer.library_facts is not None:  # a tokenizer.json only the library reads, any model
        return tokenizer.library_facts.entries
    raise ValueError(f"{tokenizer.name}: its entries were not counted where it was read")


def over_session_bound(sizes: Sequence[int], limits: Limits) -> int:
    """How many of the oldest uploads (`sizes` in bytes, oldest first) to drop so that the rest
    fit in `Limits.max_session_uploads_mb`; the newest is always kept.

    >>> over_session_bound([30 * MB, 20 * MB, 20 * MB], Limits(max_session_uploads_mb=50))
    1
    """
    total, drop = sum(sizes), 0
    while drop < len(sizes) - 1 and total > limits.max_session_uploads_mb * MB:
        total -= sizes[drop]
        drop += 1
    return drop


def keep_uploads(
    held: Mapping[str, UploadedTokenizer], added: Sequence[UploadedTokenizer], limits: Limits
) -> tuple[OrderedDict[str, UploadedTokenizer], list[str]]:
    """`held` (by key, oldest first) with `added` as the newest, then the oldest dropped past
    `SESSION_UPLOADS` tokenizers and past `Limits.max_session_uploads_mb` of files (the newest is
    kept); and one sentence per tokenizer dropped.

    >>> def one(key, size):
    ...     return UploadedTokenizer(key, key, "vocab.txt", files=(UploadedFile("vocab.txt", b"x" * size),))
    >>> kept, notes = keep_uploads({}, [one(f"k{i}", MB) for i in range(6)], Limits(max_session_uploads_mb=3))
    >>> list(kept), len(notes)
    (['k3', 'k4', 'k5'], 3)
    """
    kept = OrderedDict(held)
    for tokenizer in added:
        kept.pop(tokenizer.key, None)
        kept[tokenizer.key] = tokenizer
    drop = max(0, len(kept) - SESSION_UPLOADS)
    sizes = [sum(len(file.data) for file in tokenizer.files) for tokenizer in kept.values()]
    drop += over_session_bound(sizes[drop:], limits)
    bound = f"the last {SESSION_UPLOADS}, at most {limits.max_session_uploads_mb:g} MB of files in all"
    notes = []
    for _ in range(drop):
        _, dropped = kept.popitem(last=False)
        notes.append(f"{dropped.name} was dropped: this session keeps {bound}, and newer ones fill it.")
    return kept, notes
