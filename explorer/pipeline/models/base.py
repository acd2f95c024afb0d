"""What every model shares: the library's word-cache bounds and the readers of tokenizer.json fields.

Follows the Hugging Face `tokenizers` library (0.23.3): `utils/cache.rs` for the cache sizes, the
models' `serialization.rs` for how a vocab is written (by ascending id) and which fields are checked.

What it does not do: encode anything (bpe.py, wordpiece.py, unigram.py do).
"""

from __future__ import annotations

# The library caches up to 10,000 words and only words shorter than 256 bytes (utils/cache.rs).
CACHE_CAPACITY = 10_000
CACHE_MAX_WORD_LENGTH = 256


def vocab_from_json(value: object, where: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object mapping token -> id")
    for token, token_id in value.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise ValueError(f"{where}[{token!r}] must be a non-negative integer id, got {token_id!r}")
    return dict(value)


def optional_str(d: dict, key: str, where: str) -> str | None:
    value = d.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{where}.{key} must be a string or null, got {value!r}")
    return value


def bool_field(d: dict, key: str, where: str, default: bool = False) -> bool:
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{where}.{key} must be true or false, got {value!r}")
    return value


def reverse_vocab(vocab: dict[str, int]) -> dict[int, str]:
    return {token_id: token for token, token_id in vocab.items()}


def ordered_vocab(id_to_token: dict[int, str]) -> dict[str, int]:
    """The vocab as the library writes it: by ascending id (its `OrderedVocabIter`)."""
    return {id_to_token[token_id]: token_id for token_id in sorted(id_to_token)}
