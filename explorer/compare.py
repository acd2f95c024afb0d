"""Comparing tokenizers: columns of token spans, where two tokenizers cut a text differently, how
they measure on sentences and on a whole corpus, how a trained one improves merge by merge, and
tokenizers uploaded as files.

- A `TokenizerColumn` is a name plus `encode(text) -> pieces` (pieces have `id`, `start`, `end`
  character offsets and, when known, `token_bytes`), optionally with `encode_batch(texts)` for a
  whole corpus. Trained runs, the bundled pretrained tokenizers and uploads all become columns.
- `boundary_diff` lines two tokenizations of one text up by character offsets and flags the token
  boundaries that only one of them has; `boundary_diff_html` draws them as two aligned rows.
- `measure_corpus` runs `metrics.compute_metrics` over a corpus through a column's batch encoder:
  the `tokenizers` library for tokenizer.json-shaped tokenizers (`library_batch_encoder`) and
  tiktoken's batch encoder for the pretrained ones (`pretrained_batch_encoder`), because our
  pure-Python encoder needs about 8 s per MB.
- `metrics_curve` reads chars/token, bytes/token, fertility and the split-word share against
  vocabulary size straight from a training Trace, without encoding anything again.
- `read_uploads` turns uploaded tokenizer.json, vocab.txt (WordPiece), vocab.json + merges.txt
  (BPE) and SentencePiece `.model` files into columns, or into one-line error messages.

Every string from a user, a corpus or a vocabulary is escaped (`render.escape_text`) before it
becomes HTML.

What it does not do: import streamlit, cache, or time anything but `measure_corpus`; train
(explorer.pipeline) or define the metrics (explorer.metrics).
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import accumulate, repeat
from typing import Any

import pandas as pd
import tokenizers

from explorer.bytelevel import BYTE_LEVEL_ALPHABET, bytes_to_symbols, symbols_to_bytes
from explorer.charts import sampled_steps
from explorer.decoders import ByteLevelDecoder, WordPieceDecoder
from explorer.encode_steps import encode_steps, pretrained_encode_steps
from explorer.hf_json import (
    bpe_from_vocab_merges,
    tokenizer_from_json,
    tokenizer_to_json,
    wordpiece_from_vocab_txt,
)
from explorer.metrics import TokenizerMetrics, add_metrics, compute_metrics, metrics_table
from explorer.models import BPEModel, WordPieceModel
from explorer.normalizers import BertNormalizer
from explorer.pipeline import encode_pieces
from explorer.pre_tokenizers import build_pre_tokenizer
from explorer.pretrained import (
    BUNDLED,
    byte_to_char_index,
    encode,
    info_for,
    load_encoding,
    replace_surrogates,
)
from explorer.pretrained.registry import TIKTOKEN_KINDS
from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer
from explorer.render import PALETTE, escape_text, readable_token, token_spans_html
from explorer.tokenizer import Tokenizer
from explorer.tokens import DROPPED, SPECIAL, TOKEN, UNKNOWN, Piece, lost_characters, tokens_only
from explorer.trace import Trace
from explorer.wording import plural

Encoder = Callable[[str], Sequence[Piece]]
BatchEncoder = Callable[[Sequence[str]], list[Sequence[Piece]]]


# ---------------------------------------------------------------- columns


@dataclass(frozen=True)
class TokenizerColumn:
    """One tokenizer on the Compare page.

    `key` tells columns apart in the page's widgets; `content_key` names what the tokenizer *is*
    (a hash of its files), so measurements can be cached across runs and sessions. `encode` gives
    `explorer.tokens.Piece`s; `encode_batch` is a fast path for a whole corpus; without it
    `encode` is called once per text.
    """

    name: str
    encode: Encoder
    caption: str = ""
    key: str = ""
    content_key: str = ""
    encode_batch: BatchEncoder | None = None
    note: str = ""
    steps: Callable[[str], Any] | None = None  # text -> encode_steps.EncodeSteps, when it can show them
    # How a worker process rebuilds it to measure a whole corpus (explorer.work.tasks.measure_task):
    # {"name", "tokenizer_json"}, {"name", "library_json"} or {"pretrained": name}; None: it cannot.
    spec: dict | None = None


def sentences_from(text: str) -> list[str]:
    """One sentence per non-empty line."""
    return [line for line in text.splitlines() if line.strip()]


def content_key(kind: str, text: str | bytes) -> str:
    data = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
    return f"{kind}:{hashlib.sha256(data).hexdigest()}"


def tokenizer_column(
    tok: Tokenizer, name: str, caption: str = "", key: str = "", note: str = "", exported: str | None = None
) -> TokenizerColumn:
    """A column for one of our tokenizers; a whole corpus goes through the `tokenizers` library,
    unless the tokenizer may drop characters: the library's offsets do not count a dropped
    character, so our encoder (exact offsets, `DROPPED` pieces) measures those.

    `exported` is `tokenizer_to_json(tok)` when the caller already has it.
    """
    exported = tokenizer_to_json(tok) if exported is None else exported
    return TokenizerColumn(
        name=name,
        encode=functools.partial(encode_pieces, tok),
        caption=caption,
        key=key or content_key("ours", exported),
        content_key=content_key("ours", exported),
        encode_batch=None if tok.may_drop_characters() else library_batch_encoder(exported),
        note=note,
        steps=functools.partial(encode_steps, tok, name=name)
        if isinstance(tok.model, (BPEModel, WordPieceModel))
        else None,
        spec={"name": name, "tokenizer_json": exported},
    )


def pretrained_column(name: str, special_tokens: bool = False) -> TokenizerColumn:
    """A bundled pretrained tokenizer (explorer.pretrained.BUNDLED); nothing is loaded until the
    column first encodes. `special_tokens`: special-token text in the sentences becomes the
    model's special tokens (a column of its own, keyed apart) instead of ordinary text."""
    info = info_for(name)
    switch = "special tokens on" if special_tokens else "special-token text is plain text"
    return TokenizerColumn(
        name=info.label,
        encode=functools.partial(encode, name, special_tokens=special_tokens),
        caption=f"pretrained, {info.vocab_size:,} ids, from {info.package} {info.package_version}",
        key=f"pretrained:{name}" + (":special" if special_tokens else ""),
        content_key=f"pretrained:{name}:{int(special_tokens)}:"
        + ",".join(data_file.sha256 for data_file in info.files),
        encode_batch=pretrained_batch_encoder(name, special_tokens),
        note=f"{info.models}. File: {info.file_names}; {switch}.",
        steps=functools.partial(pretrained_encode_steps, name)
        if info.kind in TIKTOKEN_KINDS and not (special_tokens or info.normalization)
        else None,
        spec={"pretrained": name, "special_tokens": special_tokens},
    )


