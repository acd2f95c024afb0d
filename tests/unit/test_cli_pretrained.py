"""`python -m explorer encode --pretrained / --list-pretrained / --special-tokens` and `decode`."""

import io
import json

import pytest
import sentencepiece

from explorer.pretrained import BUNDLED, encode
from tests.helpers.cli import cli


def test_list_pretrained_names_every_bundled_tokenizer_with_its_vocabulary_size():
    result = cli("encode", "--list-pretrained")
    assert result.returncode == 0, result.stderr.decode()
    listing = result.stdout.decode()
    for family in ("OpenAI:", "Meta:", "Qwen:", "DeepSeek:", "Mistral:"):
        assert family in listing
    for name, info in BUNDLED.items():
        line = next(line for line in listing.splitlines() if line.split()[:1] == [name])
        assert f"{info.vocab_size:,} ids" in line and info.label in line


@pytest.mark.parametrize("name", ["llama3", "qwen3.6", "deepseek-v4", "mistral-tekken", "mistral-v3"])
def test_encode_knows_every_bundled_name(name):
    text = "Hello 🙂 world, 你好"
    result = cli("encode", "--pretrained", name, "--json", text)
    assert result.returncode == 0, result.stderr.decode()
    tokens = json.loads(result.stdout)[0]["tokens"]
    assert [t["id"] for t in tokens] == [p.id for p in encode(name, text)]


def test_special_tokens_switch_on_the_command_line():
    text = "<|begin_of_text|>hi<|eot_id|>"
    on = json.loads(cli("encode", "--pretrained", "llama3", "--special-tokens", "--json", text).stdout)[0][
        "tokens"
    ]
    assert [(t["id"], t["special"]) for t in on] == [(128000, True), (6151, False), (128009, True)]
    off = json.loads(cli("encode", "--pretrained", "llama3", "--json", text).stdout)[0]["tokens"]
    assert not any(t["special"] for t in off) and len(off) > 3
    printed = cli("encode", "--pretrained", "llama3", "--special-tokens", text).stdout.decode()
    assert "128000" in printed and "(special)" in printed


@pytest.mark.parametrize("ids", [["15339,", "1917"], ["15339", "1917"], ["[15339, 1917]"], ["15339,1917"]])
def test_decode_accepts_commas_spaces_and_json(ids):
    result = cli("decode", "--pretrained", "cl100k_base", "--json", *ids)
    assert result.returncode == 0, result.stderr.decode()
    decoded = json.loads(result.stdout)
    assert decoded["text"] == "hello world" and decoded["problems"] == []
    assert [t["token"] for t in decoded["tokens"]] == ["hello", "·world"]


def test_decode_names_ids_out_of_range_and_still_decodes_the_rest():
    result = cli("decode", "--pretrained", "gpt2", "31373", "99999999", "995")
    assert result.returncode == 0
    assert "'hello world'" in result.stdout.decode()
    assert "warning: id 99999999: out of range (ids are 0-50256)" in result.stderr.decode()


def tiny_sentencepiece_model(folder):
    """A SentencePiece Unigram model of 30 pieces, trained by `sentencepiece` itself, as a .model file."""
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(["hello world", "hello tokens"] * 20),
        model_writer=model,
        vocab_size=30,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    path = folder / "tiny.model"
    path.write_bytes(model.getvalue())
    return path


