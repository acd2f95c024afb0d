"""Fast encoders for a whole corpus, giving the same `explorer.tokens.Piece`s as the columns'.

Our pure-Python encoder needs about 8 s per MB; a corpus goes through compiled encoders instead:

- `pretrained_batch_encoder(name)`: tiktoken's Rust encoder on a few threads, each token's byte
  length and spelling read from a table (`pieces_from_byte_lengths`).
- `library_batch_encoder(tokenizer_json)`: the `tokenizers` library, for anything written as a
  tokenizer.json (our runs, uploads). `library_pieces` encodes one text with it for a column,
  `encoding_pieces` turns one of its Encodings into pieces.

What it does not do: define a column (explorer.compare.columns) or count anything
(explorer.compare.measure, explorer.lessons.metrics).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import accumulate, repeat

import tokenizers

from explorer.pipeline.bytelevel import bytes_to_symbols, symbols_to_bytes
from explorer.pretrained import (
    BUNDLED,
    byte_to_char_index,
    encode,
    info_for,
    load_encoding,
    replace_surrogates,
)
from explorer.pretrained.registry import TIKTOKEN_KINDS
from explorer.tokens import SPECIAL, TOKEN, UNKNOWN, Piece

BatchEncoder = Callable[[Sequence[str]], list[Sequence[Piece]]]

BATCH_CHUNK = 2_000  # texts per task of the pretrained batch encoder
BATCH_THREADS = 4

# Piece(*fields) goes through a Python-level __new__; tuple.__new__ builds the same Piece in C, which
# halves the cost of the ~400,000 pieces of a 1 MB corpus.
_new_piece = functools.partial(tuple.__new__, Piece)


def pieces_from_byte_lengths(
    text: str, token_ids: Sequence[int], lengths: Sequence[int], spellings: Sequence[str]
) -> list[Piece]:
    """Pieces of tokens whose UTF-8 byte lengths, in order, add up to `text`'s; `spellings` are
    their values. Same spans as `pretrained.pieces_from_token_bytes` (a token holding part of a
    character gets the whole character's span); ASCII text, where bytes are characters, skips the
    byte map. No `token_bytes`: a measurement does not draw."""
    ends = list(accumulate(lengths))
    starts = [0, *ends[:-1]]
    if not text.isascii():
        owners = byte_to_char_index(text)
        starts = [owners[start] for start in starts]
        ends = [owners[end - 1] + 1 for end in ends]
    return list(map(_new_piece, zip(token_ids, spellings, starts, ends, repeat(None), repeat(TOKEN))))


def load_tables(name: str) -> None:
    """Load the encoding of `name` and its token tables now (once per process): what the first
    corpus measurement with it would otherwise do. Also a worker's warm-up step."""
    load_encoding(name)
    _token_tables(name)


@functools.lru_cache(maxsize=len(BUNDLED))
def _token_tables(name: str) -> tuple[list[int], list[str]]:
    """Byte length and spelling (GPT-2's byte symbols) of every token id of a pretrained encoding
    (0 and "" for ids it does not use): one table lookup per token instead of one call into
    tiktoken (0.3 s once for o200k_base)."""
    encoding = load_encoding(name)
    lengths, spellings = [0] * encoding.n_vocab, [""] * encoding.n_vocab
    for token_id in range(encoding.n_vocab):
        try:
            token_bytes = encoding.decode_single_token_bytes(token_id)
        except KeyError:  # a gap between the ordinary and the special tokens
            continue
        lengths[token_id], spellings[token_id] = len(token_bytes), bytes_to_symbols(token_bytes)
    return lengths, spellings


def pretrained_batch_encoder(name: str, special_tokens: bool = False) -> BatchEncoder:
    """Encode many texts with tiktoken on a few threads (tiktoken's Rust encoder releases the GIL),
    as `encode_pretrained` does one at a time: special-token text is plain text, lone surrogates
    count as U+FFFD. Tokenizers that tiktoken does not encode as is (Qwen's normalizes first,
    DeepSeek's and SentencePiece models are not tiktoken's) and the special-token switch go
    through `explorer.pretrained.encode`, one text at a time.

    Like `Encoding.encode_ordinary_batch`, but in chunks: that method submits one thread-pool task
    per text, and for corpus lines the task overhead is several times the encoding (1.0 s against
    0.2 s for the 26,000 distinct lines of tinyshakespeare).
    """

    info = info_for(name)
    if special_tokens or info.kind not in TIKTOKEN_KINDS or info.normalization:
        return lambda texts: [encode(name, text, special_tokens) for text in texts]

    def encode_chunk(texts: Sequence[str]) -> list[Sequence[Piece]]:
        encoding, (lengths, spellings) = load_encoding(name), _token_tables(name)
        pieces: list[Sequence[Piece]] = []
        for text in texts:
            clean = text if text.isascii() else replace_surrogates(text)
            token_ids = encoding.encode_ordinary(clean)
            pieces.append(
                pieces_from_byte_lengths(
                    clean,
                    token_ids,
                    [lengths[token_id] for token_id in token_ids],
                    [spellings[token_id] for token_id in token_ids],
                )
            )
        return pieces

    def encode_batch(texts: Sequence[str]) -> list[Sequence[Piece]]:
        chunks = [texts[start : start + BATCH_CHUNK] for start in range(0, len(texts), BATCH_CHUNK)]
        if len(chunks) <= 1:
            return encode_chunk(texts)
        # Load before the threads start: lru_cache does not make concurrent callers wait, so each
        # thread would read the vocabulary and build the tables again (measured: 2x the load time).
        load_tables(name)
        with ThreadPoolExecutor(max_workers=min(BATCH_THREADS, os.cpu_count() or 1)) as pool:
            return [spans for chunk in pool.map(encode_chunk, chunks) for spans in chunk]

    return encode_batch


def library_batch_encoder(tokenizer_json: str, special_tokens: bool = True) -> BatchEncoder:
    """Encode many texts with the `tokenizers` library, loaded from a tokenizer.json
    (`special_tokens` False: their text is plain text, the library's `encode_special_tokens`).

    For our own tokenizers this is the exported tokenizer.json (`tokenizer_json.tokenizer_to_json`):
    tests/parity/test_interop.py checks that the library encodes it exactly as our pure-Python pipeline
    does, which needs about 8 s per MB where the library, in Rust on all cores, needs well under
    one. The library is loaded on first use. Like `encode_pieces`, no [CLS]/[SEP] are added.
    """
    # The library, its unknown id and unknown token, once loaded.
    loaded: list[tuple[tokenizers.Tokenizer, int | None, str | None]] = []

    def encode_batch(texts: Sequence[str]) -> list[Sequence[Piece]]:
        if not loaded:
            library = tokenizers.Tokenizer.from_str(tokenizer_json)
            library.encode_special_tokens = not special_tokens
            unknown = library_unknown_id(json.loads(tokenizer_json), library)
            loaded.append((library, unknown, None if unknown is None else library.id_to_token(unknown)))
        library, unknown, unknown_name = loaded[0]
        encodings = library.encode_batch(list(texts), add_special_tokens=False)
        return [encoding_pieces(encoding, unknown, unknown_name) for encoding in encodings]

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
