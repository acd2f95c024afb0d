"""The step-by-step encoding written out: a JSON-ready dict, and one line of text per step.

What it does: turns an `EncodeSteps` (explorer.lessons.encode_steps.records) into what
`python -m explorer encode --steps` prints, and gives the app the same sentences (`step_line`),
so that a step reads the same everywhere. A merge is named one way, counted from 1 like a line of
merges.txt and like the Vocabulary's merge rank: "merge N" (the JSON's `rank` stays the model's
0-based rank, N - 1); tiktoken has no merge list, so its merge is named by the id it makes.
Pieces are written as the vocabulary spells them; a dropped
character as `[dropped: P]`, the unknown token as `[UNK] <- '서울'`, the rest of a word WordPiece
has not matched yet as `[rest: ing]`.

What it does not do: compute anything (the other modules of explorer.lessons.encode_steps do), or draw
HTML (explorer.views.steps_html).
"""

from __future__ import annotations

from explorer.lessons.encode_steps.records import EncodeSteps, PreTokenSteps, Step, StepPiece

TRIED_SHOWN = 6  # longer WordPiece candidates named in a line; the rest are counted


def piece_to_json(piece: StepPiece) -> dict:
    result = {
        "token": piece.value,
        "id": piece.id,
        "start": piece.start,
        "end": piece.end,
        "kind": piece.kind,
        "source": piece.source,
        "source_span": list(piece.source_span),
    }
    if piece.token_bytes is not None:
        result["bytes"] = piece.token_bytes.hex(" ")
    return result


def step_to_json(step: Step, tiktoken: bool = False) -> dict:
    return {
        "kind": step.kind,
        "pieces": [piece_to_json(piece) for piece in step.pieces],
        "pair": list(step.pair) if step.pair else None,
        "rank": step.rank,
        "merged": step.merged,
        "pair_positions": list(step.pair_positions) if step.pair_positions else None,
        "word_span": list(step.word_span) if step.word_span else None,
        "tried": list(step.tried),
        "description": step_line(step, tiktoken),
    }


def pre_token_to_json(pre_token: PreTokenSteps, tiktoken: bool = False) -> dict:
    return {
        "text": pre_token.text,
        "start": pre_token.start,
        "end": pre_token.end,
        "bytes": pre_token.token_bytes.hex(" ") if pre_token.token_bytes is not None else None,
        "special": pre_token.special,
        "steps": [step_to_json(step, tiktoken) for step in pre_token.steps],
        "final": [piece_to_json(piece) for piece in pre_token.final],
        "dropped": [piece_to_json(piece) for piece in pre_token.dropped],
        "note": pre_token.note or None,
    }


def steps_to_json(result: EncodeSteps) -> dict:
    """{"text", "tokenizer", "model", "pre_tokens": [{"text", "start", "end", "steps": [...], "final"}],
    "final", "notes"}; "final" (per pre-token and for the text) is what `encode` gives."""
    return {
        "text": result.text,
        "tokenizer": result.tokenizer,
        "model": result.model,
        "byte_level": result.byte_level,
        "pre_tokens": [pre_token_to_json(pre_token, is_tiktoken(result)) for pre_token in result.pre_tokens],
        "final": [piece_to_json(piece) for piece in result.final_pieces()],
        "notes": result.notes,
    }


# ------------------------------------------------------------------ sentences


def is_tiktoken(result: EncodeSteps) -> bool:
    """tiktoken has no list of merges: a merge is named by the rank of the token it makes."""
    return result.model == "BPE (tiktoken)"


def piece_label(piece: StepPiece) -> str:
    """How one piece reads in a line: the token, or a marked placeholder."""
    if piece.kind == "dropped":
        return f"[dropped: {piece.source}]"
    if piece.kind == "unk":
        return f"{piece.value} <- {piece.source!r}"
    if piece.kind == "rest":
        return f"[rest: {piece.value}]"
    return piece.value


