"""SentencePiece models (uploaded or bundled) give sentencepiece's own ids, with spans, byte-fallback
pieces as their bytes, unknown pieces flagged, and a sentence for every file that is not a model."""

import html
import io
import json

import pytest
import sentencepiece

from explorer.compare import UploadedFile, read_uploads
from explorer.compare.readers import sentencepiece_upload
from explorer.compare.uploads import upload_kind
from explorer.drawing.token_html import token_spans_html
from explorer.pretrained import package_directory
from explorer.pretrained.sentencepiece_backend import SentencePieceTokenizer, model_facts, protobuf_fields
from explorer.tokens import SPECIAL, UNKNOWN

CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "A mouse called Petar sits on the legendary throne in the ivory tower.",
    "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
    "tokenizers split text into pieces, and pieces into bytes",
    "hello world, hello tokens <s> [INST]",
] * 20
TEXTS = [
    "hello world",
    "Hello 🙂 world! 👩\u200d👩\u200d👧",
    "你好，世界。 日本語",
    "  leading and   double  spaces \n\tnew line",
    "café naïve e\u0301 ﬁ ①",
    "",
]


def train(model_type: str, byte_fallback: bool, vocab_size: int) -> bytes:
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS),
        model_writer=model,
        model_type=model_type,
        vocab_size=vocab_size,
        byte_fallback=byte_fallback,
        character_coverage=1.0,
        hard_vocab_limit=False,
        user_defined_symbols=["[INST]"],
        minloglevel=2,
    )
    return model.getvalue()


@pytest.fixture(scope="module", params=[("unigram", True), ("unigram", False), ("bpe", True), ("bpe", False)])
def trained(request):
    model_type, byte_fallback = request.param
    data = train(model_type, byte_fallback, 400 if byte_fallback else 150)
    return data, model_type, byte_fallback


def test_ids_and_pieces_are_sentencepieces(trained):
    data, model_type, byte_fallback = trained
    ours = SentencePieceTokenizer.from_bytes(data)
    reference = sentencepiece.SentencePieceProcessor(model_proto=data)
    assert ours.facts.model_type == {"unigram": "Unigram", "bpe": "BPE"}[model_type]
    assert ours.facts.byte_fallback is byte_fallback
    for text in TEXTS:
        pieces = ours.encode(text)
        assert [p.id for p in pieces] == reference.encode(text), text
        for piece, reference_piece in zip(pieces, reference.encode(text, out_type=str)):
            if reference_piece.startswith("<0x") and len(reference_piece) == 6:
                assert piece.token_bytes == bytes([int(reference_piece[3:5], 16)])
            else:
                assert piece.token_bytes == reference_piece.encode()  # "▁" kept as the space marker
        assert all(0 <= p.start <= p.end <= len(text) for p in pieces)


def test_byte_fallback_pieces_carry_their_bytes_and_their_characters_span():
    ours = SentencePieceTokenizer.from_bytes(train("unigram", True, 400))
    text = "a 🙂 你"
    pieces = ours.encode(text)
    emoji = [p for p in pieces if p.start == 2]
    assert b"".join(p.token_bytes for p in emoji) == "🙂".encode() and len(emoji) == 4
    assert all(p.end == 3 for p in emoji)
    cjk = [p for p in pieces if p.start == 4]
    assert b"".join(p.token_bytes for p in cjk) == "你".encode()
    markup = token_spans_html(text, pieces)  # grouped into their character, like byte-level tokens
    assert "4 tokens form one character: 🙂" in html.unescape(markup) and "&lt;0xF0&gt;" in markup


def test_unknown_pieces_are_flagged_without_byte_fallback():
    ours = SentencePieceTokenizer.from_bytes(train("bpe", False, 150))
    pieces = ours.encode("hello 🙂 你好")
    unknown = [p for p in pieces if p.kind == UNKNOWN]
    assert unknown and all(p.id == ours.unknown_id for p in unknown)
    assert {"hello 🙂 你好"[p.start : p.end] for p in unknown} <= {"🙂", "你好", "你", "好"}


