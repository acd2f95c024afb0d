"""tokenizer.json, vocab.json + merges.txt and vocab.txt: in and out, as the `tokenizers` library
writes and reads them (0.23.3).

- `tokenizer_to_json` writes what `Tokenizer.to_str()` writes (compact) or, with `pretty=True`,
  what `Tokenizer.save()` writes; same keys, same order, same escaping, so a tokenizer built here
  and the same one built with the library serialize to the same text.
- `tokenizer_from_json` reads a tokenizer.json written by the library or by us. Anything it does
  not support (truncation, padding, non-special added tokens, other model/decoder/post-processor
  types, ...) is a ValueError with a one-line message, never a half-working tokenizer. The
  component stages (normalizer, pre-tokenizer, post-processor, decoder) are read and written
  through their registry (explorer/pipeline/components.py), the model by `models.model_from_hf_json`.
- `write_vocab_merges` / `write_vocab_txt` write what the library's `model.save(folder)` writes;
  `bpe_from_vocab_merges` / `wordpiece_from_vocab_txt` read those files like `BPE.from_file` /
  `WordPiece.from_file`.

What it does not do: assemble a tokenizer around a trainer's output (explorer.pipeline.assemble).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

from explorer.checks.json_text import load_json
from explorer.pipeline.components import component_from_hf_json, component_to_hf_json
from explorer.pipeline.decoders import Decoder
from explorer.pipeline.json_numbers import library_float_text, library_json_float, library_json_int
from explorer.pipeline.models import BPEModel, WordPieceModel, model_from_hf_json
from explorer.pipeline.normalizers import Normalizer
from explorer.pipeline.pre_tokenizers import PreTokenizer
from explorer.pipeline.processors import TemplateProcessing
from explorer.pipeline.tokenizer import Tokenizer

SOURCE = "tokenizer.json"
# The component stages in the order tokenizer.json lists them; each name is both the
# tokenizer.json key and the Tokenizer's attribute.
COMPONENT_STAGES = (Normalizer.stage, PreTokenizer.stage, TemplateProcessing.stage, Decoder.stage)
ADDED_TOKEN_FLAGS = {
    "single_word": False,
    "lstrip": False,
    "rstrip": False,
    "normalized": False,
    "special": True,
}


def _dumps(value: object, pretty: bool) -> str:
    """serde_json's output: UTF-8 as is, only controls, quote and backslash escaped. Floats (the
    Unigram scores) are written so that the library reads them back exactly (json_numbers.py):
    each goes into the document as a marker string, replaced by its text afterwards."""
    numbers: list[str] = []
    nonce = os.urandom(16).hex()

    def mark(item):
        if isinstance(item, float):
            numbers.append(library_float_text(item))
            return f"\0{nonce}{len(numbers) - 1}\0"
        if isinstance(item, dict):
            return {key: mark(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [mark(inner) for inner in item]
        return item

    if pretty:
        return _pretty(value, "\n")
    text = json.dumps(mark(value), ensure_ascii=False, separators=(",", ":"))
    if not numbers:
        return text
    marker = re.compile(r'"\\u0000' + nonce + r'(\d+)\\u0000"')
    return marker.sub(lambda match: numbers[int(match.group(1))], text)


def tokenizer_to_hf_dict(tok: Tokenizer) -> dict:
    added_tokens = [
        {"id": token_id, "content": content, **ADDED_TOKEN_FLAGS}
        for content, token_id in sorted(tok.special_token_ids.items(), key=lambda item: item[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added_tokens,
        **{stage: component_to_hf_json(getattr(tok, stage)) for stage in COMPONENT_STAGES},
        "model": tok.model.to_hf_json(),
    }


def _pretty(value: object, newline: str) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2)` (serde_json's pretty form), floats as
    `library_float_text` writes them; `newline` is a line break and the indent of `value`'s line."""
    return "".join(_pretty_parts(value, newline))


# How many lines of a vocabulary or of the merges one part of `_pretty_parts` holds.
PRETTY_BLOCK_LINES = 4096


