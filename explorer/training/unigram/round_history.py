"""The recorded history of one Unigram training run, and the questions the pages ask of it.

A Unigram run starts from many seed pieces and removes pieces round after round. The trace keeps
the corpus (distinct words with counts, in order of first appearance), the seed pieces with their
initial counts and scores, and per round: the vocabulary size before and after, the losses (the
library's EM objective after each EM iteration; the course's model loss), every removed piece with
why (its reason, its score, and its loss increase, loss or expected count), the threshold and the
first piece kept (the one that ranked next: what the threshold was weighed against), and a
snapshot of the surviving pieces with their scores. So the segmentation of any word after any
round is one Viterbi search over a snapshot, not a replay.

Rounds (r = 1..len(rounds)); "after round 0" means the seeds:
- course: `kind` "prune": compute the loss increase of every piece longer than one character,
  remove `percent_to_remove` of the pieces with the smallest, renormalize.
- library: `kind` "prune": `n_sub_iterations` EM iterations (each may drop pieces whose expected
  count is below 0.5, reason "em"), then pruning (reasons "unused": in no Viterbi segmentation,
  "loss": the smallest losses); `kind` "em": the last EM iterations, once the size is reached;
  `kind` "final": the final assembly (required characters first, trimmed to the vocabulary size,
  reason "final"; special tokens and the unk token first). Sizes count pieces, not the library's
  training-only "<UNK>" placeholder; the "final" round's size after is the whole final
  vocabulary (special tokens and unk token included), its snapshot `final_pieces`.

JSON (`to_json` / `from_dict`; explorer.train.trace_from_json reads the text):
    {"format": "tokenizer-explorer-unigram-trace", "version": 1, "config": {...},
     "words": [str], "counts": [int], "seeds": [str], "seed_counts": i64, "seed_scores": f64,
     "rounds": [{"kind", "size_before", "size_after", "losses": [float], "em_sizes": [int],
                 "threshold": float|null, "removed": {"piece": i32, "reason": i8, "score": f64,
                 "value": f64}, "first_kept": [int, float]|null, "alive": i32, "scores": f64,
                 "added": [str]}],
     "final_pieces": [[str, float]], "unk_id": int|null, "stop_reason": str, "seconds": float,
     "engine": "python"|"rust", "final_loss": float|null, "final_frequencies": i64|null}
i32 / i64 / i8 / f64 are base64 strings of little-endian arrays (exact and compact; written by
explorer.training.packing). `alive` and `scores` are the snapshot after the round: seed indices in
model order and their scores (the "final" round's snapshot is `final_pieces`). NaN in a removed
piece's `value` means "none".
`first_kept` (seed index, value): the kept piece that ranked next after the last one removed for
its loss (null when no piece was removed for its loss; absent in older traces).

What it does not do: train (explorer/training/unigram/) or build tokenizers (explorer/train.py).
"""

from __future__ import annotations

import json
import math
import os
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from explorer.pipeline.assemble import cls_sep_template
from explorer.pipeline.decoders import ByteLevelDecoder, Decoder, MetaspaceDecoder
from explorer.pipeline.json_numbers import library_float
from explorer.pipeline.models import Lattice, UnigramModel
from explorer.pipeline.models.unigram import COURSE_START_SCORE
from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer, is_byte_level
from explorer.pipeline.tokenizer import Tokenizer
from explorer.pipeline.tokenizer_json import save_tokenizer
from explorer.run_config import RunConfig
from explorer.training.history import UNIGRAM_TRACE_FORMAT
from explorer.training.packing import Packed, pack, resolve_packed, unpack_numpy

REMOVAL_REASONS = ("em", "unused", "loss", "final")
REASON_TEXT = {
    "em": "expected count below 0.5 in an EM step",
    "unused": "in no word's best segmentation",
    "loss": "among the smallest losses",
    "final": "beyond the vocabulary size at the final assembly",
}
TRAINING_UNK = "<UNK>"  # the library's placeholder piece 0 while training


