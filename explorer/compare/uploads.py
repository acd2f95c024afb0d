"""Uploaded files sorted into tokenizers: what each file is, and which files go together.

`upload_kind` tells a tokenizer.json, a vocab.json, a merges.txt, a vocab.txt and a SentencePiece
model apart by name and content; `read_uploads` reads each with its reader
(explorer.compare.readers), pairs every vocab.json with its merges.txt, and returns the tokenizers
plus one message per file that could not be used.

`shared_upload(tokenizer)`: the upload as a link shows it to anyone else, and as the store keeps it:
its files named for their kind (`SHARED_FILE_NAMES`: "tokenizer.json", "vocab.json" +
"merges.txt", ...) and a neutral name with a few digits of its key; the name a visitor gave its
files stays in that visitor's session.

What it does not do: parse a file's contents (explorer.compare.readers, explorer.pipeline.tokenizer_json), or
keep uploads between page runs (explorer.ui.compare.sections does).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from explorer.checks.json_text import load_json
from explorer.compare.readers import (
    UploadedFile,
    UploadedTokenizer,
    sentencepiece_upload,
    tokenizer_json_upload,
    upload_text,
    vocab_merges_upload,
    vocab_txt_upload,
)


def is_sentencepiece_name(name: str) -> bool:
    """'tokenizer.model', 'spiece.model', Mistral's 'tokenizer.model.v3'..."""
    lowered = name.lower()
    return lowered.endswith(".model") or ".model.v" in lowered


def upload_kind(upload: UploadedFile) -> str:
    """'tokenizer.json', 'vocab.json', 'merges.txt', 'vocab.txt' or 'sentencepiece', from the
    content (and name)."""
    name = upload.name.lower()
    if is_sentencepiece_name(name):
        return "sentencepiece"
    if name.endswith(".json"):
        try:
            data = load_json(upload_text(upload), upload.name)
        except json.JSONDecodeError as error:
            raise ValueError(f"{upload.name}: not valid JSON ({error})") from None
        # A vocab.json may well hold a token "model" (GPT-2's does): look at the values first.
        if isinstance(data, dict) and data and all(isinstance(v, int) for v in data.values()):
            return "vocab.json"
        if isinstance(data, dict) and isinstance(data.get("model"), dict):
            return "tokenizer.json"
        raise ValueError(
            f'{upload.name}: neither a tokenizer.json (no "model") nor a vocab.json (an object token -> id)'
        )
    if name.endswith(".txt"):
        first_line = upload_text(upload).split("\n", 1)[0]
        return "merges.txt" if "merges" in name or first_line.startswith("#version") else "vocab.txt"
    raise ValueError(
        f"{upload.name}: expected a tokenizer.json, a vocab.txt, a vocab.json with its merges.txt, "
        "or a SentencePiece .model"
    )


def _pair_stem(name: str, kind: str) -> str:
    """'gpt2-vocab.json' and 'gpt2-merges.txt' both give 'gpt2-': how a pair is matched by name."""
    lowered = name.lower()
    word = "vocab" if kind == "vocab.json" else "merges"
    return lowered.rsplit(word, 1)[0] if word in lowered else lowered.rsplit(".", 1)[0]


def _pairs(vocabs: list[UploadedFile], merges: list[UploadedFile]) -> list[tuple[UploadedFile, UploadedFile]]:
    """vocab.json / merges.txt pairs, taken out of `vocabs` and `merges`: a single pair whatever
    its names, several by what precedes "vocab"/"merges" in the names."""
    if len(vocabs) == 1 and len(merges) == 1:
        pair = (vocabs.pop(), merges.pop())
        return [pair]
    pairs = []
    for vocab in list(vocabs):
        stem = _pair_stem(vocab.name, "vocab.json")
        partner = next((m for m in merges if _pair_stem(m.name, "merges.txt") == stem), None)
        if partner is not None:
            pairs.append((vocab, partner))
            vocabs.remove(vocab)
            merges.remove(partner)
    return pairs


def read_uploads(files: Sequence[UploadedFile]) -> tuple[list[UploadedTokenizer], list[str]]:
    """Uploaded files as tokenizers, plus one message per file that could not be used.

    A vocab.json and a merges.txt make one BPE tokenizer: a single pair is matched whatever its
    names; several pairs are matched by what precedes "vocab"/"merges" in the names.
    """
    found: list[UploadedTokenizer] = []
    errors: list[str] = []
    halves: dict[str, list[UploadedFile]] = {"vocab.json": [], "merges.txt": []}
    for upload in files:
        try:
            kind = upload_kind(upload)
            if kind in halves:
                halves[kind].append(upload)
            elif kind == "tokenizer.json":
                found.append(replace(tokenizer_json_upload(upload), files=(upload,)))
            elif kind == "sentencepiece":
                found.append(replace(sentencepiece_upload(upload), files=(upload,)))
            else:
                found.append(replace(vocab_txt_upload(upload), files=(upload,)))
        except ValueError as error:
            errors.append(str(error))

    vocabs, merges = halves["vocab.json"], halves["merges.txt"]
    for vocab, merge_file in _pairs(vocabs, merges):
        try:
            found.append(replace(vocab_merges_upload(vocab, merge_file), files=(vocab, merge_file)))
        except ValueError as error:
            errors.append(str(error))
    errors.extend(f"{v.name}: a vocab.json needs its merges.txt; upload both files together" for v in vocabs)
    errors.extend(f"{m.name}: a merges.txt needs its vocab.json; upload both files together" for m in merges)
    return found, errors


# An upload's files as the store keeps them and a link shows them, by the tokenizer's kind (the
# names its readers recognise, in the order of `UploadedTokenizer.files`).
SHARED_FILE_NAMES = {
    "tokenizer.json": ("tokenizer.json",),
    "vocab.txt": ("vocab.txt",),
    "vocab.json + merges.txt": ("vocab.json", "merges.txt"),
    "SentencePiece .model": ("tokenizer.model",),
}


def shared_upload(tokenizer: UploadedTokenizer) -> UploadedTokenizer:
    """`tokenizer` without the names its uploader gave its files: files named for their kind, and
    "tokenizer.json (uploaded, 3f2a9c)" as its name (the first digits of its key after "upload:").

    >>> files = (UploadedFile("PRIVATE-okapi.json", b"{}"),)
    >>> private = UploadedTokenizer(key="upload:3f2a9c0d", name="PRIVATE-okapi.json (uploaded)",
    ...     kind="tokenizer.json", file_names="PRIVATE-okapi.json", files=files)
    >>> shared = shared_upload(private)
    >>> shared.name, shared.file_names, [file.name for file in shared.files]
    ('tokenizer.json (uploaded, 3f2a9c)', 'tokenizer.json', ['tokenizer.json'])
    """
    names = SHARED_FILE_NAMES.get(tokenizer.kind, ("tokenizer file",) * len(tokenizer.files))
    files = tuple(UploadedFile(name, file.data) for name, file in zip(names, tokenizer.files))
    label = " + ".join(names[: len(files)] if files else names)
    digits = tokenizer.key.partition(":")[2][:6]
    return replace(
        tokenizer, name=f"{label} (uploaded, {digits})", file_names=label, files=files, _columns={}
    )
