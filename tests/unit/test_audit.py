"""The vocabulary audit (explorer.measures.audit) and `python -m explorer audit`, each figure checked
against a computation of its own: the `tokenizers` library's and tiktoken's encodings, counts
recomputed here, and tiny vocabularies whose stepping stones are known by construction."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest
import regex
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

from explorer.measures.audit import (
    STEPPING_STONE_RATIO,
    audit,
    formed_counts,
    unreachable_tokens,
)
from explorer.measures.audit_subjects import subject_from_pretrained, subject_from_tokenizer
from explorer.measures.unicode_scripts import script_of
from explorer.pipeline.tokenizer_json import tokenizer_from_json
from explorer.pretrained import load_encoding
from tests.helpers.cli import cli

LINES = [
    "The café on the corner sells crème brûlée and naïve pastries.",
    "東京 is Tokyo; Москва is Moscow; Αθήνα is Athens.",
    "Tokenizers turn text into tokens, and tokens into ids.",
    "the the the then there therefore thermal",
    "こんにちは世界, hello world! 안녕하세요",
] * 3


def gpt2_byte_to_unicode() -> dict[str, int]:
    """GPT-2's symbol -> byte table, written out here (not the package's)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    codes = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {chr(code): byte for byte, code in zip(printable, codes)}


SYMBOL_TO_BYTE = gpt2_byte_to_unicode()


@pytest.fixture(scope="module")
def library():
    """A byte-level BPE trained by the library on LINES, with one special token."""
    tokenizer = LibraryTokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=420,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(LINES, trainer)
    return tokenizer


@pytest.fixture(scope="module")
def library_audit(library):
    ours = tokenizer_from_json(library.to_str())
    return audit(subject_from_tokenizer(ours, "trained"), LINES)


def test_unreachable_matches_the_library_encoding_each_token_alone(library, library_audit):
    special = {library.token_to_id("<|endoftext|>")}
    expected = {}
    for token, token_id in library.get_vocab(with_added_tokens=False).items():
        if token_id in special:
            continue
        data = bytes(SYMBOL_TO_BYTE[symbol] for symbol in token)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            expected[token_id] = None
            continue
        ids = library.encode(text, add_special_tokens=False).ids
        if ids != [token_id]:
            expected[token_id] = ids
    found = {entry["id"]: entry["encodes_to"] for entry in library_audit["unreachable"]}
    assert found == expected
    assert any(value is None for value in found.values())  # partial characters exist (é's bytes)
    assert all("reason" in entry for entry in library_audit["unreachable"] if entry["encodes_to"] is None)


def test_tokens_unused_and_renyi_efficiency_from_the_library_counts(library, library_audit):
    counts = Counter(i for line in LINES for i in library.encode(line, add_special_tokens=False).ids)
    ordinary = set(library.get_vocab(with_added_tokens=False).values()) - {
        library.token_to_id("<|endoftext|>")
    }
    assert library_audit["tokens"] == sum(counts.values())
    assert library_audit["vocab_size"] == library.get_vocab_size(with_added_tokens=True)
    assert library_audit["unused"]["ids"] == sorted(ordinary - set(counts))
    assert library_audit["unused"]["count"] == len(ordinary - set(counts))
    total = sum(counts.values())
    entropy = math.log(sum((count / total) ** 2.5 for count in counts.values())) / (1 - 2.5)
    assert library_audit["renyi_efficiency"] == {
        "alpha": 2.5,
        "value": pytest.approx(entropy / math.log(len(ordinary))),
    }
    utf8 = sum(len(line.encode("utf-8")) for line in LINES)
    assert library_audit["bytes_per_token"] == pytest.approx(utf8 / total)


def test_every_merge_applied_removes_one_symbol(library):
    """Sum of "formed" = initial symbols - final tokens: byte-level, the corpus's bytes less its tokens."""
    subject = subject_from_tokenizer(tokenizer_from_json(library.to_str()), "trained")
    encoded = [library.encode(line, add_special_tokens=False).ids for line in LINES]
    formed = formed_counts(subject.bpe, LINES, encoded)
    utf8 = sum(len(line.encode("utf-8")) for line in LINES)
    assert sum(formed.values()) == utf8 - sum(map(len, encoded))


def test_a_replay_that_disagrees_with_the_encoding_fails_loudly(library):
    subject = subject_from_tokenizer(tokenizer_from_json(library.to_str()), "trained")
    encoded = [library.encode(line, add_special_tokens=False).ids for line in LINES]
    encoded[0] = encoded[0][::-1]
    with pytest.raises(ValueError, match="replay"):
        formed_counts(subject.bpe, LINES, encoded)


