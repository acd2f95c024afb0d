"""The tokenizers an audit (explorer.measures.audit) can take, as one shape: `AuditSubject`.

- `subject_from_tokenizer(tokenizer, name)`: our Tokenizer (a tokenizer.json read by
  explorer.pipeline, or a trace's `tokenizer_at(k)`), with a BPE replay when its model is BPE.
- `subject_from_pretrained(name, replay=True)`: a bundled tokenizer; tiktoken-style ones get a
  replay whose merges `tiktoken_parents(ranks)` recovers (BPE over each token's own bytes with the
  ranks below its own, the two parts left being its parents), a tokenizer.json with a BPE merge
  list (DeepSeek V4) the replay of `library_bpe_replay`, unless `replay` is False; SentencePiece
  models none.
- `subject_from_loaded(tokenizer, label, no_bpe_reason)`: any tokenizer explorer.pretrained loads
  (a bundled one, an uploaded SentencePiece model), without a replay.

What it does not do: count or judge anything (explorer.measures.audit does), or read files.
No streamlit.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pipeline.decoders import ByteLevelDecoder
from explorer.pipeline.models import BPEModel
from explorer.pipeline.models.bpe_word import merge_all

if TYPE_CHECKING:
    from explorer.pipeline.tokenizer import Tokenizer
    from explorer.pretrained.bundled import PretrainedTokenizer
    from explorer.pretrained.library_backend import LibraryTokenizer

Merge = tuple[int, int, int]  # (left id, right id, merged id)


def strict_text(data: bytes) -> str | None:
    """`data` read as UTF-8, or None when it is not valid UTF-8 (part of a character)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass
class BpeReplay:
    """What replaying a BPE encoding needs: the pre-tokens of a line, the initial symbol ids of a
    pre-token, `lookup((left, right)) -> (rank, merged id) | None` (what merge_all applies), and
    the vocabulary's merges (left, right, merged) for "consumed_by"."""

    pre_tokenize: Callable[[str], list[str]]
    initial: Callable[[str], list[int]]
    lookup: Callable[[tuple[int, int]], tuple[int, int] | None]
    merges: list[Merge]


@dataclass
class AuditSubject:
    """A tokenizer as the audit sees it.

    `ordinary`: id -> bytes of every ordinary (non-special) token; `text_of(id)`: the token's
    decoded text alone (None: its bytes are not UTF-8); `encode_batch(texts)`: each text's ids,
    special-token text as plain text; `bpe`: a replay, or None with `no_bpe_reason`."""

    name: str
    vocab_size: int
    ordinary: dict[int, bytes]
    special_ids: frozenset[int]
    text_of: Callable[[int], str | None]
    encode_batch: Callable[[list[str]], list[list[int]]]
    bpe: BpeReplay | None = None
    no_bpe_reason: str = ""


# ---------------------------------------------------------------- our tokenizers


def _our_token_bytes(tokenizer: Tokenizer, token: str) -> bytes:
    if isinstance(tokenizer.decoder, ByteLevelDecoder):
        try:
            return symbols_to_bytes(token)
        except ValueError:
            pass
    return token.encode("utf-8", errors="surrogatepass")


def _our_plain_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    """The ids of `text` with special-token text as plain text (no post-processor)."""
    return [
        token.id for piece in tokenizer.pre_tokenize(text) for token in tokenizer.model.tokenize(piece.text)
    ]


def _bpe_initial(model: BPEModel) -> Callable[[str], list[int]]:
    """A pre-token's symbol ids before any merge, as `BPEModel` starts (prefix on every character
    but the first, suffix on the last; an unknown character dropped, or the unk id, fused or not)."""
    prefix, suffix, vocab = model.continuing_subword_prefix, model.end_of_word_suffix, model.vocab
    unk = vocab.get(model.unk_token) if model.unk_token is not None else None

    def initial(word: str) -> list[int]:
        ids: list[int] = []
        last = len(word) - 1
        previous_unknown = False
        for position, char in enumerate(word):
            symbol = (prefix + char if prefix and position else char) + (
                suffix if suffix and position == last else ""
            )
            symbol_id = vocab.get(symbol)
            if symbol_id is not None:
                ids.append(symbol_id)
                previous_unknown = False
            elif model.unk_token is not None:
                if unk is None:
                    raise ValueError(f"BPE: unk_token {model.unk_token!r} is not in the vocabulary")
                if not (model.fuse_unk and previous_unknown):
                    ids.append(unk)
                previous_unknown = True
        return ids

    return initial


