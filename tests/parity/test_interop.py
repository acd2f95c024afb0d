"""Whole tokenizers against the `tokenizers` library: encodings, decoding, tokenizer.json and the
vocab/merges files, on tokenizers trained by the library itself."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders as hf_decoders
from tokenizers import models as hf_models
from tokenizers import pre_tokenizers as hf_pre_tokenizers
from tokenizers import processors as hf_processors
from tokenizers import trainers as hf_trainers

from explorer.pipeline.assemble import build_tokenizer
from explorer.pipeline.bytelevel import BYTE_LEVEL_ALPHABET, symbols_to_bytes
from explorer.pipeline.decoders import BPEDecoder, ByteLevelDecoder, WordPieceDecoder
from explorer.pipeline.normalizers import build_normalizer
from explorer.pipeline.pre_tokenizers import build_pre_tokenizer
from explorer.pipeline.processors import TemplateProcessing
from explorer.pipeline.tokenizer_json import (
    bpe_from_vocab_merges,
    load_tokenizer,
    save_tokenizer,
    tokenizer_from_json,
    tokenizer_to_json,
    wordpiece_from_vocab_txt,
    write_vocab_merges,
    write_vocab_txt,
)
from tests.helpers.component_parity import library_tokenizer

FUZZ = settings(max_examples=200, deadline=None)

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It's 3.14, isn't it?",
    "Café déjà vu: naïve coöperation, Ægir and Øresund; ΟΔΟΣ ὁδός, İstanbul ﬁne.",
    "日本語のテキストと中文文本 mixed with English words and emoji 😀👍🏽🎉.",
    "  leading spaces\tand tabs\nnew lines\r\n and   runs of    spaces  ",
    "to be or not to be, that is the question: whether 'tis nobler in the mind",
    "x² + y² = z²; e = mc²; $100 + 50% off!!! <html> a_b-c ~ ^ | `code`",
] * 4
SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]

# Text mixing anything Unicode with corpus-like words, scripts, emoji and special tokens.
fragments = st.one_of(
    st.text(max_size=8),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz .,!?'-\n\t", max_size=20),
    st.sampled_from(SPECIALS + ["[CLS", "SEP]", "[[SEP]]"]),
    st.sampled_from(
        [
            "😀",
            "👍🏽",
            "日本語",
            "中文",
            "Café",
            "naïve",
            "ﬁ",
            "İ",
            "ΟΔΟΣ",
            "x²",
            "e\u0301",
            "  ",
            "\u00a0",
            "\x00",
        ]
    ),
)
texts = st.lists(fragments, max_size=6).map("".join)


def library_skeleton(pre_tokenizer_json, normalizer_json=None, model=None) -> HFTokenizer:
    """A library tokenizer with our stages' JSON, ready to train."""
    model = model or {"type": "BPE", "vocab": {}, "merges": []}
    return library_tokenizer(model, normalizer_json, pre_tokenizer_json)


def add_cls_sep_template(tokenizer: HFTokenizer) -> None:
    tokenizer.post_processor = hf_processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[(token, tokenizer.token_to_id(token)) for token in ("[CLS]", "[SEP]")],
    )


def vocab_and_merges(tokenizer: HFTokenizer) -> tuple[list[str], list[tuple[str, str]]]:
    model = json.loads(tokenizer.to_str())["model"]
    vocab = sorted(model["vocab"], key=model["vocab"].get)
    assert [model["vocab"][token] for token in vocab] == list(range(len(vocab)))
    return vocab, [tuple(merge) for merge in model.get("merges", [])]


def normalizer_json(names):
    return build_normalizer(names).to_hf_json() if names else None


