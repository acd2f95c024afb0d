"""A BPE run's merges against a pretrained byte-level BPE tokenizer's: how many of the run's first
N merges the pretrained tokenizer has too (the same left bytes joined to the same right bytes), at
which of its ranks, and the first merges where the two part.

- `run_byte_merges(vocab, merges, byte_level)`: a run's merges (left id, right id, merged id) as
  byte pairs, in merge order (byte-level symbols turned back into bytes; a char-level run's
  tokens as their UTF-8).
- `not_comparable_reason(algorithm, prefix, suffix)`: a sentence when a run's merges cannot be
  compared by their bytes (WordPiece, Unigram, a continuing-subword prefix or an end-of-word
  suffix), else None.
- `pretrained_merges(name)`: a bundled byte-level BPE tokenizer's merges as byte pairs in rank
  order (`BYTE_LEVEL_BPE`): GPT-2's vocab.bpe and DeepSeek's tokenizer.json list their merges; the
  other tiktoken-style vocabularies hold none, so each token's parent pair is recovered
  (explorer.measures.audit_subjects.tiktoken_parents: 1.3 s for cl100k_base, 2.8 s for
  o200k_base; it gives back GPT-2's vocab.bpe exactly) and the merges ordered by the merged
  token's rank. Kept per name in the process that reads them (a worker: explorer.work.tasks).
- `merge_overlap(run_merges, pretrained)` -> `MergeOverlap`, plain data (`to_dict` / `from_dict`).

A merge's rank is its 0-based position in its tokenizer's merge list; "merge n" for people is rank
n - 1.

What it does not do: train, draw (explorer.drawing.charts.merge_overlap_figure) or run in the
Streamlit server (its callers send it to a worker). No streamlit.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass

from explorer.lessons.step_sampling import sampled_steps
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pretrained.registry import BUNDLED, DATA_GYM, TIKTOKEN_KINDS, TOKENIZER_JSON

BytePair = tuple[bytes, bytes]

# Every bundled tokenizer that is byte-level BPE: the tiktoken-style ones and DeepSeek's tokenizer.json
# (the SentencePiece models are not byte-level).
BYTE_LEVEL_BPE: tuple[str, ...] = tuple(
    name for name, info in BUNDLED.items() if info.kind in (*TIKTOKEN_KINDS, TOKENIZER_JSON)
)
DEFAULT_PRETRAINED = "gpt2"
CURVE_POINTS = 300  # values of N on the curve (every N for a run of at most this many merges)
PARTINGS = 10  # first places where they part, on each side
RANK_POINTS = 2_000  # run merges whose pretrained rank a figure draws (evenly spread over a longer run)


def run_byte_merges(
    vocab: Sequence[str], merges: Sequence[tuple[int, int, int]], byte_level: bool
) -> list[BytePair]:
    """A run's merges as (left bytes, right bytes), in merge order.

    >>> run_byte_merges(["Ġ", "t", "Ġt"], [(0, 1, 2)], byte_level=True)
    [(b' ', b't')]
    >>> run_byte_merges(["é", "t", "ét"], [(0, 1, 2)], byte_level=False)
    [(b'\\xc3\\xa9', b't')]
    """

    def as_bytes(token: str) -> bytes:
        return symbols_to_bytes(token) if byte_level else token.encode("utf-8", errors="surrogatepass")

    return [(as_bytes(vocab[left]), as_bytes(vocab[right])) for left, right, _ in merges]


NO_BPE_MERGES = {  # why a run of another algorithm has no merges to compare
    "unigram": "a Unigram run prunes a vocabulary and records no merges",
    "wordpiece": (
        "a WordPiece run marks the pieces inside a word with a prefix and encodes by the longest "
        "piece, not by its merges"
    ),
}


def not_comparable_reason(algorithm: str, prefix: str = "", suffix: str = "") -> str | None:
    """Why a run's merges cannot be compared with a byte-level BPE's, or None when they can.

    >>> not_comparable_reason("bpe") is None
    True
    >>> not_comparable_reason("bpe", suffix="</w>")
    "its tokens carry an end-of-word suffix ('</w>'): their bytes are not the text's bytes"
    """
    if algorithm != "bpe":
        return NO_BPE_MERGES.get(algorithm, f"a {algorithm} run has no BPE merges")
    if prefix:
        return (
            f"its tokens carry a continuing-subword prefix ({prefix!r}): their bytes are not the text's bytes"
        )
    if suffix:
        return f"its tokens carry an end-of-word suffix ({suffix!r}): their bytes are not the text's bytes"
    return None


# ---------------------------------------------------------------- the pretrained merges


def tiktoken_merges(ranks: dict[bytes, int]) -> list[BytePair]:
    """A tiktoken-style vocabulary's merges, recovered (`tiktoken_parents`) and in the merged
    token's rank order."""
    from explorer.measures.audit_subjects import tiktoken_parents

    by_id = {rank: token for token, rank in ranks.items()}
    parents = sorted(tiktoken_parents(ranks), key=lambda merge: merge[2])
    return [(by_id[left], by_id[right]) for left, right, _ in parents]


