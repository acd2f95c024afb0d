"""Uploaded tokenizer files read into tokenizers, one reader per kind of file.

- `tokenizer_json_upload`: a tokenizer.json, read by our reader when it can, else kept for the
  `tokenizers` library (e.g. a Unigram model).
- `vocab_txt_upload`: a WordPiece vocab.txt, set up as BERT uses it.
- `vocab_merges_upload`: a BPE vocab.json + merges.txt pair, byte-level when the vocabulary holds
  GPT-2's 256 byte symbols.
- `sentencepiece_upload`: a SentencePiece `.model` file.

Each gives an `UploadedTokenizer` (whose `column_for(special_tokens)` is the Compare page's
column) or raises a ValueError whose one line names the file and what is wrong with it.

What it does not do: tell the kinds of files apart or pair a vocab.json with its merges.txt
(explorer.compare.uploads), or encode anything before a column asks.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, replace

import tokenizers

from explorer.checks.json_text import load_json
from explorer.compare.columns import (
    UPLOADS,
    TokenizerColumn,
    content_key,
    sentencepiece_column,
    special_sentence,
    tokenizer_column,
)
from explorer.compare.encoders import library_unknown_id, mentions_byte_level
from explorer.compare.library_host import HERE, LibraryFile, LibraryHost, encode_one, parsed
from explorer.pipeline.bytelevel import BYTE_LEVEL_ALPHABET
from explorer.pipeline.decoders import ByteLevelDecoder, WordPieceDecoder
from explorer.pipeline.normalizers import BertNormalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pipeline.tokenizer_json import (
    bpe_from_vocab_merges,
    tokenizer_from_json,
    tokenizer_to_json,
    wordpiece_from_vocab_txt,
)
from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer

UNKNOWN_TOKENS = ("[UNK]", "<unk>", "<UNK>")
BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


@dataclass(frozen=True)
class UploadedFile:
    name: str
    data: bytes


@dataclass(frozen=True)
class LibraryFacts:
    """What a tokenizer.json only the `tokenizers` library reads says, read once (in a worker: the
    server never parses it, explorer.compare.library_host): its `entries` (vocabulary with added
    tokens, plus merges: counted for every model type, WordLevel and Unigram too), whether it is
    byte-level, its unknown token's id, its vocabulary size (added tokens included) and its special
    tokens."""

    entries: int
    byte_level: bool
    unknown_id: int | None
    vocab_size: int
    special_tokens: tuple[str, ...]


def library_facts(data: dict, library: tokenizers.Tokenizer) -> LibraryFacts:
    """The `LibraryFacts` of a tokenizer.json (`data`, as `library` read it)."""
    model = data.get("model")
    merges = model.get("merges") if isinstance(model, dict) else None
    vocab_size = library.get_vocab_size(with_added_tokens=True)
    return LibraryFacts(
        entries=vocab_size + (len(merges) if isinstance(merges, list) else 0),
        byte_level=mentions_byte_level(data),
        unknown_id=library_unknown_id(data, library),
        vocab_size=vocab_size,
        special_tokens=tuple(
            token.content for token in library.get_added_tokens_decoder().values() if token.special
        ),
    )


@dataclass
class UploadedTokenizer:
    """A tokenizer read from uploaded files: ours when our readers can read it, else the library's,
    or a SentencePiece model read by the `sentencepiece` package.

    Exactly one of `tokenizer` (ours, with `exported`, its tokenizer.json), `library_json` (a
    tokenizer.json only the `tokenizers` library reads, e.g. a Unigram model) and `sentencepiece`
    (a `.model` file) is set.
    """

    key: str
    name: str
    kind: str
    tokenizer: Tokenizer | None = None
    exported: str | None = None
    library_json: str | None = None
    note: str = ""
    sentencepiece: SentencePieceTokenizer | None = None
    files: tuple[UploadedFile, ...] = ()  # what it was read from (kept in the run store for links)

    file_names: str = ""  # the uploaded file name(s), as the column's header shows them
    # A library-only tokenizer.json's facts, found where it was read (a worker): the server builds
    # its column without reading the JSON again.
    library_facts: LibraryFacts | None = None
    # Where a library-only tokenizer.json is parsed, encoded and decoded: here, or (the server's
    # uploads, explorer.session.upload_jobs) in the worker pool.
    library_host: LibraryHost = HERE
    model_bytes: bytes | None = None  # a SentencePiece model's file, for worker processes
    _columns: dict = field(default_factory=dict, repr=False)

    @property
    def column(self) -> TokenizerColumn:
        """The column as the tokenizer encodes by itself: a tokenizer.json's special tokens are
        matched (as the `tokenizers` library does), a SentencePiece model's are not."""
        return self.column_for(self.sentencepiece is None)

    def column_for(self, special_tokens: bool) -> TokenizerColumn:
        """The Compare page's column, special-token text special or plain (each built once:
        loading a large vocabulary takes time)."""
        if special_tokens not in self._columns:
            self._columns[special_tokens] = self._build_column(special_tokens)
        return self._columns[special_tokens]

    def _build_column(self, special_tokens: bool) -> TokenizerColumn:
        source = f"uploaded: {self.file_names or self.name}"
        if self.tokenizer is not None:
            column = tokenizer_column(
                self.tokenizer,
                self.name,
                f"uploaded {self.kind}",
                self.key,
                self.note,
                self.exported,
                special_tokens=special_tokens,
                source=source,
                family=UPLOADS,
            )
            return replace(column, content_key=f"{self.key}:{int(special_tokens)}")
        if self.sentencepiece is not None:
            return sentencepiece_column(
                self.sentencepiece,
                self.name,
                self.key,
                self.note,
                special_tokens=special_tokens,
                source=source,
                model_bytes=self.model_bytes,
            )
        library_json, facts = self.library_json, self.library_facts
        assert library_json is not None, "exactly one of tokenizer, sentencepiece, library_json is set"
        if facts is None:  # read where no worker read it first (a worker's spec, the CLI): parse here
            facts = library_facts(json.loads(library_json), parsed(library_json, special_tokens))
        library = LibraryFile(self.key, library_json, special_tokens, facts.byte_level, facts.unknown_id)
        host = self.library_host  # nothing is parsed here: the host parses on the first encode or decode
        return TokenizerColumn(
            name=self.name,
            encode=functools.partial(encode_one, host, library),
            caption=f"uploaded {self.kind}",
            key=self.key,
            content_key=f"{self.key}:{int(special_tokens)}",
            encode_batch=functools.partial(HERE.encode_batch, library),  # in a worker: a corpus measured
            note=self.note,
            spec={"name": self.name, "library_json": self.library_json, "special_tokens": special_tokens},
            family=UPLOADS,
            vocab_size=facts.vocab_size,
            source=source,
            special=special_sentence(list(facts.special_tokens), special_tokens),
            decode=functools.partial(host.decode, library),
            encode_texts=functools.partial(host.encode, library),
        )