def test_decode_with_a_tokenizer_file_and_a_sentencepiece_model(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\nhello tokens\n" * 20, encoding="utf-8")
    out = tmp_path / "tok.json"
    assert cli("train", corpus, "--vocab-size", 280, "--out", out).returncode == 0
    ids = [
        t["id"]
        for t in json.loads(cli("encode", "--tokenizer", out, "--json", "hello world").stdout)[0]["tokens"]
    ]
    decoded = json.loads(cli("decode", "--tokenizer", out, "--json", json.dumps(ids + [100000])).stdout)
    assert decoded["text"] == "hello world"
    size = len(json.loads(out.read_text(encoding="utf-8"))["model"]["vocab"])
    assert decoded["problems"] == [f"id 100000: out of range (ids are 0-{size - 1})"]

    path = tiny_sentencepiece_model(tmp_path)
    reference = sentencepiece.SentencePieceProcessor(model_file=str(path))
    encoded = json.loads(cli("encode", "--tokenizer", path, "--json", "hello world").stdout)[0]["tokens"]
    assert [t["id"] for t in encoded] == reference.encode("hello world")
    decoded = json.loads(
        cli("decode", "--tokenizer", path, "--json", *map(str, reference.encode("hello world"))).stdout
    )
    assert decoded["text"] == "hello world"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["decode", "--pretrained", "gpt2", "1", "two"], "'two' is not a token id"),
        (["decode", "--pretrained", "gpt2", "[1, 2.5]"], "2.5 is not a token id"),
        (["decode", "--pretrained", "gpt2", "[1, 2"], "Not a valid JSON list"),
        (["decode", "--pretrained", "gpt2", ","], "No token ids given"),
        (["decode", "1"], "exactly one"),
        (["decode", "--pretrained", "llama2", "1"], "invalid choice"),
        (["decode", "--tokenizer", "missing.json", "1"], "does not exist"),
        (["encode", "--tokenizer", "bad.model", "hi"], "bad.model: not a SentencePiece model"),
        (["encode", "--pretrained", "gpt2"], "nothing to encode"),
    ],
)
def test_bad_input_gets_one_clear_line(tmp_path, args, message):
    (tmp_path / "bad.model").write_bytes(b"\xff\xff\xff\xff")
    result = cli(*args, cwd=tmp_path, bare=True)
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert message in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("shape", ["{}", "1, {}", "[1, {}]", "[-{}]"])
def test_an_id_of_5000_digits_is_one_sentence_not_advice_about_python(tmp_path, shape):
    """Issue 50: `decode` of a 5,000-digit id advised `sys.set_int_max_str_digits()` (Python's
    4,300-digit limit on reading a number): a run of more digits than an id has is refused first."""
    result = cli("decode", "--pretrained", "gpt2", shape.format("7" * 5000), cwd=tmp_path, bare=True)
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert stderr.strip() == (
        "error: 77777777777777777777... (5,000 digits) is not a token id: ids have at most 20 digits."
    )


def test_compare_measures_a_sentencepiece_model_as_encode_reads_it(tmp_path):
    """Issue 50: `compare --tokenizer x.model` called a SentencePiece model 'a binary file'
    although `encode` accepts it. Its row counts the tokens `encode` gives, under its name."""
    path = tiny_sentencepiece_model(tmp_path)
    texts = ["hello world", "hello tokens"]
    result = cli("compare", "--tokenizer", path, "--pretrained", "gpt2", "--json", *texts)
    assert result.returncode == 0, result.stderr.decode()
    rows = {row["tokenizer"]: row for row in json.loads(result.stdout)}
    reference = sentencepiece.SentencePieceProcessor(model_file=str(path))
    assert rows[str(path)]["tokens"] == sum(len(reference.encode(text)) for text in texts)
    assert rows[BUNDLED["gpt2"].label]["tokens"] == sum(len(encode("gpt2", text)) for text in texts)
    table = cli("compare", "--tokenizer", path, *texts).stdout.decode()
    assert str(path) in table.splitlines()[1]


def test_compare_refuses_text_beside_a_corpus_rather_than_ignoring_it(tmp_path):
    """Issue 50: `compare --corpus F "text"` measured F and silently ignored the text."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world\n", encoding="utf-8")
    result = cli("compare", "--pretrained", "gpt2", "--corpus", corpus, "hello there", bare=True)
    stderr = result.stderr.decode()
    assert result.returncode == 2 and not result.stdout
    assert stderr.startswith("error: give --corpus FILE or TEXT, not both") and len(stderr.splitlines()) == 1
