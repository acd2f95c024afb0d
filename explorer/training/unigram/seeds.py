"""The library flavor's seed pieces, from the suffix tree of the corpus, and every place in the
corpus where a seed piece can be a token (the lattice edges the EM works on).

Follows `UnigramTrainer::make_seed_sentence_pieces` (tokenizers 0.23.3, Rust
`models/unigram/trainer.rs`) and the suffix tree nodes `esaxx` enumerates:
- The distinct words are joined into one string, each followed by "\\0" (so a substring is
  counted once per distinct word containing it, whatever the word's count: the library's and
  SentencePiece's choice).
- esaxx reports the internal nodes of the suffix tree: substrings occurring at least twice that
  are followed by at least two different characters ("\\0" included). Each becomes a candidate
  with score occurrences x length (in characters) when it has 2 to `max_piece_length`
  characters and no "\\0".
- Seeds: every character (weighted by word counts; "\\0" excluded), highest count first (ties:
  higher code point first), then the candidates by score, ties by the string in reverse
  (code-point) order, until `seed_size` pieces (a candidate is added before the size is
  checked, so at least one is). Initial scores: log(score / sum of scores), summed in order.

Instead of a suffix array, substrings are counted length by length with numpy (every length up to
`max_piece_length`, keeping only the positions whose shorter prefix repeats): a substring is a
node exactly when it repeats with two different next characters, which is what esaxx's stack
walk over the suffix array finds (tests compare both).

Memory: of the repeated positions of each length only those of nodes are kept (the others can
never be an edge), in 32 bits, and the edges are written into arrays sized beforehand, each length
let go once copied (edges: 32-bit starts and pieces, 8-bit lengths).

What it does not do: train (library.py) or handle `initial_alphabet`.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log

import numpy as np

SEPARATOR = "\0"


@dataclass
class FlatCorpus:
    """The distinct words side by side, each followed by "\\0", as code points."""

    words: list[str]
    counts: np.ndarray  # int64 per word
    # Per position: the code point, and its rank among the distinct ones (the separator's is 0);
    # library_seeds lets both go once the edges are found (empty arrays afterwards).
    codes: np.ndarray
    ranks: np.ndarray
    alphabet: np.ndarray  # code points by rank
    word_starts: np.ndarray
    word_ends: np.ndarray  # the separator after each word

    @classmethod
    def of(cls, words: list[str], counts: list[int]) -> FlatCorpus:
        flat = "".join(word + SEPARATOR for word in words)
        codes = np.frombuffer(flat.encode("utf-32-le"), dtype="<u4").astype(np.int64)
        alphabet, ranks = np.unique(np.concatenate(([0], codes)), return_inverse=True)
        lengths = np.asarray([len(word) for word in words], dtype=np.int64)
        word_starts = (np.cumsum(lengths + 1) - (lengths + 1)).astype(np.int64)
        return cls(
            words=words,
            counts=np.asarray(counts, dtype=np.int64),
            codes=codes,
            ranks=ranks[1:].astype(np.int64),
            alphabet=alphabet,
            word_starts=word_starts,
            word_ends=word_starts + lengths,
        )


@dataclass
class Seeds:
    pieces: list[str]
    counts: (
        np.ndarray
    )  # the count behind each initial score (characters: weighted; others: occurrences x length)
    scores: np.ndarray  # initial log-probabilities
    # Every occurrence of a seed piece in the flat corpus: a candidate token of the lattices.
    edge_starts: np.ndarray
    edge_lengths: np.ndarray
    edge_pieces: np.ndarray
    char_piece: np.ndarray  # per position: the one-character seed piece there, -1 for "\0"
    representative: np.ndarray  # per piece: a position where it occurs


def _repeated_substrings(flat: FlatCorpus, max_length: int):
    """Per length L (1..max_length): the positions where a node of length L starts (a substring
    that repeats and is followed by two different characters) with its id there (int32, only
    the node positions: the others are the bulk and are never an edge), the number of positions
    of each id, and per id whether it is a node."""
    alphabet_size = len(flat.alphabet)
    next_rank = np.concatenate((flat.ranks, [0]))
    positions = np.flatnonzero(flat.ranks != 0)
    ids = flat.ranks[positions]
    levels = []
    for length in range(1, max_length + 1):
        occurrences = np.bincount(ids)
        repeated = occurrences[ids] >= 2
        positions, ids = positions[repeated], ids[repeated]
        following = next_rank[positions + length]
        pairs, pair_ids = np.unique(ids * alphabet_size + following, return_inverse=True)
        is_node = np.bincount(pairs // alphabet_size, minlength=len(occurrences)) >= 2
        del pairs
        at_node = is_node[ids]
        levels.append(
            (positions[at_node].astype(np.int32), ids[at_node].astype(np.int32), occurrences, is_node)
        )
        del at_node
        longer = following != 0
        positions, ids = positions[longer], pair_ids.reshape(-1)[longer]
        del following, pair_ids, longer
        if len(positions) == 0:
            break
    return levels


def library_seeds(
    words: list[str], counts: list[int], max_length: int, seed_size: int
) -> tuple[FlatCorpus, Seeds]:
    flat = FlatCorpus.of(words, counts)
    # Characters, weighted by word counts; "\0" is the separator and never a piece.
    word_of_position = np.repeat(np.arange(len(words)), [len(word) + 1 for word in words])
    char_counts = np.bincount(flat.ranks, weights=flat.counts[word_of_position], minlength=len(flat.alphabet))
    del word_of_position
    char_ranks = [rank for rank in range(1, len(flat.alphabet)) if char_counts[rank] > 0]
    char_ranks.sort(key=lambda rank: (char_counts[rank], flat.alphabet[rank]), reverse=True)

    levels = _repeated_substrings(flat, max_length) if words else []
    candidates = []  # (score, string, length, id)
    joined = "".join(word + SEPARATOR for word in words)  # a string index is a position in flat
    for length, (positions, ids, occurrences, is_node) in enumerate(levels, start=1):
        if length < 2:
            continue
        nodes = np.flatnonzero(is_node & (occurrences >= 2))
        first_position = np.full(len(occurrences), -1, dtype=np.int64)
        first_position[ids[::-1]] = positions[::-1]
        for node, occurrence, start in zip(
            nodes.tolist(), occurrences[nodes].tolist(), first_position[nodes].tolist()
        ):
            candidates.append((occurrence * length, joined[start : start + length], length, node))
    del joined
    candidates.sort(key=lambda item: (item[0], item[1]), reverse=True)

    pieces = [chr(flat.alphabet[rank]) for rank in char_ranks]
    seed_counts = [int(char_counts[rank]) for rank in char_ranks]
    # per length: substring id -> piece id
    chosen_ids: list[dict[int, int]] = [dict() for _ in range(len(levels) + 1)]
    for score, string, length, node in candidates:
        if len(pieces) >= seed_size and len(pieces) > len(char_ranks):
            break
        chosen_ids[length][node] = len(pieces)
        pieces.append(string)
        seed_counts.append(score)
    del candidates
    total = 0.0
    for count in seed_counts:
        total += count
    logsum = log(total) if total > 0 else 0.0
    scores = np.asarray([log(count) - logsum for count in seed_counts], dtype=np.float64)

    # Edges: one per occurrence of a seed piece, filled level by level into arrays sized first
    # (each level is let go once copied: the edges are the bulk of the memory).
    piece_of_rank = np.full(len(flat.alphabet), -1, dtype=np.int64)
    piece_of_rank[char_ranks] = np.arange(len(char_ranks))
    char_piece = piece_of_rank[flat.ranks].astype(np.int32)
    flat.codes = flat.ranks = np.zeros(0, dtype=np.int64)  # 16 bytes a character, needed no more
    char_starts = np.flatnonzero(char_piece >= 0)
    lookups = []
    for length, (_, ids, occurrences, _) in enumerate(levels, start=1):
        lookup = np.full(len(occurrences), -1, dtype=np.int32)
        if length >= 2 and chosen_ids[length]:
            lookup[list(chosen_ids[length])] = list(chosen_ids[length].values())
        lookups.append((lookup, int((lookup[ids] >= 0).sum())))
    total_edges = len(char_starts) + sum(size for _, size in lookups)
    edge_starts = np.empty(total_edges, dtype=np.int32)
    edge_lengths = np.empty(total_edges, dtype=np.uint8 if max_length < 256 else np.int32)
    edge_pieces = np.empty(total_edges, dtype=np.int32)
    edge_starts[: len(char_starts)] = char_starts
    edge_lengths[: len(char_starts)] = 1
    edge_pieces[: len(char_starts)] = char_piece[char_starts]
    representative = np.zeros(len(pieces), dtype=np.int64)
    representative[char_piece[char_starts]] = char_starts
    filled = len(char_starts)
    for length, (lookup, size) in enumerate(lookups, start=1):
        positions, ids = levels[length - 1][:2]
        levels[length - 1] = None
        if size:
            found = lookup[ids]
            keep = found >= 0
            edge_starts[filled : filled + size] = positions[keep]
            edge_lengths[filled : filled + size] = length
            edge_pieces[filled : filled + size] = found[keep]
            representative[found[keep]] = positions[keep]
            filled += size
        del positions, ids
    return flat, Seeds(
        pieces=pieces,
        counts=np.asarray(seed_counts, dtype=np.int64),
        scores=scores,
        edge_starts=edge_starts,
        edge_lengths=edge_lengths,
        edge_pieces=edge_pieces,
        char_piece=char_piece,
        representative=representative,
    )
