"""How a text is tokenized, step by step: every merge (BPE) or every piece found (WordPiece).

What it does: encodes a text the way `Tokenizer.encode` (ours) or tiktoken does, and records,
per pre-token, the pieces after each step:

- BPE (our `BPEModel`, and GPT-2 / cl100k_base / o200k_base): the initial symbols (characters,
  or bytes for byte-level), then one merge per step: the lowest-rank adjacent pair present,
  leftmost among equal ranks, until no merge applies. This is the rule of the course's
  `tokenize()`, minbpe's `encode` and tiktoken's `_educational.bpe_encode`, and it runs the very
  loop `encode` runs (`models.merge_all`, a heap over a linked list), told each merge through a
  hook, so the last step is `encode`'s result by construction. A tokenizer that looks the whole
  pre-token up first (tiktoken always, our BPE with `ignore_merges`) gets a last "whole-word"
  step when that lookup gives something else than the merges.
- WordPiece (`WordPieceModel`): greedy longest-match-first; each step is the longest prefix
  (then `##` continuation) found, with the longer candidates that were looked up in vain; or the
  point where the whole word becomes the unknown token (no piece matches at some position, or
  the word is longer than `max_input_chars_per_word`).
- Special tokens written in the text are cut out first: one piece each, no steps.
- Characters the model cannot represent are explicit pieces: "dropped" (BPE without an unknown
  token drops them) or "unk" (the unknown token, with the characters it stands for).

Offsets (`start`, `end`) are exactly `encode`'s, including the library's shift after a dropped
character (see `BPEModel._merge_word`); `source_span` and `source` say which characters of the
input a piece really stands for.

Bounds: pre-tokens longer than `MAX_SYMBOLS_WITH_STEPS` symbols, and all pre-tokens once
`MAX_RECORDED_PIECES` pieces have been recorded for one text, get their final tokens from the
merge loop alone and a note instead of steps: a 100,000-character word then costs O(n log n) like
`encode`, not the quadratic time and memory of recording every step (bench/bench_encode_steps.py).

What it does not do: render anything (see `encode_steps_output` for the JSON and the text lines;
the app draws the pieces), pairs of sequences, or tiktoken's special tokens (their text is encoded as
ordinary characters, as `encode_pretrained` does; see `encode_steps_tiktoken`).
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.bytelevel import symbols_to_bytes
from explorer.decoders import ByteLevelDecoder
from explorer.models import BPEModel, WordPieceModel, merge_all
from explorer.normalizers import Normalized
from explorer.tokenizer import Tokenizer

MAX_SYMBOLS_WITH_STEPS = 400
MAX_RECORDED_PIECES = 300_000

# Piece kinds: a vocabulary token, the unknown token, a special token, a character the model
# dropped, and (WordPiece) the rest of the word not matched yet.
PIECE_KINDS = ("token", "unk", "special", "dropped", "rest")
# Step kinds: the initial split; a BPE merge; the whole pre-token looked up at once; a WordPiece
# prefix or ## continuation found; the word becoming the unknown token.
STEP_KINDS = ("start", "merge", "whole-word", "prefix", "continuation", "no-match", "too-long")


@dataclass(frozen=True)
class StepPiece:
    """One piece of a pre-token at some step.

    `value` is the token as the vocabulary spells it ('Ġis', '##s', '[UNK]'; for tiktoken its
    bytes made readable); `id` is None for dropped characters and the unmatched rest.
    `start`/`end` are character offsets into the input as `encode` reports them; `source_span`
    is the input's characters the piece stands for and `source` their text.
    """

    value: str
    id: int | None
    start: int
    end: int
    kind: str = "token"
    source: str = ""
    source_span: tuple[int, int] = (0, 0)
    token_bytes: bytes | None = None

    @property
    def is_token(self) -> bool:
        """True for what `encode` outputs (tokens, unknown and special tokens)."""
        return self.kind in ("token", "unk", "special")


@dataclass(frozen=True)
class Step:
    """One step and the pieces after it.

    BPE merge: `pair` (the two pieces' values), `merged` (the new token), `rank` (0-based rank
    of the merge in the model; tiktoken: the merged token's rank), `pair_positions` (indices of
    the two pieces in the previous step's pieces). WordPiece: `merged` is the piece found,
    `word_span` its (start, end) characters in the pre-token, `tried` the longer candidates looked
    up in vain (longest first); for "no-match" `word_span` is (position, position). "whole-word":
    `merged` is the pre-token's own token, the only piece.
    """

    kind: str
    pieces: tuple[StepPiece, ...]
    pair: tuple[str, str] | None = None
    merged: str | None = None
    rank: int | None = None
    pair_positions: tuple[int, int] | None = None
    word_span: tuple[int, int] | None = None
    tried: tuple[str, ...] = ()


@dataclass(frozen=True)
class PreTokenSteps:
    """One pre-token: its text as the model sees it, its span in the input, steps, final tokens.

    `final` equals what `encode` gives for this pre-token. `steps` is empty for special tokens and
    for pre-tokens over the bounds (then `note` says why). `dropped` lists the characters the
    model dropped, also when steps are not recorded.
    """

    text: str
    start: int
    end: int
    steps: tuple[Step, ...]
    final: tuple[StepPiece, ...]
    token_bytes: bytes | None = None
    special: bool = False
    dropped: tuple[StepPiece, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class EncodeSteps:
    """A text encoded step by step, pre-token by pre-token."""

    text: str
    tokenizer: str
    model: str  # "BPE", "WordPiece" or "BPE (tiktoken)"
    byte_level: bool
    pre_tokens: tuple[PreTokenSteps, ...]

    def final_pieces(self) -> list[StepPiece]:
        """The tokens of the whole text, as `encode` gives them."""
        return [piece for pre_token in self.pre_tokens for piece in pre_token.final]

    def unrepresented(self) -> list[StepPiece]:
        """What the tokenizer cannot represent, in text order: dropped characters and unknown
        tokens (each with the characters it stands for in `source`)."""
        pieces = [
            piece
            for pre_token in self.pre_tokens
            for piece in (*pre_token.dropped, *pre_token.final)
            if piece.kind in ("dropped", "unk")
        ]
        return sorted(pieces, key=lambda piece: piece.source_span)

    @property
    def notes(self) -> list[str]:
        """One sentence per pre-token whose steps are not shown, saying why."""
        return [
            f"pre-token {_shortened(pre_token.text)!r} ({pre_token.start}:{pre_token.end}): {pre_token.note}"
            for pre_token in self.pre_tokens
            if pre_token.note and not pre_token.special
        ]


def _shortened(text: str, limit: int = 24) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class StepBudget:
    """How many more pieces may be recorded for this text (snapshots share unchanged pieces,
    but each step still holds a tuple as long as the pre-token)."""

    def __init__(self, pieces: int = MAX_RECORDED_PIECES):
        self.left = pieces

    def refusal(self, symbol_count: int) -> str:
        """Why this pre-token gets no steps, or "" when it may have them (and pays for them)."""
        if symbol_count > MAX_SYMBOLS_WITH_STEPS:
            return (
                f"{symbol_count:,} symbols: steps are shown for pre-tokens of up to "
                f"{MAX_SYMBOLS_WITH_STEPS:,} symbols; only its final tokens are shown"
            )
        cost = symbol_count * (symbol_count + 1) // 2
        if cost > self.left:
            return "the text is too long to show every step; only this pre-token's final tokens are shown"
        self.left -= cost
        return ""


# ------------------------------------------------------------------ BPE merges, recorded


def record_merges(
    pieces: list[StepPiece],
    kept: list[int],
    ids: list[int],
    lengths: list[int],
    lookup,
    merged_piece,
    record: bool,
) -> tuple[list[Step], tuple[StepPiece, ...]]:
    """Run `merge_all` over `ids`/`lengths`: one "merge" step per merge applied, and the final pieces.

    `pieces` is the initial display list (dropped characters included) and `kept[i]` the index
    in it of array symbol i. `merged_piece(first, last, left, right, merged_id)` makes the piece
    covering array symbols first..last from its leftmost and rightmost pieces. Without `record`
    no step is kept and only the final pieces are made (a long pre-token costs what `encode` does).
    """
    if not record:
        merge_all(ids, lengths, lookup)
        starts = [symbol for symbol in range(len(ids)) if lengths[symbol]]
        ends = [*starts[1:], len(ids)]
        return [], tuple(
            pieces[kept[first]]
            if end == first + 1
            else merged_piece(first, end - 1, pieces[kept[first]], pieces[kept[end - 1]], ids[first])
            for first, end in zip(starts, ends)
        )
    steps: list[Step] = []
    current = list(pieces)
    piece_of_symbol = [pieces[index] for index in kept]
    last_symbol = list(range(len(ids)))  # the last array symbol each symbol covers

    def on_merge(left: int, right: int, rank: int) -> None:
        left_piece, right_piece = piece_of_symbol[left], piece_of_symbol[right]
        merged_id = lookup((ids[left], ids[right]))[1]
        last_symbol[left] = last_symbol[right]
        new_piece = merged_piece(left, last_symbol[left], left_piece, right_piece, merged_id)
        piece_of_symbol[left] = new_piece
        # Identity, not equality: two equal pieces can sit side by side ("l", "l").
        left_index = next(i for i, piece in enumerate(current) if piece is left_piece)
        right_index = next(i for i in range(left_index + 1, len(current)) if current[i] is right_piece)
        current[left_index] = new_piece
        del current[right_index]
        steps.append(
            Step(
                "merge",
                tuple(current),
                (left_piece.value, right_piece.value),
                new_piece.value,
                rank,
                (left_index, right_index),
            )
        )

    merge_all(ids, lengths, lookup, on_merge)
    return steps, tuple(piece_of_symbol[symbol] for symbol in range(len(ids)) if lengths[symbol])


def whole_word_step(final: tuple[StepPiece, ...], whole: StepPiece) -> Step | None:
    """The lookup of the whole pre-token, when it changes what the merges gave."""
    if len(final) == 1 and final[0].id == whole.id:
        return None
    return Step("whole-word", (whole,), merged=whole.value)


# ------------------------------------------------------------------ our tokenizers


def explain_initial_symbols(model: BPEModel, word: str) -> list[tuple[str, int | None, str, int, int]]:
    """(kind, id, symbol, first char, end char) per initial symbol of `word`, dropped ones included.

    Mirrors `BPEModel._initial_symbols` (prefix on every character but the first, suffix on the
    last, unknown characters dropped or made the unk token, a run of them fused with fuse_unk).
    """
    prefix, suffix = model.continuing_subword_prefix, model.end_of_word_suffix
    result: list[list] = []
    last = len(word) - 1
    for position, char in enumerate(word):
        symbol = (prefix + char if prefix and position > 0 else char) + (
            suffix if suffix and position == last else ""
        )
        symbol_id = model.vocab.get(symbol)
        if symbol_id is not None:
            result.append(["token", symbol_id, symbol, position, position + 1])
        elif model.unk_token is None:
            result.append(["dropped", None, symbol, position, position + 1])
        elif model.fuse_unk and result and result[-1][0] == "unk" and result[-1][4] == position:
            result[-1][4] = position + 1
        else:
            result.append(["unk", model._unk_id(), model.unk_token, position, position + 1])
    return [tuple(item) for item in result]


def _byte_length(text: str) -> int:
    return len(text.encode("utf-8"))


def _bpe_pre_token(
    model: BPEModel, piece: Normalized, text: str, byte_level: bool, budget: StepBudget
) -> PreTokenSteps:
    """One pre-token through our BPE model: its initial symbols, then every merge."""
    word = piece.text
    # Offsets as the library counts them: bytes from 0 over the symbols kept (dropped ones do not
    # count), turned into the characters holding those bytes (`BPEModel._merge_word`).
    char_of_byte = [index for index, char in enumerate(word) for _ in range(_byte_length(char))]

    def make(value, symbol_id, word_span, source_word_span, kind):
        start, end = piece.original_span(*word_span)
        source_span = piece.original_span(*source_word_span)
        token_bytes = _symbol_bytes(value) if byte_level and kind == "token" else None
        return StepPiece(
            value, symbol_id, start, end, kind, text[slice(*source_span)], source_span, token_bytes
        )

    pieces, kept, ids, lengths = [], [], [], []
    byte_start = 0
    for kind, symbol_id, symbol, first, end in explain_initial_symbols(model, word):
        if kind == "dropped":
            pieces.append(make(symbol, None, (first, end), (first, end), kind))
            continue
        length = _byte_length(word[first:end])
        span = (char_of_byte[byte_start], char_of_byte[byte_start + length - 1] + 1)
        kept.append(len(pieces))
        ids.append(symbol_id)
        lengths.append(length)
        pieces.append(make(model.id_to_token(symbol_id), symbol_id, span, (first, end), kind))
        byte_start += length

    def merged_piece(_first, _last, left: StepPiece, right: StepPiece, merged_id: int) -> StepPiece:
        value = model.id_to_token(merged_id)
        source_span = (left.source_span[0], right.source_span[1])
        return StepPiece(
            value,
            merged_id,
            left.start,
            right.end,
            "token",
            text[slice(*source_span)],
            source_span,
            _symbol_bytes(value) if byte_level else None,
        )

    note = budget.refusal(len(pieces))
    merges, final = record_merges(pieces, kept, ids, lengths, model.merge_map.get, merged_piece, not note)
    steps = [] if note else [Step("start", tuple(pieces)), *merges]
    if model.ignore_merges and word in model.vocab:  # the library looks the whole word up first
        whole = make(word, model.vocab[word], (0, len(word)), (0, len(word)), "token")
        step = whole_word_step(final, whole)
        if step is not None:
            final = (whole,)
            steps += [] if note else [step]
    return PreTokenSteps(
        word,
        *piece.original_span(0, len(word)),
        tuple(steps),
        final,
        _symbol_bytes(word) if byte_level else None,
        dropped=tuple(p for p in pieces if p.kind == "dropped"),
        note=note,
    )


def _symbol_bytes(value: str) -> bytes | None:
    try:
        return symbols_to_bytes(value)
    except ValueError:  # not byte symbols, e.g. an unk token "[UNK]"
        return None


def _wordpiece_pre_token(
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


def _special_pre_token(value: str, token_id: int, start: int, end: int, note: str = "") -> PreTokenSteps:
    piece = StepPiece(value, token_id, start, end, "special", value, (start, end))
    return PreTokenSteps(value, start, end, (), (piece,), special=True, note=note)


def encode_steps(
    tokenizer: Tokenizer, text: str, name: str = "tokenizer", add_special_tokens: bool = False
) -> EncodeSteps:
    """`tokenizer.encode(text, add_special_tokens=...)`, step by step.

    With `add_special_tokens`, the post-processor's tokens ([CLS], [SEP]) are step-less special
    pieces at (0, 0), where its single-sequence template puts them.
    """
    model = tokenizer.model
    byte_level = isinstance(tokenizer.decoder, ByteLevelDecoder)
    budget = StepBudget()
    pre_tokens = []
    for part, part_start, part_end, is_special in tokenizer.split_special_tokens(text):
        if is_special:
            pre_tokens.append(
                _special_pre_token(part, tokenizer.special_token_ids[part], part_start, part_end)
            )
            continue
        for piece in tokenizer.pre_tokenize(part, first_part=part_start == 0):
            piece = _shifted(piece, part_start)
            if isinstance(model, BPEModel):
                pre_tokens.append(_bpe_pre_token(model, piece, text, byte_level, budget))
            else:
                pre_tokens.append(_wordpiece_pre_token(model, piece, text, budget))
    if add_special_tokens and tokenizer.post_processor is not None:
        pre_tokens = _with_template(tokenizer.post_processor, pre_tokens)
    return EncodeSteps(text, name, model.type_name, byte_level, tuple(pre_tokens))


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


def pretrained_encode_steps(name: str, text: str) -> EncodeSteps:
    """`encode_pretrained(name, text)` step by step (GPT-2, cl100k_base, o200k_base; see
    `encode_steps_tiktoken`)."""
    from explorer.encode_steps_tiktoken import tiktoken_encode_steps

    return tiktoken_encode_steps(name, text)