def upload_text(upload: UploadedFile) -> str:
    """The file as UTF-8 text, or a ValueError naming the file and the first invalid byte."""
    try:
        return upload.data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{upload.name}: not UTF-8 text (byte {error.start} is invalid)") from None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def sentencepiece_upload(upload: UploadedFile) -> UploadedTokenizer:
    """A SentencePiece `.model` (Llama 2, Mistral v1-v3, T5, Gemma...), Unigram or BPE; ValueError
    naming the file and what is wrong with it otherwise."""
    try:
        model = SentencePieceTokenizer.from_bytes(upload.data, upload.name)
    except ValueError as error:
        raise ValueError(f"{upload.name}: {error}") from None
    facts = model.facts
    fallback = (
        "unknown characters become their UTF-8 bytes (<0xE2>...)"
        if facts.byte_fallback
        else ("no byte fallback: characters outside the vocabulary become the unknown piece")
    )
    return UploadedTokenizer(
        key=content_key("upload", upload.data),
        name=f"{upload.name} (uploaded)",
        kind="SentencePiece .model",
        sentencepiece=model,
        file_names=upload.name,
        model_bytes=upload.data,
        note=f"SentencePiece {facts.model_type} model, normalizer {facts.normalizer or 'none'}; "
        f"{fallback}; ▁ marks a space.",
    )


def tokenizer_json_upload(upload: UploadedFile) -> UploadedTokenizer:
    """A tokenizer.json: read by our reader if it can, else encoded by the `tokenizers` library
    (e.g. Unigram models); ValueError naming the file when neither can read it."""
    text = upload_text(upload)
    try:
        data = load_json(text, upload.name)
    except json.JSONDecodeError as error:
        raise ValueError(f"{upload.name}: not valid JSON ({error})") from None
    key, name = content_key("upload", upload.data), f"{upload.name} (uploaded)"
    try:
        ours = tokenizer_from_json(text)
    except Exception as error:  # ValueError, or whatever else a hostile file trips over
        reason = _first_line(error).removeprefix("tokenizer.json: ")
        try:
            library = parsed(text, True)  # kept: this worker's first encode of it needs no parse
        except Exception as library_error:  # the library raises plain Exceptions with serde's message
            raise ValueError(
                f"{upload.name}: {reason}; the tokenizers library cannot read it either "
                f"({_first_line(library_error)})"
            ) from None
        return UploadedTokenizer(
            key=key,
            name=name,
            kind="tokenizer.json",
            library_json=text,
            file_names=upload.name,
            note=f"Encoded by the tokenizers library: our reader does not support it ({reason}).",
            library_facts=library_facts(data, library),
        )
    return UploadedTokenizer(
        key=key,
        name=name,
        kind="tokenizer.json",
        tokenizer=ours,
        exported=tokenizer_to_json(ours),
        file_names=upload.name,
    )