def contiguous_runs(pieces: Sequence[Piece]) -> list[tuple[int, list[Piece]]]:
    """Pieces grouped into runs that touch each other, each with the text offset where it starts.

    Pieces of one run are adjacent or overlap (byte tokens sharing a character); between two runs
    lies text that no token covers (e.g. spaces a BERT pre-tokenizer drops).
    """
    runs: list[tuple[int, list[Piece]]] = []
    end = None
    for piece in pieces:
        if end is None or piece.start > end:
            runs.append((piece.start, []))
        runs[-1][1].append(piece)
        end = piece.end if end is None else max(end, piece.end)
    return runs


def _gap_html(text: str) -> str:
    skipped = readable_token(text.encode("utf-8", errors="surrogatepass"))
    return f'<span class="gap" title="not part of any token">{escape_text(skipped)}</span>'


def line_html(
    text: str, pieces: Sequence[Piece], show_ids: bool = False, new_token: str | None = None
) -> str:
    """Token spans of one text; text that no token covers is shown faded, whitespace as markers
    (a character the model drops is not faded: it has a `DROPPED` piece, drawn as a marked box).
    Tokens equal to `new_token` are outlined (`render.token_spans_html`)."""
    parts, covered = [], 0
    for start, run in contiguous_runs(pieces):
        if start > covered:
            parts.append(_gap_html(text[covered:start]))
        parts.append(token_spans_html(text, run, show_ids=show_ids, new_token=new_token))
        covered = max(covered, max(piece.end for piece in run))
    if covered < len(text):
        parts.append(_gap_html(text[covered:]))
    return f'<div class="compare-line" style="line-height:1.9;">{"".join(parts)}</div>'


def count_note(pieces: Sequence[Piece]) -> str:
    """'12 tokens', and what is lost when something is: '12 tokens · 2 characters lost'."""
    tokens = len(tokens_only(pieces))
    lost = lost_characters(pieces)
    note = plural(tokens, "token")
    return note + (f" · {plural(lost, 'character')} lost (unknown or dropped)" if lost else "")


def column_html(column: TokenizerColumn, sentences: Sequence[str], show_ids: bool = False) -> tuple[str, int]:
    """Token spans of every sentence (ids on hover, or shown), whitespace visible, each sentence's
    token count (and the characters no token spells out), and the total token count."""
    blocks, total = [], 0
    for sentence in sentences:
        pieces = list(column.encode(sentence))
        total += len(tokens_only(pieces))
        blocks.append(
            f'<div class="compare-sentence" style="margin-bottom:0.8em;">{line_html(sentence, pieces, show_ids)}'
            f'<div style="color:#777;font-size:0.8em;">{escape_text(count_note(pieces))}</div></div>'
        )
    return (
        f'<div class="compare-column" data-tokenizer="{escape_text(column.name)}">{"".join(blocks)}</div>',
        total,
    )


def comparison_table(columns: Sequence[TokenizerColumn], sentences: Sequence[str]) -> pd.DataFrame:
    """tokens, characters/token, bytes/token, tokens/word, words split, unknown rate per column."""
    return metrics_table(compute_metrics(column.name, sentences, column.encode) for column in columns)


# ---------------------------------------------------------------- boundary diff


@dataclass(frozen=True)
class DiffSegment:
    """A stretch of text between two consecutive boundaries of either tokenizer.

    `a_cut` / `b_cut`: tokenizer A / B has a token boundary at `start` (never true at offset 0).
    `a_tokens` / `b_tokens`: indices of the pieces covering the stretch; none means that
    tokenizer's pre-tokenizer dropped it (e.g. BERT drops spaces), two or more means its tokens
    split the stretch's character(s) between them (byte-level tokens holding parts of one
    character).
    """

    start: int
    end: int
    text: str
    a_cut: bool
    b_cut: bool
    a_tokens: tuple[int, ...]
    b_tokens: tuple[int, ...]
    a_dropped: bool = False  # tokenizer A drops this text (its model has no token for it)
    b_dropped: bool = False

    @property
    def a_splits_character(self) -> bool:
        return len(self.a_tokens) >= 2

    @property
    def b_splits_character(self) -> bool:
        return len(self.b_tokens) >= 2

    @property
    def differs(self) -> bool:
        """The two tokenizers cut here differently, or only one splits this character's bytes."""
        return self.a_cut != self.b_cut or self.a_splits_character != self.b_splits_character


