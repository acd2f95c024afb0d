"""Words the compiled counter holds (`HeldWords`): read as a dict of counts reads, and trained from
where they are to the same trace, byte for byte, as the same counts given as a dict.

What it does not check: counting itself (test_chunk_counter_engines.py) or the trainers against
the library and the course (tests/parity/).
"""

from __future__ import annotations

import pickle

import pytest

from explorer.cli.common import write_json_fields
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting, add_word_counts
from explorer.run_config import TrainerConfig
from explorer.training import engines
from explorer.training.bpe.trainer import train
from explorer.training.held_words import HeldWords
from tests.helpers.engines import trace_bytes

pytestmark = pytest.mark.skipif(engines.compiled() is None, reason="the compiled engine is not built")

TEXT = "the cat sat on the mat\r\nthe cat ran, naïve café 日本語 😀\n\n  a tab\there\nthe end\n" * 3


def held(pre_tokenizer: str = "byte-level", text: str = TEXT) -> HeldWords:
    counter = ChunkCounter(Counting(pre_tokenizer=pre_tokenizer, reading="lines-with-endings"), engine="rust")
    counter.add_text(text)
    words = counter.result().words
    assert isinstance(words, HeldWords)
    return words


@pytest.mark.parametrize("pre_tokenizer", ["byte-level", "whitespace-split"])
def test_held_words_read_as_the_python_counters_dict(pre_tokenizer):
    counting = Counting(pre_tokenizer=pre_tokenizer, reading="lines-with-endings")
    python = ChunkCounter(counting, engine="python")
    python.add_text(TEXT)
    expected = python.result().words
    words = held(pre_tokenizer)
    assert list(words.items()) == list(expected.items())
    assert list(words.values()) == list(expected.values())
    assert words == expected and len(words) == len(expected)
    assert all(words[word] == count for word, count in expected.items())
    assert pickle.loads(pickle.dumps(words)) == dict(expected)  # a dict once pickled
    assert words.words[1:3] == list(expected)[1:3] and words.words[-1] == list(expected)[-1]
    assert add_word_counts([counter_result(words), counter_result(words)]).words == {
        word: 2 * count for word, count in expected.items()
    }


def counter_result(words: HeldWords):
    from explorer.corpora.counting import WordCounts

    return WordCounts(words, {}, Counting(pre_tokenizer="byte-level", reading="lines-with-endings"))


CONFIGS = [
    TrainerConfig(vocab_size=330, special_tokens=("<|endoftext|>", "a")),
    TrainerConfig(algorithm="wordpiece", vocab_size=120, special_tokens=("[UNK]",)),
    TrainerConfig(vocab_size=120, end_of_word_suffix="</w>", continuing_subword_prefix="##"),
    TrainerConfig(flavor="course", vocab_size=100),
    TrainerConfig(algorithm="wordpiece", flavor="course", vocab_size=100),
    TrainerConfig(vocab_size=330, min_frequency=3, initial_alphabet=("z", "é")),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda config: f"{config.algorithm}-{config.flavor}")
@pytest.mark.parametrize("pre_tokenizer", ["byte-level", "whitespace-split"])
def test_a_run_from_held_words_records_the_trace_of_the_same_counts_as_a_dict(
    config, pre_tokenizer, tmp_path
):
    words = held(pre_tokenizer)
    expected = train(dict(words.items()), config, engine="rust")
    trace = train(words, config, engine="rust")
    assert trace_bytes(trace) == trace_bytes(expected)
    assert trace.segment(trace.words[-1]) == expected.segment(expected.words[-1])
    # Written field by field, the held words and counts give the same bytes as the lists.
    written = tmp_path / "trace.json"
    write_json_fields(str(written), trace.json_fields(), "--trace")
    assert written.read_text("utf-8") == trace.to_json()


def test_an_empty_corpus_held_trains_as_an_empty_dict_does():
    empty = held(pre_tokenizer="whitespace-split", text="   \n")
    assert len(empty) == 0 and list(empty.items()) == []
    config = TrainerConfig(vocab_size=300)
    trace = train(empty, config, engine="rust")
    assert trace.steps == 0 and trace.stop_reason == "no_pair_left"
    assert trace_bytes(trace) == trace_bytes(train({}, config, engine="rust"))
