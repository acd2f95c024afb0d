"""The split patterns of GPT-2, GPT-4 (cl100k_base), GPT-4o (o200k_base) and Llama 3, as their
packages write them, and the spelling of each that the `tokenizers` library's `Split` reads the same.

The GPT patterns are copied from tiktoken's `tiktoken_ext/openai_public.py` (tiktoken 0.14.0),
Llama 3's from `llama_models/llama3/tokenizer.py` (llama-models 0.3.0); tests/parity checks them
against the installed packages. explorer.pretrained encodes with them as they are.

`library_spelling` drops tiktoken's possessive quantifiers: the library's regex engine (Oniguruma,
Ruby syntax) reads `X++` as `(X+)+` and `\\p{N}{1,3}+` as `(\\p{N}{1,3})+`, which would keep
"12345" whole. Inside one line the dropped quantifiers change no match (tests check it on random
lines with the `regex` module). Across line breaks the library's `$` is Ruby's (before any line
break), which split.py reproduces, so "cl100k" there may cut white space before a line break
otherwise than tiktoken itself.

`LIBRARY_PATTERNS` holds each choice as runs split with it and tokenizer.json stores it (GPT-2's as
the library's ByteLevel writes it, what "byte-level" runs have always used).

What it does not do: split text (split.py) or pick a pattern for a run (PRE_TOKENIZERS).
"""

from __future__ import annotations

import re

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
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# A possessive quantifier: +, * or ? (or a {m,n} count) followed by '+'.
_POSSESSIVE = re.compile(r"(\+|\*|\?|\{\d+(?:,\d*)?\})\+")


def library_spelling(pattern: str) -> str:
    """`pattern` without possessive quantifiers, which the library's engine reads as repetitions
    (`\\p{N}{1,3}+` -> `\\p{N}{1,3}`, `\\s++$` -> `\\s+$`)."""
    return _POSSESSIVE.sub(r"\1", pattern)


# The byte-level split patterns a run can choose, by the CLI's name, as their packages write them.
SPLIT_PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "cl100k": CL100K_PATTERN,
    "o200k": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
}
# GPT-2's pattern as the library's ByteLevel writes it (tokenizers/src/pre_tokenizers/byte_level.rs),
# which is what "byte-level" runs have always used. Over text holding line breaks it differs from
# tiktoken's spelling read by the library (whose `$` is before any line break): " \n " gives
# " \n", " " here and " ", "\n ", ... there. Within one line the two split alike (tests check it).
GPT2_LIBRARY_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"

# The pattern of each choice as a run splits with it and as the exported tokenizer.json's Split holds it.
LIBRARY_PATTERNS = {
    name: GPT2_LIBRARY_PATTERN if name == "gpt2" else library_spelling(pattern)
    for name, pattern in SPLIT_PATTERNS.items()
}