def token_boundaries(text: str, pieces: Sequence[Piece]) -> set[int]:
    """Offsets strictly inside `text` where a piece starts or ends (empty-span pieces ignored)."""
    cuts: set[int] = set()
    for piece in pieces:
        if piece.end > piece.start:
            cuts.update((piece.start, piece.end))
    return {cut for cut in cuts if 0 < cut < len(text)}


def _covering(pieces: Sequence[Piece], start: int, end: int) -> tuple[int, ...]:
    return tuple(index for index, piece in enumerate(pieces) if piece.start < end and piece.end > start)


def boundary_diff(text: str, pieces_a: Sequence[Piece], pieces_b: Sequence[Piece]) -> list[DiffSegment]:
    """`text` cut at every boundary of either tokenization, each stretch saying whose it is.

    Segments tile the text in order; together their flags say where A and B agree. Pieces are
    anything with character offsets `start`/`end` into `text` (tokens of one character may overlap,
    as byte-level tokens sharing a character do).
    """
    dropped_a = [piece for piece in pieces_a if piece.kind == DROPPED]
    dropped_b = [piece for piece in pieces_b if piece.kind == DROPPED]
    pieces_a, pieces_b = tokens_only(pieces_a), tokens_only(pieces_b)
    cuts_a = token_boundaries(text, pieces_a)
    cuts_b = token_boundaries(text, pieces_b)
    # A dropped character is cut off from its neighbours in the row of the tokenizer that drops it.
    offsets = [0, *sorted(cuts_a | cuts_b | token_boundaries(text, dropped_a + dropped_b)), len(text)]
    segments = []
    for start, end in zip(offsets, offsets[1:]):
        if end <= start:
            continue
        segments.append(
            DiffSegment(
                start=start,
                end=end,
                text=text[start:end],
                a_cut=start in cuts_a,
                b_cut=start in cuts_b,
                a_tokens=_covering(pieces_a, start, end),
                b_tokens=_covering(pieces_b, start, end),
                a_dropped=bool(_covering(dropped_a, start, end)),
                b_dropped=bool(_covering(dropped_b, start, end)),
            )
        )
    return segments


@dataclass(frozen=True)
class DiffSummary:
    both: int  # boundaries both tokenizers have
    only_a: int
    only_b: int


def diff_summary(segments: Sequence[DiffSegment]) -> DiffSummary:
    return DiffSummary(
        both=sum(1 for s in segments if s.a_cut and s.b_cut),
        only_a=sum(1 for s in segments if s.a_cut and not s.b_cut),
        only_b=sum(1 for s in segments if s.b_cut and not s.a_cut),
    )


SHARED_CUT_COLOUR = "#444"
ONLY_CUT_COLOUR = "#d1495b"
DIFF_STYLE = (
    "<style>.boundary-diff .diff-seg{display:inline-block;vertical-align:top;margin:0 0 6px 0;}"
    ".boundary-diff .diff-cell{display:block;padding:1px 1px 1px 0;white-space:pre;color:#111;"
    "font-family:ui-monospace,monospace;border-left:3px solid transparent;}"
    f".boundary-diff .cut{{border-left-color:{SHARED_CUT_COLOUR};}}"
    f".boundary-diff .cut-only{{border-left-color:{ONLY_CUT_COLOUR};box-shadow:inset 2px 0 0 {ONLY_CUT_COLOUR};}}"
    ".boundary-diff .uncovered{color:#bbb;background:transparent !important;}"
    ".boundary-diff .dropped{color:#b00020;background:transparent !important;outline:1.5px dashed #b00020;outline-offset:-2px;}"
    ".boundary-diff .split-char{text-decoration:underline dotted #d1495b;}</style>"
)


def _diff_cell(segment: DiffSegment, side: str, label: str) -> str:
    cut = segment.a_cut if side == "a" else segment.b_cut
    other_cut = segment.b_cut if side == "a" else segment.a_cut
    tokens = segment.a_tokens if side == "a" else segment.b_tokens
    dropped = segment.a_dropped if side == "a" else segment.b_dropped
    classes = [f"diff-cell diff-{side}"]
    if cut:
        classes.append("cut" if other_cut else f"cut cut-only diff-only-{side}")
    title = f"{label}: "
    if dropped and not tokens:
        classes.append("dropped")
        title += "dropped: no token for this character and no unknown token"
    elif not tokens:
        classes.append("uncovered")
        title += "not part of any token"
    else:
        title += (
            f"token {tokens[0] + 1}"
            if len(tokens) == 1
            else f"tokens {tokens[0] + 1}-{tokens[-1] + 1} share this character"
        )
        if len(tokens) >= 2:
            classes.append("split-char")
    if cut:
        title += "; a token starts here" + ("" if other_cut else " (only here)")
    colour = PALETTE[tokens[0] % len(PALETTE)] if tokens else "transparent"
    shown = readable_token(segment.text.encode("utf-8", errors="surrogatepass"))
    return (
        f'<span class="{" ".join(classes)}" title="{escape_text(title)}" style="background:{colour};">'
        f"{escape_text(shown)}</span>"
    )