def _has_capitals(tokens) -> bool:
    return any(any(char.isupper() for char in token) for token in tokens if not token.startswith(("[", "<")))


def vocab_txt_upload(upload: UploadedFile) -> UploadedTokenizer:
    """A WordPiece vocab.txt (one token per line, line n = id n), set up as BERT uses it.

    A vocab.txt holds no pipeline, so: BERT's pre-tokenizer, BERT's normalizer (lowercasing and
    stripping accents only when no token has a capital letter, i.e. an uncased vocabulary), the
    "##" prefix and the first of [UNK], <unk>, <UNK> in the vocabulary as the unknown token.
    """
    text = upload_text(upload)
    try:
        model = wordpiece_from_vocab_txt(text)
    except ValueError as error:
        raise ValueError(f"{upload.name}: {error}") from None
    tokens = [token for token in model.vocab if token]
    if not tokens:
        raise ValueError(f"{upload.name}: the vocabulary is empty (a vocab.txt has one token per line)")
    if any(" " in token for token in tokens) and len(tokens) > 1:
        example = next(token for token in tokens if " " in token)
        raise ValueError(
            f"{upload.name}: line {model.vocab[example] + 1} ({example!r}) has a space: a vocab.txt has one "
            "token per line (is this a merges.txt? upload it together with its vocab.json)"
        )
    unk = next((token for token in UNKNOWN_TOKENS if token in model.vocab), None)
    if unk is None:
        raise ValueError(
            f"{upload.name}: no unknown token ([UNK] or <unk>) in the vocabulary; WordPiece needs one"
        )
    model.unk_token = unk
    lowercase = not _has_capitals(tokens)
    tok = Tokenizer(
        normalizer=BertNormalizer(lowercase=lowercase),
        pre_tokenizer=build_pre_tokenizer("bert"),
        model=model,
        special_tokens=[token for token in (*BERT_SPECIAL_TOKENS, unk) if token in model.vocab],
        decoder=WordPieceDecoder(prefix=model.continuing_subword_prefix),
    )
    cased = "uncased: lowercased, accents stripped" if lowercase else "cased"
    return UploadedTokenizer(
        key=content_key("upload", upload.data),
        name=f"{upload.name} (uploaded)",
        kind="vocab.txt",
        file_names=upload.name,
        tokenizer=tok,
        exported=tokenizer_to_json(tok),
        note=f"WordPiece with BERT's normalizer ({cased}) and pre-tokenizer.",
    )


def vocab_merges_upload(vocab: UploadedFile, merges: UploadedFile) -> UploadedTokenizer:
    """A BPE vocab.json + merges.txt pair.

    These files hold no pipeline either: a vocabulary holding all 256 byte symbols is byte-level
    (GPT-2's pre-tokenizer and decoder, like GPT-2 and RoBERTa); otherwise words are split with
    the `Whitespace` pre-tokenizer, with "</w>" as end-of-word suffix when tokens carry it.
    """
    vocab_text, merges_text = upload_text(vocab), upload_text(merges)
    try:
        parsed_vocab = load_json(vocab_text, vocab.name)
    except json.JSONDecodeError as error:
        raise ValueError(f"{vocab.name}: not valid JSON ({error})") from None
    is_object = isinstance(parsed_vocab, dict)
    byte_level = is_object and all(symbol in parsed_vocab for symbol in BYTE_LEVEL_ALPHABET)
    suffix = None
    if is_object and not byte_level and any(token.endswith("</w>") for token in parsed_vocab):
        suffix = "</w>"
    unk = next((token for token in UNKNOWN_TOKENS if is_object and token in parsed_vocab), None)
    try:
        model = bpe_from_vocab_merges(vocab_text, merges_text, unk_token=unk, end_of_word_suffix=suffix)
    except ValueError as error:
        message = str(error)
        for prefix, name in (("vocab.json: ", vocab.name), ("merges.txt: ", merges.name)):
            if message.startswith(prefix):
                message = f"{name}: {message[len(prefix) :]}"
        raise ValueError(message) from None
    tok = Tokenizer(
        normalizer=None,
        pre_tokenizer=build_pre_tokenizer("byte-level" if byte_level else "whitespace"),
        model=model,
        special_tokens=[unk] if unk else [],
        decoder=ByteLevelDecoder() if byte_level else None,
    )
    how = (
        "byte-level, like GPT-2"
        if byte_level
        else "whitespace pre-tokenizer" + (", '</w>' suffix" if suffix else "")
    )
    return UploadedTokenizer(
        key=content_key("upload", vocab.data + b"\0" + merges.data),
        name=f"{vocab.name} + {merges.name} (uploaded)",
        kind="vocab.json + merges.txt",
        file_names=f"{vocab.name} + {merges.name}",
        tokenizer=tok,
        exported=tokenizer_to_json(tok),
        note=f"BPE ({how}).",
    )
