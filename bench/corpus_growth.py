"""Text whose vocabulary keeps growing with its size, written to files, for bench_growth.py.

    .venv/bin/python bench/corpus_growth.py FOLDER TOTAL_BYTES FILE_BYTES SEED JOBS   # prints the paths

Words are drawn from Zipf's law over an unbounded list of ranks (exponent ZIPF_EXPONENT, each rank
standing for SPREAD words of equal frequency): the frequent words repeat, and the tail keeps
bringing ranks never seen before, so the distinct words grow as a power of the text's length (Heaps'
law), as in real text and unlike cycled text. A word's number is spelled in base len(SYLLABLES), one
syllable a digit (word 0 is "ba"): the frequent words are short, every number a different word, and
some syllables hold a two-byte character ("é", so byte-level words are not all ASCII). A line has
5-30 tokens; 3% of the tokens are numbers (Zipf too), 5% of the words are followed by a comma, a
line's first letter is upper case and 80% of the lines end with a full stop; every line ends with
"\\n", no "\\r", no trailing space, no empty line.

Generated per block of BLOCK_TOKENS tokens with numpy (no Python loop per word), each file from
its own generator seeded with (seed, file index), so that file i is the same in a corpus of any
size, and a file cut shorter is a prefix of the longer one (cut after a line break). The files are
cached in FOLDER under names that hold the seed, the index and the size: a rerun reuses them, and
a file is written under a temporary name and renamed when whole, so an interrupted run leaves no
half file behind.

What it does not do: sample real language (no grammar, no morphology beyond the syllables), or
change its spelling rules with the seed (the seed changes the draws only).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

# P(rank k) ~ k^-a: the distinct words grow about as tokens^(1/a) (measured: x4.6 per 10x of text,
# 240,000 in 42 MB); 1.3 gave x5.9 and 820,000 in 50 MB, more than text has
ZIPF_EXPONENT = 1.5
BLOCK_TOKENS = 1 << 18
NUMBER_SHARE, COMMA_SHARE, FULL_STOP_SHARE = 0.03, 0.05, 0.8
SHORTEST_LINE, LONGEST_LINE = 5, 30
SPREAD = 10  # words per Zipf rank: the most frequent word is 2.5% of the words, not 25%
LARGEST_RANK = 1 << 58  # the tail reaches past int64's range: such ranks are clipped
LARGEST_NUMBER = 1_000_000  # numbers have at most 6 digits
VERSION = 1  # in the file names: change it when the text for a seed changes

CONSONANTS = ("b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "sh", "th")
VOWELS = ("a", "e", "i", "o", "u", "é")
SYLLABLES = [consonant + vowel for consonant in CONSONANTS for vowel in VOWELS]


def glyph_table(glyphs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each glyph's UTF-8 bytes (a row padded with zeros) and its length in bytes."""
    encoded = [glyph.encode() for glyph in glyphs]
    table = np.zeros((len(encoded), max(map(len, encoded))), dtype=np.uint8)
    for row, data in enumerate(encoded):
        table[row, : len(data)] = np.frombuffer(data, dtype=np.uint8)
    return table, np.array([len(data) for data in encoded], dtype=np.int64)


SYLLABLE_TABLE = glyph_table(SYLLABLES)
DIGIT_TABLE = glyph_table(list("0123456789"))