def boundary_diff_html(segments: Sequence[DiffSegment], name_a: str, name_b: str) -> str:
    """Two aligned rows (A on top, B below) of the same characters, one column per segment.

    A boundary is a bar on the left of a cell: dark when both tokenizers have it, red when only
    that row's tokenizer has it. Cells are coloured by the token covering them (the same colours
    as the token columns); faded text is dropped by that tokenizer's pre-tokenizer; a dotted
    underline marks a character whose bytes that tokenizer splits between tokens.
    """
    cells = "".join(
        f'<span class="diff-seg{" differs" if segment.differs else ""}">'
        f"{_diff_cell(segment, 'a', name_a)}{_diff_cell(segment, 'b', name_b)}</span>"
        for segment in segments
    )
    return f'<div class="boundary-diff" style="line-height:1.5;">{DIFF_STYLE}<div class="diff-line">{cells}</div></div>'


def diff_legend_html(name_a: str, name_b: str, summary: DiffSummary) -> str:
    return (
        '<div class="diff-legend" style="font-size:0.875rem;color:#555;margin-bottom:4px;">'
        f"Top row: <b>{escape_text(name_a)}</b> · bottom row: <b>{escape_text(name_b)}</b>. "
        f'<span style="border-left:3px solid {SHARED_CUT_COLOUR};padding-left:3px;">both cut here</span> '
        f'<span style="border-left:3px solid {ONLY_CUT_COLOUR};padding-left:3px;">only this one cuts here</span>. '
        f"{summary.both} boundaries shared, {summary.only_a} only on top, {summary.only_b} only below.</div>"
    )


# ---------------------------------------------------------------- a whole corpus


def pieces_from_byte_lengths(
    text: str, token_ids: Sequence[int], lengths: Sequence[int], spellings: Sequence[str]
) -> list[Piece]:
    """Pieces of tokens whose UTF-8 byte lengths, in order, add up to `text`'s; `spellings` are
    their values. Same spans as `pretrained.pieces_from_token_bytes` (a token holding part of a
    character gets the whole character's span); ASCII text, where bytes are characters, skips the
    byte map. No `token_bytes`: a measurement does not draw."""
    ends = list(accumulate(lengths))
    starts = [0, *ends[:-1]]
    if not text.isascii():
        owners = byte_to_char_index(text)
        starts = [owners[start] for start in starts]
        ends = [owners[end - 1] + 1 for end in ends]
    return list(map(_new_piece, zip(token_ids, spellings, starts, ends, repeat(None), repeat(TOKEN))))


# Piece(*fields) goes through a Python-level __new__; tuple.__new__ builds the same Piece in C, which
# halves the cost of the ~400,000 pieces of a 1 MB corpus.
_new_piece = functools.partial(tuple.__new__, Piece)


@functools.lru_cache(maxsize=len(BUNDLED))
def _token_tables(name: str) -> tuple[list[int], list[str]]:
    """Byte length and spelling (GPT-2's byte symbols) of every token id of a pretrained encoding
    (0 and "" for ids it does not use): one table lookup per token instead of one call into
    tiktoken (0.3 s once for o200k_base)."""
    encoding = load_encoding(name)
    lengths, spellings = [0] * encoding.n_vocab, [""] * encoding.n_vocab
    for token_id in range(encoding.n_vocab):
        try:
            token_bytes = encoding.decode_single_token_bytes(token_id)
        except KeyError:  # a gap between the ordinary and the special tokens
            continue
        lengths[token_id], spellings[token_id] = len(token_bytes), bytes_to_symbols(token_bytes)
    return lengths, spellings


BATCH_CHUNK = 2_000  # texts per task of the pretrained batch encoder
BATCH_THREADS = 4


def pretrained_batch_encoder(name: str, special_tokens: bool = False) -> BatchEncoder:
    """Encode many texts with tiktoken on a few threads (tiktoken's Rust encoder releases the GIL),
    as `encode_pretrained` does one at a time: special-token text is plain text, lone surrogates
    count as U+FFFD. Tokenizers that tiktoken does not encode as is (Qwen's normalizes first,
    DeepSeek's and SentencePiece models are not tiktoken's) and the special-token switch go
    through `explorer.pretrained.encode`, one text at a time.

    Like `Encoding.encode_ordinary_batch`, but in chunks: that method submits one thread-pool task
    per text, and for corpus lines the task overhead is several times the encoding (1.0 s against
    0.2 s for the 26,000 distinct lines of tinyshakespeare).
    """

    info = info_for(name)
    if special_tokens or info.kind not in TIKTOKEN_KINDS or info.normalization:
        return lambda texts: [encode(name, text, special_tokens) for text in texts]

    def encode_chunk(texts: Sequence[str]) -> list[list[Piece]]:
        encoding, (lengths, spellings) = load_encoding(name), _token_tables(name)
        pieces = []
        for text in texts:
            clean = text if text.isascii() else replace_surrogates(text)
            token_ids = encoding.encode_ordinary(clean)
            pieces.append(
                pieces_from_byte_lengths(
                    clean,
                    token_ids,
                    [lengths[token_id] for token_id in token_ids],
                    [spellings[token_id] for token_id in token_ids],
                )
            )
        return pieces

    def encode_batch(texts: Sequence[str]) -> list[list[Piece]]:
        chunks = [texts[start : start + BATCH_CHUNK] for start in range(0, len(texts), BATCH_CHUNK)]
        if len(chunks) <= 1:
            return encode_chunk(texts)
        with ThreadPoolExecutor(max_workers=min(BATCH_THREADS, os.cpu_count() or 1)) as pool:
            return [spans for chunk in pool.map(encode_chunk, chunks) for spans in chunk]

    return encode_batch