def subject_from_tokenizer(tokenizer: Tokenizer, name: str) -> AuditSubject:
    """Our Tokenizer (a tokenizer.json read by explorer.pipeline, or a trace's `tokenizer_at(k)`)."""
    special_ids = frozenset(tokenizer.special_token_ids.values())
    ordinary = {
        token_id: _our_token_bytes(tokenizer, token)
        for token, token_id in tokenizer.model.vocab.items()
        if token_id not in special_ids
    }
    byte_level = isinstance(tokenizer.decoder, ByteLevelDecoder)

    def text_of(token_id: int) -> str | None:
        if byte_level:
            return strict_text(ordinary[token_id])
        return tokenizer.decode([token_id], skip_special_tokens=False)

    def encode_batch(texts: list[str]) -> list[list[int]]:
        return [_our_plain_ids(tokenizer, text) for text in texts]

    model = tokenizer.model
    bpe = None
    reason = ""
    if isinstance(model, BPEModel) and not model.ignore_merges:
        bpe = BpeReplay(
            pre_tokenize=lambda line: [piece.text for piece in tokenizer.pre_tokenize(line)],
            initial=_bpe_initial(model),
            lookup=model.merge_map.get,
            merges=[(left, right, merged) for (left, right), (_, merged) in model.merge_map.items()],
        )
    elif isinstance(model, BPEModel):
        reason = "a BPE model with ignore_merges: whole words skip the merges, no replay here"
    else:
        reason = f"a {model.type_name} model has no merges (stepping stones are a BPE notion)"
    return AuditSubject(
        name=name,
        vocab_size=tokenizer.vocab_size(),
        ordinary=ordinary,
        special_ids=special_ids,
        text_of=text_of,
        encode_batch=encode_batch,
        bpe=bpe,
        no_bpe_reason=reason,
    )


# ---------------------------------------------------------------- pretrained tokenizers


def tiktoken_parents(ranks: dict[bytes, int]) -> list[Merge]:
    """Each multi-byte token's parent pair, the standard way (as the library's tiktoken
    conversion): BPE over the token's own bytes with only the ranks below its own; when two
    parts are left, they are its parents (left, right, token). A token that BPE cannot build
    from two parts is left out."""
    by_id = {rank: token for token, rank in ranks.items()}
    merges: list[Merge] = []
    for token, rank in ranks.items():
        if len(token) < 2:
            continue

        def lookup(pair: tuple[int, int], limit: int = rank) -> tuple[int, int] | None:
            joined = ranks.get(by_id[pair[0]] + by_id[pair[1]])
            return (joined, joined) if joined is not None and joined < limit else None

        ids = [ranks[bytes([byte])] for byte in token]
        lengths = [1] * len(ids)
        merge_all(ids, lengths, lookup)
        parts = [symbol for symbol, length in zip(ids, lengths) if length]
        if len(parts) == 2:
            merges.append((parts[0], parts[1], rank))
    return merges


ADDED = "\x00"  # marks a pre-token that is an added token's text (no byte-level symbol is NUL)


def library_bpe_replay(tokenizer: LibraryTokenizer) -> BpeReplay | None:
    """The replay of a bundled tokenizer.json whose model is byte-level BPE with a merge list
    (DeepSeek V4), or None for another model. Its non-special added tokens are cut out first, as
    the library does (leftmost, then longest); the rest goes through the file's own normalizer and
    pre-tokenizer, whose pieces are already byte-level symbols."""
    import json

    model = json.loads(tokenizer.library.to_str())["model"]
    if model.get("type") != "BPE" or not model.get("merges"):
        return None
    vocab: dict[str, int] = model["vocab"]
    merges = [
        tuple(merge.split(" ", 1)) if isinstance(merge, str) else tuple(merge) for merge in model["merges"]
    ]
    merge_map: dict[tuple[int, int], tuple[int, int]] = {}
    for rank, (left, right) in enumerate(merges):
        merge_map.setdefault((vocab[left], vocab[right]), (rank, vocab[left + right]))
    added = {
        text: token_id
        for token_id, text in tokenizer.added_tokens.items()
        if token_id not in tokenizer.special_ids
    }
    cut = regex.compile(
        "|".join(regex.escape(text) for text in sorted(added, key=len, reverse=True)) or "(?!)"
    )
    normalizer, pre_tokenizer = tokenizer.library.normalizer, tokenizer.library.pre_tokenizer

    def pieces(text: str) -> list[str]:
        text = normalizer.normalize_str(text) if normalizer is not None and text else text
        return [piece for piece, _ in pre_tokenizer.pre_tokenize_str(text)] if text else []

    def pre_tokenize(line: str) -> list[str]:
        words: list[str] = []
        start = 0
        for match in cut.finditer(line):
            words += pieces(line[start : match.start()])
            words.append(ADDED + match.group())
            start = match.end()
        return words + pieces(line[start:])

    def initial(word: str) -> list[int]:
        return [added[word[1:]]] if word.startswith(ADDED) else [vocab[symbol] for symbol in word]

    return BpeReplay(
        pre_tokenize=pre_tokenize,
        initial=initial,
        lookup=merge_map.get,
        merges=[(left, right, merged) for (left, right), (_, merged) in merge_map.items()],
    )


