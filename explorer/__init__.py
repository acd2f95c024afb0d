"""Tokenizer Explorer core: BPE, WordPiece and Unigram training that records its whole history, in
two flavors (the `tokenizers` library's results and the Hugging Face course's), and the pipeline
that encodes with what it learned, exactly as the library does.

The public names, for a script or a notebook:

- a run: `RunConfig` with a `TrainerConfig` (BPE, WordPiece) or a `UnigramConfig`;
- training: `train_corpus(text, config)` gives the run's history (a `MergeHistory`, or a `RoundHistory`);
- a history: `trace_from_json` reads one back (the app's and the CLI's trace files);
- a tokenizer: `tokenizer_from_trace(trace, k)` builds the tokenizer at step k (the last one by
  default); `Tokenizer.encode`, `encode_pieces` (tokens with their spans, as `Piece`s);
  `save_tokenizer` / `load_tokenizer` / `tokenizer_to_json` / `tokenizer_from_json` for
  tokenizer.json, as the library writes it.

>>> from explorer import RunConfig, TrainerConfig, train_corpus, tokenizer_from_trace
>>> config = RunConfig(TrainerConfig("bpe", vocab_size=12, flavor="course"))
>>> trace = train_corpus("low lower lowest " * 3, config)
>>> trace.merge_strings()[:2]
[('l', 'o'), ('lo', 'w')]
>>> tokenizer_from_trace(trace).encode("lowest").tokens
['low', 'e', 's', 't']

The names load on first use (a page that imports one module of the package imports no trainer).
Layout: docs/architecture.md. Nothing here imports streamlit (explorer/ui/ does).
"""

from __future__ import annotations

import importlib

# public name -> the module that defines it
_PUBLIC = {
    "RunConfig": "explorer.run_config",
    "TrainerConfig": "explorer.run_config",
    "UnigramConfig": "explorer.run_config",
    "train_corpus": "explorer.train",
    "trace_from_json": "explorer.train",
    "tokenizer_from_trace": "explorer.train",
    "encode_pieces": "explorer.train",
    "MergeHistory": "explorer.training.bpe.merge_history",
    "RoundHistory": "explorer.training.unigram.round_history",
    "Tokenizer": "explorer.pipeline.tokenizer",
    "save_tokenizer": "explorer.pipeline.tokenizer_json",
    "load_tokenizer": "explorer.pipeline.tokenizer_json",
    "tokenizer_to_json": "explorer.pipeline.tokenizer_json",
    "tokenizer_from_json": "explorer.pipeline.tokenizer_json",
    "Piece": "explorer.tokens",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> object:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    value = getattr(importlib.import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
