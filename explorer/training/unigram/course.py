"""The Hugging Face course's Unigram (chapter 6, section 7), exactly, without its slowness.

The course, step by step, and what is kept to the last bit here:
1. Seeds: every character with its frequency (in order of first appearance), then the most
   frequent substrings of two characters or more (counted in every word, weighted by the word's
   count, sorted by frequency with ties in order of first appearance), up to `seed_size` pieces
   in all (300 in the course).
2. Model: -log(freq / total) per piece, total the sum of the remaining pieces' frequencies.
3. `encode_word`: Viterbi over the word's substrings; every word's score starts at 1 (not 0);
   a position keeps the first segmentation with the smallest score (ties: smallest start).
4. Loss: sum over words, in order, of count * score, added one after the other as the course's
   Python loop does (so the same floats).
5. Round: the loss increase of removing each piece longer than one character (the course
   recomputes the whole loss per piece; a piece that is not in a word's best segmentation
   cannot change that word's score, so only the words using it are encoded again, all such
   (piece, word) pairs at once with numpy (course_lattices.py), and the sum is redone
   from the first of them); remove the `int(len(model) * percent_to_remove)` smallest
   increases (stable sort: ties in model order), recompute the model; until at most
   `vocab_size` pieces are left.

Departures, for inputs the course never meets: with more characters than `seed_size`, no
substring is added (the course's slice would count from the end); a round that would remove
nothing (fewer than 1 / percent_to_remove pieces) stops the run (reason "stuck": the course
would loop forever); with only characters left it stops (reason "characters_only": the course
would fail with an IndexError). `max_piece_length`, when set, bounds the substrings counted.

The tokenizer built from the run puts the unk token and special tokens first (score 0.0), then
the course's pieces in its model order with scores log(freq / total).

What it does not do: pre-tokenize (the course uses XLNet's Metaspace; see explorer/train.py).
"""

from __future__ import annotations

import time
from collections import defaultdict
from math import log

import numpy as np

from explorer.run_config import RunConfig
from explorer.training.unigram.course_lattices import CourseLattices
from explorer.training.unigram.round_history import RoundHistory, UnigramRound
from explorer.training.unigram.round_recorder import RoundRecorder

STOP_CHECK_EVERY = 32  # pieces scored between two should_stop() calls


def seed_pieces(words: list[str], counts: list[int], seed_size: int, max_length: int | None):
    """The course's initial vocabulary: (pieces, frequencies) in its order."""
    char_freqs: dict[str, int] = defaultdict(int)
    subword_freqs: dict[str, int] = defaultdict(int)
    for word, freq in zip(words, counts):
        length = len(word)
        for i in range(length):
            char_freqs[word[i]] += freq
            last = length if max_length is None else min(length, i + max_length)
            for j in range(i + 2, last + 1):
                subword_freqs[word[i:j]] += freq
    sorted_subwords = sorted(subword_freqs.items(), key=lambda item: item[1], reverse=True)
    chosen = list(char_freqs.items()) + sorted_subwords[: max(0, seed_size - len(char_freqs))]
    return [piece for piece, _ in chosen], [freq for _, freq in chosen]


def model_values(freqs: dict[str, int]) -> dict[str, float]:
    """The course's model: piece -> -log(freq / total), in the pieces' order."""
    total = sum(freqs.values())
    return {piece: -log(freq / total) for piece, freq in freqs.items()}


def sequential_sum(terms: np.ndarray, start: int = 0, initial: float = 0.0) -> float:
    """initial + terms[start] + terms[start + 1] + ..., added one by one (numpy's accumulate is
    sequential, unlike its sum)."""
    if start >= len(terms):
        return float(initial)
    return float(np.add.accumulate(np.concatenate(([initial], terms[start:])))[-1])


def loss_increases(words, counts, model, should_stop=None, lattices=None, seed_index=None):
    """The course's compute_scores: (model loss, {piece: loss increase if removed}) for every piece
    longer than one character, in model order; None if `should_stop()` said so. `lattices` and
    `seed_index` (a CourseLattices over the seed pieces, and piece -> seed index) are built from
    the model when not given."""
    if lattices is None:
        seed_index = {piece: index for index, piece in enumerate(model)}
        lattices = CourseLattices(words, list(model), max(map(len, model), default=1))
    values, alive = _model_arrays(model, seed_index)
    count_array = np.asarray(counts, dtype=np.float64)
    edges, first_edge, edge_count = lattices.alive_edges(alive)
    # 1. Every word's best segmentation and score under the current model.
    totals, token_word, token_piece = lattices.best(
        np.arange(len(words)), edges, lattices.edge_word[edges], values, paths=True
    )
    terms = count_array * totals
    prefix = np.concatenate(([0.0], np.add.accumulate(terms)))
    model_loss = float(prefix[-1])
    # 2. The loss without each piece: only the words using it change. All (piece, word) pairs
    #    are encoded at once, each word without that piece.
    piece_length = np.asarray([len(piece) for piece in seed_index], dtype=np.int64)
    longer = piece_length[token_piece] > 1
    pairs = np.unique(token_piece[longer] * len(words) + token_word[longer])
    pair_piece, pair_word = pairs // max(len(words), 1), pairs % max(len(words), 1)
    sizes = edge_count[pair_word]
    owner = np.repeat(np.arange(len(pairs)), sizes)
    within = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    pair_edges = edges[np.repeat(first_edge[pair_word], sizes) + within]
    keep = lattices.edge_piece[pair_edges] != pair_piece[owner]
    new_terms = count_array[pair_word] * lattices.best(pair_word, pair_edges[keep], owner[keep], values)
    bounds = np.searchsorted(pair_piece, np.arange(len(seed_index) + 1))
    scores: dict[str, float] = {}
    for scored, token in enumerate(piece for piece in model if len(piece) > 1):
        if scored % STOP_CHECK_EVERY == STOP_CHECK_EVERY - 1 and should_stop is not None and should_stop():
            return None
        low, high = bounds[seed_index[token]], bounds[seed_index[token] + 1]
        if low == high:
            scores[token] = model_loss - model_loss  # the same sum, term for term
            continue
        affected = pair_word[low:high]  # in corpus order
        first = int(affected[0])
        changed = terms[first:].copy()
        changed[affected - first] = new_terms[low:high]
        scores[token] = sequential_sum(changed, 0, prefix[first]) - model_loss
    return model_loss, scores


