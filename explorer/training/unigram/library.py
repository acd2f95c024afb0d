"""The `tokenizers` library's UnigramTrainer (0.23.3, Rust `models/unigram/trainer.rs`), as numbered
stages, on numpy lattices of the whole corpus (lattices.py).

1. Seeds: every character, then the substrings the suffix tree finds, up to `seed_size`
   (seeds.py); a training-only "<UNK>" piece (score NaN) comes first.
2. EM, `n_sub_iterations` times per round. E step: expected counts by forward-backward, unknown
   characters as edges scored min - 10. M step: drop pieces expected less than 0.5 times, score
   the others digamma(count) - digamma(sum of counts) (the library's Bayesian EM).
3. Stop once the pieces (the "<UNK>" included) are at most vocab_size * 11 // 10.
4. Pruning: count each piece in the words' best segmentations; a piece in none is removed unless
   it is its own only segmentation; a piece whose own best segmentation is itself gets its
   second-best segmentation as alternatives (nbest.py) and the loss
   count / words * (log p(piece) - sum of log p'(alternative)), where p' moves the piece's count
   to its alternatives over a total grown by count * (number of pieces - 1) (the library's
   `alternatives.len()`, SentencePiece issue #628); the others are kept. Candidates with the
   largest losses are kept until max(vocab_size * 11 // 10, int(pieces * shrinking_factor))
   pieces; when the kept ones already exceed that, every candidate stays (the library compares
   with ==). New order: "<UNK>", the kept, then candidates by decreasing loss.
5. Final assembly: every character of the corpus first (its score, or the smallest score plus
   0.0001, 0.0002, ... when it was removed), then pieces in model order until
   vocab_size - special tokens (- 1 for an unk token that is not one of them), sorted by
   decreasing score (stable); special tokens first (score 0), the unk token before them when it
   is not one of them.

Where the library is not deterministic this trainer picks one way: the library iterates a hash
map of words (sums in another order, so scores differ around the 1e-10 level, and its own runs
differ in the 4th decimal) and of required characters (which removed character gets which
penalty); here words come in order of first appearance and characters in code-point order.
Where the library never finishes (a round that removes nothing while the size is still above
the target: it repeats it forever) this trainer stops with reason "stuck". Text containing
"<UNK>" is refused, as the library fails on it ("likelihood is NAN").

What it does not do: `initial_alphabet`, or the library's progress bar.
"""

from __future__ import annotations

import math
import time

import numpy as np

from explorer.run_config import RunConfig
from explorer.training import engines
from explorer.training.memory import large_blocks_mapped
from explorer.training.unigram import portable_math
from explorer.training.unigram.compiled_lattices import CompiledLattices
from explorer.training.unigram.lattices import CorpusLattices, StopTraining
from explorer.training.unigram.nbest import piece_alternatives
from explorer.training.unigram.round_history import TRAINING_UNK, RoundHistory, UnigramRound
from explorer.training.unigram.round_recorder import RoundRecorder
from explorer.training.unigram.seeds import library_seeds

EXPECTED_COUNT_THRESHOLD = 0.5
UNKNOWN_PENALTY = 10.0
MISSING_CHARACTER_PENALTY = 0.0001