def test_special_tokens_switch_on_control_pieces():
    ours = SentencePieceTokenizer.from_bytes(train("unigram", True, 400))
    off = ours.encode("<s>hi</s>")
    assert not any(p.kind == SPECIAL for p in off)
    on = ours.encode("<s>hi</s>", special_tokens=True)
    assert [p.id for p in on if p.kind == SPECIAL] == [1, 2]
    assert ours.decode([p.id for p in on]).text == "<s>hi</s>"


def test_decode_round_trip_and_out_of_range(trained):
    data, _, byte_fallback = trained
    ours = SentencePieceTokenizer.from_bytes(data)
    reference = sentencepiece.SentencePieceProcessor(model_proto=data)
    for text in TEXTS:
        ids = [p.id for p in ours.encode(text)]
        assert ours.decode(ids).text == reference.decode(ids)  # nmt_nfkc: "，" comes back as ","
    if byte_fallback:
        text = "hello 🙂 你好 world"
        assert ours.decode([p.id for p in ours.encode(text)]).text == text
    decoded = ours.decode([ours.vocab_size, *reference.encode("hello")])
    assert decoded.problems == [f"id {ours.vocab_size}: out of range (ids are 0-{ours.vocab_size - 1})"]
    assert decoded.text == "hello"


def test_protobuf_reader_agrees_with_sentencepieces_own_proto():
    model_pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    for name in ("tokenizer.model.v1", "mistral_instruct_tokenizer_240323.model.v3"):
        data = (package_directory("mistral_common") / "data" / name).read_bytes()
        proto = model_pb2.ModelProto()
        proto.ParseFromString(data)
        facts = model_facts(data)
        assert facts.pieces == len(proto.pieces)
        assert facts.model_type == {1: "Unigram", 2: "BPE"}[proto.trainer_spec.model_type]
        assert facts.byte_fallback == proto.trainer_spec.byte_fallback
        assert facts.normalizer == proto.normalizer_spec.name
    with pytest.raises(ValueError):
        list(protobuf_fields(b"\x0a\xff\xff\xff\x0f"))  # a length past the end


def test_bundled_mistral_model_as_an_upload():
    data = (
        package_directory("mistral_common") / "data" / "mistral_instruct_tokenizer_240323.model.v3"
    ).read_bytes()
    upload = UploadedFile("tokenizer.model.v3", data)
    assert upload_kind(upload) == "sentencepiece"
    found, errors = read_uploads([upload])
    assert errors == [] and len(found) == 1
    column = found[0].column
    reference = sentencepiece.SentencePieceProcessor(model_proto=data)
    assert [p.id for p in column.encode("Hello 🦜 world")] == reference.encode("Hello 🦜 world")
    assert "BPE" in found[0].note and "bytes" in found[0].note
    assert all(p.kind != UNKNOWN for p in column.encode("Hello 🦜 world"))  # byte fallback


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (b"IQ== 0\nIg== 1\n", "tiktoken rank file"),
        (b"\xff\xff\xff\xff", "not a SentencePiece model"),
        (json.dumps({"model": {}}).encode(), "not a SentencePiece model"),
        (b"\x08\x01", "holds no vocabulary pieces"),
    ],
)
def test_bad_model_files_get_a_sentence(data, message):
    with pytest.raises(ValueError, match=message) as raised:
        sentencepiece_upload(UploadedFile("bad.model", data))
    assert str(raised.value).startswith("bad.model: ")
    found, errors = read_uploads([UploadedFile("bad.model", data)])
    assert found == [] and len(errors) == 1 and errors[0].startswith("bad.model: ")


def test_a_cut_off_model_gets_a_sentence():
    data = train("bpe", True, 400)
    with pytest.raises(ValueError, match="^cut.model: not a SentencePiece model"):
        sentencepiece_upload(UploadedFile("cut.model", data[: len(data) // 2]))
