"""The readings against the `tokenizers` library (0.23.3): trained from `ChunkCounter`'s counts, our
library-flavor trainers give the library's vocabulary and merges when the library reads the same
corpus its own way:

- "lines-with-endings" is `Tokenizer.train([path])`: each line keeps its "\\n" (and a "\\r"
  before it), a lone "\\r" (or "\\x0b", "\\u2028", which `str.splitlines` would cut at) stays
  inside its line, the last line counts without a "\\n";
- "records" is `train_from_iterator(records)` with line breaks inside the records.

The corpus has "\\r\\n", a lone "\\r", blank lines, trailing spaces before "\\n", no final line
break, CJK and emoji; the chunks are cut small so that each is several lines and none is the whole.

What it does not check: the reading "lines" (tests/parity/test_split_patterns.py and
test_trainers.py train from `count_corpus`, which ChunkCounter's "lines" is).
"""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer, is_byte_level
from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
from explorer.training.trainers import train_counted
from explorer.training.word_counts import line_chunks
from tests.helpers.engines import built_engines, train
from tests.parity.test_trainers import _decorated_block
from tests.parity.test_unigram_library import assert_parity

LINES = [
    "The cat sat.\r\n",
    "On  the mat  \n",
    "\n",
    "  \n",
    "lone\rreturn here, then\ttabs\t\n",
    "中文字 日本語 😀👍🏽 café naïve\r\n",
    "It's 12345 o'clock; isn't it?   \n",
    "\r\n",
    "not\x0bcut at\u2028these  \x1c\x85  \n",
]
CORPUS = "".join(line * (index + 2) for index, line in enumerate(LINES)) + "no final break  "
RECORDS = ["A record\nwith two lines  \nand more", "  leading\r\n\r\nblank lines\n", "中文 😀\n\n", "x"]
SPECIALS = ["<|endoftext|>"]
PRE_TOKENIZERS = ["byte-level", "byte-level-cl100k", "bert", "whitespace", "metaspace"]


def counted(counting: Counting, source):
    """ChunkCounter's words on every built engine (the same on each), the corpus in small chunks."""
    results = []
    for engine in built_engines():
        counter = ChunkCounter(counting, engine=engine)
        if counting.reading == "records":
            for start in range(0, len(source), 2):
                counter.add_records(source[start : start + 2])
        else:
            for chunk in line_chunks(source, 40):
                counter.add_text(chunk)
        results.append(counter.result())
    for other in results[1:]:
        assert list(other.words.items()) == list(results[0].words.items())
        assert other.figures == results[0].figures
    return results[0]


def library_tokenizer(model, pre_tokenizer: str) -> Tokenizer:
    """The library's tokenizer around `model` with our pre-tokenizer's tokenizer.json form."""
    document = json.loads(Tokenizer(model).to_str())
    document["pre_tokenizer"] = build_pre_tokenizer(pre_tokenizer).to_hf_json()
    return Tokenizer.from_str(json.dumps(document))


def library_read(tokenizer: Tokenizer, trainer, reading: str, tmp_path) -> dict:
    """The library trained on the corpus read its way; its tokenizer.json's model."""
    if reading == "records":
        tokenizer.train_from_iterator(RECORDS, trainer)
    else:
        path = tmp_path / "corpus.txt"
        path.write_bytes(CORPUS.encode("utf-8"))
        tokenizer.train([str(path)], trainer)
    return json.loads(tokenizer.to_str())["model"]


@pytest.mark.parametrize("reading", ["lines-with-endings", "records"])
@pytest.mark.parametrize("pre_tokenizer", PRE_TOKENIZERS)
def test_bpe_from_the_counts_equals_the_library_reading_the_corpus(pre_tokenizer, reading, tmp_path):
    byte_level = is_byte_level(pre_tokenizer)
    vocab_size = 330 if byte_level else 120
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_level else [],
        show_progress=False,
    )
    model = library_read(library_tokenizer(models.BPE(), pre_tokenizer), trainer, reading, tmp_path)
    counts = counted(Counting((), pre_tokenizer, reading), RECORDS if reading == "records" else CORPUS)
    config = RunConfig(
        TrainerConfig(vocab_size=vocab_size, special_tokens=tuple(SPECIALS)), (), pre_tokenizer, reading
    )
    trace = train_counted(counts.words, counts.figures, config)
    assert len(model["merges"]) > 20  # the corpus is long enough for merges to decide
    assert trace.token_ids() == model["vocab"]
    assert trace.model_merges() == [tuple(merge) for merge in model["merges"]]


def test_the_readings_decide_different_words():
    """Without the endings, "lines" would miss the library's words: the test above can fail."""
    endings = counted(Counting((), "byte-level", "lines-with-endings"), CORPUS).words
    lines = counted(Counting((), "byte-level", "lines"), CORPUS).words
    assert "ĠĠĊ" in endings and "ĠĠĊ" not in lines
    assert "čĊ" in endings


@pytest.mark.parametrize("reading", ["lines-with-endings", "records"])
def test_wordpiece_from_the_counts_equals_the_library(reading, tmp_path):
    trainer = trainers.WordPieceTrainer(vocab_size=120, special_tokens=["[UNK]"], show_progress=False)
    model = library_read(
        library_tokenizer(models.WordPiece(unk_token="[UNK]"), "metaspace"), trainer, reading, tmp_path
    )
    counts = counted(Counting((), "metaspace", reading), RECORDS if reading == "records" else CORPUS)
    assert any("\n" in word for word in counts.words)  # Metaspace keeps the endings in its words
    vocab = sorted(model["vocab"], key=model["vocab"].get)
    block = _decorated_block(vocab, counts.words, ["[UNK]"], "##", None)
    config = TrainerConfig(algorithm="wordpiece", vocab_size=120, special_tokens=("[UNK]",))
    assert train(counts.words, config, decorated_order=block).vocab == vocab


@pytest.mark.parametrize("reading", ["lines-with-endings", "records"])
def test_unigram_from_the_counts_equals_the_library(reading, tmp_path):
    trainer = trainers.UnigramTrainer(vocab_size=60, unk_token="<unk>", show_progress=False)
    model = library_read(library_tokenizer(models.Unigram(), "metaspace"), trainer, reading, tmp_path)
    counts = counted(Counting((), "metaspace", reading), RECORDS if reading == "records" else CORPUS)
    config = RunConfig(UnigramConfig("library", 60), (), "metaspace", reading)
    trace = train_counted(counts.words, counts.figures, config)
    assert_parity(trace.final_pieces, [tuple(entry) for entry in model["vocab"]], counts.words)