def digamma(values: np.ndarray) -> np.ndarray:
    """The library's digamma, element-wise and operation for operation."""
    x = np.array(values, dtype=np.float64)
    result = np.zeros_like(x)
    small = x < 7.0
    while small.any():
        result[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 7.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (
        portable_math.log(x)
        + (1.0 / 24.0) * xx2
        - 7.0 / 960.0 * xx4
        + (31.0 / 8064.0) * xx4 * xx2
        - (127.0 / 30720.0) * xx4 * xx4
    )
    return result


def _sum_in_order(values: np.ndarray, initial: float = 0.0) -> float:
    return float(np.add.accumulate(np.concatenate(([initial], values)))[-1])


def _planned_rounds(pieces: int, desired: int, shrinking_factor: float) -> int:
    loops = (math.log(desired) - math.log(pieces)) / math.log(shrinking_factor)
    return max(0, int(loops)) + 1


class _Run:
    """The state of one training run: the model is `order` (seed indices) with `scores`."""

    def __init__(self, words, counts, config, should_stop=None, module=None):
        self.config = config
        self.should_stop = should_stop  # also asked inside long passes (StopTraining)
        self.max_length = config.max_piece_length
        self.lattices: CorpusLattices | CompiledLattices
        with large_blocks_mapped():  # the stage's freed arrays go back to the system (memory.py)
            self.flat, self.seeds = library_seeds(words, counts, self.max_length, config.seed_size)
            if module is None:
                self.lattices = CorpusLattices(self.flat, self.seeds, self.max_length)
            else:  # the compiled engine: the same interface and the same bits
                self.lattices = CompiledLattices(self.flat, self.seeds, self.max_length, module)
        self.unk = len(self.seeds.pieces)
        self.lengths = np.asarray([len(piece) for piece in self.seeds.pieces], dtype=np.int64)
        self.order = np.arange(self.unk)
        self.scores = np.append(self.seeds.scores, np.nan)  # index unk: the "<UNK>" placeholder
        self.desired = config.vocab_size * 11 // 10
        self.total_count = float(self.flat.counts.sum())

    @property
    def size(self) -> int:
        """The library's pieces.len(): the model and its "<UNK>"."""
        return len(self.order) + 1

    def current_edges(self):
        alive = np.zeros(self.unk, dtype=bool)
        alive[self.order] = True
        scores = self.scores.copy()
        scores[self.unk] = (self.scores[self.order].min(initial=np.inf)) - UNKNOWN_PENALTY
        return self.lattices.edges(alive), scores

    # 2. One EM iteration.
    def em_iteration(self, recorder: RoundRecorder) -> None:
        edges, scores = self.current_edges()
        expected, objective = self.lattices.expected_counts(edges, scores, self.should_stop)
        freq = expected[self.order]
        keep = freq >= EXPECTED_COUNT_THRESHOLD
        dropped = self.order[~keep]
        order, kept = self.order[keep], freq[keep]
        new_scores = digamma(kept) - digamma(np.array([_sum_in_order(kept)]))[0]
        # Everything is computed: the model and the record change together (a stop before this
        # line, StopTraining or MemoryError, leaves both as the last iteration left them).
        recorder.losses.append(objective)
        if len(dropped):
            recorder.remove(dropped, "em", self.scores[dropped], freq[~keep])
        self.order = order
        self.scores[order] = new_scores
        recorder.em_sizes.append(len(self.order))

    # 4. Pruning.
    def prune(self, recorder: RoundRecorder) -> None:
        edges, scores = self.current_edges()
        freq_all = self.lattices.viterbi_counts(edges, scores, self.should_stop)
        order, size = self.order, self.size
        multi = self.lengths[order] > 1
        candidates = order[multi]
        alternatives = piece_alternatives(
            self.lattices,
            edges,
            scores,
            candidates,
            self.seeds.representative[candidates],
            self.lengths[candidates],
        )
        always_keep = np.ones(len(order), dtype=bool)  # a character is its own only segmentation
        always_keep[multi] = alternatives.is_own_best
        has_alternatives = np.zeros(len(order), dtype=bool)
        has_alternatives[multi] = alternatives.is_own_best
        alternative_pieces = np.full((len(order), alternatives.pieces.shape[1] if len(candidates) else 1), -1)
        alternative_pieces[multi] = alternatives.pieces

        freq = freq_all[order]
        total = _sum_in_order(freq, freq_all[self.unk])
        logsum = math.log(total)
        unused = ((freq == 0.0) & ~always_keep) | (has_alternatives & (freq == 0.0))
        kept = ~unused & ~has_alternatives
        scored = ~unused & has_alternatives
        with np.errstate(divide="ignore"):
            count = freq[scored]
            logprob_piece = portable_math.log(count) - logsum
            logsum_alternatives = portable_math.log(total + count * (size - 1))
            logprob_alternatives = np.zeros(len(count))
            for column in alternative_pieces[scored].T:
                term = portable_math.log(freq_all[np.maximum(column, 0)] + count) - logsum_alternatives
                logprob_alternatives += np.where(column >= 0, term, 0.0)
            losses = (count / self.total_count) * (logprob_piece - logprob_alternatives)
        ranking = np.argsort(-losses, kind="stable")
        pruned_size = max(self.desired, int(size * self.config.shrinking_factor))
        already = 1 + int(kept.sum())
        take = len(ranking) if already > pruned_size else max(0, pruned_size - already)
        scored_pieces = order[scored]
        if unused.any():
            recorder.remove(order[unused], "unused", self.scores[order[unused]])
        dropped = ranking[take:]
        if len(dropped):
            recorder.remove(
                scored_pieces[dropped], "loss", self.scores[scored_pieces[dropped]], losses[dropped]
            )
            recorder.threshold = float(losses[dropped].max())
            if take:  # the kept candidate of smallest loss: the threshold's neighbour
                last_kept = ranking[take - 1]
                recorder.first_kept = (int(scored_pieces[last_kept]), float(losses[last_kept]))
        self.order = np.concatenate((order[kept], scored_pieces[ranking[:take]]))

    # 5. Final assembly.
    def final_pieces(self, required: list[str]):
        config = self.config
        pieces = [self.seeds.pieces[index] for index in self.order]
        existing = dict(zip(pieces, self.scores[self.order].tolist()))
        min_score = min(existing.values(), default=math.inf)
        final, inserted, penalty, added = [], {TRAINING_UNK}, 0.0, []
        for char in required:
            inserted.add(char)
            if char in existing:
                final.append((char, existing[char]))
            else:
                final.append((char, min_score + penalty))
                penalty += MISSING_CHARACTER_PENALTY
                added.append(char)
        special_tokens = list(dict.fromkeys(config.special_tokens))
        unk = config.unk_token
        need_unk = unk is not None and unk not in special_tokens
        unk_id = None if unk is None else (0 if need_unk else special_tokens.index(unk))
        target = config.vocab_size - len(special_tokens) - (1 if need_unk else 0)
        trimmed, full = [], False
        for index, piece in zip(self.order.tolist(), pieces):
            if piece in inserted:  # a character, already placed
                continue
            if full:
                trimmed.append(index)
                continue
            inserted.add(piece)
            final.append((piece, existing[piece]))
            full = len(final) == target  # the library's ==: never true once past the target
        final.sort(key=lambda item: -item[1])
        specials = [(token, 0.0) for token in ([unk] if need_unk else []) + special_tokens]
        return specials + final, unk_id, trimmed, added


def train_library(words, counts, config, progress=None, should_stop=None, engine=None) -> RoundHistory:
    started = time.perf_counter()
    module = engines.module_for(engine)
    for word in words:
        if TRAINING_UNK in word:
            raise ValueError(
                f"the corpus contains {TRAINING_UNK!r} (in {word!r}): the library's UnigramTrainer uses that "
                'string for its own unknown piece and fails on such text ("likelihood is NAN")'
            )
    required = sorted({char for word in words for char in word})
    if len(required) > config.vocab_size:
        raise ValueError(
            f"vocab_size {config.vocab_size} is smaller than the {len(required)} distinct characters "
            "of the corpus, "
            "which a Unigram vocabulary always holds (the library's VocabularyTooSmall)"
        )
    if not words:
        return _empty_trace(config, time.perf_counter() - started, "python" if module is None else "rust")
    run = _Run(words, counts, config, should_stop, module)
    planned = _planned_rounds(run.size, run.desired, config.shrinking_factor)
    rounds: list[UnigramRound] = []
    stop_reason, out_of_memory = "vocab_size", False
    while True:
        recorder = RoundRecorder("prune", len(run.order))
        pruned = False
        try:
            for _ in range(config.n_sub_iterations):
                if should_stop is not None and should_stop():
                    raise StopTraining
                if progress is not None:
                    progress(len(rounds), planned)
                run.em_iteration(recorder)
            # 3. Stop once small enough, else 4. prune (and start the next round with EM).
            if run.size > run.desired:
                if should_stop is not None and should_stop():
                    raise StopTraining
                run.prune(recorder)
                pruned = True
        except StopTraining:  # the model stays as the last finished step left it
            stop_reason = "stopped"
        except MemoryError:  # a memory limit (explorer.work.worker): the same, said as such
            stop_reason, out_of_memory = "stopped", True
        if not pruned:
            recorder.kind = "em"
            rounds.append(recorder.finish(run.order, run.scores[run.order]))
            break
        rounds.append(recorder.finish(run.order, run.scores[run.order]))
        if len(run.order) == recorder.size_before:
            stop_reason = "stuck"
            break
    if progress is not None:
        progress(len(rounds), planned)

    del run.lattices  # the bulk of the memory, no longer needed
    final_pieces, unk_id, trimmed, added = run.final_pieces(required)
    final = RoundRecorder("final", len(run.order))
    if trimmed:
        trimmed = np.asarray(trimmed, dtype=np.int64)
        final.remove(trimmed, "final", run.scores[trimmed])
    final.added = added
    final_round = final.finish([], [])
    final_round.size_after = len(final_pieces)
    rounds.append(final_round)
    return RoundHistory(
        config=RunConfig(config, pre_tokenizer=None),
        words=list(words),
        counts=list(counts),
        seeds=list(run.seeds.pieces),
        seed_counts=run.seeds.counts,
        seed_scores=run.seeds.scores,
        rounds=rounds,
        final_pieces=final_pieces,
        unk_id=unk_id,
        stop_reason=stop_reason,
        seconds=time.perf_counter() - started,
        out_of_memory=out_of_memory,
        engine="python" if module is None else "rust",
    )


def _empty_trace(config, seconds: float, engine: str) -> RoundHistory:
    """No words: the library's model holds only the special tokens (and the unk token)."""
    special_tokens = list(dict.fromkeys(config.special_tokens))
    unk = config.unk_token
    need_unk = unk is not None and unk not in special_tokens
    tokens = ([unk] if need_unk else []) + special_tokens
    return RoundHistory(
        config=RunConfig(config, pre_tokenizer=None),
        words=[],
        counts=[],
        seeds=[],
        seed_counts=np.zeros(0, dtype=np.int64),
        seed_scores=np.zeros(0),
        rounds=[],
        final_pieces=[(token, 0.0) for token in tokens],
        unk_id=None if unk is None else tokens.index(unk),
        stop_reason="vocab_size",
        seconds=seconds,
        engine=engine,
    )