# Why a run stopped (its `stop_reason`), in a few words.
UNIGRAM_STOP_REASONS = {
    "vocab_size": "vocabulary size reached",
    "stopped": "stopped before the end (Stop button or budget)",
    "characters_only": "only single characters are left, and they are never removed",
    "stuck": "a round could remove nothing more (the library would repeat it forever)",
}

# Why a library run ended below the size asked for (`RoundHistory.dropped_below_size`), in words.
SHORTFALL_TEXT = {
    "em": "EM dropped the pieces it expected fewer than 0.5 times",
    "unused": "pruning dropped the pieces in no word's best segmentation",
    "em+unused": "EM and pruning dropped the pieces the corpus does not use",
}


@dataclass(frozen=True)
class Removal:
    """One removed piece: why, its score (log-probability) then, and the number behind the
    decision (course: loss increase; library: loss or expected count; None: nothing to show)."""

    piece: str
    reason: str
    score: float
    value: float | None


@dataclass
class UnigramRound:
    kind: str
    size_before: int
    size_after: int
    losses: list[float]
    em_sizes: list[int]
    threshold: float | None
    removed_pieces: np.ndarray  # seed indices
    removed_reasons: np.ndarray  # indices into REMOVAL_REASONS
    removed_scores: np.ndarray
    removed_values: np.ndarray
    alive: np.ndarray  # seed indices in model order after the round
    scores: np.ndarray  # their scores
    added: list[str] = field(default_factory=list)  # final assembly: characters put back
    first_kept: tuple[int, float] | None = None  # (seed index, value) of the best-ranked kept piece

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "size_before": self.size_before,
            "size_after": self.size_after,
            "losses": self.losses,
            "em_sizes": self.em_sizes,
            "threshold": self.threshold,
            "removed": {
                "piece": pack(self.removed_pieces, "i32"),
                "reason": pack(self.removed_reasons, "i8"),
                "score": pack(self.removed_scores, "f64"),
                "value": pack(self.removed_values, "f64"),
            },
            "first_kept": None if self.first_kept is None else list(self.first_kept),
            "alive": pack(self.alive, "i32"),
            "scores": pack(self.scores, "f64"),
            "added": self.added,
        }

    @classmethod
    def from_dict(cls, data: dict) -> UnigramRound:
        removed = data["removed"]
        return cls(
            kind=data["kind"],
            size_before=data["size_before"],
            size_after=data["size_after"],
            losses=list(data["losses"]),
            em_sizes=list(data["em_sizes"]),
            threshold=data["threshold"],
            removed_pieces=unpack_numpy(removed["piece"], "i32"),
            removed_reasons=unpack_numpy(removed["reason"], "i8"),
            removed_scores=unpack_numpy(removed["score"], "f64"),
            removed_values=unpack_numpy(removed["value"], "f64"),
            alive=unpack_numpy(data["alive"], "i32"),
            scores=unpack_numpy(data["scores"], "f64"),
            added=list(data.get("added", [])),
            first_kept=_first_kept(data.get("first_kept")),
        )


def _first_kept(value) -> tuple[int, float] | None:
    return None if value is None else (int(value[0]), float(value[1]))