@pytest.fixture(scope="module")
def byte_level_pair():
    """(library tokenizer, ours) for byte-level BPE, both built from one library training run."""
    library = library_skeleton(
        build_pre_tokenizer("byte-level").to_hf_json(),
        model={"type": "BPE", "vocab": {}, "merges": [], "unk_token": "[UNK]"},
    )
    trainer = hf_trainers.BpeTrainer(
        vocab_size=500,
        special_tokens=SPECIALS,
        initial_alphabet=hf_pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    library.train_from_iterator(CORPUS, trainer)
    library.decoder = hf_decoders.ByteLevel()
    add_cls_sep_template(library)
    vocab, merges = vocab_and_merges(library)
    ours = build_tokenizer("bpe", vocab, merges, [], "byte-level", SPECIALS)
    return library, ours


@pytest.fixture(scope="module")
def wordpiece_pair():
    """WordPiece with the BERT normalizer and pre-tokenizer, trained by WordPieceTrainer."""
    library = library_skeleton(
        build_pre_tokenizer("bert").to_hf_json(),
        normalizer_json(["bert"]),
        model={
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": {},
        },
    )
    trainer = hf_trainers.WordPieceTrainer(vocab_size=300, special_tokens=SPECIALS, show_progress=False)
    library.train_from_iterator(CORPUS, trainer)
    library.decoder = hf_decoders.WordPiece()
    add_cls_sep_template(library)
    vocab, _ = vocab_and_merges(library)
    ours = build_tokenizer("wordpiece", vocab, [], ["bert"], "bert", SPECIALS)
    return library, ours


def decorated_bpe_pair(unk_token: str | None, suffix: str | None):
    """BPE with a prefix (and maybe a suffix) over whitespace pre-tokens of normalized text."""
    names = ["nfd", "lowercase", "strip-accents"]
    library = library_skeleton(
        build_pre_tokenizer("whitespace").to_hf_json(),
        normalizer_json(names),
        model={"type": "BPE", "vocab": {}, "merges": [], "unk_token": unk_token},
    )
    specials = ["[UNK]", "[MASK]"] if unk_token else ["[MASK]"]
    decorations = {"continuing_subword_prefix": "##"} | ({"end_of_word_suffix": suffix} if suffix else {})
    trainer = hf_trainers.BpeTrainer(
        vocab_size=250, special_tokens=specials, show_progress=False, **decorations
    )
    library.train_from_iterator(CORPUS[:3], trainer)  # not all characters: leaves unknown ones
    if suffix:
        library.decoder = hf_decoders.BPEDecoder(suffix=suffix)
    vocab, merges = vocab_and_merges(library)
    ours = build_tokenizer("bpe", vocab, merges, names, "whitespace", specials, "##", suffix, unk_token)
    return library, ours


@pytest.fixture(scope="module")
def all_pairs(byte_level_pair, wordpiece_pair):
    return {
        "byte-level": byte_level_pair,
        "wordpiece": wordpiece_pair,
        "bpe-suffix-unk": decorated_bpe_pair("[UNK]", "</w>"),
        "bpe-no-unk": decorated_bpe_pair(None, None),
    }


PAIR_NAMES = ["byte-level", "wordpiece", "bpe-suffix-unk", "bpe-no-unk"]


def assert_same_encoding(ours, library) -> None:
    assert ours.tokens == library.tokens
    assert ours.ids == library.ids
    assert ours.offsets == library.offsets
    assert ours.type_ids == library.type_ids
    assert ours.special_tokens_mask == library.special_tokens_mask


# ---------------------------------------------------------------- the same tokenizer.json


@pytest.mark.parametrize("name", PAIR_NAMES)
def test_we_write_what_the_library_writes(all_pairs, name, tmp_path):
    library, ours = all_pairs[name]
    assert tokenizer_to_json(ours) == library.to_str()
    assert tokenizer_to_json(ours, pretty=True) == library.to_str(pretty=True)
    library.save(str(tmp_path / "library.json"))
    save_tokenizer(ours, tmp_path / "ours.json")
    assert (tmp_path / "ours.json").read_bytes() == (tmp_path / "library.json").read_bytes()


@pytest.mark.parametrize("name", PAIR_NAMES)
def test_json_round_trips(all_pairs, name, tmp_path):
    library, ours = all_pairs[name]
    text = tokenizer_to_json(ours)
    assert tokenizer_to_json(tokenizer_from_json(text)) == text
    library.save(str(tmp_path / "tokenizer.json"))
    assert tokenizer_to_json(load_tokenizer(tmp_path / "tokenizer.json")) == library.to_str()


# ---------------------------------------------------------------- encodings and decoding


@pytest.mark.parametrize("name", PAIR_NAMES)
@FUZZ
@given(text=texts, pair=st.none() | texts)
def test_encodings_match_the_library(all_pairs, name, text, pair):
    library, ours = all_pairs[name]
    expected = library.encode(text, pair)
    assert_same_encoding(ours.encode(text, pair), expected)
    bare = library.encode(text, pair, add_special_tokens=False)
    assert_same_encoding(ours.encode(text, pair, add_special_tokens=False), bare)
    for skip in (True, False):
        assert ours.decode(expected.ids, skip_special_tokens=skip) == library.decode(
            expected.ids, skip_special_tokens=skip
        )


@pytest.fixture(scope="module")
def library_written(all_pairs):
    """Library tokenizers and ours read from their tokenizer.json, including a GPT-2 style
    byte-level one with a prefix space (the library's own ByteLevel() default)."""
    prefix_space = HFTokenizer.from_str(all_pairs["byte-level"][0].to_str())
    prefix_space.pre_tokenizer = hf_pre_tokenizers.ByteLevel(add_prefix_space=True)
    libraries = [all_pairs["byte-level"][0], all_pairs["wordpiece"][0], prefix_space]
    return [(library, tokenizer_from_json(library.to_str())) for library in libraries]


@FUZZ
@given(text=texts, pair=st.none() | texts)
def test_tokenizer_read_from_library_json_encodes_the_same(library_written, text, pair):
    for library, loaded in library_written:
        assert_same_encoding(loaded.encode(text, pair), library.encode(text, pair))


@pytest.fixture(scope="module")
def plain_byte_level(byte_level_pair):
    """The byte-level tokenizer without special tokens or template: pure text in, text out."""
    library, _ = byte_level_pair
    vocab, merges = vocab_and_merges(library)
    return build_tokenizer("bpe", vocab, merges, [], "byte-level", [])


@FUZZ
@given(text=st.text(max_size=40) | texts)
def test_byte_level_decode_inverts_encode(plain_byte_level, text):
    decoded = plain_byte_level.decode(plain_byte_level.encode(text).ids)
    adds_space = plain_byte_level.pre_tokenizer.to_hf_json().get("add_prefix_space", False)
    expected = " " + text if adds_space and text and not text.startswith(" ") else text
    assert decoded == expected


@FUZZ
@given(text=texts)
def test_byte_level_offsets_hold_the_token_bytes(plain_byte_level, text):
    encoding = plain_byte_level.encode(text)
    for token, (start, end) in zip(encoding.tokens, encoding.offsets):
        assert symbols_to_bytes(token) in (" " + text[start:end]).encode("utf-8")


@FUZZ
@given(text=texts)
def test_wordpiece_offsets_slice_back_to_the_token(wordpiece_pair, text):
    library, _ = wordpiece_pair
    vocab, _ = vocab_and_merges(library)
    # No normalizer, so every token but [UNK] is the text it points at.
    tokenizer = build_tokenizer("wordpiece", vocab, [], [], "whitespace", SPECIALS)
    encoding = tokenizer.encode(text)
    for token, (start, end), added in zip(encoding.tokens, encoding.offsets, encoding.special_tokens_mask):
        if token != "[UNK]" and not added:
            assert text[start:end] == token.removeprefix("##")


def test_pair_without_template_concatenates(all_pairs):
    library, ours = all_pairs["bpe-no-unk"]
    encoding = ours.encode("the fox", "the dog")
    assert_same_encoding(encoding, library.encode("the fox", "the dog"))
    assert set(encoding.type_ids) == {0, 1}


def test_special_tokens_in_text_keep_their_offsets(all_pairs):
    library, ours = all_pairs["wordpiece"]
    text = "Hello[SEP][SEP]world [MASK]!"
    encoding = ours.encode(text)
    assert_same_encoding(encoding, library.encode(text))
    assert (text.index("[MASK]"), text.index("[MASK]") + 6) in encoding.offsets
    assert encoding.offsets[0] == encoding.offsets[-1] == (0, 0)  # added [CLS] and [SEP]


def test_no_pre_tokenizer_encodes_the_whole_text_as_one_word():
    vocab = ["a", "b", " ", "ab", "ab "]
    ours = build_tokenizer("bpe", vocab, [("a", "b"), ("ab", " ")], ["lowercase"], None, [])
    library = HFTokenizer.from_str(tokenizer_to_json(ours))
    for text in ("ab ab", "AB  b", "", "xa b"):
        assert_same_encoding(ours.encode(text), library.encode(text))
    assert ours.encode("ab ab").tokens == ["ab ", "ab"]


def test_template_processing_json_and_encoding_match_the_library():
    vocab = {"[Z]": 0, "[a]": 1, "x": 2, "y": 3}
    ours_template = TemplateProcessing("[Z] $A:1 [a]:2", None, [("[a]", 1), ("[Z]", 0)])
    library = HFTokenizer(hf_models.BPE(vocab, []))
    library.post_processor = hf_processors.TemplateProcessing(
        single="[Z] $A:1 [a]:2", special_tokens=[("[a]", 1), ("[Z]", 0)]
    )
    assert ours_template.to_hf_json() == json.loads(library.to_str())["post_processor"]
    ours = tokenizer_from_json(library.to_str())
    for text, pair in (("xy", None), ("x", "yy"), ("", "")):
        for add_special_tokens in (True, False):
            assert_same_encoding(
                ours.encode(text, pair, add_special_tokens=add_special_tokens),
                library.encode(text, pair, add_special_tokens=add_special_tokens),
            )


# ---------------------------------------------------------------- decoders alone


@FUZZ
@given(
    tokens=st.lists(st.text(alphabet="".join(BYTE_LEVEL_ALPHABET[::7]) + "ĠðŁĺĢ[] é", max_size=4), max_size=8)
)
def test_byte_level_decoder(tokens):
    assert ByteLevelDecoder().decode(tokens) == hf_decoders.ByteLevel().decode(tokens)


@pytest.mark.parametrize("cleanup", [True, False])
@FUZZ
@given(tokens=st.lists(st.text(alphabet="#' .,?!ndotsmrve", max_size=6), max_size=8))
def test_wordpiece_decoder(cleanup, tokens):
    assert WordPieceDecoder("##", cleanup).decode(tokens) == hf_decoders.WordPiece("##", cleanup).decode(
        tokens
    )


@pytest.mark.parametrize("suffix", ["</w>", ">", ""])
@FUZZ
@given(tokens=st.lists(st.text(alphabet="ab </w>", max_size=6), max_size=6))
def test_bpe_decoder(suffix, tokens):
    assert BPEDecoder(suffix).decode(tokens) == hf_decoders.BPEDecoder(suffix=suffix).decode(tokens)


# ---------------------------------------------------------------- vocab.json, merges.txt, vocab.txt


def test_vocab_and_merges_files_match_the_library(all_pairs, tmp_path):
    library, ours = all_pairs["bpe-suffix-unk"]
    (tmp_path / "ours").mkdir()
    (tmp_path / "library").mkdir()
    vocab_path, merges_path = write_vocab_merges(ours.model, tmp_path / "ours")
    library.model.save(str(tmp_path / "library"))
    assert vocab_path.read_bytes() == (tmp_path / "library" / "vocab.json").read_bytes()
    assert merges_path.read_bytes() == (tmp_path / "library" / "merges.txt").read_bytes()
    assert merges_path.read_text(encoding="utf-8").startswith("#version: 0.2\n")
    options = dict(unk_token="[UNK]", continuing_subword_prefix="##", end_of_word_suffix="</w>")
    again = bpe_from_vocab_merges(
        vocab_path.read_text(encoding="utf-8"), merges_path.read_text(encoding="utf-8"), **options
    )
    assert again.to_hf_json() == ours.model.to_hf_json()


def test_vocab_txt_matches_the_library(all_pairs, tmp_path):
    library, ours = all_pairs["wordpiece"]
    (tmp_path / "ours").mkdir()
    (tmp_path / "library").mkdir()
    path = write_vocab_txt(ours.model, tmp_path / "ours")
    library.model.save(str(tmp_path / "library"))
    assert path.read_bytes() == (tmp_path / "library" / "vocab.txt").read_bytes()
    assert wordpiece_from_vocab_txt(path.read_text(encoding="utf-8")).to_hf_json() == ours.model.to_hf_json()


def test_wordpiece_vocab_txt_quirks():
    # Trailing whitespace is trimmed; a repeated token keeps its last line number.
    model = wordpiece_from_vocab_txt("[UNK]\r\na \nb\na\n")
    assert model.vocab == {"[UNK]": 0, "a": 3, "b": 2}


# ---------------------------------------------------------------- build_tokenizer choices


def test_wordpiece_without_unk_gets_one():
    tokenizer = build_tokenizer("wordpiece", ["a", "##b"], [], [], "whitespace", [])
    assert tokenizer.model.unk_token == "[UNK]"
    assert tokenizer.token_to_id("[UNK]") == 2
    assert tokenizer.encode("ab zz").tokens == ["a", "##b", "[UNK]"]
    assert tokenizer.decode(tokenizer.encode("ab zz").ids) == "ab"


def test_bpe_decoder_choice():
    vocab = ["a", "b", "a</w>", "b</w>", "ab</w>"]
    tokenizer = build_tokenizer(
        "bpe", vocab, [("a", "b</w>")], [], "whitespace", [], end_of_word_suffix="</w>"
    )
    assert isinstance(tokenizer.decoder, BPEDecoder)
    assert tokenizer.decode(tokenizer.encode("ab b a").ids) == "ab b a"
    assert tokenizer.post_processor is None


# ---------------------------------------------------------------- malformed input


def valid_json(all_pairs) -> dict:
    return json.loads(all_pairs["wordpiece"][0].to_str())


def set_path(data: dict, path: str, value) -> dict:
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[key] if not key.isdigit() else target[int(key)]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return data


@pytest.mark.parametrize(
    "path, value, message",
    [
        ("model.type", "Foo", "tokenizer.json: model.type 'Foo' is not supported (BPE, WordPiece, Unigram)"),
        ("model.vocab", [], "tokenizer.json: model.vocab must be an object"),
        ("version", "2.0", "tokenizer.json: version '2.0' is not supported (1.0)"),
        ("truncation", {"max_length": 5}, "tokenizer.json: truncation is not supported"),
        (
            "added_tokens.0.lstrip",
            True,
            "tokenizer.json: added_tokens[0] ('[UNK]'): lstrip=true is not supported",
        ),
        ("added_tokens", {}, "tokenizer.json: added_tokens must be a list"),
        ("decoder", {"type": "Strip"}, "tokenizer.json: decoder.type 'Strip' is not supported"),
        (
            "post_processor",
            {"type": "BertProcessing"},
            "tokenizer.json: post_processor.type 'BertProcessing' is not supported",
        ),
        (
            "post_processor.single",
            [{"Nope": {}}],
            "tokenizer.json: post_processor.single: cannot read template piece",
        ),
        ("normalizer", {"type": "Nope"}, "tokenizer.json: "),
        ("pre_tokenizer", {"type": "Nope"}, "tokenizer.json: "),
        ("normalizer", {"type": "Sequence"}, "tokenizer.json: "),
    ],
)
def test_malformed_tokenizer_json(all_pairs, path, value, message):
    with pytest.raises(ValueError) as error:
        tokenizer_from_json(json.dumps(set_path(valid_json(all_pairs), path, value)))
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "tokenizer.json: not valid JSON"),
        ("[]", "tokenizer.json: the top level must be a JSON object"),
        ("{}", "tokenizer.json: there is no model"),
    ],
)
def test_not_a_tokenizer_json(text, message):
    with pytest.raises(ValueError, match="^" + message.replace(".", r"\.")):
        tokenizer_from_json(text)


