"""The component base and registry (explorer/pipeline/components.py): every stage words an unknown type the
same way, every registered type reads back from its own tokenizer.json entry equal to itself, and
equality, hashing and repr follow what tokenizer.json would hold."""

from __future__ import annotations

import functools
import json

import pytest

from explorer.pipeline import normalizers, pre_tokenizers
from explorer.pipeline.components import component_from_hf_json, known_types
from explorer.pipeline.decoders import (
    BPEDecoder,
    ByteLevelDecoder,
    MetaspaceDecoder,
    WordPieceDecoder,
)
from explorer.pipeline.pre_tokenizers.split_patterns import LIBRARY_PATTERNS
from explorer.pipeline.processors import TemplateProcessing
from explorer.pipeline.tokenizer_json import COMPONENT_STAGES

# Each stage's own reader, and the types it knows. The post-processor and the decoder have no reader
# of their own: their modules are imported above, so the shared reader knows their types.
READERS = {
    "normalizer": normalizers.normalizer_from_hf_json,
    "pre_tokenizer": pre_tokenizers.pre_tokenizer_from_hf_json,
    "post_processor": functools.partial(component_from_hf_json, TemplateProcessing.stage),
    "decoder": functools.partial(component_from_hf_json, "decoder"),
}
TYPES = {
    "normalizer": ["BertNormalizer", "Lowercase", "NFD", "NFKC", "Sequence", "StripAccents"],
    "pre_tokenizer": [
        "BertPreTokenizer",
        "ByteLevel",
        "Metaspace",
        "Sequence",
        "Split",
        "Whitespace",
        "WhitespaceSplit",
    ],
    "post_processor": ["TemplateProcessing"],
    "decoder": ["BPEDecoder", "ByteLevel", "Metaspace", "WordPiece"],
}

# (stage, component) with options away from the defaults where a component has options.
EXAMPLES = [
    ("normalizer", normalizers.NFD()),
    ("normalizer", normalizers.NFKC()),
    ("normalizer", normalizers.Lowercase()),
    ("normalizer", normalizers.StripAccents()),
    (
        "normalizer",
        normalizers.BertNormalizer(handle_chinese_chars=False, strip_accents=True, lowercase=False),
    ),
    ("normalizer", normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()])),
    ("pre_tokenizer", pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False, trim_offsets=False)),
    ("pre_tokenizer", pre_tokenizers.BertPreTokenizer()),
    ("pre_tokenizer", pre_tokenizers.Whitespace()),
    ("pre_tokenizer", pre_tokenizers.WhitespaceSplit()),
    ("pre_tokenizer", pre_tokenizers.Metaspace("_", prepend_scheme="first", split=False)),
    ("pre_tokenizer", pre_tokenizers.Split(LIBRARY_PATTERNS["o200k"])),
    (
        "pre_tokenizer",
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.ByteLevel()]),
    ),
    (
        "post_processor",
        TemplateProcessing("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1", [("[CLS]", 1), ("[SEP]", 2)]),
    ),
    ("decoder", ByteLevelDecoder()),
    ("decoder", WordPieceDecoder(prefix="@@", cleanup=False)),
    ("decoder", BPEDecoder(suffix="_")),
    ("decoder", MetaspaceDecoder("_", prepend_scheme="never", split=False)),
]
EXAMPLE_IDS = [f"{stage}-{component.hf_type}" for stage, component in EXAMPLES]


def test_the_stages_are_the_tokenizer_json_keys():
    assert list(COMPONENT_STAGES) == ["normalizer", "pre_tokenizer", "post_processor", "decoder"]
    assert set(READERS) == set(COMPONENT_STAGES)


@pytest.mark.parametrize("stage", COMPONENT_STAGES)
def test_every_type_is_registered_under_its_stage(stage):
    assert known_types(stage) == TYPES[stage]


@pytest.mark.parametrize("stage", COMPONENT_STAGES)
def test_every_registered_type_has_an_example(stage):
    assert (
        sorted(component.hf_type for example_stage, component in EXAMPLES if example_stage == stage)
        == TYPES[stage]
    )


@pytest.mark.parametrize("stage", COMPONENT_STAGES)
def test_an_unknown_type_is_worded_the_same_in_every_stage(stage):
    expected = f"{stage}.type 'Nope' is not supported ({', '.join(TYPES[stage])})"
    with pytest.raises(ValueError) as error:
        READERS[stage]({"type": "Nope"})
    assert str(error.value) == expected
    with pytest.raises(ValueError) as error:
        component_from_hf_json(stage, {"type": "Nope"})
    assert str(error.value) == expected


@pytest.mark.parametrize("stage", COMPONENT_STAGES)
def test_an_entry_that_is_not_an_object_is_a_clear_error(stage):
    with pytest.raises(ValueError, match=f"^{stage} must be an object"):
        READERS[stage](["not", "an", "object"])


@pytest.mark.parametrize(("stage", "component"), EXAMPLES, ids=EXAMPLE_IDS)
def test_every_type_reads_back_equal_to_itself(stage, component):
    written = json.loads(json.dumps(component.to_hf_json()))
    for read in (READERS[stage](written), component_from_hf_json(stage, written)):
        assert type(read) is type(component)
        assert read == component
        assert hash(read) == hash(component)
        assert read.to_hf_json() == written


def test_a_type_name_belongs_to_a_stage():
    assert type(component_from_hf_json("pre_tokenizer", {"type": "ByteLevel"})) is pre_tokenizers.ByteLevel
    assert type(component_from_hf_json("decoder", {"type": "ByteLevel"})) is ByteLevelDecoder
    assert type(component_from_hf_json("decoder", {"type": "Metaspace"})) is MetaspaceDecoder


def test_equality_hash_and_repr_follow_the_json():
    assert normalizers.NFD() == normalizers.NFD()
    assert normalizers.NFD() != normalizers.NFKC()
    assert pre_tokenizers.ByteLevel() != pre_tokenizers.ByteLevel(add_prefix_space=True)
    assert len({BPEDecoder(), BPEDecoder(), BPEDecoder(suffix="_")}) == 2
    # The same JSON in another stage is another component.
    assert pre_tokenizers.Metaspace() != MetaspaceDecoder()
    assert pre_tokenizers.Metaspace().to_hf_json() == MetaspaceDecoder().to_hf_json()
    assert (
        repr(WordPieceDecoder()) == "WordPieceDecoder({'type': 'WordPiece', 'prefix': '##', 'cleanup': True})"
    )


def test_missing_fields_take_the_library_defaults():
    assert component_from_hf_json("normalizer", {"type": "BertNormalizer"}) == normalizers.BertNormalizer()
    # The library's ByteLevel defaults to a prefix space; the app's "byte-level" trains without.
    assert component_from_hf_json("pre_tokenizer", {"type": "ByteLevel"}) == pre_tokenizers.ByteLevel(
        add_prefix_space=True
    )
    assert component_from_hf_json("decoder", {"type": "WordPiece"}) == WordPieceDecoder("##", cleanup=True)