def library_batch_encoder(tokenizer_json: str) -> BatchEncoder:
    """Encode many texts with the `tokenizers` library, loaded from a tokenizer.json.

    For our own tokenizers this is the exported tokenizer.json (`hf_json.tokenizer_to_json`):
    tests/test_interop.py checks that the library encodes it exactly as our pure-Python pipeline
    does, which needs about 8 s per MB where the library, in Rust on all cores, needs well under
    one. The library is loaded on first use. Like `encode_pieces`, no [CLS]/[SEP] are added.
    """
    loaded: list[tuple[tokenizers.Tokenizer, int | None]] = []

    def encode_batch(texts: Sequence[str]) -> list[list[Piece]]:
        if not loaded:
            library = tokenizers.Tokenizer.from_str(tokenizer_json)
            loaded.append((library, _library_unknown_id(json.loads(tokenizer_json), library)))
        library, unknown = loaded[0]
        encodings = library.encode_batch(list(texts), add_special_tokens=False)
        return [_library_pieces(encoding, unknown) for encoding in encodings]

    return encode_batch


@dataclass(frozen=True)
class CorpusMeasurement:
    metrics: TokenizerMetrics
    seconds: float


MEASURE_BATCH = 4096  # lines encoded at once by measure_corpus: bounds its memory on any corpus


def measure_corpus(column: TokenizerColumn, texts: Sequence[str]) -> CorpusMeasurement:
    """`compute_metrics` over `texts`, timed: `MEASURE_BATCH` lines at a time (each distinct line
    of a batch encoded once), so only one batch's tokens are ever held."""
    started = time.perf_counter()
    encode_batch = column.encode_batch or (lambda batch: [column.encode(text) for text in batch])
    parts = []
    for first in range(0, len(texts), MEASURE_BATCH):
        batch = texts[first : first + MEASURE_BATCH]
        distinct = list(dict.fromkeys(batch))
        encoded = dict(zip(distinct, encode_batch(distinct)))
        parts.append(compute_metrics(column.name, batch, encoded.__getitem__))
    metrics = add_metrics(parts, column.name) if parts else compute_metrics(column.name, (), column.encode)
    return CorpusMeasurement(metrics, time.perf_counter() - started)


# ---------------------------------------------------------------- the curve of a training run


CURVE_COLUMNS = (
    "merges",
    "vocab_size",
    "tokens",
    "chars_per_token",
    "bytes_per_token",
    "fertility",
    "split_pre_token_share",
)


def word_lengths(trace: Trace) -> tuple[list[int], list[int]]:
    """Characters and UTF-8 bytes of every distinct corpus word (of the text, not the symbols).

    A byte-level word is one symbol per byte: its bytes are its length, its characters those of
    the text it encodes. Any other word is text already.
    """
    characters, utf8_bytes = [], []
    byte_level = trace.config.is_byte_level
    for word in trace.words:
        if byte_level:
            try:
                data = symbols_to_bytes(word)
            except ValueError:  # not byte symbols after all (cannot happen for a trained word)
                data = word.encode("utf-8", errors="surrogatepass")
            characters.append(len(data.decode("utf-8", errors="replace")))
            utf8_bytes.append(len(data))
        else:
            characters.append(len(word))
            utf8_bytes.append(len(word.encode("utf-8", errors="surrogatepass")))
    return characters, utf8_bytes


def metrics_curve(trace: Trace, points: int = 100) -> pd.DataFrame:
    """The corpus figures after k merges, for about `points` values of k from 0 to the last.

    Tokens after k merges are `trace.corpus_tokens[k]`. Characters, bytes and words are the raw
    corpus counted as the Compare page counts a text (`trace.corpus`, from `corpus.count_text`),
    so characters / token, bytes / token and tokens per word mean exactly what they mean in the
    whole-corpus table (they agree at the last merge, up to special tokens and the rare word that
    applying merges by rank cuts otherwise than training did). The split share is of a different
    thing, pre-tokens (the words as the pre-tokenizer cuts them, with repeats), hence its own name:
    a pre-token is split after k merges iff its latest boundary step is >= k, so one sort of those
    steps answers every k. Nothing is re-encoded and nothing retrained. A trace written before
    version 3 has no corpus counts: its pre-tokens stand in for the words and their text.
    """
    pre_tokens = sum(trace.counts)
    if trace.corpus is not None:
        characters, utf8_bytes, words = (trace.corpus[key] for key in ("characters", "utf8_bytes", "words"))
    else:
        characters_per_word, bytes_per_word = word_lengths(trace)
        characters = sum(c * n for c, n in zip(characters_per_word, trace.counts))
        utf8_bytes = sum(b * n for b, n in zip(bytes_per_word, trace.counts))
        words = pre_tokens

    # Latest boundary step of each pre-token (-1: one symbol, never split), sorted, with the counts
    # from each position to the end: the split pre-tokens after k merges are a suffix.
    latest = sorted(
        (max(steps, default=-1), count) for steps, count in zip(trace.boundary_steps, trace.counts)
    )
    latest_steps = [step for step, _ in latest]
    counts_from = list(accumulate(reversed([count for _, count in latest])))[::-1] + [0]

    rows = []
    for k in sampled_steps(trace.steps + 1, points):
        tokens = trace.corpus_tokens[k]
        split = counts_from[bisect.bisect_left(latest_steps, k)]
        rows.append(
            (
                k,
                trace.vocab_sizes[k],
                tokens,
                _ratio(characters, tokens),
                _ratio(utf8_bytes, tokens),
                _ratio(tokens, words),
                _ratio(split, pre_tokens),
            )
        )
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else math.nan


