"""Fast encoders for a whole corpus: the tokens of many texts as an `EncodedTexts` (ids and
character spans in arrays, explorer.measures.metrics), the same ids and spans as the columns'
`explorer.tokens.Piece`s, without a Python object per token.

Our pure-Python encoder needs about 8 s per MB; a corpus goes through compiled encoders instead:

- `pretrained_batch_encoder(name)`: tiktoken's Rust encoder, each token's byte
  length read from a table indexed by id and turned into character spans with numpy
  (`spans_from_byte_lengths`).
- `library_batch_encoder(tokenizer_json)`: the `tokenizers` library's `encode_batch`, for
  anything written as a tokenizer.json (our runs, uploads our readers read; an upload only the
  library reads: explorer.compare.library_host): its ids and offsets as arrays.
  `library_pieces` encodes one text with it for a column (what the page draws),
  `encoding_pieces` turns one of its Encodings into pieces.

What it does not do: define a column (explorer.compare.columns) or count anything
(explorer.compare.measure, explorer.measures.metrics).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from typing import cast

import numpy as np
import tokenizers

from explorer.measures.metrics import EncodedTexts
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pretrained import BUNDLED, encode, info_for, load_encoding, load_tokenizer, replace_surrogates
from explorer.pretrained.library_backend import LibraryTokenizer
from explorer.pretrained.registry import TIKTOKEN_KINDS, TOKENIZER_JSON
from explorer.tokens import SPECIAL, TOKEN, UNKNOWN, Piece

BatchEncoder = Callable[[Sequence[str]], EncodedTexts]

# Piece(*fields) goes through a Python-level __new__; tuple.__new__ builds the same Piece in C.
_new_piece = functools.partial(tuple.__new__, Piece)


def _flat(lists: Sequence[Sequence[int]], total: int) -> np.ndarray:
    return np.fromiter(chain.from_iterable(lists), np.int64, total)


def _bounds(counts: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def spans_from_byte_lengths(
    texts: Sequence[str], token_ids: Sequence[Sequence[int]], lengths: np.ndarray
) -> EncodedTexts:
    """The tokens of `texts` (`token_ids[i]` are text i's) whose UTF-8 byte lengths (`lengths`,
    indexed by id) add up, in order, to each text's; texts without lone surrogates. Same spans as
    `pretrained.pieces_from_token_bytes`: a token starts at the character owning its first byte
    and ends one past the character owning its last (a token holding part of a character gets
    the whole character's span); ASCII texts, where bytes are characters, skip the byte map."""
    counts = np.fromiter(map(len, token_ids), np.int64, len(token_ids))
    ids = _flat(token_ids, int(counts.sum()))
    bounds = _bounds(counts)
    token_lengths = lengths[ids]
    ends = np.cumsum(token_lengths)  # byte offsets in the texts' concatenated UTF-8
    starts = ends - token_lengths
    joined = "".join(texts)
    if not joined.isascii():
        utf8 = np.frombuffer(joined.encode("utf-8"), np.uint8)
        owners = np.cumsum((utf8 & 0xC0) != 0x80) - 1  # the character (of `joined`) of each byte
        starts, ends = owners[starts], owners[ends - 1] + 1
    text_starts = _bounds(np.fromiter(map(len, texts), np.int64, len(texts)))[:-1]
    shift = np.repeat(text_starts, counts)
    return EncodedTexts(ids=ids, starts=starts - shift, ends=ends - shift, bounds=bounds)


def load_tables(name: str) -> None:
    """Load the encoding of `name` and its token table now (once per process): what the first
    corpus measurement with it would otherwise do. Also a worker's warm-up step."""
    load_encoding(name)
    _byte_lengths(name)


@functools.lru_cache(maxsize=len(BUNDLED))
def _byte_lengths(name: str) -> np.ndarray:
    """The byte length of every token id of a pretrained encoding (0 for ids it does not use): one
    array lookup per token instead of one call into tiktoken."""
    encoding = load_encoding(name)
    lengths = np.zeros(encoding.n_vocab, np.int64)
    for token_id in range(encoding.n_vocab):
        try:
            lengths[token_id] = len(encoding.decode_single_token_bytes(token_id))
        except KeyError:  # a gap between the ordinary and the special tokens
            continue
    return lengths


def pretrained_batch_encoder(name: str, special_tokens: bool = False) -> BatchEncoder:
    """Encode many texts with tiktoken, as `encode_pretrained` does one at a time: special-token
    text is plain text, lone surrogates count as U+FFFD. Tokenizers that tiktoken does not encode
    as is (Qwen's normalizes first, SentencePiece models are not tiktoken's) and the special-token
    switch go through `explorer.pretrained.encode`, one text at a time; a bundled tokenizer.json
    (DeepSeek's) through the `tokenizers` library's batch encoder (`LibraryTokenizer.encode_batch`).

    One `encode_ordinary` call per text, on this thread. Measured on corpus lines (bench/
    bench_encoders.py, 2 cores): tiktoken's `encode_ordinary_batch`, one thread-pool task per
    text, is 7x slower than this loop, and the loop cut into chunks over 2 to 4 threads 1.4x
    slower: a line is encoded in microseconds, which the threads' handing over of the GIL outweighs.
    """

    info = info_for(name)
    if info.kind == TOKENIZER_JSON:  # the library's batch encoder; its pieces are never unknown
        return lambda texts: encoded_texts(
            cast(LibraryTokenizer, load_tokenizer(name)).encode_batch(texts, special_tokens), None
        )
    if special_tokens or info.kind not in TIKTOKEN_KINDS or info.normalization:
        return lambda texts: EncodedTexts.from_pieces([encode(name, text, special_tokens) for text in texts])

    def encode_batch(texts: Sequence[str]) -> EncodedTexts:
        clean = [text if text.isascii() else replace_surrogates(text) for text in texts]
        load_tables(name)
        token_ids = list(map(load_encoding(name).encode_ordinary, clean))
        return spans_from_byte_lengths(clean, token_ids, _byte_lengths(name))

    return encode_batch


def encoded_texts(encodings: Sequence[tokenizers.Encoding], unknown: int | None) -> EncodedTexts:
    """The `tokenizers` library's Encodings as arrays: ids and offsets, and as unknown the tokens
    with id `unknown` that its special-tokens mask does not call special (as `encoding_pieces`
    counts them)."""
    token_ids = [encoding.ids for encoding in encodings]
    counts = np.fromiter(map(len, token_ids), np.int64, len(token_ids))
    total = int(counts.sum())
    ids = _flat(token_ids, total)
    offsets = np.fromiter(
        chain.from_iterable(chain.from_iterable(encoding.offsets for encoding in encodings)),
        np.int64,
        2 * total,
    ).reshape(total, 2)
    marked = None
    if unknown is not None and (ids == unknown).any():
        special = _flat([encoding.special_tokens_mask for encoding in encodings], total).astype(bool)
        marked = (ids == unknown) & ~special
    return EncodedTexts(
        ids=ids, starts=offsets[:, 0], ends=offsets[:, 1], bounds=_bounds(counts), unknown=marked
    )


def library_batch_encoder(tokenizer_json: str, special_tokens: bool = True) -> BatchEncoder:
    """Encode many texts with the `tokenizers` library, loaded from a tokenizer.json
    (`special_tokens` False: their text is plain text, the library's `encode_special_tokens`).

    For our own tokenizers this is the exported tokenizer.json (`tokenizer_json.tokenizer_to_json`):
    tests/parity/test_interop.py checks that the library encodes it exactly as our pure-Python pipeline
    does, which needs about 8 s per MB where the library, in Rust on all cores, needs well under
    one. The library is loaded on first use. Like `encode_pieces`, no [CLS]/[SEP] are added.
    Unknown tokens are the model's unknown id where the special-tokens mask does not call it
    special, as `encoding_pieces` counts them.
    """
    # The library and its unknown id, once loaded.
    loaded: list[tuple[tokenizers.Tokenizer, int | None]] = []

    def encode_batch(texts: Sequence[str]) -> EncodedTexts:
        if not loaded:
            library = tokenizers.Tokenizer.from_str(tokenizer_json)
            library.encode_special_tokens = not special_tokens
            loaded.append((library, library_unknown_id(json.loads(tokenizer_json), library)))
        library, unknown = loaded[0]
        return encoded_texts(library.encode_batch(list(texts), add_special_tokens=False), unknown)

    return encode_batch


def library_pieces(
    tok: tokenizers.Tokenizer, byte_level: bool, unknown: int | None, text: str
) -> list[Piece]:
    """Encode with the `tokenizers` library into the pieces the page draws (no [CLS]/[SEP]);
    `unknown`: the id of the model's unknown token."""
    encoding = tok.encode(text, add_special_tokens=False)
    unknown_name = None if unknown is None else tok.id_to_token(unknown)
    pieces = []
    for piece in encoding_pieces(encoding, unknown, unknown_name):
        token_bytes = None
        if byte_level and piece.kind == TOKEN:
            try:
                token_bytes = symbols_to_bytes(piece.value)
            except ValueError:  # an added token such as "<s>" is plain text
                pass
        pieces.append(piece._replace(token_bytes=token_bytes))
    return pieces


def encoding_pieces(
    encoding: tokenizers.Encoding, unknown: int | None, unknown_name: str | None = None
) -> list[Piece]:
    """The pieces of a library Encoding: special tokens by its mask, the unknown token by id and,
    given `unknown_name`, spelled so (the library's Unigram spells an unknown token as the text
    it stands for, "A" for "<unk>"; the page shows "<unk> ← A")."""
    if not encoding.ids:
        return []
    ids, tokens = encoding.ids, encoding.tokens
    kinds = [
        SPECIAL if special else UNKNOWN if token_id == unknown else TOKEN
        for token_id, special in zip(ids, encoding.special_tokens_mask)
    ]
    if unknown_name is not None and unknown in ids:
        tokens = [unknown_name if kind == UNKNOWN else token for token, kind in zip(tokens, kinds)]
    return list(map(_new_piece, zip(ids, tokens, *zip(*encoding.offsets), repeat(None), kinds)))


def mentions_byte_level(component: object) -> bool:
    """Whether a tokenizer.json component (or any component nested in it) is a ByteLevel one."""
    if isinstance(component, dict):
        if component.get("type") == "ByteLevel":
            return True
        return any(mentions_byte_level(value) for key, value in component.items() if key != "model")
    if isinstance(component, list):
        return any(mentions_byte_level(value) for value in component)
    return False


def library_unknown_id(data: dict, tok: tokenizers.Tokenizer) -> int | None:
    """The id of the unknown token of a tokenizer.json's model (`data`), None when it has none."""
    model = data.get("model") or {}
    if model.get("type") == "Unigram":
        unk = model.get("unk_id")
        return unk if isinstance(unk, int) else None
    unk_token = model.get("unk_token")
    return tok.token_to_id(unk_token) if isinstance(unk_token, str) else None