def _model_arrays(model: dict[str, float], seed_index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The model over the seed pieces: each piece's -log p (inf when removed) and whether it is alive."""
    values = np.full(len(seed_index), np.inf)
    alive = np.zeros(len(seed_index), dtype=bool)
    model_indices = np.asarray([seed_index[token] for token in model], dtype=np.int64)
    values[model_indices] = list(model.values())
    alive[model_indices] = True
    return values, alive


def compute_loss(words, counts, model, lattices, seed_index) -> float:
    """The course's compute_loss of `model`: each word's encode_word score times its count, summed
    in corpus order (step 1 of `loss_increases`, alone)."""
    values, alive = _model_arrays(model, seed_index)
    edges, _, _ = lattices.alive_edges(alive)
    totals = lattices.best(np.arange(len(words)), edges, lattices.edge_word[edges], values)
    terms = np.asarray(counts, dtype=np.float64) * totals
    return float(np.add.accumulate(terms)[-1]) if len(terms) else 0.0


def _planned_rounds(size: int, vocab_size: int, percent: float) -> int:
    rounds = 0
    while size > vocab_size and int(size * percent) > 0 and rounds < 10_000:
        size -= int(size * percent)
        rounds += 1
    return rounds


def train_course(words, counts, config, progress=None, should_stop=None) -> RoundHistory:
    started = time.perf_counter()
    max_length = config.max_piece_length
    seeds, seed_freqs = seed_pieces(words, counts, config.seed_size, max_length)
    seed_index = {piece: index for index, piece in enumerate(seeds)}
    lattices = CourseLattices(words, seeds, max((len(piece) for piece in seeds), default=1))
    freqs = dict(zip(seeds, seed_freqs))
    model = model_values(freqs)
    planned = _planned_rounds(len(model), config.vocab_size, config.percent_to_remove)

    rounds: list[UnigramRound] = []
    stop_reason = "vocab_size"
    while len(model) > config.vocab_size:
        if should_stop is not None and should_stop():
            stop_reason = "stopped"
            break
        if progress is not None:
            progress(len(rounds), planned)
        to_remove = int(len(model) * config.percent_to_remove)
        if to_remove == 0:
            stop_reason = "stuck"
            break
        result = loss_increases(words, counts, model, should_stop, lattices, seed_index)
        if result is None:
            stop_reason = "stopped"
            break
        model_loss, scores = result
        if not scores:
            stop_reason = "characters_only"
            break
        # 3. Remove the pieces whose removal costs least, then renormalize.
        everyone = sorted(scores.items(), key=lambda item: item[1])
        ranked = everyone[:to_remove]
        recorder = RoundRecorder("prune", len(model), losses=[model_loss])
        if len(everyone) > to_remove:  # the piece that ranked next: the threshold's neighbour
            recorder.first_kept = (seed_index[everyone[to_remove][0]], everyone[to_remove][1])
        recorder.remove(
            [seed_index[token] for token, _ in ranked],
            "loss",
            [-model[token] for token, _ in ranked],
            [increase for _, increase in ranked],
        )
        recorder.threshold = ranked[-1][1]
        for token, _ in ranked:
            del freqs[token]
        model = model_values(freqs)
        rounds.append(
            recorder.finish([seed_index[token] for token in model], [-value for value in model.values()])
        )
    if progress is not None:
        progress(len(rounds), planned)
    # 4. The loss of the final model (what the course's compute_loss would print after the loop).
    final_loss = compute_loss(words, counts, model, lattices, seed_index) if rounds else None

    special = list(
        dict.fromkeys(([config.unk_token] if config.unk_token else []) + list(config.special_tokens))
    )
    final_pieces = [(token, 0.0) for token in special] + [(token, -value) for token, value in model.items()]
    seed_total = sum(seed_freqs)
    return RoundHistory(
        config=RunConfig(config, pre_tokenizer=None),
        words=list(words),
        counts=list(counts),
        seeds=seeds,
        seed_counts=np.asarray(seed_freqs, dtype=np.int64),
        seed_scores=np.asarray([log(freq / seed_total) for freq in seed_freqs], dtype=np.float64),
        rounds=rounds,
        final_pieces=final_pieces,
        unk_id=0 if config.unk_token else None,
        stop_reason=stop_reason,
        seconds=time.perf_counter() - started,
        final_loss=final_loss,
    )
