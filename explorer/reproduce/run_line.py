"""One line that says what a run is, for the first line of a generated program's docstring.

It names the algorithm, flavor, vocabulary size, pre-tokenizer and normalizers: the app's own
names only, never a user's string (a special token may hold `\"\"\"`; the code writes those with
`repr`), so the docstring cannot be broken out of.

What it does not do: list every setting (the code that follows does).
"""

from __future__ import annotations

from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS
from explorer.run_config import RunConfig
from explorer.runs.settings import ALGORITHM_LABELS

SPLIT_PATTERN_LABELS = {"gpt2": "GPT-2", "cl100k": "GPT-4's", "o200k": "GPT-4o's", "llama3": "Llama 3's"}


def run_summary(config: RunConfig) -> str:
    """E.g. "BPE, library flavor, vocabulary size 1,000, byte-level pre-tokenizer"."""
    parts = [
        ALGORITHM_LABELS[config.algorithm],
        f"{config.flavor} flavor",
        f"vocabulary size {config.vocab_size:,}",
    ]
    pattern = {name: pattern for pattern, name in BYTE_LEVEL_PRE_TOKENIZERS.items()}.get(
        config.pre_tokenizer or ""
    )
    if pattern is not None and pattern != "gpt2":
        parts.append(f"byte-level pre-tokenizer with {SPLIT_PATTERN_LABELS[pattern]} split pattern")
    elif config.pre_tokenizer is not None:
        parts.append(f"{config.pre_tokenizer} pre-tokenizer")
    if config.normalizers:
        parts.append(f"normalizers {' + '.join(config.normalizers)}")
    return ", ".join(parts)
