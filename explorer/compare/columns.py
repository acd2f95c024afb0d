"""The tokenizers of the Compare page, each as a column: a name plus `encode(text) -> pieces`.

- `TokenizerColumn`: a name, an encoder giving `explorer.tokens.Piece`s, optionally a batch
  encoder for a whole corpus (explorer.compare.encoders: ids and spans in arrays, no pieces),
  a step-by-step encoder
  (explorer.lessons.encode_steps) and the spec a worker process rebuilds it from.
- `tokenizer_column` (one of ours: a trained run or an upload our readers read),
  `pretrained_column` (a bundled pretrained tokenizer), `sentencepiece_column` (an uploaded
  SentencePiece model).
- `plain_text_tokenizer`: one of ours with its special tokens as ordinary text (the page's
  special-token switch off).
- `sentences_from` and `content_key`: the page's sentences, and the key a measurement is cached by.

Every column knows what its header says: its family (the picker's groups), its vocabulary size,
where it comes from (`source`) and whether special-token text is special in it (`special`); and
how to decode ids (`decode`, explorer.compare.decode).

What it does not do: draw (explorer.compare.html), measure (explorer.compare.measure) or read
uploaded files (explorer.compare.uploads).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.compare.decode import Decoder, tokenizer_decoder
from explorer.compare.encoders import BatchEncoder, library_batch_encoder, pretrained_batch_encoder
from explorer.lessons.encode_steps import encode_steps, has_steps, pretrained_encode_steps
from explorer.lessons.encode_steps.viterbi import viterbi_steps
from explorer.pipeline.models.unigram import UnigramModel
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.pretrained import decode, encode, info_for, is_loaded
from explorer.pretrained.registry import TIKTOKEN_KINDS
from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer
from explorer.tokens import Piece
from explorer.train import encode_pieces

Encoder = Callable[[str], Sequence[Piece]]

YOUR_RUNS = "Your runs"  # the picker's family of the runs trained here
UPLOADS = "Uploads"  # ... and of uploaded tokenizers
# What a column's `load` encodes: a first encode loads the vocabulary and everything its encoder
# builds on first use (the special-token pattern, the pre-tokenizer's regex).
WARM_UP_TEXT = "Warm up: 12345 naïve 東京 🙂 <|endoftext|>"


@dataclass(frozen=True)
class TokenizerColumn:
    """One tokenizer on the Compare page.

    `key` tells columns apart in the page's widgets; `content_key` names what the tokenizer *is*
    (a hash of its files), so measurements can be cached across runs and sessions. `encode` gives
    `explorer.tokens.Piece`s (what the page draws); `encode_batch` is a fast path for a whole
    corpus, the same ids and spans as an `explorer.measures.metrics.EncodedTexts` (no `Piece` per
    token); without it `encode` is called once per text.
    """

    name: str
    encode: Encoder
    caption: str = ""
    key: str = ""
    content_key: str = ""
    encode_batch: BatchEncoder | None = None
    note: str = ""
    # text -> encode_steps.EncodeSteps (viterbi_steps.ViterbiSteps for Unigram), when it can show them
    steps: Callable[[str], Any] | None = None
    # How a worker process rebuilds it to measure a whole corpus (explorer.work.tasks.measure_task):
    # {"name", "tokenizer_json", "special_tokens"} (the tokenizer with its special tokens, and the
    # switch), {"name", "library_json"} or {"pretrained": name}; None: it cannot.
    spec: dict | None = None
    family: str = ""  # the model picker's group: a FAMILIES name, YOUR_RUNS or UPLOADS
    vocab_size: int | None = None
    source: str = ""  # where it comes from: "package==version: file", "trained here: run 3", ...
    special: str = ""  # whether special-token text is special here, one short sentence
    decode: Decoder | None = None  # ids -> explorer.pretrained.Decoding
    # What `encode` loads on first use (a bundled vocabulary), and whether it is loaded already;
    # None: nothing to load (explorer.compare.warm loads it off the page's keystrokes).
    load: Callable[[], object] | None = None
    loaded: Callable[[], bool] | None = None
    # Many texts' pieces in one call, where a call is what costs (a library-only upload's: one job of
    # the server's workers, explorer.compare.library_host); None: `encode` each text.
    encode_texts: Callable[[Sequence[str]], list[list[Piece]]] | None = None


def sentences_from(text: str) -> list[str]:
    r"""One sentence per non-empty line (a line of spaces too: its characters are counted in the
    box, so they are encoded and counted everywhere); none when the text is only white space.

    >>> sentences_from("a\r\n  \n\nb\n"), sentences_from(" \n\t")
    (['a', '  ', 'b'], [])
    """
    if not text.strip():
        return []
    return [line for line in text.splitlines() if line]


def content_key(kind: str, text: str | bytes) -> str:
    """'kind:sha256' of a tokenizer's text or bytes: what a measurement of it is cached by."""
    data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
    return f"{kind}:{hashlib.sha256(data).hexdigest()}"


def special_sentence(special_tokens: Sequence[str], on: bool) -> str:
    """The header's line about special tokens, for a tokenizer that has these (the first three
    named): 'special tokens on: <|endoftext|> is one token' / 'special tokens off: ... plain text'."""
    if not special_tokens:
        return "no special tokens"
    shown = ", ".join(special_tokens[:3]) + (", ..." if len(special_tokens) > 3 else "")
    if len(special_tokens) == 1:
        return (
            f"special tokens on: {shown} is one token" if on else f"special tokens off: {shown} is plain text"
        )
    return (
        f"special tokens on: {shown} are one token each"
        if on
        else f"special tokens off: {shown} are plain text"
    )


