"""Corpus text -> trained history -> Tokenizer: the whole pipeline in two calls.

`train_corpus(text, config)` counts words (the RunConfig's normalizers + pre-tokenizer, see
explorer/training/word_counts.py; given a list of paths instead of the text, it streams the files
with the RunConfig's reading, explorer/corpora/streaming.py), trains
(explorer/training/trainers.py: a byte-level library run starts from 256 byte symbols, as GPT-2
and the library's ByteLevelBPETokenizer do), and leaves the RunConfig in the history
(`trace.config`) so that `tokenizer_from_trace` can rebuild the matching Tokenizer (normalizer,
pre-tokenizer, model, decoder, post-processor) for encoding and export: it is the history's own
`tokenizer_at(k)` (explorer/training/history.py, `TrainingHistory`).

Unigram (a RunConfig whose trainer is a `UnigramConfig`): `train_corpus` returns a RoundHistory,
and `tokenizer_from_trace` rebuilds a Unigram tokenizer from it (Metaspace pre-tokenizer and
decoder when the run used "metaspace", the pre-tokenizer XLNet and the course use).
`trace_from_json` reads either kind of trace back (by its "format").

What it does not do: enforce size limits or time budgets (the callers pass `should_stop` and
`max_steps`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import cast

from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.corpora.inputs import expand_inputs, reading_of
from explorer.corpora.streaming import count_inputs
from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pipeline.decoders import ByteLevelDecoder
from explorer.pipeline.tokenizer import Tokenizer
from explorer.run_config import RunConfig
from explorer.tokens import DROPPED, SPECIAL, UNKNOWN, Piece
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.history import UNIGRAM_TRACE_FORMAT, TrainingHistory
from explorer.training.trainers import train_counted
from explorer.training.word_counts import count_corpus

# Unigram's modules are imported where a Unigram trace needs them: they load numpy (16 MB and
# 45 ms), which a BPE or WordPiece run never uses.


def train_corpus(
    corpus: str | Sequence[os.PathLike | str],
    config: RunConfig,
    progress=None,
    should_stop=None,
    max_steps: int | None = None,
    jobs: int = 1,
    engine: str | None = None,
    text_field: str | None = None,
) -> TrainingHistory:
    """Count the words of the corpus through the run's normalizers and pre-tokenizer, train, and
    return the trace, which carries the run's config (the trainer's as it ran). `jobs` processes
    count the words of a large corpus (explorer.training.word_counts.count_words).

    The corpus is its text (cut with the RunConfig's reading: by default "lines", one sequence
    per line), or a list of paths (files, directories, globs; plain, .gz, .zst, and JSONL or
    Parquet records whose `text_field` holds the text), streamed in chunks with the RunConfig's
    `reading` (explorer.corpora.streaming.count_inputs; should_stop is asked while counting too,
    and raises its CountingStopped).

    The course's corpus, as its BPE (chapter 6, section 5) and Unigram (section 7) train it:

    >>> from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
    >>> from explorer.samples import HF_COURSE
    >>> bpe = train_corpus(HF_COURSE.text, RunConfig(TrainerConfig(vocab_size=50, flavor="course")))
    >>> bpe.steps, bpe.step_noun, bpe.merge_strings()[:3]
    (20, 'merge', [('Ġ', 't'), ('i', 's'), ('e', 'r')])
    >>> bpe.segment("Ġtokenization", 10), bpe.segment("Ġtokenization")
    (['Ġto', 'k', 'en', 'i', 'z', 'a', 't', 'i', 'o', 'n'], ['Ġtokeniz', 'a', 't', 'i', 'o', 'n'])
    >>> unigram = train_corpus(HF_COURSE.text, RunConfig(UnigramConfig("course", 100), (), "metaspace"))
    >>> unigram.steps, unigram.step_noun, len(unigram.vocab_at(0)), len(unigram.vocab)
    (11, 'round', 300, 99)
    >>> unigram.tokenizer_at().encode("This is the Hugging Face course.", add_special_tokens=False).tokens
    ['▁This', '▁is', '▁the', '▁Hugging', '▁Face', '▁', 'c', 'ou', 'r', 's', 'e', '.']
    """
    if not isinstance(corpus, str):
        inputs = expand_inputs(
            [os.fspath(path) for path in corpus], text_field=text_field, text_column=text_field
        )
        reading_of(inputs, config.reading)  # text mixed with records, or a reading records cannot have
        counts = count_inputs(inputs, Counting.of(config), jobs=jobs, engine=engine, should_stop=should_stop)
        return train_counted(
            counts.hand_over(), counts.figures, config, progress, should_stop, max_steps, engine
        )
    if config.reading != "lines":  # the text cut as a file is: each line with its ending
        if config.reading == "records":
            raise ValueError("a corpus given as text has lines, not records: give the paths of its files")
        counter = ChunkCounter(Counting.of(config), jobs=jobs, engine=engine)
        counter.add_text(corpus)
        counts = counter.result()
        return train_counted(
            counts.hand_over(), counts.figures, config, progress, should_stop, max_steps, engine
        )
    # A RunConfig without a pre-tokenizer (words given directly) cannot count a text: count_corpus
    # rejects None as an unknown pre-tokenizer.
    # The corpus figures (lines, characters, words) come from the same pass, for a merge history.
    word_counts, figures = count_corpus(
        corpus, config.normalizers, cast(str, config.pre_tokenizer), jobs, engine=engine
    )
    return train_counted(word_counts, figures, config, progress, should_stop, max_steps, engine)


def trace_from_json(text: str | bytes) -> TrainingHistory:
    """A trace's JSON read back (text, or its UTF-8 bytes as the run store and the workers hand
    it over): a RoundHistory when its "format" says so, else a MergeHistory."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"trace: not valid JSON ({error})") from None
    if isinstance(data, dict) and data.get("format") == UNIGRAM_TRACE_FORMAT:
        from explorer.training.unigram.round_history import RoundHistory

        return RoundHistory.from_dict(data)
    return MergeHistory.from_dict(data)


