"""RunConfig: the one description of a training run that a trace carries."""

from __future__ import annotations

import json

import pytest

from explorer.run_config import RunConfig, TrainerConfig, UnigramConfig
from explorer.train import trace_from_json, train_corpus
from explorer.training.bpe.merge_history import MergeHistory
from explorer.training.unigram.round_history import RoundHistory

CONFIGS = [
    RunConfig(),
    RunConfig(
        TrainerConfig("wordpiece", "course", vocab_size=70, special_tokens=("[UNK]",)), ("nfkc",), "bert"
    ),
    RunConfig(TrainerConfig(continuing_subword_prefix="##", end_of_word_suffix="</w>"), (), "whitespace"),
    RunConfig(
        UnigramConfig(vocab_size=50, seed_size=400, special_tokens=("<pad>",)), ("lowercase",), "metaspace"
    ),
    RunConfig(TrainerConfig(vocab_size=5), pre_tokenizer=None),
    RunConfig(TrainerConfig(vocab_size=300), (), "byte-level-cl100k"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=repr)
def test_the_json_form_reads_back_as_the_same_config(config):
    data = json.loads(json.dumps(config.to_dict()))
    assert RunConfig.from_dict(data, strict=True) == config


def test_a_split_pattern_is_a_pre_tokenizer_name_so_the_default_config_is_unchanged():
    from explorer.pipeline.pre_tokenizers import BYTE_LEVEL_PRE_TOKENIZERS

    default = RunConfig().to_dict()
    assert BYTE_LEVEL_PRE_TOKENIZERS["gpt2"] == default["pre_tokenizer"] == "byte-level"
    for name in BYTE_LEVEL_PRE_TOKENIZERS.values():
        config = RunConfig(pre_tokenizer=name)
        assert config.is_byte_level
        # The same fields as the default run's: only the pre-tokenizer's name differs.
        assert {key: value for key, value in config.to_dict().items() if default.get(key) != value} == (
            {} if name == "byte-level" else {"pre_tokenizer": name}
        )


def test_a_unigram_config_is_written_with_its_flavor_defaults_resolved():
    data = RunConfig(UnigramConfig(flavor="course", vocab_size=50), (), "metaspace").to_dict()
    assert data["algorithm"] == "unigram" and data["seed_size"] == 300 and data["max_piece_length"] is None


def test_what_the_app_asks_of_a_run():
    wordpiece = RunConfig(TrainerConfig("wordpiece", vocab_size=100), (), "bert")
    assert (wordpiece.prefix, wordpiece.suffix, wordpiece.is_byte_level, wordpiece.is_unigram) == (
        "##",
        "",
        False,
        False,
    )
    bpe = RunConfig(TrainerConfig(end_of_word_suffix="</w>"))
    assert (bpe.prefix, bpe.suffix, bpe.is_byte_level) == ("", "</w>", True)
    unigram = RunConfig(UnigramConfig(vocab_size=50), (), "metaspace")
    assert (unigram.prefix, unigram.suffix, unigram.is_unigram, unigram.algorithm) == (
        "",
        "",
        True,
        "unigram",
    )


def test_unknown_stages_and_settings_are_sentences():
    with pytest.raises(ValueError, match="unknown normalizer 'nfkx' \\(choose from "):
        RunConfig(TrainerConfig(), ("nfkx",))
    with pytest.raises(ValueError, match="unknown pre-tokenizer 'spaces' \\(choose from "):
        RunConfig(TrainerConfig(), (), "spaces")
    with pytest.raises(ValueError, match="unknown training setting 'colour'"):
        RunConfig.from_dict({**RunConfig().to_dict(), "colour": "blue"}, strict=True)
    assert RunConfig.from_dict({**RunConfig().to_dict(), "colour": "blue"}) == RunConfig()


def test_an_older_trace_config_without_the_pipeline_reads_as_words_given_directly():
    old = TrainerConfig(vocab_size=300).to_dict()  # what traces of version 1 stored
    assert RunConfig.from_dict(old) == RunConfig(TrainerConfig(vocab_size=300), (), None)


@pytest.mark.parametrize("trainer", [TrainerConfig(vocab_size=300), UnigramConfig(vocab_size=40)], ids=repr)
def test_a_trace_carries_its_run_config_through_json(trainer):
    config = RunConfig(
        trainer, ("nfkc",), "metaspace" if isinstance(trainer, UnigramConfig) else "byte-level"
    )
    trace = train_corpus("the cat sat on the mat with the hat\nthe end", config)
    kind = RoundHistory if isinstance(trainer, UnigramConfig) else MergeHistory
    again = trace_from_json(trace.to_json())
    assert isinstance(again, kind) and again.config == trace.config
    assert trace.config.normalizers == ("nfkc",) and trace.config.algorithm == config.algorithm
