"""Pre-tokenizers, the second pipeline stage, behaving exactly like the `tokenizers` library's.

A pre-tokenizer cuts (normalized) text into pre-tokens; models then learn and apply merges inside
pre-tokens only. The interface (`pre_tokenize`, `split`, `words`) is in base.py.

Follows tokenizers/src/pre_tokenizers/ (0.23.3), one file per idea as there:
- base.py: the `PreTokenizer` interface, `PreToken`, `Sequence` (each pre-tokenizer splits the
  pre-tokens of the previous one) and `pre_tokenizer_from_hf_json`;
- byte_level.py: ByteLevel (GPT-2's regex, then bytes as symbols);
- split.py: Split with a regex, behavior "Isolated"; split_patterns.py: the split patterns of
  GPT-2, GPT-4 (cl100k), GPT-4o (o200k) and Llama 3;
- whitespace.py: BertPreTokenizer, Whitespace, WhitespaceSplit;
- metaspace.py: Metaspace (SentencePiece's '▁');
- tables.py, patterns.py: the library's regex engines know Unicode 16.0 and its punctuation table
  is Unicode 8.0, while the `regex` module used here knows Unicode 17.0; small tables, measured
  against the library one code point at a time, remove the difference (tests re-check every code
  point), and each pattern has a fast form for ASCII text.

This module keeps the app's own names for them (`PRE_TOKENIZERS`: "byte-level", "bert",
"whitespace", "whitespace-split", "metaspace", and the byte-level ones with another split
pattern: "byte-level-cl100k", "byte-level-o200k", "byte-level-llama3", each
`Sequence([Split(pattern), ByteLevel(use_regex=False)])`), `BYTE_LEVEL_PRE_TOKENIZERS` (split
pattern name -> pre-tokenizer name) and `build_pre_tokenizer`.

What it does not do: Split's other behaviors, Punctuation, Digits, CharDelimiterSplit,
UnicodeScripts; ByteLevel's `trim_offsets` (a post-processing option, only carried through tokenizer.json).
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.pipeline.pre_tokenizers.base import (
    PreToken,
    PreTokenizer,
    Sequence,
    lines_with_endings,
    pre_tokenizer_from_hf_json,
)
from explorer.pipeline.pre_tokenizers.byte_level import ByteLevel
from explorer.pipeline.pre_tokenizers.metaspace import Metaspace
from explorer.pipeline.pre_tokenizers.split import Split
from explorer.pipeline.pre_tokenizers.split_patterns import LIBRARY_PATTERNS
from explorer.pipeline.pre_tokenizers.whitespace import BertPreTokenizer, Whitespace, WhitespaceSplit

__all__ = [
    "BYTE_LEVEL_PRE_TOKENIZERS",
    "PRE_TOKENIZERS",
    "BertPreTokenizer",
    "ByteLevel",
    "Metaspace",
    "PreToken",
    "PreTokenizer",
    "Sequence",
    "Split",
    "Whitespace",
    "WhitespaceSplit",
    "build_pre_tokenizer",
    "is_byte_level",
    "lines_with_endings",
    "pre_tokenizer_from_hf_json",
]

PRE_TOKENIZERS: dict[str, Callable[[], PreTokenizer]] = {
    # Training uses GPT-2's byte-level pre-tokenizer without a prefix space.
    "byte-level": lambda: ByteLevel(add_prefix_space=False),
    "bert": BertPreTokenizer,
    "whitespace": Whitespace,
    "whitespace-split": WhitespaceSplit,
    # SentencePiece's (XLNet, T5, ALBERT): '▁' for spaces and before every line.
    "metaspace": Metaspace,
}

# Split pattern (the CLI's --split-pattern) -> byte-level pre-tokenizer name. "gpt2" is today's
# "byte-level", so runs made before the choice existed keep their config, id and links.
BYTE_LEVEL_PRE_TOKENIZERS = {
    pattern: "byte-level" if pattern == "gpt2" else f"byte-level-{pattern}" for pattern in LIBRARY_PATTERNS
}


def _split_then_bytes(pattern: str) -> Callable[[], PreTokenizer]:
    """The library's `Sequence([Split(Regex(pattern), "isolated"), ByteLevel(False, use_regex=False)])`."""
    return lambda: Sequence([Split(pattern), ByteLevel(add_prefix_space=False, use_regex=False)])


PRE_TOKENIZERS.update(
    {
        name: _split_then_bytes(LIBRARY_PATTERNS[pattern])
        for pattern, name in BYTE_LEVEL_PRE_TOKENIZERS.items()
        if name != "byte-level"
    }
)


def is_byte_level(name: str | None) -> bool:
    """Whether the pre-tokenizer `name` gives byte-level symbols (GPT-2's "Ġ" for a space byte)."""
    return name in BYTE_LEVEL_PRE_TOKENIZERS.values()


def build_pre_tokenizer(name: str) -> PreTokenizer:
    if name not in PRE_TOKENIZERS:
        raise ValueError(f"unknown pre-tokenizer {name!r}; choose from: {', '.join(PRE_TOKENIZERS)}")
    return PRE_TOKENIZERS[name]()
