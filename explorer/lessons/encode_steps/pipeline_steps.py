"""Our Tokenizer (explorer.pipeline.tokenizer) step by step: special tokens written in the text cut out
first (one piece each, no steps), the rest pre-tokenized as `encode` does, each pre-token through
its model's steps, and on request the post-processor's [CLS]/[SEP] added around them.

Each model type has its step function in `PRE_TOKEN_STEPS` (BPE: explorer.lessons.encode_steps.bpe,
WordPiece: explorer.lessons.encode_steps.wordpiece). A model with no entry has no step view: `has_steps`
says so, and `encode_steps` refuses it with a ValueError. Unigram's view is a
Viterbi table, not merges (explorer.lessons.encode_steps.viterbi).

What it does not do: pairs of sequences, or the pretrained tiktoken encodings
(explorer.lessons.encode_steps.tiktoken_bpe).
"""

from __future__ import annotations

from explorer.lessons.encode_steps.bpe import bpe_pre_token
from explorer.lessons.encode_steps.budget import StepBudget
from explorer.lessons.encode_steps.records import EncodeSteps, PreTokenSteps, StepPiece
from explorer.lessons.encode_steps.wordpiece import wordpiece_pre_token
from explorer.pipeline.decoders import ByteLevelDecoder
from explorer.pipeline.models import BPEModel, WordPieceModel
from explorer.pipeline.normalizers import Normalized
from explorer.pipeline.tokenizer import Tokenizer


def _bpe(model, piece: Normalized, text: str, byte_level: bool, budget: StepBudget) -> PreTokenSteps:
    return bpe_pre_token(model, piece, text, byte_level, budget)


def _wordpiece(model, piece: Normalized, text: str, _byte_level: bool, budget: StepBudget) -> PreTokenSteps:
    return wordpiece_pre_token(model, piece, text, budget)


# Model type -> (model, pre-token, whole text, byte-level?, budget) -> PreTokenSteps.
PRE_TOKEN_STEPS = {BPEModel: _bpe, WordPieceModel: _wordpiece}


def has_steps(tokenizer: Tokenizer) -> bool:
    """True when `encode_steps` can show this tokenizer's model step by step."""
    return _pre_token_steps_for(tokenizer.model) is not None


def _pre_token_steps_for(model):
    return next((steps for kind, steps in PRE_TOKEN_STEPS.items() if isinstance(model, kind)), None)


def encode_steps(
    tokenizer: Tokenizer, text: str, name: str = "tokenizer", add_special_tokens: bool = False
) -> EncodeSteps:
    """`tokenizer.encode(text, add_special_tokens=...)`, step by step.

    With `add_special_tokens`, the post-processor's tokens ([CLS], [SEP]) are step-less special
    pieces at (0, 0), where its single-sequence template puts them.
    """
    model = tokenizer.model
    pre_token_steps = _pre_token_steps_for(model)
    if pre_token_steps is None:
        raise ValueError(f"step-by-step encoding is not available for {model.type_name} models yet")
    byte_level = isinstance(tokenizer.decoder, ByteLevelDecoder)
    budget = StepBudget()
    pre_tokens = []
    for part, part_start, part_end, is_special in tokenizer.split_special_tokens(text):
        if is_special:
            token_id = tokenizer.special_token_ids[part]
            pre_tokens.append(_special_pre_token(part, token_id, part_start, part_end))
            continue
        for piece in tokenizer.pre_tokenize(part, first_part=part_start == 0):
            piece = _shifted(piece, part_start)
            pre_tokens.append(pre_token_steps(model, piece, text, byte_level, budget))
    if add_special_tokens and tokenizer.post_processor is not None:
        pre_tokens = _with_template(tokenizer.post_processor, pre_tokens)
    return EncodeSteps(text, name, model.type_name, byte_level, tuple(pre_tokens))


def _special_pre_token(value: str, token_id: int, start: int, end: int, note: str = "") -> PreTokenSteps:
    piece = StepPiece(value, token_id, start, end, "special", value, (start, end))
    return PreTokenSteps(value, start, end, (), (piece,), special=True, note=note)


def _with_template(post_processor, pre_tokens: list[PreTokenSteps]) -> list[PreTokenSteps]:
    """The pre-tokens wrapped as `TemplateProcessing.process` wraps a single sequence."""
    wrapped = []
    for item in post_processor.single:
        if item.kind == "sequence":
            wrapped += pre_tokens
            continue
        ids, tokens = post_processor.special_tokens[item.name]
        for token_id, token in zip(ids, tokens):
            wrapped.append(_special_pre_token(token, token_id, 0, 0, "added by the post-processor"))
    return wrapped


def _shifted(piece: Normalized, offset: int) -> Normalized:
    """The pre-token with alignments into the whole text rather than the stretch it came from."""
    if not offset:
        return piece
    return Normalized(piece.text, tuple((a + offset, b + offset) for a, b in piece.alignments))
