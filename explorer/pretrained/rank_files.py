"""Byte-level BPE vocabularies in tiktoken's shape: {token bytes: rank}, the rank being both the
merge priority and the token id.

Three file formats hold them:
- GPT-2's "data gym" pair `encoder.json` + `vocab.bpe`, converted exactly as
  `tiktoken.load.data_gym_to_mergeable_bpe_ranks` does;
- `.tiktoken` rank files, one "base64(token bytes) rank" line per token: OpenAI's, Qwen's, and
  Llama 3's and Llama 4's `tokenizer.model` (despite the name, not SentencePiece), read as
  `tiktoken.load.load_tiktoken_bpe` and llama-models' `load_bpe_file` read them;
- Mistral's tekken JSON, read as mistral-common's `Tekkenizer` reads it (`_reload_mergeable_ranks`):
  the first `default_vocab_size - default_num_special_tokens` entries of "vocab", whose ranks
  become ids after the special tokens (rank r is id r + number of special tokens).

What it does not do: build the encoder (explorer.pretrained.tiktoken_backend does) or decide which
special tokens a model has (explorer.pretrained.special_tokens).
"""

from __future__ import annotations

import base64
import json

from explorer.pipeline.bytelevel import UNICODE_TO_BYTE
from explorer.pretrained.files import PretrainedDataError


def data_gym_to_mergeable_ranks(vocab_bpe: bytes, encoder_json: bytes) -> dict[bytes, int]:
    """Convert GPT-2's `vocab.bpe` + `encoder.json` to tiktoken's {token bytes: rank}.

    Same result as `tiktoken.load.data_gym_to_mergeable_bpe_ranks`, but from bytes already in
    memory (that function reads paths or URLs through tiktoken's download cache). Ranks: the 256
    single bytes first, then one token per merge line, in file order.
    """

    def to_bytes(symbols: str) -> bytes:
        return bytes(UNICODE_TO_BYTE[symbol] for symbol in symbols)

    # Subtle: GPT-2 ranks the single bytes by their stand-in symbol (printable Latin-1 bytes stand
    # for themselves, the others for chr(256 + n)), so sorting by symbol gives the rank order.
    ranks = {bytes([byte]): rank for rank, (_, byte) in enumerate(sorted(UNICODE_TO_BYTE.items()))}
    # The first line is a version header; the file ends with a newline.
    merge_lines = vocab_bpe.decode("utf-8").split("\n")[1:-1]
    for line in merge_lines:
        first, second = line.split()
        ranks[to_bytes(first) + to_bytes(second)] = len(ranks)

    # tiktoken relies on rank order == merge priority, so the ids in encoder.json must agree.
    encoder = {to_bytes(token): token_id for token, token_id in json.loads(encoder_json).items()}
    encoder.pop(b"<|endoftext|>", None)
    encoder.pop(b"<|startoftext|>", None)
    if encoder != ranks:
        raise PretrainedDataError("encoder.json and vocab.bpe disagree about token ids.")
    return ranks


def tiktoken_file_to_mergeable_ranks(content: bytes) -> dict[bytes, int]:
    """Parse a `.tiktoken` file: one "base64(token bytes) rank" pair per line."""
    ranks = {}
    for line in content.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def tekken_to_mergeable_ranks(content: bytes) -> tuple[dict[bytes, int], dict]:
    """Parse a tekken JSON into {token bytes: id} (ranks shifted past the special tokens) and the
    file's "config" (pattern, vocabulary size, number of special tokens, version).

    Shifting every rank by the same amount keeps their order, so tiktoken merges exactly as with
    the file's own ranks and hands out the model's ids directly.
    """
    data = json.loads(content)
    config = data["config"]
    num_special = config["default_num_special_tokens"]
    inner_size = config["default_vocab_size"] - num_special
    ranks = {}
    for rank, entry in enumerate(data["vocab"][:inner_size]):
        if entry["rank"] != rank:
            raise PretrainedDataError(f"tekken vocabulary entry {rank} has rank {entry['rank']}.")
        ranks[base64.b64decode(entry["token_bytes"])] = rank + num_special
    return ranks, config