def pieces_label(pieces: tuple[StepPiece, ...]) -> str:
    return " ".join(piece_label(piece) for piece in pieces)


def _tried_label(tried: tuple[str, ...]) -> str:
    """ "not in the vocabulary: 'Hugging', 'Huggin'" (at most TRIED_SHOWN named), or ""."""
    if not tried:
        return ""
    named = ", ".join(repr(candidate) for candidate in tried[:TRIED_SHOWN])
    more = f" and {len(tried) - TRIED_SHOWN} more" if len(tried) > TRIED_SHOWN else ""
    return f"not in the vocabulary: {named}{more}"


def step_line(step: Step, tiktoken: bool = False) -> str:
    """One sentence for a step, e.g. "merge 12: 'l' + 'o' -> 'lo'   pieces: h e lo w" (tiktoken:
    "merge -> id 1,302: ...")."""
    pieces = pieces_label(step.pieces)
    if step.kind == "start":
        return f"start: {pieces}"
    if step.kind == "merge":
        assert step.rank is not None and step.pair is not None  # a merge step records both
        rule = f"merge -> id {step.rank:,}" if tiktoken else f"merge {step.rank + 1:,}"
        left, right = step.pair
        return f"{rule}: {left!r} + {right!r} -> {step.merged!r}   pieces: {pieces}"
    if step.kind == "whole-word":
        return (
            f"the whole pre-token is in the vocabulary, and the tokenizer looks it up before merging: "
            f"{step.merged!r} (id {step.pieces[0].id:,})   pieces: {pieces}"
        )
    if step.kind in ("prefix", "continuation"):
        assert step.word_span is not None  # a WordPiece step records its characters
        start, end = step.word_span
        what = "longest prefix" if step.kind == "prefix" else "continuation"
        tried = f"; {_tried_label(step.tried)}" if step.tried else ""
        return f"{what} found: {step.merged!r} (characters {start}-{end}{tried})   pieces: {pieces}"
    if step.kind == "no-match":
        assert step.word_span is not None  # (position, position)
        tried = f" ({_tried_label(step.tried)})" if step.tried else ""
        return (
            f"no piece matches at position {step.word_span[0]}{tried}: "
            f"the whole word becomes {step.merged}   pieces: {pieces}"
        )
    if step.kind == "too-long":
        assert step.word_span is not None  # (0, the word's length)
        length = step.word_span[1]
        return (
            f"the word has {length:,} characters, more than max_input_chars_per_word: "
            f"it becomes {step.merged}"
        )
    raise ValueError(f"unknown step kind {step.kind!r}")


def steps_text_lines(result: EncodeSteps) -> list[str]:
    """The whole step-by-step encoding as lines of text (what the CLI prints)."""
    tiktoken = is_tiktoken(result)
    final = result.final_pieces()
    lines = [
        f"{result.tokenizer} · {result.model}: "
        f"{len(final):,} token{'s' * (len(final) != 1)} for {result.text!r}"
    ]
    for pre_token in result.pre_tokens:
        where = f"{pre_token.start}:{pre_token.end}"
        if pre_token.special:
            how = pre_token.note or "special token, cut out before pre-tokenization"
            lines.append(f"{pre_token.text!r} ({where}): {how}   [{pre_token.final[0].id}]")
            continue
        lines.append(f"pre-token {pre_token.text!r} ({where})")
        for number, step in enumerate(pre_token.steps):
            lines.append(
                f"  {number:>3}. {step_line(step, tiktoken)}" if number else f"       {step_line(step)}"
            )
        if pre_token.note:
            lines.append(f"       (steps not shown: {pre_token.note})")
        ids = " ".join(str(piece.id) for piece in pre_token.final)
        dropped = ", ".join(repr(piece.source) for piece in pre_token.dropped)
        lines.append(
            f"       final: {pieces_label(pre_token.final) or '(nothing)'}   ids: {ids or '-'}"
            + (f"   dropped: {dropped}" if dropped else "")
        )
    return lines