def tokenizer_from_trace(trace: TrainingHistory, k: int | None = None) -> Tokenizer:
    """The trained tokenizer, or the one the first k merges make (vocabulary as it was then).
    For a RoundHistory, k is a round (`RoundHistory.tokenizer_at`)."""
    return trace.tokenizer_at(k)


def encode_pieces(tokenizer: Tokenizer, text: str) -> list[Piece]:
    """Encode `text` for display and measurement: no post-processor ([CLS]/[SEP] left out),
    offsets that count every character (`Tokenizer.encode_exactly`), each piece's kind (an
    unknown token spelled as the unk token's name), and a `DROPPED` piece for every character the
    model drops, in text order."""
    encoding, dropped = tokenizer.encode_exactly(text)
    byte_level = isinstance(tokenizer.decoder, ByteLevelDecoder)
    unknown_name = tokenizer.model.unk_token
    unknown = tokenizer.token_to_id(unknown_name) if unknown_name else None
    pieces = []
    for token_id, token, (start, end), special in zip(
        encoding.ids, encoding.tokens, encoding.offsets, encoding.special_tokens_mask
    ):
        if special:
            pieces.append(Piece(token_id, token, start, end, token.encode("utf-8"), SPECIAL))
        elif unknown_name is not None and token_id == unknown:  # (unknown is None without a name)
            # Shown by its name ("[UNK]", "<unk>"), never as the text it stands for, which is how
            # a Unigram model (ours and the library's) spells its unknown tokens.
            name = unknown_name
            pieces.append(Piece(token_id, name, start, end, name.encode("utf-8", "surrogatepass"), UNKNOWN))
        else:
            pieces.append(Piece(token_id, token, start, end, symbols_to_bytes(token) if byte_level else None))
    if dropped:
        pieces += [
            Piece(-1, text[start:end], start, end, text[start:end].encode("utf-8", "surrogatepass"), DROPPED)
            for start, end in dropped
        ]
        pieces.sort(key=lambda piece: piece.start)
    return pieces
