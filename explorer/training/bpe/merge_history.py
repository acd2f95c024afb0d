"""The recorded history of one training run, and the questions the app asks of it.

A MergeHistory holds the corpus as distinct words with counts (in order of first appearance), the vocabulary
in id order, and per merge step: the merged pair and new id, its count (and likelihood score for the
course's WordPiece), the top competing candidates at that step, how many distinct words and corpus
occurrences it rewrote. For every character boundary inside every word it also keeps the step that
removed it (`boundary_steps`), so the segmentation of any word after any step k is a filter, not a
replay: a boundary is still there after k merges iff its step is >= k.

JSON schema (`to_json` / `from_dict`; explorer.train.trace_from_json reads the text), all lists
indexed by step unless said otherwise:
    {"format": "tokenizer-explorer-trace", "version": 3,
     "config": {...},                                   # RunConfig.to_dict()
     "words": [str], "counts": [int],                  # per distinct word
     "vocab": [str], "initial_vocab_size": int,         # vocab in id order; ids below it are initial
     "merges": [[left_id, right_id, new_id]], "merge_counts": [int],
     "merge_scores": [float|null], "words_changed": [int], "occurrences": [int],
     "candidates": {"ends": i32, "left": i32, "right": i32, "count": i64, "score": f64|null,
                    "left_count": i64, "right_count": i64},   # the last two: likelihood runs only
     "stop_reason": str, "seconds": float, "engine": "python"|"rust",
     "boundary_steps": i32,
     "corpus": {"lines": int, "characters": int, "utf8_bytes": int, "words": int} | null}
i32 / i64 / f64 are strings: base64 of a little-endian array of int32 / int64 / float64 (compact,
exact, and fast for 100,000s of values; explorer.training.packing writes and reads them).
`candidates` (explorer.training.bpe.candidates) holds, for every step, the chosen pair and then the best
other pairs (the library can choose a pair below the best, see queues.py), as flat
columns: step k's are rows ends[k-1] (0 for k = 0) to ends[k]; `score` is null when the run scores
pairs by count; `left_count` / `right_count` are count(a) and count(b) of each candidate (a, b),
the denominators of its likelihood score. `boundary_steps` holds, for each word in order, one
value per boundary (len(word) - 1 of them): the step that removed it, 2147483647 = never.
`corpus` counts the raw corpus the way the Compare page counts a text
(explorer.training.word_counts.count_text),
so figures read from the trace and figures measured by encoding agree on what a character and a
word are. Versions 1 (candidates as nested lists) and 2 (no symbol counts, no corpus counts) are read too.

A MergeHistory is a `TrainingHistory` (explorer/training/history.py): `segment(word, k)` takes a corpus
word by its text (`segment_index(word_index, k)` by its index, for callers walking the words),
`tokenizer_at(k)` builds the tokenizer the first k merges make.

What it does not do: train (explorer/training/bpe/) or encode new text (explorer/pipeline/models/).
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, pairwise

from explorer.pipeline.assemble import build_tokenizer
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pipeline.tokenizer_json import StreamedMerges, save_tokenizer
from explorer.run_config import RunConfig
from explorer.training.bpe.candidates import Candidates
from explorer.training.packing import Rows, pack_rows, resolve_packed, unpack_rows

NEVER = 2**31 - 1
TRACE_FORMAT = "tokenizer-explorer-trace"


def _unpack_steps(packed: str, words: Sequence[str]) -> Rows:
    lengths = (max(len(word) - 1, 0) for word in words)
    return unpack_rows(packed, "i32", lengths, "trace: boundary_steps does not match the words")


# Why a run stopped (its `stop_reason`), in a few words.
STOP_REASONS = {
    "vocab_size": "vocabulary size reached",
    "no_pair_left": "no pair left to merge",
    "min_frequency": "best pair count below min_frequency",
    "stopped": "stopped before the end (Stop button or budget)",
}


@dataclass
class MergeHistory:
    config: RunConfig
    # Lists, or (trained from words the compiled counter held) a view of those words and an
    # array of counts: explorer.training.held_words.
    words: Sequence[str]
    counts: Sequence[int]
    vocab: list[str]
    initial_vocab_size: int
    merges: list[tuple[int, int, int]]
    merge_counts: list[int]
    merge_scores: list[float | None]
    words_changed: list[int]
    occurrences: list[int]
    candidates: Candidates
    stop_reason: str
    boundary_steps: Sequence[array]  # a list of arrays, or Rows (explorer.training.packing)
    seconds: float = 0.0
    # Which merge engine trained (explorer.training.engines); like `seconds`, a fact about this
    # run, not about its result: both engines record the same trace otherwise.
    engine: str = "python"
    # The raw corpus counted as the Compare page counts a text (explorer.training.word_counts.count_text):
    # {"lines", "characters", "utf8_bytes", "words"}; None in traces written before version 3.
    corpus: dict | None = None

    step_noun = "merge"  # a step is a merge (TrainingHistory)
    vocabulary_grows = True

    # --- basic views -------------------------------------------------------------------------
    @property
    def steps(self) -> int:
        return len(self.merges)

    @property
    def algorithm(self) -> str:
        return self.config.algorithm

    @property
    def prefix(self) -> str:
        return self.config.prefix

    @property
    def suffix(self) -> str:
        return self.config.suffix

    @property
    def special_tokens(self) -> list[str]:
        return list(self.config.special_tokens)

    def merge_strings(self) -> list[tuple[str, str]]:
        """Merges as (left, right) token strings, in rank order (what merges.txt holds)."""
        vocab = self.vocab
        return [(vocab[left], vocab[right]) for left, right, _ in self.merges]

    def model_merges(self, k: int | None = None) -> list[tuple[str, str]]:
        """The merges a model keeps after the first k merges (all when k is None): each pair once.

        A pair can be merged twice (the library keeps a stale queue entry whose count still
        matches; the course can re-form a pair). The library's trainer collects merges into a
        map keyed by pair, so the last rank wins; the course's `merges` dict keeps a key at its
        first position.
        """
        return list(self.model_merge_pairs(k))

    def model_merge_pairs(self, k: int | None = None) -> Iterator[tuple[str, str]]:
        """`model_merges(k)` one at a time. Nearly every pair is merged once: only the pairs merged
        more than once are looked up (no table of every pair)."""
        merges = self.merges if k is None else self.merges[:k]
        keys = sorted(left << 32 | right for left, right, _ in merges)  # ids are below 2**31
        repeated = {key for key, following in pairwise(keys) if key == following}
        del keys
        kept: dict[int, int] = {}  # a repeated pair -> the rank the model keeps it at
        if repeated:
            keep_first = self.config.flavor == "course"
            for rank, (left, right, _) in enumerate(merges):
                key = left << 32 | right
                if key in repeated and not (keep_first and key in kept):
                    kept[key] = rank
        vocab = self.vocab
        for rank, (left, right, _) in enumerate(merges):
            if not kept or kept.get(left << 32 | right, rank) == rank:
                yield vocab[left], vocab[right]

    def token_ids(self) -> dict[str, int]:
        return {token: index for index, token in enumerate(self.vocab)}

    def vocab_at(self, k: int | None = None) -> list[str]:
        """The vocabulary after the first k merges (the whole vocabulary when k is None)."""
        return self.vocab if k is None else self.vocab[: self.vocab_sizes[k]]

    def tokenizer_at(self, k: int | None = None) -> Tokenizer:
        """The trained tokenizer, or the one the first k merges make (vocabulary as it was then)."""
        return self._assembled(self.vocab_at(k), self.model_merges(k) if self.algorithm == "bpe" else [])

    def save_tokenizer(self, path: str | os.PathLike) -> None:
        """Write the trained tokenizer's tokenizer.json: `save_tokenizer(self.tokenizer_at(), path)`,
        byte for byte, the merges taken from the run's as they are written (the model's table of
        merges, a tuple and two ints a merge, is never built)."""
        merges = StreamedMerges(self.model_merge_pairs()) if self.algorithm == "bpe" else None
        save_tokenizer(self._assembled(self.vocab, []), path, merges)

    def _assembled(self, vocab: list[str], merges: list[tuple[str, str]]) -> Tokenizer:
        config = self.config
        return build_tokenizer(
            config.algorithm,
            vocab,
            merges,
            list(config.normalizers),
            config.pre_tokenizer,
            list(config.special_tokens),
            continuing_subword_prefix=self.prefix or None,
            end_of_word_suffix=self.suffix or None,
        )

    def stop_reason_text(self) -> str:
        """Why the run stopped, in a few words."""
        return STOP_REASONS.get(self.stop_reason, self.stop_reason or "")

    def record_final_frequencies(self) -> None:
        """Nothing to record: `final_token_frequencies` reads them from the boundaries."""

    # --- segmentation after k merges ---------------------------------------------------------
    @cached_property
    def word_indices(self) -> dict[str, int]:
        """Corpus word -> its index in `words`."""
        return {word: index for index, word in enumerate(self.words)}

    def segment(self, word: str, k: int | None = None) -> list[str]:
        """The tokens of a corpus word (as pre-tokenized, e.g. "Ġhug") after the first k merges
        (all merges when k is None); ValueError for a word the corpus does not hold.

        >>> from explorer.run_config import TrainerConfig
        >>> from explorer.training.bpe.trainer import train
        >>> counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        >>> trace = train(counts, TrainerConfig(vocab_size=10, flavor="course"))
        >>> trace.merge_strings()
        [('u', 'g'), ('u', 'n'), ('h', 'ug')]
        >>> trace.segment("hugs", 0), trace.segment("hugs", 1), trace.segment("hugs")
        (['h', 'u', 'g', 's'], ['h', 'ug', 's'], ['hug', 's'])
        """
        index = self.word_indices.get(word)
        if index is None:
            raise ValueError(f"{word!r} is not a word of this run's corpus")
        return self.segment_index(index, k)

    def segment_index(self, word_index: int, k: int | None = None) -> list[str]:
        """`segment` of the corpus word `words[word_index]`."""
        if k is None:
            k = self.steps
        word = self.words[word_index]
        steps = self.boundary_steps[word_index]
        cuts = [0]
        cuts.extend(position + 1 for position, step in enumerate(steps) if step >= k)
        cuts.append(len(word))
        return self._decorate_pieces(word, cuts)

    def _decorate_pieces(self, word: str, cuts: list[int]) -> list[str]:
        prefix, suffix, end = self.prefix, self.suffix, len(word)
        pieces = []
        for start, stop in zip(cuts, cuts[1:]):
            piece = word[start:stop]
            if start and prefix:
                piece = prefix + piece
            if stop == end and suffix:
                piece += suffix
            pieces.append(piece)
        return pieces

    def spans_at(
        self, word_index: int, k: int, max_characters: int | None = None
    ) -> list[tuple[str, int, int, bool]]:
        """(token, start, end, made by merge k) for each token of the corpus word
        `words[word_index]` after the first k merges: start and end index the word's characters
        (a prefix or suffix the token carries is not counted), and the flag marks the tokens that
        merge k (step k - 1) joined. With `max_characters`, only the tokens that start within that
        many characters (the rest of a long word is not looked at)."""
        word, steps = self.words[word_index], self.boundary_steps[word_index]
        end = len(word) if max_characters is None else min(len(word), max_characters)
        cuts = [0]
        for position, step in enumerate(steps):
            if step >= k:
                cuts.append(position + 1)
                if position + 1 >= end:
                    break
        if cuts[-1] < end:  # the last token runs to the word's end
            cuts.append(len(word))
        pieces = self._decorate_pieces(word, cuts)
        return [
            (piece, start, stop, k > 0 and any(steps[p] == k - 1 for p in range(start, stop - 1)))
            for piece, start, stop in zip(pieces, cuts, cuts[1:])
        ]

    def words_by_frequency(self) -> list[int]:
        """Word indices, most frequent first (ties in order of first appearance)."""
        return sorted(range(len(self.words)), key=lambda index: -self.counts[index])

    # --- whole-run curves --------------------------------------------------------------------
    @cached_property
    def corpus_tokens(self) -> list[int]:
        """Corpus token count after k merges, for k = 0..steps (the compression curve)."""
        initial = sum(count * len(word) for word, count in zip(self.words, self.counts))
        return list(accumulate(self.occurrences, lambda total, merged: total - merged, initial=initial))

    @cached_property
    def vocab_sizes(self) -> list[int]:
        """Vocabulary size after k merges, for k = 0..steps (a merge may reuse an existing token)."""
        sizes = [self.initial_vocab_size]
        seen_max = self.initial_vocab_size - 1
        for _, _, new_id in self.merges:
            seen_max = max(seen_max, new_id)
            sizes.append(seen_max + 1)
        return sizes

    # --- tokens ------------------------------------------------------------------------------
    @cached_property
    def merge_rank_of(self) -> dict[int, int]:
        """Token id -> the first merge step that produced it."""
        ranks: dict[int, int] = {}
        for rank, (_, _, new_id) in enumerate(self.merges):
            ranks.setdefault(new_id, rank)
        return ranks

    def merge_tree(self, token_id: int) -> dict:
        """How a token was built: {"token", "id", "rank", "children": [left tree, right tree]}."""
        rank = self.merge_rank_of.get(token_id)
        node = {"token": self.vocab[token_id], "id": token_id, "rank": rank, "children": []}
        if rank is not None:
            left, right, _ = self.merges[rank]
            node["children"] = [self.merge_tree(left), self.merge_tree(right)]
        return node

    @cached_property
    def final_token_frequencies(self) -> dict[str, int]:
        """How often each token occurs in the corpus once every merge is applied."""
        frequencies: dict[str, int] = {}
        for index, count in enumerate(self.counts):
            for piece in self.segment_index(index):
                frequencies[piece] = frequencies.get(piece, 0) + count
        return frequencies

    # --- serialization -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        data = resolve_packed(self.json_fields())
        data["words"], data["counts"] = list(self.words), list(self.counts)
        return data

    def json_fields(self) -> dict:
        """`to_dict()` with its columns still to pack (explorer.training.packing.Packed)."""
        return {
            "format": TRACE_FORMAT,
            "version": 3,
            "config": self.config.to_dict(),
            "words": self.words,
            "counts": self.counts,
            "vocab": self.vocab,
            "initial_vocab_size": self.initial_vocab_size,
            "merges": self.merges,  # tuples serialize as JSON arrays
            "merge_counts": self.merge_counts,
            "merge_scores": self.merge_scores,
            "words_changed": self.words_changed,
            "occurrences": self.occurrences,
            "candidates": self.candidates.json_fields(),
            "stop_reason": self.stop_reason,
            "seconds": self.seconds,
            "engine": self.engine,
            "boundary_steps": pack_rows(self.boundary_steps, "i32"),
            "corpus": self.corpus,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> MergeHistory:
        if data.get("format") != TRACE_FORMAT:
            raise ValueError("not a Tokenizer Explorer trace (missing 'format': 'tokenizer-explorer-trace')")
        return cls(
            config=RunConfig.from_dict(data["config"]),
            words=data["words"],
            counts=data["counts"],
            vocab=data["vocab"],
            initial_vocab_size=data["initial_vocab_size"],
            merges=[tuple(m) for m in data["merges"]],
            merge_counts=data["merge_counts"],
            merge_scores=data["merge_scores"],
            words_changed=data["words_changed"],
            occurrences=data["occurrences"],
            candidates=Candidates.from_dict(data["candidates"]),
            stop_reason=data["stop_reason"],
            boundary_steps=_unpack_steps(data["boundary_steps"], data["words"]),
            seconds=data.get("seconds", 0.0),
            engine=data.get("engine", "python"),
            corpus=data.get("corpus"),
        )