# ---------------------------------------------------------------- uploaded tokenizers


@dataclass(frozen=True)
class UploadedFile:
    name: str
    data: bytes


@dataclass
class UploadedTokenizer:
    """A tokenizer read from uploaded files: ours when our readers can read it, else the library's,
    or a SentencePiece model read by the `sentencepiece` package.

    Exactly one of `tokenizer` (ours, with `exported`, its tokenizer.json), `library_json` (a
    tokenizer.json only the `tokenizers` library reads, e.g. a Unigram model) and `sentencepiece`
    (a `.model` file) is set.
    """

    key: str
    name: str
    kind: str
    tokenizer: Tokenizer | None = None
    exported: str | None = None
    library_json: str | None = None
    note: str = ""
    sentencepiece: SentencePieceTokenizer | None = None

    @cached_property
    def column(self) -> TokenizerColumn:
        """The Compare page's column for it (built once: loading a large vocabulary takes time)."""
        if self.tokenizer is not None:
            column = tokenizer_column(
                self.tokenizer, self.name, f"uploaded {self.kind}", self.key, self.note, self.exported
            )
            return replace(column, content_key=self.key)
        if self.sentencepiece is not None:
            return sentencepiece_column(self.sentencepiece, self.name, self.key, self.note)
        data = json.loads(self.library_json)
        library = tokenizers.Tokenizer.from_str(self.library_json)
        return TokenizerColumn(
            name=self.name,
            encode=functools.partial(
                library_pieces, library, _mentions_byte_level(data), _library_unknown_id(data, library)
            ),
            caption=f"uploaded {self.kind}",
            key=self.key,
            content_key=self.key,
            encode_batch=library_batch_encoder(self.library_json),
            note=self.note,
            spec={"name": self.name, "library_json": self.library_json},
        )


def sentencepiece_column(
    model: SentencePieceTokenizer, name: str, key: str, note: str = "", special_tokens: bool = False
) -> TokenizerColumn:
    """A column for a SentencePiece model: pieces with `▁` for spaces, byte-fallback pieces as
    their byte, the unknown piece counted as unknown. `special_tokens`: control pieces such as
    `<s>` or `[INST]` in the sentences become their ids (a column keyed apart)."""
    return TokenizerColumn(
        name=name,
        encode=functools.partial(model.encode, special_tokens=special_tokens),
        caption=f"uploaded SentencePiece model, {model.vocab_size:,} ids",
        key=key + (":special" if special_tokens else ""),
        content_key=key + (":special" if special_tokens else ""),
        note=note,
    )


def sentencepiece_upload(upload: UploadedFile) -> UploadedTokenizer:
    """A SentencePiece `.model` (Llama 2, Mistral v1-v3, T5, Gemma...), Unigram or BPE; ValueError
    naming the file and what is wrong with it otherwise."""
    try:
        model = SentencePieceTokenizer.from_bytes(upload.data, upload.name)
    except ValueError as error:
        raise ValueError(f"{upload.name}: {error}") from None
    facts = model.facts
    fallback = (
        "unknown characters become their UTF-8 bytes (<0xE2>...)"
        if facts.byte_fallback
        else ("no byte fallback: characters outside the vocabulary become the unknown piece")
    )
    return UploadedTokenizer(
        key=content_key("upload", upload.data),
        name=f"{upload.name} (uploaded)",
        kind="SentencePiece .model",
        sentencepiece=model,
        note=f"SentencePiece {facts.model_type} model, normalizer {facts.normalizer or 'none'}; {fallback}; ▁ marks a space.",
    )


def library_pieces(
    tok: tokenizers.Tokenizer, byte_level: bool, unknown: int | None, text: str
) -> list[Piece]:
    """Encode with the `tokenizers` library into the pieces the page draws (no [CLS]/[SEP]);
    `unknown`: the id of the model's unknown token."""
    encoding = tok.encode(text, add_special_tokens=False)
    pieces = []
    for piece in _library_pieces(encoding, unknown):
        token_bytes = None
        if byte_level and piece.kind == TOKEN:
            try:
                token_bytes = symbols_to_bytes(piece.value)
            except ValueError:  # an added token such as "<s>" is plain text
                pass
        pieces.append(piece._replace(token_bytes=token_bytes))
    return pieces


def _library_pieces(encoding: tokenizers.Encoding, unknown: int | None) -> list[Piece]:
    """The pieces of a library Encoding: special tokens by its mask, the unknown token by id."""
    if not encoding.ids:
        return []
    kinds = [
        SPECIAL if special else UNKNOWN if token_id == unknown else TOKEN
        for token_id, special in zip(encoding.ids, encoding.special_tokens_mask)
    ]
    return list(
        map(
            _new_piece,
            zip(encoding.ids, encoding.tokens, *zip(*encoding.offsets), repeat(None), kinds),
        )
    )