def _pretty_parts(value: object, newline: str) -> Iterator[str]:
    """`_pretty(value, newline)` in consecutive parts, so that a writer need not hold the whole
    text (a 32,000-token vocabulary and its merges are 2 MB, the lines they are made of 5 MB more).
    json.dumps encodes an indented document in pure Python, several times slower than this, which
    encodes each string in C and joins runs of plain items at once (a vocabulary, a merge)."""
    if isinstance(value, StreamedMerges):
        yield from _pretty_merges(value, newline)
        return
    if not isinstance(value, dict | list | tuple):
        yield _pretty_scalar(value)
        return
    if not value:
        yield "{}" if isinstance(value, dict) else "[]"
        return
    inner = newline + "  "
    separator = "," + inner
    lines: Iterable[str] | None = None  # a run of plain items, joined a block at a time
    if isinstance(value, dict):
        if not all(type(key) is str for key in value):
            raise TypeError("tokenizer.json keys are strings")
        yield "{" + inner
        if all(type(item) is int for item in value.values()):  # a vocabulary
            lines = (f"{encode_basestring(key)}: {item}" for key, item in value.items())
        else:
            for index, (key, item) in enumerate(value.items()):
                yield (separator if index else "") + encode_basestring(key) + ": "
                yield from _pretty_parts(item, inner)
        closing = newline + "}"
    else:
        yield "[" + inner
        if all(type(item) is str for item in value):  # a merge, a list of tokens
            lines = map(encode_basestring, value)
        elif all(type(item) in (list, tuple) and item for item in value) and all(
            type(part) is str for item in value for part in item
        ):  # the merges
            lines = _merge_lines(value, inner)
        else:
            for index, item in enumerate(value):
                if index:
                    yield separator
                yield from _pretty_parts(item, inner)
        closing = newline + "]"
    if lines is not None:
        yield from _joined_blocks(lines, separator)
    yield closing


class StreamedMerges:
    """A BPE model's merges as (left, right) pairs in rank order, each pair once, taken one at a
    time as tokenizer.json is written (`save_tokenizer(..., merges=)`): a trainer's tokenizer is
    written from its run without a list of them, or the model's table of them, in memory."""

    def __init__(self, pairs: Iterable[tuple[str, str]]):
        self.pairs = pairs


def _pretty_merges(merges: StreamedMerges, newline: str) -> Iterator[str]:
    """What `_pretty_parts` writes for the same merges given as a list of pairs."""
    pairs = iter(merges.pairs)
    first = next(pairs, None)
    if first is None:
        yield "[]"
        return
    inner = newline + "  "
    yield "[" + inner
    yield from _joined_blocks(_merge_lines(chain([first], pairs), inner), "," + inner)
    yield newline + "]"


def _merge_lines(pairs: Iterable[Sequence[str]], inner: str) -> Iterator[str]:
    """Each merge as its indented lines in a list of merges whose items start at `inner`."""
    opening, between, ending = "[" + inner + "  ", "," + inner + "  ", inner + "]"
    return (opening + between.join(map(encode_basestring, pair)) + ending for pair in pairs)


def _joined_blocks(lines: Iterable[str], separator: str) -> Iterator[str]:
    """`separator.join(lines)` in parts of `PRETTY_BLOCK_LINES` lines."""
    lines = iter(lines)
    before = ""
    while block := list(islice(lines, PRETTY_BLOCK_LINES)):
        yield before + separator.join(block)
        before = separator


def _pretty_scalar(value: object) -> str:
    if type(value) is str:
        return encode_basestring(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return library_float_text(value)
    raise TypeError(f"{type(value).__name__} is not a tokenizer.json value")


def tokenizer_to_json(tok: Tokenizer, pretty: bool = False) -> str:
    return _dumps(tokenizer_to_hf_dict(tok), pretty)


def _special_tokens_from_json(raw: object) -> list[tuple[str, int]]:
    if not isinstance(raw, list):
        raise ValueError("added_tokens must be a list")
    tokens = []
    for index, entry in enumerate(raw):
        where = f"added_tokens[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
            raise ValueError(f"{where} must be an object with a string 'content'")
        token_id = entry.get("id")
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise ValueError(f"{where} ({entry['content']!r}) must have an integer 'id'")
        for flag, supported in ADDED_TOKEN_FLAGS.items():
            if entry.get(flag, supported) != supported:
                raise ValueError(
                    f"{where} ({entry['content']!r}): {flag}={json.dumps(entry[flag])} is not supported "
                    "(only special tokens that are matched on the raw text)"
                )
        tokens.append((entry["content"], token_id))
    return tokens


def tokenizer_from_hf_dict(data: object) -> Tokenizer:
    if not isinstance(data, dict):
        raise ValueError("the top level must be a JSON object")
    version = data.get("version", "1.0")
    if version != "1.0":
        raise ValueError(f"version {version!r} is not supported (1.0)")
    for key in ("truncation", "padding"):
        if data.get(key) is not None:
            raise ValueError(f"{key} is not supported (must be null)")
    if "model" not in data:
        raise ValueError("there is no model")
    special_tokens = _special_tokens_from_json(data.get("added_tokens", []))
    components: dict[str, Any] = {
        stage: component_from_hf_json(stage, data.get(stage)) for stage in COMPONENT_STAGES
    }
    tok = Tokenizer(
        model=model_from_hf_json(data["model"]),
        special_tokens=[content for content, _ in special_tokens],
        **components,
    )
    for content, expected_id in special_tokens:
        # The library re-adds the tokens too and only warns when an id moved.
        if tok.special_token_ids[content] != expected_id:
            warnings.warn(
                f"{SOURCE}: token {content!r} was expected to have id {expected_id} "
                f"but was given id {tok.special_token_ids[content]}",
                stacklevel=2,
            )
    return tok


def tokenizer_from_json(text: str) -> Tokenizer:
    """Read a tokenizer.json; any problem is a ValueError starting with 'tokenizer.json: '."""
    try:
        # Numbers as the library reads them (see json_numbers.py), so both load the same model.
        data = load_json(text, "the file", parse_float=library_json_float, parse_int=library_json_int)
    except json.JSONDecodeError as error:
        raise ValueError(f"{SOURCE}: not valid JSON ({error})") from None
    except ValueError as error:  # a number out of the library's range
        raise ValueError(f"{SOURCE}: {error}") from None
    try:
        return tokenizer_from_hf_dict(data)
    except ValueError as error:
        raise ValueError(f"{SOURCE}: {error}") from None
    except (KeyError, TypeError, AttributeError) as error:
        # A component reader tripped over a malformed field: still one clear line.
        raise ValueError(f"{SOURCE}: malformed component ({type(error).__name__}: {error})") from None


def _write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))  # byte for byte: no newline translation


