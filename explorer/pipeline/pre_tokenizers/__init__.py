"""Pre-tokenizers, the second pipeline stage, behaving exactly like the `tokenizers` library's.

A pre-tokenizer cuts (normalized) text into pre-tokens; models then learn and apply merges inside
pre-tokens only. The interface (`pre_tokenize`, `split`, `words`) is in base.py.

Follows tokenizers/src/pre_tokenizers/ (0.23.3), one file per idea as there:
- base.py: the `PreTokenizer` interface, `PreToken`, `Sequence` (each pre-tokenizer splits the
  pre-tokens of the previous one) and `pre_tokenizer_from_hf_json`;
- byte_level.py: ByteLevel (GPT-2's regex, then bytes as symbols);
- whitespace.py: BertPreTokenizer, Whitespace, WhitespaceSplit;
- metaspace.py: Metaspace (SentencePiece's '▁');
- tables.py, patterns.py: the library's regex engines know Unicode 16.0 and its punctuation table
  is Unicode 8.0, while the `regex` module used here knows Unicode 17.0; small tables, measured
  against the library one code point at a time, remove the difference (tests re-check every code
  point), and each pattern has a fast form for ASCII text.

This module keeps the app's own names for them (`PRE_TOKENIZERS`: "byte-level", "bert",
"whitespace", "whitespace-split", "metaspace") and `build_pre_tokenizer`.

What it does not do: Split, Punctuation, Digits, CharDelimiterSplit, UnicodeScripts; ByteLevel's
`trim_offsets` (a post-processing option, only carried through tokenizer.json).
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.pipeline.pre_tokenizers.base import PreToken, PreTokenizer, Sequence, pre_tokenizer_from_hf_json
from explorer.pipeline.pre_tokenizers.byte_level import ByteLevel
from explorer.pipeline.pre_tokenizers.metaspace import Metaspace
from explorer.pipeline.pre_tokenizers.whitespace import BertPreTokenizer, Whitespace, WhitespaceSplit

__all__ = [
    "PRE_TOKENIZERS",
    "BertPreTokenizer",
    "ByteLevel",
    "Metaspace",
    "PreToken",
    "PreTokenizer",
    "Sequence",
    "Whitespace",
    "WhitespaceSplit",
    "build_pre_tokenizer",
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


def build_pre_tokenizer(name: str) -> PreTokenizer:
    if name not in PRE_TOKENIZERS:
        raise ValueError(f"unknown pre-tokenizer {name!r}; choose from: {', '.join(PRE_TOKENIZERS)}")
    return PRE_TOKENIZERS[name]()