def _mentions_byte_level(component: object) -> bool:
    """Whether a tokenizer.json component (or any component nested in it) is a ByteLevel one."""
    if isinstance(component, dict):
        if component.get("type") == "ByteLevel":
            return True
        return any(_mentions_byte_level(value) for key, value in component.items() if key != "model")
    if isinstance(component, list):
        return any(_mentions_byte_level(value) for value in component)
    return False


def _library_unknown_id(data: dict, tok: tokenizers.Tokenizer) -> int | None:
    model = data.get("model") or {}
    if model.get("type") == "Unigram":
        unk = model.get("unk_id")
        return unk if isinstance(unk, int) else None
    unk_token = model.get("unk_token")
    return tok.token_to_id(unk_token) if isinstance(unk_token, str) else None


def _text(upload: UploadedFile) -> str:
    try:
        return upload.data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{upload.name}: not UTF-8 text (byte {error.start} is invalid)") from None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def tokenizer_json_upload(upload: UploadedFile) -> UploadedTokenizer:
    """A tokenizer.json: read by our reader if it can, else encoded by the `tokenizers` library
    (e.g. Unigram models); ValueError naming the file when neither can read it."""
    text = _text(upload)
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{upload.name}: not valid JSON ({error})") from None
    key, name = content_key("upload", upload.data), f"{upload.name} (uploaded)"
    try:
        ours = tokenizer_from_json(text)
    except Exception as error:  # ValueError, or whatever else a hostile file trips over
        reason = _first_line(error).removeprefix("tokenizer.json: ")
        try:
            tokenizers.Tokenizer.from_str(text)
        except Exception as library_error:  # the library raises plain Exceptions with serde's message
            raise ValueError(
                f"{upload.name}: {reason}; the tokenizers library cannot read it either ({_first_line(library_error)})"
            ) from None
        return UploadedTokenizer(
            key=key,
            name=name,
            kind="tokenizer.json",
            library_json=text,
            note=f"Encoded by the tokenizers library: our reader does not support it ({reason}).",
        )
    return UploadedTokenizer(
        key=key, name=name, kind="tokenizer.json", tokenizer=ours, exported=tokenizer_to_json(ours)
    )


UNKNOWN_TOKENS = ("[UNK]", "<unk>", "<UNK>")
BERT_SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def _has_capitals(tokens) -> bool:
    return any(any(char.isupper() for char in token) for token in tokens if not token.startswith(("[", "<")))


def vocab_txt_upload(upload: UploadedFile) -> UploadedTokenizer:
    """A WordPiece vocab.txt (one token per line, line n = id n), set up as BERT uses it.

    A vocab.txt holds no pipeline, so: BERT's pre-tokenizer, BERT's normalizer (lowercasing and
    stripping accents only when no token has a capital letter, i.e. an uncased vocabulary), the
    "##" prefix and the first of [UNK], <unk>, <UNK> in the vocabulary as the unknown token.
    """
    text = _text(upload)
    try:
        model = wordpiece_from_vocab_txt(text)
    except ValueError as error:
        raise ValueError(f"{upload.name}: {error}") from None
    tokens = [token for token in model.vocab if token]
    if not tokens:
        raise ValueError(f"{upload.name}: the vocabulary is empty (a vocab.txt has one token per line)")
    if any(" " in token for token in tokens) and len(tokens) > 1:
        example = next(token for token in tokens if " " in token)
        raise ValueError(
            f"{upload.name}: line {model.vocab[example] + 1} ({example!r}) has a space: a vocab.txt has one "
            "token per line (is this a merges.txt? upload it together with its vocab.json)"
        )
    unk = next((token for token in UNKNOWN_TOKENS if token in model.vocab), None)
    if unk is None:
        raise ValueError(
            f"{upload.name}: no unknown token ([UNK] or <unk>) in the vocabulary; WordPiece needs one"
        )
    model.unk_token = unk
    lowercase = not _has_capitals(tokens)
    tok = Tokenizer(
        normalizer=BertNormalizer(lowercase=lowercase),
        pre_tokenizer=build_pre_tokenizer("bert"),
        model=model,
        special_tokens=[token for token in (*BERT_SPECIAL_TOKENS, unk) if token in model.vocab],
        decoder=WordPieceDecoder(prefix=model.continuing_subword_prefix),
    )
    cased = "uncased: lowercased, accents stripped" if lowercase else "cased"
    return UploadedTokenizer(
        key=content_key("upload", upload.data),
        name=f"{upload.name} (uploaded)",
        kind="vocab.txt",
        tokenizer=tok,
        exported=tokenizer_to_json(tok),
        note=f"WordPiece with BERT's normalizer ({cased}) and pre-tokenizer.",
    )


