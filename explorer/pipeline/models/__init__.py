"""Encode one pre-token with a trained model, with character offsets: BPE, WordPiece or Unigram.

One file per model, as in the Hugging Face `tokenizers` library's `models/` (0.23.3):
- bpe.py: `BPEModel` (`models/bpe/model.rs`), its merge loop in bpe_word.py (`merge_all`, `word.rs`);
- wordpiece.py: `WordPieceModel` (`models/wordpiece/mod.rs`);
- unigram.py: `UnigramModel` and its `Lattice` (`models/unigram/model.rs`, `lattice.rs`);
- base.py: the word-cache bounds and the readers of tokenizer.json fields they share.
`model_from_hf_json` reads the "model" object of a tokenizer.json into any of the three.

What it does not do: training (see `explorer.training.bpe`), normalization, pre-tokenization or
decoding (see `explorer.pipeline.tokenizer`).
"""

from __future__ import annotations

from explorer.pipeline.models.bpe import BPEModel
from explorer.pipeline.models.bpe_word import merge_all
from explorer.pipeline.models.unigram import Lattice, UnigramModel
from explorer.pipeline.models.wordpiece import WordPieceModel

MODEL_TYPES: dict[str, type[BPEModel] | type[WordPieceModel] | type[UnigramModel]] = {
    "BPE": BPEModel,
    "WordPiece": WordPieceModel,
    "Unigram": UnigramModel,
}

__all__ = [
    "MODEL_TYPES",
    "BPEModel",
    "Lattice",
    "UnigramModel",
    "WordPieceModel",
    "merge_all",
    "model_from_hf_json",
]


def model_from_hf_json(d: object) -> BPEModel | WordPieceModel | UnigramModel:
    """The model of a tokenizer.json (its "model" object): BPEModel, WordPieceModel or UnigramModel."""
    if not isinstance(d, dict):
        raise ValueError("model must be an object")
    model_type = d.get("type")
    if model_type is None:
        # The library also accepts an untagged model and guesses from its fields.
        if "merges" in d:
            model_type = "BPE"
        elif isinstance(d.get("vocab"), list):
            model_type = "Unigram"
        elif "vocab" in d:
            model_type = "WordPiece"
    if model_type not in MODEL_TYPES:
        raise ValueError(f"model.type {model_type!r} is not supported ({', '.join(MODEL_TYPES)})")
    return MODEL_TYPES[model_type].from_hf_json(d)
