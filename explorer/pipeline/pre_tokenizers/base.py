"""The pre-tokenizer interface, `Sequence`, and the reader of a tokenizer.json `pre_tokenizer` entry.

Follows the `tokenizers` library (0.23.3): `PreTokenizer::pre_tokenize(&mut PreTokenizedString)`
(tokenizers/src/tokenizer/mod.rs), whose splits keep their `NormalizedString`, and `Sequence` in
tokenizers/src/pre_tokenizers/sequence.rs. Each component gives:
- `pre_tokenize(text)`: the pre-tokens with their (start, end) character offsets in `text`, as the
  library's `pre_tokenize_str` (so `""` gives `[]`);
- `split(normalized, first_part)`: the pre-tokens of a `normalizers.Normalized`, each keeping its
  alignments, so offsets map back through the normalizer to the original text (this is how the
  pipeline chains). `first_part` is false for the text after a special token, whose alignments
  count from the end of that token (only Metaspace's "first" scheme reads it);
- `words(text)`, `count_line_words(chunks)` and `count_lines_with_endings(chunks)`: only the
  pre-tokens' text, on the fast path used to count words for training (the chunks, runs of whole
  lines, cut by explorer.training.word_counts; each line a sequence without its break, or with
  its ending kept: `lines_with_endings`).

What it does not do: split text itself (the components in this package do).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from collections.abc import Sequence as SequenceOf
from typing import ClassVar, cast

from explorer.pipeline.components import Component, component_from_hf_json
from explorer.pipeline.normalizers import Normalized

# A pre-token (a piece of the text, not yet a token) and its (start, end) character offsets.
PreToken = tuple[str, tuple[int, int]]


def lines_with_endings(text: str) -> list[str]:
    """`text` cut just after each "\\n", endings kept, as the library's `Tokenizer.train(files)` reads
    a file (its `lines_with_ending`): only "\\n" ends a line (not "\\x0b", "\\x1c", "\\u2028" ... as
    `str.splitlines` has it); a last line without "\\n" is one too; no line is empty.

    >>> lines_with_endings("a\\r\\n\\nb\\x0bc")
    ['a\\r\\n', '\\n', 'b\\x0bc']
    """
    lines = text.split("\n")
    last = lines.pop()
    found = [line + "\n" for line in lines]
    if last:
        found.append(last)
    return found


class PreTokenizer(Component):
    """One pipeline stage. Subclasses implement `split`, `words` and `to_hf_json` (or `hf_type`
    and `hf_fields`)."""

    stage = "pre_tokenizer"
    # Whether `words` of a piece is all a Sequence needs (no alignments, no first-part scheme):
    # a Sequence of such components counts words without building `Normalized` pieces.
    words_per_piece: ClassVar[bool] = False

    def pre_tokenize(self, text: str) -> list[PreToken]:
        pieces = self.split(Normalized.unchanged(text))
        return [(piece.text, piece.original_span(0, len(piece.text))) for piece in pieces]

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        raise NotImplementedError

    def words(self, text: str) -> list[str]:
        return [piece.text for piece in self.split(Normalized.unchanged(text))]

    def count_line_words(self, chunks: Iterator[str]) -> Counter[str]:
        """Pre-tokens of every line of `chunks` (each chunk a run of whole lines, each line a
        separate sequence) with their counts, in order of first appearance. Subclasses whose
        pre-tokens never span a line break match a whole chunk at once."""
        counts: Counter[str] = Counter()
        for chunk in chunks:
            for line in chunk.split("\n"):
                counts.update(self.words(line))
        return counts

    def count_lines_with_endings(self, chunks: Iterator[str]) -> Counter[str]:
        """Pre-tokens of every line of `chunks` (each chunk a run of whole lines), each line a
        sequence with its ending kept (`lines_with_endings`), with their counts, in order of first
        appearance. Subclasses that can tell where a line ends match a whole chunk at once."""
        counts: Counter[str] = Counter()
        for chunk in chunks:
            for line in lines_with_endings(chunk):
                counts.update(self.words(line))
        return counts


class Sequence(PreTokenizer):
    """Each pre-tokenizer splits every piece of the previous one."""

    hf_type = "Sequence"

    def __init__(self, pre_tokenizers: SequenceOf[PreTokenizer]) -> None:
        self.pre_tokenizers = tuple(pre_tokenizers)

    def split(self, normalized: Normalized, first_part: bool = True) -> list[Normalized]:
        pieces = [normalized] if normalized.text else []
        for pre_tokenizer in self.pre_tokenizers:
            pieces = [smaller for piece in pieces for smaller in pre_tokenizer.split(piece, first_part)]
        return pieces

    def words(self, text: str) -> list[str]:
        if not all(step.words_per_piece for step in self.pre_tokenizers):
            return super().words(text)
        pieces = [text] if text else []
        for step in self.pre_tokenizers:
            pieces = [smaller for piece in pieces for smaller in step.words(piece)]
        return pieces

    def count_line_words(self, chunks: Iterator[str]) -> Counter[str]:
        if not all(step.words_per_piece for step in self.pre_tokenizers):
            return super().count_line_words(chunks)
        # The first step's pieces counted, then each distinct piece split by the other steps once:
        # taken in order of first appearance, the words keep theirs.
        first, *rest = self.pre_tokenizers
        counts: Counter[str] = Counter()
        for piece, count in first.count_line_words(chunks).items():
            words = [piece]
            for step in rest:
                words = [smaller for word in words for smaller in step.words(word)]
            for word in words:
                counts[word] += count
        return counts

    def to_hf_json(self) -> dict:
        return {"type": "Sequence", "pretokenizers": [step.to_hf_json() for step in self.pre_tokenizers]}

    @classmethod
    def from_hf_json(cls, config: dict) -> Sequence:
        return cls([pre_tokenizer_from_hf_json(item) for item in config["pretokenizers"]])


def pre_tokenizer_from_hf_json(config: dict) -> PreTokenizer:
    """The component for a tokenizer.json `pre_tokenizer` entry (not null: no pre-tokenizer is
    the caller's case)."""
    if config is None:
        raise ValueError(f"{PreTokenizer.stage} must be an object")
    return cast(PreTokenizer, component_from_hf_json(PreTokenizer.stage, config))