def vocab_merges_upload(vocab: UploadedFile, merges: UploadedFile) -> UploadedTokenizer:
    """A BPE vocab.json + merges.txt pair.

    These files hold no pipeline either: a vocabulary holding all 256 byte symbols is byte-level
    (GPT-2's pre-tokenizer and decoder, like GPT-2 and RoBERTa); otherwise words are split with
    the `Whitespace` pre-tokenizer, with "</w>" as end-of-word suffix when tokens carry it.
    """
    vocab_text, merges_text = _text(vocab), _text(merges)
    try:
        parsed_vocab = json.loads(vocab_text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{vocab.name}: not valid JSON ({error})") from None
    byte_level = isinstance(parsed_vocab, dict) and all(
        symbol in parsed_vocab for symbol in BYTE_LEVEL_ALPHABET
    )
    suffix = None
    if (
        isinstance(parsed_vocab, dict)
        and not byte_level
        and any(token.endswith("</w>") for token in parsed_vocab)
    ):
        suffix = "</w>"
    unk = next(
        (token for token in UNKNOWN_TOKENS if isinstance(parsed_vocab, dict) and token in parsed_vocab), None
    )
    try:
        model = bpe_from_vocab_merges(vocab_text, merges_text, unk_token=unk, end_of_word_suffix=suffix)
    except ValueError as error:
        message = str(error)
        for prefix, name in (("vocab.json: ", vocab.name), ("merges.txt: ", merges.name)):
            if message.startswith(prefix):
                message = f"{name}: {message[len(prefix) :]}"
        raise ValueError(message) from None
    tok = Tokenizer(
        normalizer=None,
        pre_tokenizer=build_pre_tokenizer("byte-level" if byte_level else "whitespace"),
        model=model,
        special_tokens=[unk] if unk else [],
        decoder=ByteLevelDecoder() if byte_level else None,
    )
    how = (
        "byte-level, like GPT-2"
        if byte_level
        else "whitespace pre-tokenizer" + (", '</w>' suffix" if suffix else "")
    )
    return UploadedTokenizer(
        key=content_key("upload", vocab.data + b"\0" + merges.data),
        name=f"{vocab.name} + {merges.name} (uploaded)",
        kind="vocab.json + merges.txt",
        tokenizer=tok,
        exported=tokenizer_to_json(tok),
        note=f"BPE ({how}).",
    )


def is_sentencepiece_name(name: str) -> bool:
    """'tokenizer.model', 'spiece.model', Mistral's 'tokenizer.model.v3'..."""
    lowered = name.lower()
    return lowered.endswith(".model") or ".model.v" in lowered


def upload_kind(upload: UploadedFile) -> str:
    """'tokenizer.json', 'vocab.json', 'merges.txt', 'vocab.txt' or 'sentencepiece', from the
    content (and name)."""
    name = upload.name.lower()
    if is_sentencepiece_name(name):
        return "sentencepiece"
    if name.endswith(".json"):
        try:
            data = json.loads(_text(upload))
        except json.JSONDecodeError as error:
            raise ValueError(f"{upload.name}: not valid JSON ({error})") from None
        # A vocab.json may well hold a token "model" (GPT-2's does): look at the values first.
        if isinstance(data, dict) and data and all(isinstance(v, int) for v in data.values()):
            return "vocab.json"
        if isinstance(data, dict) and isinstance(data.get("model"), dict):
            return "tokenizer.json"
        raise ValueError(
            f'{upload.name}: neither a tokenizer.json (no "model") nor a vocab.json (an object token -> id)'
        )
    if name.endswith(".txt"):
        first_line = _text(upload).split("\n", 1)[0]
        return "merges.txt" if "merges" in name or first_line.startswith("#version") else "vocab.txt"
    raise ValueError(
        f"{upload.name}: expected a tokenizer.json, a vocab.txt, a vocab.json with its merges.txt, "
        "or a SentencePiece .model"
    )


def _pair_stem(name: str, kind: str) -> str:
    """'gpt2-vocab.json' and 'gpt2-merges.txt' both give 'gpt2-': how a pair is matched by name."""
    lowered = name.lower()
    word = "vocab" if kind == "vocab.json" else "merges"
    return lowered.rsplit(word, 1)[0] if word in lowered else lowered.rsplit(".", 1)[0]


def read_uploads(files: Sequence[UploadedFile]) -> tuple[list[UploadedTokenizer], list[str]]:
    """Uploaded files as tokenizers, plus one message per file that could not be used.

    A vocab.json and a merges.txt make one BPE tokenizer: a single pair is matched whatever its
    names; several pairs are matched by what precedes "vocab"/"merges" in the names.
    """
    found: list[UploadedTokenizer] = []
    errors: list[str] = []
    halves: dict[str, list[UploadedFile]] = {"vocab.json": [], "merges.txt": []}
    for upload in files:
        try:
            kind = upload_kind(upload)
            if kind in halves:
                halves[kind].append(upload)
            elif kind == "tokenizer.json":
                found.append(tokenizer_json_upload(upload))
            elif kind == "sentencepiece":
                found.append(sentencepiece_upload(upload))
            else:
                found.append(vocab_txt_upload(upload))
        except ValueError as error:
            errors.append(str(error))

    vocabs, merges = halves["vocab.json"], halves["merges.txt"]
    if len(vocabs) == 1 and len(merges) == 1:
        pairs = [(vocabs[0], merges[0])]
        vocabs, merges = [], []
    else:
        pairs = []
        for vocab in list(vocabs):
            stem = _pair_stem(vocab.name, "vocab.json")
            partner = next((m for m in merges if _pair_stem(m.name, "merges.txt") == stem), None)
            if partner is not None:
                pairs.append((vocab, partner))
                vocabs.remove(vocab)
                merges.remove(partner)
    for vocab, merge_file in pairs:
        try:
            found.append(vocab_merges_upload(vocab, merge_file))
        except ValueError as error:
            errors.append(str(error))
    errors.extend(f"{v.name}: a vocab.json needs its merges.txt; upload both files together" for v in vocabs)
    errors.extend(f"{m.name}: a merges.txt needs its vocab.json; upload both files together" for m in merges)
    return found, errors
