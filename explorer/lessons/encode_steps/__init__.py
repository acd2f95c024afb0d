"""How a text is tokenized, step by step: every merge (BPE), every piece found (WordPiece), or the
Viterbi table (Unigram).

Encodes a text the way `Tokenizer.encode` (ours) or tiktoken does, and records, per pre-token, the
pieces after each step; the last step is `encode`'s result by construction. One idea per module:

| module | what it holds |
|---|---|
| `records` | the records: StepPiece, Step, PreTokenSteps, EncodeSteps, the piece and step kinds |
| `budget` | how many steps a text may record (StepBudget, MAX_SYMBOLS_WITH_STEPS) |
| `merges` | BPE merges recorded through the `encode` loop's hook, and the whole-word lookup step |
| `bpe` | one pre-token through our BPEModel: initial symbols (dropped, unknown), then merges |
| `wordpiece` | one pre-token through WordPieceModel: each longest prefix / ## continuation found |
| `tokenizer` | our Tokenizer: special tokens, pre-tokens, each model's step function, the template |
| `tiktoken_bpe` | the bundled tiktoken encodings: split pattern, then byte merges by rank |
| `output` | the JSON form and the sentences (what `encode --steps` prints; the app's wording) |
| `render` | the steps drawn as escaped HTML for the app |
| `viterbi` | Unigram: each pre-token's Viterbi table (best score per end position, back pointers) |

Unigram has no merges to replay: its step view is the Viterbi table (`viterbi`), drawn by
explorer.ui.common.encode_panel. A new merge-like model registers its step function in
`tokenizer.PRE_TOKEN_STEPS`, with its step kinds documented in `records`.

What it does not do: pairs of sequences, or tiktoken's special tokens (their text is encoded as
ordinary characters, as `encode_pretrained` does).
"""

from __future__ import annotations

from explorer.lessons.encode_steps.bpe import explain_initial_symbols
from explorer.lessons.encode_steps.budget import MAX_RECORDED_PIECES, MAX_SYMBOLS_WITH_STEPS, StepBudget
from explorer.lessons.encode_steps.merges import record_merges, whole_word_step
from explorer.lessons.encode_steps.pipeline_steps import encode_steps, has_steps
from explorer.lessons.encode_steps.records import (
    PIECE_KINDS,
    STEP_KINDS,
    EncodeSteps,
    PreTokenSteps,
    Step,
    StepPiece,
)


def pretrained_encode_steps(name: str, text: str) -> EncodeSteps:
    """`encode_pretrained(name, text)` step by step (GPT-2, cl100k_base, o200k_base; see
    `tiktoken_bpe`). Imported on first use: it loads explorer.pretrained."""
    from explorer.lessons.encode_steps.tiktoken_bpe import tiktoken_encode_steps

    return tiktoken_encode_steps(name, text)


__all__ = [
    "MAX_RECORDED_PIECES",
    "MAX_SYMBOLS_WITH_STEPS",
    "PIECE_KINDS",
    "STEP_KINDS",
    "EncodeSteps",
    "PreTokenSteps",
    "Step",
    "StepBudget",
    "StepPiece",
    "encode_steps",
    "explain_initial_symbols",
    "has_steps",
    "pretrained_encode_steps",
    "record_merges",
    "whole_word_step",
]