def plain_text_tokenizer(tok: Tokenizer) -> Tokenizer:
    """`tok` without special-token matching: "<|endoftext|>" in a text goes through the normalizer,
    pre-tokenizer and model like any text (the `tokenizers` library's `encode_special_tokens`).
    The model's vocabulary is unchanged, so every other id stays the same."""
    if not tok.special_tokens:
        return tok
    return Tokenizer(tok.normalizer, tok.pre_tokenizer, tok.model, [], tok.post_processor, tok.decoder)


def tokenizer_column(
    tok: Tokenizer,
    name: str,
    caption: str = "",
    key: str = "",
    note: str = "",
    exported: str | None = None,
    special_tokens: bool = True,
    source: str = "",
    family: str = YOUR_RUNS,
    plain_exported: str | None = None,
) -> TokenizerColumn:
    """A column for one of our tokenizers; a whole corpus goes through the `tokenizers` library,
    unless the tokenizer may drop characters: the library's offsets do not count a dropped
    character, so our encoder (exact offsets, `DROPPED` pieces) measures those.

    `exported` is `tokenizer_to_json(tok)` when the caller already has it. `special_tokens`
    False: its special tokens' text is plain text (`plain_text_tokenizer`); the column keeps
    `tok`'s key, so the page's choices do not depend on the switch; `plain_exported` is
    `tokenizer_to_json(plain_text_tokenizer(tok))` when the caller already has it.
    """
    exported = tokenizer_to_json(tok) if exported is None else exported
    vocabulary_json = exported  # its special tokens special: what an audit of the vocabulary reads
    special = special_sentence(tok.special_tokens, special_tokens)
    decoder = tokenizer_decoder(tok)
    key = key or content_key("ours", exported)
    if not special_tokens and tok.special_tokens:
        tok = plain_text_tokenizer(tok)
        exported = tokenizer_to_json(tok) if plain_exported is None else plain_exported
    return TokenizerColumn(
        name=name,
        encode=functools.partial(encode_pieces, tok),
        caption=caption,
        key=key,
        content_key=content_key("ours", exported),
        encode_batch=None if tok.may_drop_characters() else library_batch_encoder(exported),
        note=note,
        steps=_steps_for(tok, name),
        spec={"name": name, "tokenizer_json": vocabulary_json, "special_tokens": special_tokens},
        family=family,
        vocab_size=tok.vocab_size(),
        source=source,
        special=special,
        decode=decoder,
    )


def _steps_for(tok: Tokenizer, name: str) -> Callable[[str], Any] | None:
    """How the column shows its steps: merges or pieces (BPE, WordPiece), the Viterbi tables
    (Unigram), or None."""
    if has_steps(tok):
        return functools.partial(encode_steps, tok, name=name)
    if isinstance(tok.model, UnigramModel):
        return functools.partial(viterbi_steps, tok, name=name)
    return None


def pretrained_column(name: str, special_tokens: bool = False) -> TokenizerColumn:
    """A bundled pretrained tokenizer (explorer.pretrained.BUNDLED); nothing is loaded until the
    column first encodes. `special_tokens`: special-token text in the sentences becomes the
    model's special tokens (measured apart, same key) instead of ordinary text."""
    info = info_for(name)
    if info.special_tokens:
        switch = special_sentence(list(info.special_tokens), special_tokens)
    else:  # the file carries them (tokenizer.json, SentencePiece): known once loaded
        switch = "special tokens on" if special_tokens else "special tokens off: their text is plain text"
    return TokenizerColumn(
        name=info.label,
        encode=functools.partial(encode, name, special_tokens=special_tokens),
        caption="pretrained",
        key=f"pretrained:{name}",
        content_key=f"pretrained:{name}:{int(special_tokens)}:"
        + ",".join(data_file.sha256 for data_file in info.files),
        encode_batch=pretrained_batch_encoder(name, special_tokens),
        note=f"Used by {info.models}."
        + (f" Data licence: {info.data_license}." if info.data_license else ""),
        steps=functools.partial(pretrained_encode_steps, name)
        if info.kind in TIKTOKEN_KINDS and not (special_tokens or info.normalization)
        else None,
        spec={"pretrained": name, "special_tokens": special_tokens},
        family=info.family,
        vocab_size=info.vocab_size,
        source=f"{info.package}=={info.package_version}: {info.file_names}",
        special=switch,
        decode=functools.partial(decode, name),
        load=functools.partial(encode, name, WARM_UP_TEXT, special_tokens=special_tokens),
        loaded=functools.partial(is_loaded, name),
    )


def sentencepiece_column(
    model: SentencePieceTokenizer,
    name: str,
    key: str,
    note: str = "",
    special_tokens: bool = False,
    source: str = "",
    model_bytes: bytes | None = None,
) -> TokenizerColumn:
    """A column for a SentencePiece model: pieces with `▁` for spaces, byte-fallback pieces as
    their byte, the unknown piece counted as unknown. `special_tokens`: control pieces such as
    `<s>` or `[INST]` in the sentences become their ids (measured apart). With `model_bytes` a
    worker process can rebuild it to measure a corpus."""
    controls = sorted(model.special_tokens, key=model.special_tokens.__getitem__)
    return TokenizerColumn(
        name=name,
        encode=functools.partial(model.encode, special_tokens=special_tokens),
        caption="uploaded SentencePiece model",
        key=key,
        content_key=f"{key}:{int(special_tokens)}",
        note=note,
        spec=None
        if model_bytes is None
        else {"name": name, "sentencepiece": model_bytes, "special_tokens": special_tokens},
        family=UPLOADS,
        vocab_size=model.vocab_size,
        source=source,
        special=special_sentence(controls, special_tokens),
        decode=model.decode,
    )