def abc_tokenizer():
    """a + b -> ab, ab + c -> abc, split on white space."""
    tokenizer = LibraryTokenizer(
        models.BPE(vocab={"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}, merges=[("a", "b"), ("ab", "c")])
    )
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return tokenizer_from_json(tokenizer.to_str())


@pytest.mark.parametrize(
    ("abc", "ab"),
    [(7, 0), (9, 1), (8, 1), (5, 5)],
)
def test_stepping_stones_on_a_vocabulary_built_for_it(abc, ab):
    lines = ["abc"] * abc + ["ab c"] * ab
    result = audit(subject_from_tokenizer(abc_tokenizer(), "abc"), lines)
    formed, final = abc + ab, ab  # every "ab" and "abc" pre-token forms ab once; only "ab" keeps it
    stones = {stone["token"]: stone for stone in result["stepping_stones"]}
    if final <= STEPPING_STONE_RATIO * formed:
        assert stones["ab"]["formed"] == formed and stones["ab"]["final"] == final
        assert stones["ab"]["consumed_by"] == ["ab + c -> abc"]
    else:
        assert "ab" not in stones
    assert "abc" not in stones  # a parent of no merge
    assert "a" not in stones  # a base character is never formed


def test_a_wordpiece_model_has_no_stepping_stones():
    tokenizer = LibraryTokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    result = audit(subject_from_tokenizer(tokenizer_from_json(tokenizer.to_str()), "wp"), ["ab a"])
    assert result["stepping_stones"] is None and result["stepping_stones_reason"]


def test_gpt2_unreachable_matches_tiktoken():
    encoding = load_encoding("gpt2")
    subject = subject_from_pretrained("gpt2")
    expected = {}
    for token_id in range(encoding.n_vocab):
        if token_id == encoding.eot_token:
            continue
        data = encoding.decode_single_token_bytes(token_id)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            expected[token_id] = None
            continue
        ids = encoding.encode_ordinary(text)
        if ids != [token_id]:
            expected[token_id] = ids
    found = {entry["id"]: entry["encodes_to"] for entry in unreachable_tokens(subject)}
    assert found == expected


def test_gpt2_replay_and_stepping_stones():
    encoding = load_encoding("gpt2")
    subject = subject_from_pretrained("gpt2")
    encoded = encoding.encode_ordinary_batch(LINES, num_threads=1)
    formed = formed_counts(subject.bpe, LINES, encoded)
    utf8 = sum(len(line.encode("utf-8")) for line in LINES)
    assert sum(formed.values()) == utf8 - sum(map(len, encoded))
    result = audit(subject, LINES)
    counts = Counter(i for ids in encoded for i in ids)
    assert result["tokens"] == sum(counts.values())
    assert result["stepping_stones"]
    for stone in result["stepping_stones"]:
        assert stone["final"] == counts[stone["id"]] <= STEPPING_STONE_RATIO * stone["formed"]
        assert stone["formed"] == formed[stone["id"]]
        # its recovered merges join its bytes with another token's into a token
        assert all(" -> " in merge for merge in stone["consumed_by"])


def test_deepseek_replay_reproduces_the_library_and_counts_stepping_stones():
    """DeepSeek V4's tokenizer.json, replayed from its merge list: the replay must give the
    library's own ids on every line (audit raises otherwise), a non-special added token included."""
    from explorer.pretrained.library_backend import LibraryTokenizer as BundledLibraryTokenizer

    lines = [*LINES, "x<｜User｜>y 12345 def f(x): return x**2", "<｜begin▁of▁sentence｜> as plain text"]
    library = BundledLibraryTokenizer("deepseek-v4").library
    library.encode_special_tokens = True  # special tokens' text as plain text, as the audit reads it
    encoded = [library.encode(line, add_special_tokens=False).ids for line in lines]
    user = library.token_to_id("<｜User｜>")
    assert user in encoded[len(LINES)]  # the added token is one token, and the replay keeps it so
    subject = subject_from_pretrained("deepseek-v4")
    assert subject.bpe is not None
    result = audit(subject, lines)
    counts = Counter(i for ids in encoded for i in ids)
    assert result["tokens"] == sum(counts.values())
    formed = formed_counts(subject.bpe, lines, encoded)
    symbols = sum(len(word) for line in lines for word in subject.bpe.pre_tokenize(line) if word[0] != "\x00")
    assert sum(formed.values()) == symbols - (sum(counts.values()) - counts[user])  # each merge: one fewer
    assert result["stepping_stones"]
    for stone in result["stepping_stones"]:
        assert stone["final"] == counts[stone["id"]] <= STEPPING_STONE_RATIO * stone["formed"]


def test_scripts_count_characters_by_their_script_and_every_token_once(library_audit):
    scripts = library_audit["scripts"]
    text = "".join(LINES)
    for name in ("Latin", "Cyrillic", "Greek", "Han", "Hiragana", "Hangul", "Common"):
        pattern = regex.compile(rf"\p{{Script={name}}}")
        assert scripts[name]["characters"] == sum(1 for char in text if pattern.match(char)), name
    assert sum(row["characters"] for row in scripts.values()) == len(text)
    assert sum(row["tokens"] for row in scripts.values()) == library_audit["tokens"]
    assert script_of("a") == "Latin" and script_of("東") == "Han" and script_of(" ") == "Common"


def test_cli_audit_pretrained_gpt2_json(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    result = cli("audit", "--pretrained", "gpt2", "--corpus", corpus, "--json")
    assert result.returncode == 0, result.stderr.decode()
    data = json.loads(result.stdout)
    for key in ("vocab_size", "tokens", "bytes_per_token", "renyi_efficiency", "unreachable", "unused"):
        assert key in data
    assert {"stepping_stones", "scripts"} <= data.keys()
    assert data["tokens"] == sum(map(len, load_encoding("gpt2").encode_ordinary_batch(LINES, num_threads=1)))
    summary = cli("audit", "--pretrained", "gpt2", "--corpus", corpus)
    assert summary.returncode == 0 and b"stepping stones:" in summary.stdout


@pytest.mark.parametrize(
    "args",
    [
        ("audit", "--pretrained", "gpt2", "--corpus", "no-such-file.txt"),
        ("audit", "--corpus", "README.md"),
        ("audit", "--pretrained", "gpt2", "--step", "3", "--corpus", "README.md"),
        ("audit", "--tokenizer", "README.md", "--corpus", "README.md"),
    ],
)
def test_cli_audit_bad_input_is_one_line_and_status_2(args):
    result = cli(*args)
    assert result.returncode == 2
    assert result.stdout == b""
    assert len(result.stderr.decode().strip().splitlines()) == 1


def test_cli_audit_a_trace_at_a_step(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    out, trace = tmp_path / "tok.json", tmp_path / "trace.json"
    trained = cli(
        "train", corpus, "--algorithm", "bpe", "--flavor", "library", "--vocab-size", 300,
        "--pre-tokenizer", "byte-level", "--out", out, "--trace", trace,
    )  # fmt: skip
    assert trained.returncode == 0, trained.stderr.decode()
    at_step = json.loads(cli("audit", "--trace", trace, "--step", 10, "--corpus", corpus, "--json").stdout)
    final = json.loads(cli("audit", "--tokenizer", out, "--corpus", corpus, "--json").stdout)
    assert at_step["ordinary_tokens"] == 256 + 10  # the 256 byte symbols and the first 10 merges
    assert at_step["tokens"] > final["tokens"]
    library = LibraryTokenizer.from_file(str(out))
    assert final["tokens"] == sum(len(library.encode(line, add_special_tokens=False).ids) for line in LINES)
    bad_step = cli("audit", "--trace", trace, "--step", 100000, "--corpus", corpus)
    assert bad_step.returncode == 2 and len(bad_step.stderr.splitlines()) == 1


def test_sentencepiece_unreachable_matches_the_sentencepiece_library():
    import sentencepiece

    from explorer.pretrained import info_for, read_verified

    info = info_for("mistral-v1")
    (data,) = [read_verified(info.module, data_file) for data_file in info.files]
    processor = sentencepiece.SentencePieceProcessor()
    processor.LoadFromSerializedProto(data)
    expected = {}
    for token_id in range(processor.GetPieceSize()):
        if processor.IsControl(token_id) or processor.IsUnknown(token_id):  # the special tokens
            continue
        piece = processor.IdToPiece(token_id)
        byte = regex.fullmatch(r"<0x([0-9A-F]{2})>", piece) if processor.IsByte(token_id) else None
        if byte is not None and int(byte.group(1), 16) >= 0x80:
            expected[token_id] = None  # a byte of part of a character
            continue
        ids = processor.EncodeAsIds(processor.DecodeIds([token_id]))
        if ids != [token_id]:
            expected[token_id] = ids
    found = {
        entry["id"]: entry["encodes_to"]
        for entry in unreachable_tokens(subject_from_pretrained("mistral-v1"))
    }
    assert found == expected