@dataclass
class RoundHistory:
    config: RunConfig
    words: list[str]
    counts: list[int]
    seeds: list[str]
    seed_counts: np.ndarray
    seed_scores: np.ndarray
    rounds: list[UnigramRound]
    final_pieces: list[tuple[str, float]]
    unk_id: int | None
    stop_reason: str
    seconds: float = 0.0
    final_loss: float | None = None  # course: compute_loss of the final model (None: not recorded)
    # Occurrences of each final piece (by id) in the corpus words segmented by the final model,
    # times their counts; set by pipeline.train_corpus where the training ran (None: not recorded).
    final_frequencies: list[int] | None = None
    # The run stopped on a MemoryError (a worker's memory limit): read by the worker for its
    # sentence, not part of the JSON (a reloaded run says "stopped" and whatever the store kept).
    out_of_memory: bool = field(default=False, repr=False, compare=False)
    # Which engine ran the lattices (explorer.training.engines); like `seconds`, a fact about this
    # run, not about its result: both engines record the same trace otherwise.
    engine: str = "python"
    _models: OrderedDict = field(default_factory=OrderedDict, repr=False, compare=False)

    step_noun = "round"  # a step is a round (TrainingHistory)
    vocabulary_grows = False

    # --- basic views -------------------------------------------------------------------------
    @property
    def algorithm(self) -> str:
        return self.config.algorithm

    @property
    def steps(self) -> int:
        """How many rounds the run recorded."""
        return len(self.rounds)

    @property
    def flavor(self) -> str:
        return self.config.flavor

    @property
    def special_tokens(self) -> list[str]:
        return list(self.config.special_tokens)

    @property
    def unk_token(self) -> str | None:
        return None if self.unk_id is None else self.final_pieces[self.unk_id][0]

    @property
    def vocab(self) -> list[str]:
        """The final vocabulary in id order (what the tokenizer holds)."""
        return [piece for piece, _ in self.final_pieces]

    @property
    def seeds_within_size(self) -> bool:
        """The seed pieces were already no more than the size asked for: nothing needed pruning."""
        return len(self.seeds) <= self.config.vocab_size

    def vocab_at(self, r: int | None = None) -> list[str]:
        """The pieces after round r in model order; after the last round (or r None) the final
        vocabulary, the unk and special tokens included (as `tokenizer_at`)."""
        if r is None or r == len(self.rounds):
            return self.vocab
        return [piece for piece, _ in self.pieces_at(r)]

    def stop_reason_text(self) -> str:
        """Why the run stopped, in a few words."""
        if self.stop_reason == "vocab_size" and self.seeds_within_size:
            return "the seed pieces were already no more than the size asked for"
        dropped = self.dropped_below_size()
        if dropped:
            return f"fewer pieces than asked for: {SHORTFALL_TEXT[dropped]}"
        return UNIGRAM_STOP_REASONS.get(self.stop_reason, self.stop_reason or "")

    def removal_counts(self) -> dict[str, int]:
        """How many pieces all rounds removed for each reason (REMOVAL_REASONS), none left out."""
        counts = np.zeros(len(REMOVAL_REASONS), dtype=np.int64)
        for round_ in self.rounds:
            counts += np.bincount(round_.removed_reasons.astype(np.int64), minlength=len(REMOVAL_REASONS))
        return {reason: int(count) for reason, count in zip(REMOVAL_REASONS, counts)}

    def dropped_below_size(self) -> str:
        """Why a library run that ran to its end holds fewer tokens than asked for, from more
        seeds than that: its pruning never keeps fewer than the size (times 1.1), so the pieces
        the corpus does not use took it there: "em" (EM dropped those expected fewer than 0.5
        times), "unused" (pruning dropped those in no word's best segmentation) or "em+unused".
        "" when that is not so (a course run goes below by its last tenth: the size is reached)."""
        if (
            self.flavor != "library"
            or self.stop_reason != "vocab_size"
            or self.seeds_within_size
            or len(self.vocab) >= self.config.vocab_size
        ):
            return ""
        counts = self.removal_counts()
        return "+".join(reason for reason in ("em", "unused") if counts[reason])

    def sizes(self) -> list[int]:
        """Vocabulary size after round r, for r = 0..len(rounds) (0: the seeds)."""
        return [len(self.seeds)] + [round_.size_after for round_ in self.rounds]

    def losses(self) -> list[list[float]]:
        """Per round, the losses recorded in it (library: one per EM iteration)."""
        return [list(round_.losses) for round_ in self.rounds]

    def pieces_at(self, r: int) -> list[tuple[str, float]]:
        """(piece, score) after round r in model order; for a "final" round the final vocabulary."""
        if r == 0:
            return list(zip(self.seeds, map(float, self.seed_scores)))
        round_ = self.rounds[r - 1]
        if round_.kind == "final":
            return list(self.final_pieces)
        return [(self.seeds[index], float(score)) for index, score in zip(round_.alive, round_.scores)]

    def removed_at(self, r: int) -> list[Removal]:
        """The pieces round r removed, in the order it removed them."""
        round_ = self.rounds[r - 1]
        return [
            Removal(
                self.seeds[index],
                REMOVAL_REASONS[reason],
                float(score),
                None if math.isnan(value) else float(value),
            )
            for index, reason, score, value in zip(
                round_.removed_pieces, round_.removed_reasons, round_.removed_scores, round_.removed_values
            )
        ]

    def first_kept_at(self, r: int) -> tuple[str, float] | None:
        """(piece, value) of the piece round r kept that ranked next after the last one removed
        for its loss (course: loss increase; library: loss); None when none was."""
        kept = self.rounds[r - 1].first_kept
        return None if kept is None else (self.seeds[kept[0]], kept[1])

    # --- segmentation after round r ----------------------------------------------------------
    def model_at(self, r: int) -> UnigramModel:
        """The model that segments words after round r (a few are kept)."""
        model = self._models.get(r)
        if model is not None:
            self._models.move_to_end(r)
            return model
        pieces = self.pieces_at(r)
        if self.flavor == "course":
            # The course's encode_word starts every word at score 1 and minimizes -log p; with
            # scores log p that is maximizing from -1 (negation is exact), ties kept alike.
            model = UnigramModel(pieces, None, start_score=COURSE_START_SCORE)
        elif r > 0 and self.rounds[r - 1].kind == "final":
            model = UnigramModel(pieces, self.unk_id)
        else:
            model = UnigramModel([(TRAINING_UNK, math.nan), *pieces], 0)
        self._models[r] = model
        if len(self._models) > 4:
            self._models.popitem(last=False)
        return model

    def segment(self, word: str, r: int | None = None) -> list[str]:
        """The tokens of `word` after round r (the final tokenizer's when r is None)."""
        if r is None:
            r = len(self.rounds)
        model = self.model_at(r)
        if model.unk_id is None and any(char not in model.vocab for char in word):
            return ["<unk>"] if word else []  # the course's encode_word cannot segment it
        return [word[start:end] for start, end in model.segment(word)]

    def lattice(self, word: str, r: int | None = None) -> Lattice:
        """Every candidate piece of `word` after round r (scores: log-probabilities), the best
        path and its score. For a course run the score starts at -1, so that minus the best
        score is exactly the course's encode_word score (1 + sum of -log p)."""
        return self.model_at(len(self.rounds) if r is None else r).lattice(word)

    # --- the tokenizer -----------------------------------------------------------------------
    def save_tokenizer(self, path: str | os.PathLike) -> None:
        """Write the trained tokenizer's tokenizer.json (`save_tokenizer(self.tokenizer_at(), path)`)."""
        save_tokenizer(self.tokenizer_at(), path)

    def tokenizer_at(self, r: int | None = None) -> Tokenizer:
        """The tokenizer the run gives: its final vocabulary (special tokens and the unk token
        first), or the pieces after round r (for showing the history: intermediate models keep the
        trainer's own unknown piece and cannot be exported)."""
        config = self.config
        if r is None or r == len(self.rounds):
            # Scores as the library reads them back from our tokenizer.json (one ulp off for a few
            # doubles it cannot read exactly), so that both encode alike.
            pieces = [(piece, library_float(score)) for piece, score in self.final_pieces]
            model = UnigramModel(pieces, self.unk_id)
        else:
            model = self.model_at(r)
        normalizer_names = list(config.normalizers)
        pre_tokenizer_name = config.pre_tokenizer
        # The decoder a library user puts around it: Metaspace, or ByteLevel (whose pieces are
        # GPT-2's byte symbols, as a BPE run's tokens are: `assemble.build_tokenizer`).
        decoder: Decoder | None = None
        if pre_tokenizer_name == "metaspace":
            decoder = MetaspaceDecoder()
        elif is_byte_level(pre_tokenizer_name):
            decoder = ByteLevelDecoder()
        # As after the library's training: its special tokens become added tokens; an unk token the
        # trainer put first without being one of them stays a plain piece.
        tokenizer = Tokenizer(
            normalizer=build_normalizer(normalizer_names) if normalizer_names else None,
            pre_tokenizer=build_pre_tokenizer(pre_tokenizer_name) if pre_tokenizer_name else None,
            model=model,
            special_tokens=self.special_tokens,
            decoder=decoder,
        )
        tokenizer.post_processor = cls_sep_template(tokenizer.special_token_ids)
        return tokenizer

    def piece_frequencies(self) -> list[int]:
        """How often each piece of the final vocabulary (by id) occurs when every distinct corpus
        word is segmented by the final model, times the word's count: the Vocabulary page's
        frequency, what "frequency" means for a BPE run too (occurrences once every merge is
        applied)."""
        model = self.tokenizer_at().model
        frequencies = [0] * len(self.final_pieces)
        for word, count in zip(self.words, self.counts):
            for token in model.tokenize(word):
                frequencies[token.id] += count
        return frequencies

    def record_final_frequencies(self) -> None:
        """Keep `piece_frequencies()` in the trace (`final_frequencies`, part of its JSON): the
        app's worker does, so that the Vocabulary page does not segment the corpus."""
        self.final_frequencies = self.piece_frequencies()

    # --- serialization -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return resolve_packed(self.json_fields())

    def json_fields(self) -> dict:
        """`to_dict()` with its columns still to pack (explorer.training.packing.Packed)."""
        return {
            "format": UNIGRAM_TRACE_FORMAT,
            "version": 1,
            "config": self.config.to_dict(),
            "words": self.words,
            "counts": self.counts,
            "seeds": self.seeds,
            "seed_counts": Packed(self.seed_counts, "i64"),
            "seed_scores": Packed(self.seed_scores, "f64"),
            "rounds": [round_.to_dict() for round_ in self.rounds],
            "final_pieces": [[piece, score] for piece, score in self.final_pieces],
            "unk_id": self.unk_id,
            "stop_reason": self.stop_reason,
            "seconds": self.seconds,
            "engine": self.engine,
            "final_loss": self.final_loss,
            "final_frequencies": None
            if self.final_frequencies is None
            else Packed(np.asarray(self.final_frequencies, dtype=np.int64), "i64"),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> RoundHistory:
        if data.get("format") != UNIGRAM_TRACE_FORMAT:
            raise ValueError(f"not a Unigram trace (missing 'format': '{UNIGRAM_TRACE_FORMAT}')")
        try:
            return cls(
                config=RunConfig.from_dict(data["config"]),
                words=list(data["words"]),
                counts=list(data["counts"]),
                seeds=list(data["seeds"]),
                seed_counts=unpack_numpy(data["seed_counts"], "i64"),
                seed_scores=unpack_numpy(data["seed_scores"], "f64"),
                rounds=[UnigramRound.from_dict(item) for item in data["rounds"]],
                final_pieces=[(piece, float(score)) for piece, score in data["final_pieces"]],
                unk_id=data["unk_id"],
                stop_reason=data["stop_reason"],
                seconds=data.get("seconds", 0.0),
                engine=data.get("engine", "python"),
                final_loss=data.get("final_loss"),
                final_frequencies=None
                if data.get("final_frequencies") is None
                else unpack_numpy(data["final_frequencies"], "i64").tolist(),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"Unigram trace: malformed ({type(error).__name__}: {error})") from None
