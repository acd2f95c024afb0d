"""The readings written out as the obvious loop: cut the corpus into sequences, normalize and
pre-tokenize each one with the pre-tokenizer's `split` (the path that keeps alignments, not the
counting fast paths), count; and the figures line by line. The slow, plainly correct reference
`ChunkCounter` is checked against (tests/unit/test_chunk_counter_engines.py).

Kept in tests only: one sequence at a time, on purpose.
"""

from __future__ import annotations

from explorer.pipeline.normalizers import Normalized, build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer


def sequences(corpus: str | list[str], reading: str) -> list[str]:
    """The sequences of `corpus` (a text, or records for "records") under `reading`."""
    if reading == "records":
        return list(corpus)
    assert isinstance(corpus, str)
    found, start = [], 0
    while start < len(corpus):
        end = corpus.find("\n", start)
        end = len(corpus) if end < 0 else end + 1
        line = corpus[start:end]
        start = end
        if reading == "lines":
            if line.endswith("\n"):
                line = line[:-1]
                if line.endswith("\r"):
                    line = line[:-1]
            if not line:
                continue
        found.append(line)
    return found


def counted(
    corpus: str | list[str], normalizers: tuple[str, ...], pre_tokenizer: str, reading: str
) -> dict[str, int]:
    """Every sequence's pieces, counted in order of first appearance."""
    pre = build_pre_tokenizer(pre_tokenizer)
    normalizer = build_normalizer(list(normalizers)) if normalizers else None
    counts: dict[str, int] = {}
    for sequence in sequences(corpus, reading):
        normalized = Normalized.unchanged(sequence) if normalizer is None else normalizer.normalize(sequence)
        for piece in pre.split(normalized):
            if piece.text:
                counts[piece.text] = counts.get(piece.text, 0) + 1
    return counts


def figures(corpus: str | list[str]) -> dict[str, int]:
    """The figures of a text (or records, each a text): its non-empty lines without their breaks,
    their characters, UTF-8 bytes and white-space-separated words."""
    texts = [corpus] if isinstance(corpus, str) else corpus
    lines = [line for text in texts for line in sequences(text, "lines")]
    return {
        "lines": len(lines),
        "characters": sum(map(len, lines)),
        "utf8_bytes": sum(len(line.encode("utf-8", errors="surrogatepass")) for line in lines),
        "words": sum(len(line.split()) for line in lines),
    }