def tokenizer_json_merges(text: str) -> list[BytePair]:
    """A byte-level BPE tokenizer.json's merges (each "left right" or [left, right]) as byte pairs."""
    model = json.loads(text)["model"]
    if model.get("type") != "BPE":
        raise ValueError(f"a {model.get('type')} model has no merges")
    pairs = []
    for merge in model.get("merges", []):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        pairs.append((symbols_to_bytes(left), symbols_to_bytes(right)))
    return pairs


def data_gym_merges(vocab_bpe: str) -> list[BytePair]:
    """GPT-2's vocab.bpe (a version line, then one "left right" merge a line) as byte pairs.

    >>> data_gym_merges("#version: 0.2\\nĠ t\\nĠ a\\n")
    [(b' ', b't'), (b' ', b'a')]
    """
    lines = [line for line in vocab_bpe.split("\n")[1:] if line]
    return [(symbols_to_bytes(left), symbols_to_bytes(right)) for left, right in map(str.split, lines)]


@functools.lru_cache(maxsize=2)  # the last two asked for (Qwen 3.6's 248k merges: about 50 MB)
def pretrained_merges(name: str) -> tuple[BytePair, ...]:
    """The bundled byte-level BPE tokenizer `name`'s merges as byte pairs, in rank order."""
    from explorer.pretrained.files import read_verified
    from explorer.pretrained.tiktoken_backend import mergeable_ranks

    if name not in BYTE_LEVEL_BPE:
        raise ValueError(
            f"{name!r} is not a bundled byte-level BPE tokenizer (choose from {', '.join(BYTE_LEVEL_BPE)})"
        )
    info = BUNDLED[name]
    if info.kind == DATA_GYM:
        _, vocab_bpe = [read_verified(info.module, data_file) for data_file in info.files]
        return tuple(data_gym_merges(vocab_bpe.decode("utf-8")))
    if info.kind == TOKENIZER_JSON:
        (content,) = [read_verified(info.module, data_file) for data_file in info.files]
        return tuple(tokenizer_json_merges(content.decode("utf-8")))
    ranks, _ = mergeable_ranks(name)
    return tuple(tiktoken_merges(ranks))


# ---------------------------------------------------------------- the comparison


@dataclass(frozen=True)
class Parting:
    """A merge one side has and the other lacks: its rank on its own side and its two parts."""

    rank: int
    left: bytes
    right: bytes


