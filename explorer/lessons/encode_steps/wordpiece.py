"""One pre-token through WordPiece (explorer.pipeline.models.WordPieceModel), step by step: greedy
longest-match-first, as `WordPieceModel.tokenize`. Each step is the longest prefix (then `##`
continuation) found, with the longer candidates that were looked up in vain; or the point where the
whole word becomes the unknown token (no piece matches at some position, or the word is longer
than `max_input_chars_per_word`).

What it does not do: pre-tokenize or cut out special tokens (explorer.lessons.encode_steps.pipeline_steps).
"""

from __future__ import annotations

from explorer.lessons.encode_steps.budget import StepBudget
from explorer.lessons.encode_steps.records import PreTokenSteps, Step, StepPiece
from explorer.pipeline.models import WordPieceModel
from explorer.pipeline.normalizers import Normalized


def wordpiece_pre_token(
    model: WordPieceModel, piece: Normalized, text: str, budget: StepBudget
) -> PreTokenSteps:
    """One pre-token through WordPiece: each longest piece found, as `WordPieceModel.tokenize`."""
    word = piece.text
    span = piece.original_span(0, len(word))

    def make(value, token_id, a, b, kind):
        start, end = piece.original_span(a, b)
        return StepPiece(value, token_id, start, end, kind, text[start:end], (start, end))

    def unk() -> StepPiece:
        token = model._unk(word)[0]  # raises the model's ValueError when the unk token is missing
        return make(token.value, token.id, 0, len(word), "unk")

    note = budget.refusal(len(word))
    if note:
        final = tuple(
            make(t.value, t.id, t.start, t.end, "unk" if t.value == model.unk_token else "token")
            for t in model.tokenize(word)
        )
        return PreTokenSteps(word, *span, (), final, note=note)
    steps = [Step("start", (make(word, None, 0, len(word), "rest"),))] if word else []
    if len(word) > model.max_input_chars_per_word:
        steps.append(Step("too-long", (unk(),), merged=model.unk_token, word_span=(0, len(word))))
    found: list[StepPiece] = []
    start = 0
    while start < len(word) and steps[-1].kind != "too-long":
        end = min(len(word), start + model._longest_token)
        tried = []
        while end > start:
            candidate = word[start:end] if start == 0 else model.continuing_subword_prefix + word[start:end]
            candidate_id = model.vocab.get(candidate)
            if candidate_id is not None:
                break
            tried.append(candidate)
            end -= 1
        if end == start:
            steps.append(
                Step(
                    "no-match", (unk(),), merged=model.unk_token, word_span=(start, start), tried=tuple(tried)
                )
            )
            break
        found.append(make(candidate, candidate_id, start, end, "token"))
        rest = (make(word[end:], None, end, len(word), "rest"),) if end < len(word) else ()
        steps.append(
            Step(
                "prefix" if start == 0 else "continuation",
                (*found, *rest),
                merged=candidate,
                word_span=(start, end),
                tried=tuple(tried),
            )
        )
        start = end
    final = steps[-1].pieces if len(steps) > 1 else ()
    return PreTokenSteps(word, *span, tuple(steps), final)