def digits_of(values: np.ndarray, base: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The digits of each value (>= 0) in `base`, least significant first: per place, the values
    that have a digit there (their indexes) and that digit. Most values are short, so each place
    touches fewer values than the one before."""
    places = []
    index, rest = np.arange(len(values)), values
    while len(index):
        places.append((index, rest % base))
        rest = rest // base
        more = rest > 0
        index, rest = index[more], rest[more]
    return places


def spell(out: np.ndarray, ends: np.ndarray, places: list, table: tuple[np.ndarray, np.ndarray]) -> None:
    """Write each value's digits as glyphs of `table` into `out`, its last glyph ending at `ends`."""
    glyph_bytes, glyph_lengths = table
    cursor = ends.copy()
    for index, digit in places:
        lengths = glyph_lengths[digit]
        cursor[index] -= lengths
        at = cursor[index]
        for offset in range(glyph_bytes.shape[1]):
            has = lengths > offset
            out[at[has] + offset] = glyph_bytes[digit[has], offset]


def spelled_lengths(count: int, places: list, table: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    lengths = np.zeros(count, dtype=np.int64)
    for index, digit in places:
        lengths[index] += table[1][digit]
    return lengths


def block_text(rng: np.random.Generator) -> np.ndarray:
    """About BLOCK_TOKENS tokens of whole lines, as UTF-8 bytes."""
    line_lengths = rng.integers(SHORTEST_LINE, LONGEST_LINE + 1, size=BLOCK_TOKENS // SHORTEST_LINE)
    line_ends = np.cumsum(line_lengths) - 1
    line_ends = line_ends[line_ends < BLOCK_TOKENS]
    count = int(line_ends[-1]) + 1  # whole lines only
    # Zipf's tail by inversion, P(rank >= k) = k^(1 - a): numpy's `zipf` (rejection) took 4x longer
    ranks = np.minimum(np.floor((1.0 - rng.random(count)) ** (-1 / (ZIPF_EXPONENT - 1))), LARGEST_RANK)
    ranks = ranks.astype(np.int64) - 1
    values = ranks * SPREAD + rng.integers(SPREAD, size=count)
    is_number = rng.random(count) < NUMBER_SHARE
    ends_line = np.zeros(count, dtype=bool)
    ends_line[line_ends] = True
    comma = ~ends_line & ~is_number & (rng.random(count) < COMMA_SHARE)
    full_stop = ends_line & (rng.random(count) < FULL_STOP_SHARE)

    # Each token's bytes: its glyphs (syllables, or decimal digits), a punctuation mark, a separator.
    words, numbers = np.flatnonzero(~is_number), np.flatnonzero(is_number)
    word_places = digits_of(values[words], len(SYLLABLES))
    number_places = digits_of(values[numbers] % LARGEST_NUMBER, 10)
    spelled = np.zeros(count, dtype=np.int64)
    spelled[words] = spelled_lengths(len(words), word_places, SYLLABLE_TABLE)
    spelled[numbers] = spelled_lengths(len(numbers), number_places, DIGIT_TABLE)
    lengths = spelled + (comma | full_stop) + 1
    starts = np.cumsum(lengths) - lengths
    out = np.empty(int(lengths.sum()), dtype=np.uint8)
    ends = starts + spelled
    spell(out, ends[words], word_places, SYLLABLE_TABLE)
    spell(out, ends[numbers], number_places, DIGIT_TABLE)
    out[ends[comma]] = ord(",")
    out[ends[full_stop]] = ord(".")
    out[ends + (comma | full_stop)] = np.where(ends_line, ord("\n"), ord(" "))

    first = starts[np.concatenate(([0], line_ends[:-1] + 1))]  # each line's first byte
    lower = first[(out[first] >= ord("a")) & (out[first] <= ord("z"))]
    out[lower] -= ord("a") - ord("A")
    return out


def write_file(path: Path, size: int, seed: int, index: int) -> None:
    """At most `size` bytes of whole lines from the generator of (seed, index), renamed when whole."""
    rng = np.random.default_rng([seed, index])
    partial = path.with_name(path.name + f".{os.getpid()}.partial")
    written = 0
    with open(partial, "wb") as file:
        while written < size:
            block = block_text(rng)
            room = size - written
            if len(block) > room:
                breaks = np.flatnonzero(block[:room] == ord("\n"))
                if len(breaks) == 0:
                    break
                block = block[: int(breaks[-1]) + 1]
            file.write(memoryview(block))
            written += len(block)
    os.replace(partial, path)


def corpus_files(folder: Path, total_bytes: int, file_bytes: int, seed: int, jobs: int = 1) -> list[Path]:
    """The files of a corpus of about `total_bytes`, each at most `file_bytes` (the last one the
    rest), those not in `folder` yet written there by `jobs` processes."""
    folder.mkdir(parents=True, exist_ok=True)
    paths, missing = [], []
    for index, start in enumerate(range(0, total_bytes, file_bytes)):
        size = min(file_bytes, total_bytes - start)
        path = folder / f"growth-v{VERSION}-seed{seed}-part{index:05d}-{size}B.txt"
        if not path.exists():
            missing.append((path, size, seed, index))
        paths.append(path)
    if jobs > 1 and len(missing) > 1:
        with ProcessPoolExecutor(min(jobs, len(missing))) as pool:
            list(pool.map(write_file, *zip(*missing)))
    else:
        for arguments in missing:
            write_file(*arguments)
    return paths


if __name__ == "__main__":
    folder, total, each, seed, jobs = sys.argv[1:6]
    for path in corpus_files(Path(folder), int(total), int(each), int(seed), int(jobs)):
        print(path)