@dataclass(frozen=True)
class MergeOverlap:
    """The run's merges against the pretrained's.

    `steps[i]` is an N (a count of the run's first merges) and `matched[i]` how many of those N the
    pretrained has; `ranks[k]` is the pretrained rank of the run's merge k (None: it has none).
    `same_order`: how many first merges the two share in the same order; `same_set`: the largest
    N at which both first N merges are the same merges in any order (0: never). `run_only`: the
    run's first merges the pretrained lacks; `pretrained_only`: the pretrained's first merges,
    among as many as the run made, that the run lacks."""

    run_merges: int
    pretrained_merges: int
    steps: list[int]
    matched: list[int]
    ranks: list[int | None]
    same_order: int
    same_set: int
    run_only: list[Parting]
    pretrained_only: list[Parting]

    @property
    def total_matched(self) -> int:
        return sum(rank is not None for rank in self.ranks)

    def median_rank(self) -> float | None:
        """The median pretrained rank of the matched merges (None: none matched)."""
        found = sorted(rank for rank in self.ranks if rank is not None)
        if not found:
            return None
        middle = len(found) // 2
        return float(found[middle]) if len(found) % 2 else (found[middle - 1] + found[middle]) / 2

    def rank_points(self, limit: int = RANK_POINTS) -> list[tuple[int, int]]:
        """(run rank, pretrained rank) of the matched merges among up to `limit` run merges
        evenly spread from the first to the last."""
        found = ((k, self.ranks[k]) for k in sampled_steps(len(self.ranks), limit))
        return [(k, rank) for k, rank in found if rank is not None]

    def to_dict(self) -> dict:
        """Plain JSON data (bytes as hex)."""

        def partings(found: list[Parting]) -> list[list]:
            return [[part.rank, part.left.hex(), part.right.hex()] for part in found]

        return {
            "run_merges": self.run_merges,
            "pretrained_merges": self.pretrained_merges,
            "steps": self.steps,
            "matched": self.matched,
            "ranks": self.ranks,
            "same_order": self.same_order,
            "same_set": self.same_set,
            "run_only": partings(self.run_only),
            "pretrained_only": partings(self.pretrained_only),
        }

    @classmethod
    def from_dict(cls, data: dict) -> MergeOverlap:
        def partings(found: list[list]) -> list[Parting]:
            return [
                Parting(int(rank), bytes.fromhex(left), bytes.fromhex(right)) for rank, left, right in found
            ]

        return cls(
            run_merges=int(data["run_merges"]),
            pretrained_merges=int(data["pretrained_merges"]),
            steps=[int(n) for n in data["steps"]],
            matched=[int(n) for n in data["matched"]],
            ranks=[None if rank is None else int(rank) for rank in data["ranks"]],
            same_order=int(data["same_order"]),
            same_set=int(data["same_set"]),
            run_only=partings(data["run_only"]),
            pretrained_only=partings(data["pretrained_only"]),
        )


def _same_set_length(run: Sequence[BytePair], pretrained: Sequence[BytePair]) -> int:
    """The largest N at which the first N of each are the same merges (in any order; 0: never)."""
    in_run: set[BytePair] = set()
    in_pretrained: set[BytePair] = set()
    unmatched = 0  # merges one side's first N hold and the other's do not
    longest = 0
    for n, (ours, theirs) in enumerate(zip(run, pretrained), start=1):
        for pair, own, other in ((ours, in_run, in_pretrained), (theirs, in_pretrained, in_run)):
            if pair in own:
                continue
            own.add(pair)
            unmatched += -1 if pair in other else 1
        if unmatched == 0:
            longest = n
    return longest


def merge_overlap(
    run: Sequence[BytePair],
    pretrained: Sequence[BytePair],
    points: int = CURVE_POINTS,
    partings: int = PARTINGS,
) -> MergeOverlap:
    """The run's merges (byte pairs in merge order) against the pretrained's (in rank order).

    >>> found = merge_overlap([(b"a", b"b"), (b"x", b"y"), (b"c", b"d")], [(b"a", b"b"), (b"c", b"d")])
    >>> found.matched, found.ranks, found.same_order, [p.rank for p in found.run_only]
    ([1, 1, 2], [0, None, 1], 1, [1])
    """
    rank_of: dict[BytePair, int] = {}
    for position, pair in enumerate(pretrained):
        rank_of.setdefault(pair, position)  # a pair listed twice: its first rank applies
    ranks = [rank_of.get(pair) for pair in run]
    running, total = [], 0
    for found in ranks:
        total += found is not None
        running.append(total)
    steps = [index + 1 for index in sampled_steps(len(run), points)]
    same_order = 0
    while same_order < min(len(run), len(pretrained)) and run[same_order] == pretrained[same_order]:
        same_order += 1
    run_pairs = set(run)
    run_only = [Parting(k, *pair) for k, (pair, rank) in enumerate(zip(run, ranks)) if rank is None]
    pretrained_only = [
        Parting(position, *pair)
        for position, pair in enumerate(pretrained[: len(run)])
        if pair not in run_pairs
    ]
    return MergeOverlap(
        run_merges=len(run),
        pretrained_merges=len(pretrained),
        steps=steps,
        matched=[running[n - 1] for n in steps],
        ranks=ranks,
        same_order=same_order,
        same_set=_same_set_length(run, pretrained),
        run_only=run_only[:partings],
        pretrained_only=pretrained_only[:partings],
    )