def test_bpe_merges_out_of_vocabulary(all_pairs):
    data = json.loads(all_pairs["bpe-no-unk"][0].to_str())
    data["model"]["merges"].append(["##zz", "##q"])
    with pytest.raises(
        ValueError,
        match=r"^tokenizer\.json: model: merge \d+ \('##zz', '##q'\): token '##zz' is not in the vocabulary$",
    ):
        tokenizer_from_json(json.dumps(data))


@pytest.mark.parametrize(
    "vocab, merges, message",
    [
        ("[1]", "", "vocab.json: must be a JSON object mapping token -> id"),
        ('{"a": 0', "", "vocab.json: not valid JSON"),
        ('{"a": -1}', "", "vocab.json: the id of 'a' must be a non-negative integer, got -1"),
        (
            '{"a": 0}',
            "#version: 0.2\na b c\n",
            "merges.txt: merge 1 ('a b c') must be two tokens separated by one space",
        ),
        (
            '{"a": 0}',
            "#version: 0.2\na b\n",
            "merges.txt: merge 1 ('a', 'b'): token 'b' is not in the vocabulary",
        ),
    ],
)
def test_malformed_vocab_and_merges(vocab, merges, message):
    with pytest.raises(ValueError) as error:
        bpe_from_vocab_merges(vocab, merges)
    assert str(error.value).startswith(message)


def test_unreadable_files(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b'{"version": "1.0", "model": "\xff"}')
    with pytest.raises(ValueError, match=r"^tokenizer\.json: .* is not UTF-8 text"):
        load_tokenizer(path)


def test_moved_added_token_id_warns_like_the_library(all_pairs):
    data = json.loads(all_pairs["wordpiece"][0].to_str())
    data["added_tokens"][1]["id"] = 99
    with pytest.warns(UserWarning, match="'\\[CLS\\]' was expected to have id 99 but was given id 1"):
        tokenizer = tokenizer_from_json(json.dumps(data))
    assert tokenizer.token_to_id("[CLS]") == 1