def subject_from_loaded(tokenizer: PretrainedTokenizer, label: str, no_bpe_reason: str) -> AuditSubject:
    """A tokenizer that explorer.pretrained loads (a bundled one, or an uploaded SentencePiece
    model), without a BPE replay: its ordinary tokens are the ids whose token is neither special
    nor a problem."""
    special_ids = frozenset(tokenizer.special_tokens.values())
    ordinary = {}
    for token_id in range(tokenizer.vocab_size):
        token = tokenizer.token(token_id)
        if not token.problem and not token.special and token_id not in special_ids:
            ordinary[token_id] = token.token_bytes
    return AuditSubject(
        name=label,
        vocab_size=tokenizer.vocab_size,
        ordinary=ordinary,
        special_ids=special_ids,
        text_of=lambda token_id: (
            None if strict_text(ordinary[token_id]) is None else tokenizer.decode([token_id]).text
        ),
        encode_batch=lambda texts: [[piece.id for piece in tokenizer.encode(text)] for text in texts],
        no_bpe_reason=no_bpe_reason,
    )


def subject_from_pretrained(name: str, replay: bool = True) -> AuditSubject:
    """A bundled pretrained tokenizer (explorer.pretrained). tiktoken-style ones get a BPE replay
    (their merges recovered by `tiktoken_parents`, 3 s for o200k), a tokenizer.json one the replay
    of its merge list, unless `replay` is False; SentencePiece ones none."""
    from explorer.pretrained import info_for, load_tokenizer
    from explorer.pretrained.library_backend import LibraryTokenizer
    from explorer.pretrained.registry import TIKTOKEN_KINDS

    info = info_for(name)
    if info.kind not in TIKTOKEN_KINDS:
        tokenizer = load_tokenizer(name)
        subject = subject_from_loaded(
            tokenizer,
            info.label,
            no_bpe_reason="stepping stones are replayed for BPE models (tiktoken-style, tokenizer.json and "
            f"ours), not {info.kind} ones (SentencePiece merges by score, not by a merge list)",
        )
        if replay and isinstance(tokenizer, LibraryTokenizer):
            subject.bpe = library_bpe_replay(tokenizer)
        return subject
    from explorer.pretrained.tiktoken_backend import load_encoding

    special_ids = frozenset(info.special_tokens.values())
    encoding = load_encoding(name)  # loaded once per process: no file read again
    ordinary: dict[int, bytes] = {}
    for token_id in range(encoding.n_vocab):
        if token_id not in special_ids:
            try:
                ordinary[token_id] = encoding.decode_single_token_bytes(token_id)
            except KeyError:  # a gap between the ordinary and the special tokens (o200k, cl100k)
                pass
    form = info.normalization

    def normalized(text: str) -> str:
        return unicodedata.normalize(form, text) if form else text

    def encode_batch(texts: list[str]) -> list[list[int]]:
        # One call per text: tiktoken's encode_ordinary_batch makes each text a thread-pool task,
        # 8x the time of this loop on o200k's 198,438 one-token texts (the unreachable pass)
        # (explorer.compare.encoders.pretrained_batch_encoder measured the same on corpus lines).
        return [encoding.encode_ordinary(normalized(text)) for text in texts]

    return AuditSubject(
        name=info.label,
        vocab_size=encoding.n_vocab,
        ordinary=ordinary,
        special_ids=special_ids,
        text_of=lambda token_id: strict_text(ordinary[token_id]),
        encode_batch=encode_batch,
        bpe=_tiktoken_replay(name, normalized) if replay else None,
        no_bpe_reason="" if replay else "not replayed (replay=False)",
    )


def _tiktoken_replay(name: str, normalized: Callable[[str], str]) -> BpeReplay:
    """The BPE replay of a bundled tiktoken-style tokenizer, its merges recovered by
    `tiktoken_parents` (its rank file read again: 3 s for o200k in all)."""
    from explorer.pretrained.tiktoken_backend import mergeable_ranks

    ranks, pattern = mergeable_ranks(name)
    by_id = {rank: token for token, rank in ranks.items()}

    def lookup(pair: tuple[int, int]) -> tuple[int, int] | None:
        joined = ranks.get(by_id[pair[0]] + by_id[pair[1]])
        return None if joined is None else (joined, joined)

    split = regex.compile(pattern)
    return BpeReplay(
        pre_tokenize=lambda line: split.findall(normalized(line)),
        initial=lambda word: [ranks[bytes([byte])] for byte in word.encode("utf-8")],
        lookup=lookup,
        merges=tiktoken_parents(ranks),
    )