def save_tokenizer(tok: Tokenizer, path: str | os.PathLike, merges: StreamedMerges | None = None) -> Path:
    """Write tokenizer.json the way the library's `Tokenizer.save` does (pretty-printed), a part at
    a time: the same text as `tokenizer_to_json(tok, pretty=True)`, never all of it in memory.
    `merges`, for a BPE model built without them: the merges to write as its own."""
    path = Path(path)
    fields = tokenizer_to_hf_dict(tok)
    if merges is not None:
        if fields["model"].get("merges") != []:
            raise ValueError("merges are written from StreamedMerges only for a BPE model built without any")
        fields["model"]["merges"] = merges
    with open(path, "w", encoding="utf-8", newline="") as stream:  # byte for byte: no newline translation
        stream.writelines(_pretty_parts(fields, "\n"))
    return path


def load_tokenizer(path: str | os.PathLike) -> Tokenizer:
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{SOURCE}: {path} is not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    return tokenizer_from_json(text)


# ---------------------------------------------------------------- vocab.json, merges.txt, vocab.txt


def _vocab_in_id_order(model: BPEModel | WordPieceModel) -> dict[str, int]:
    return model.to_hf_json()["vocab"]


def write_vocab_merges(model: BPEModel, directory: str | os.PathLike) -> tuple[Path, Path]:
    """vocab.json (compact, by id) and merges.txt ('#version: 0.2' then 'left right' lines)."""
    directory = Path(directory)
    vocab_path, merges_path = directory / "vocab.json", directory / "merges.txt"
    _write_text(vocab_path, _dumps(_vocab_in_id_order(model), pretty=False))
    _write_text(merges_path, "#version: 0.2\n" + "".join(f"{left} {right}\n" for left, right in model.merges))
    return vocab_path, merges_path


def write_vocab_txt(model: BPEModel | WordPieceModel, directory: str | os.PathLike) -> Path:
    """vocab.txt: one token per line in id order (what `WordPiece.save` writes)."""
    path = Path(directory) / "vocab.txt"
    _write_text(path, "".join(f"{token}\n" for token in _vocab_in_id_order(model)))
    return path


def _lines(text: str) -> list[str]:
    """Rust's `BufRead::lines`: split on \\n, drop one trailing \\r, no empty last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def bpe_from_vocab_merges(vocab_json_text: str, merges_text: str, **options) -> BPEModel:
    """A BPE model from vocab.json and merges.txt texts; `options` as for `BPEModel`."""
    try:
        vocab = load_json(vocab_json_text, "vocab.json")
    except json.JSONDecodeError as error:
        raise ValueError(f"vocab.json: not valid JSON ({error})") from None
    if not isinstance(vocab, dict):
        raise ValueError("vocab.json: must be a JSON object mapping token -> id")
    for token, token_id in vocab.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise ValueError(
                f"vocab.json: the id of {token!r} must be a non-negative integer, got {token_id!r}"
            )
    merges = []
    lines = [line for line in _lines(merges_text) if not line.startswith("#version")]
    for number, line in enumerate(lines, start=1):
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(
                f"merges.txt: merge {number} ({line!r}) must be two tokens separated by one space"
            )
        merges.append((parts[0], parts[1]))
    try:
        return BPEModel(vocab, merges, **options)
    except ValueError as error:
        raise ValueError(f"merges.txt: {error}") from None


def wordpiece_from_vocab_txt(text: str, **options) -> WordPieceModel:
    """A WordPiece model from vocab.txt: line n (trailing whitespace trimmed) is token n.

    As in the library, a token listed twice keeps its last line number.
    """
    vocab = {line.rstrip(): index for index, line in enumerate(_lines(text))}
    return WordPieceModel(vocab, **options)
