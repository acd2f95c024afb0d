"""The Compare page's model picker, column headers, special-token switch and decoding, as pure
functions (explorer.compare.picker, .columns, .decode, .html); the page itself is in
tests/app/test_compare_models.py."""

from __future__ import annotations

import json

import pytest
import tokenizers

from explorer.compare import UploadedFile, pretrained_column, read_uploads, tokenizer_column
from explorer.compare.columns import UPLOADS, YOUR_RUNS, plain_text_tokenizer
from explorer.compare.decode import (
    decoded_pieces,
    decoding_html,
    library_decoder,
    shown_text,
    tokenizer_decoder,
)
from explorer.compare.encoders import library_batch_encoder
from explorer.compare.html import column_head_html
from explorer.compare.picker import (
    DEFAULT_PRETRAINED,
    FAMILY_ORDER,
    hidden_at_first,
    in_picker_order,
    option_label,
)
from explorer.drawing.token_html import escape_text
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.pretrained import BUNDLED, FAMILIES, decode, encode, parse_ids
from explorer.run_config import RunConfig, TrainerConfig
from explorer.tokens import SPECIAL
from explorer.train import encode_pieces, tokenizer_from_trace, train_corpus

CORPUS = "the lowest tower was lower than the newest tower " * 20 + "日本語 😀 café"
EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def ours():
    """A byte-level BPE trained here with <|endoftext|> as its special token."""
    config = RunConfig(TrainerConfig(vocab_size=300, special_tokens=(EOT,)), (), "byte-level")
    return tokenizer_from_trace(train_corpus(CORPUS, config))


# ---------------------------------------------------------------- picker


def test_picker_groups_every_bundled_tokenizer_by_family_runs_first_uploads_last(ours):
    columns = [pretrained_column(name) for name in reversed(BUNDLED)]
    columns.append(tokenizer_column(ours, "an upload", family=UPLOADS, key="upload:x"))
    columns.insert(3, tokenizer_column(ours, "#1 BPE", key="run:1"))
    ordered = in_picker_order(columns)
    families = [column.family for column in ordered]
    assert families[0] == YOUR_RUNS and families[-1] == UPLOADS
    assert sorted(families, key=FAMILY_ORDER.index) == families  # grouped, in order
    assert set(FAMILIES) <= set(families)
    labels = [option_label(column) for column in ordered]
    assert "Meta · Llama 3 · 128,256 ids" in labels and "DeepSeek · DeepSeek V4 · 129,280 ids" in labels
    assert all(label.startswith(column.family + " · ") for label, column in zip(labels, ordered))


def test_only_the_gpt_trio_and_our_runs_start_ticked(ours):
    columns = [tokenizer_column(ours, "#2", key="run:2"), tokenizer_column(ours, "#1", key="run:1")]
    columns += [pretrained_column(name) for name in BUNDLED]
    hidden = hidden_at_first(columns, ["run:1"])
    shown = {column.key for column in columns} - hidden
    assert (
        shown
        == {"run:2"} | DEFAULT_PRETRAINED
        == {
            "run:2",
            "pretrained:gpt2",
            "pretrained:cl100k_base",
            "pretrained:o200k_base",
        }
    )


# ---------------------------------------------------------------- headers


@pytest.mark.parametrize("name", list(BUNDLED))
def test_pretrained_header_names_size_source_and_switch(name):
    info = BUNDLED[name]
    for on in (False, True):
        column = pretrained_column(name, special_tokens=on)
        assert column.key == f"pretrained:{name}"  # one key either way: the picker's choice stays
        head = column_head_html(column).replace("<wbr>", "")  # breaks allowed after slashes
        assert f"{info.vocab_size:,} ids" in head
        assert (
            escape_text(f"{info.package}=={info.package_version}: {info.module}/{info.files[0].resource}")
            in head
        )
        assert ("special tokens on" if on else "special tokens off") in head
    assert pretrained_column(name, True).content_key != pretrained_column(name, False).content_key


def test_header_escapes_names_and_sources(ours):
    column = tokenizer_column(ours, "<b>x</b>", source="uploaded: <img src=x>.json")
    head = column_head_html(column)
    assert "<b>x</b>" not in head and "<img" not in head and "&lt;img src=x&gt;.json" in head
    assert escape_text("special tokens on: <|endoftext|> is one token") in head


# ---------------------------------------------------------------- the special-token switch on our tokenizers


def test_switch_off_makes_our_special_token_plain_text_and_keeps_every_other_id(ours):
    text = f"the lowest{EOT}tower {EOT}"
    on = tokenizer_column(ours, "ours", key="run:1", special_tokens=True)
    off = tokenizer_column(ours, "ours", key="run:1", special_tokens=False)
    assert on.key == off.key and on.content_key != off.content_key
    eot_id = ours.token_to_id(EOT)
    on_pieces, off_pieces = on.encode(text), off.encode(text)
    assert [p.id for p in on_pieces if p.kind == SPECIAL] == [eot_id, eot_id]
    assert eot_id not in [p.id for p in off_pieces] and len(off_pieces) > len(on_pieces)
    assert "".join(ours.decode([p.id for p in off_pieces]).split()) == "".join(text.split())
    # the text between special tokens is cut the same way either way
    assert [p.id for p in on_pieces[:2]] == [p.id for p in off_pieces[:2]]
    assert "special tokens off" in off.special and "special tokens on" in on.special


def test_plain_text_export_is_encoded_alike_by_the_library(ours):
    plain = plain_text_tokenizer(ours)
    texts = [f"a{EOT}b", f"{EOT}{EOT} the lowest", "日本語 😀 café"]
    encoded = library_batch_encoder(tokenizer_to_json(plain))(texts)
    assert [[token_id for token_id, _, _ in encoded.spans(index)] for index in range(len(texts))] == [
        [p.id for p in encode_pieces(plain, text)] for text in texts
    ]
    library = tokenizers.Tokenizer.from_str(tokenizer_to_json(ours))
    library.encode_special_tokens = True  # the library's own switch gives the same ids
    assert [library.encode(text, add_special_tokens=False).ids for text in texts] == [
        [p.id for p in encode_pieces(plain, text)] for text in texts
    ]


def test_library_only_upload_follows_the_switch():
    library = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "[UNK]": 1}, unk_token="[UNK]"))
    library.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    library.add_special_tokens(["<sep>"])
    (upload,), errors = read_uploads([UploadedFile("wl.json", library.to_str().encode())])
    assert not errors and upload.library_json is not None
    on, off = upload.column_for(True), upload.column_for(False)
    assert [p.id for p in on.encode("a <sep> a")] == [0, 2, 0]
    assert 2 not in [p.id for p in off.encode("a <sep> a")]
    assert off.encode_batch(["a <sep> a"]).spans(0) == [
        (p.id, p.start, p.end) for p in off.encode("a <sep> a")
    ]
    assert off.spec["special_tokens"] is False and on.content_key != off.content_key
    assert "uploaded: wl.json" == on.source and on.vocab_size == 3


# ---------------------------------------------------------------- decoding


def test_our_decoder_round_trips_and_names_ids_it_has_no_token_for(ours):
    text = f"the lowest tower 😀{EOT}"
    ids = [p.id for p in encode_pieces(ours, text)]
    decoding = tokenizer_decoder(ours)([*ids, ours.vocab_size() + 5, -1])
    assert decoding.text == text
    assert decoding.problems == [
        f"id {ours.vocab_size() + 5}: out of range (ids are 0-{ours.vocab_size() - 1})",
        f"id -1: out of range (ids are 0-{ours.vocab_size() - 1})",
    ]
    spanned_text, pieces = decoded_pieces(decoding)
    assert spanned_text == text and [(p.start, p.end) for p in pieces] == [
        (p.start, p.end) for p in encode_pieces(ours, text)
    ]
    assert len(pieces) == len(ids) and pieces[-1].kind == SPECIAL
    assert b"".join(p.token_bytes for p in pieces[:-1]) == "the lowest tower 😀".encode()


def test_library_decoder_matches_the_library(ours):
    library = tokenizers.Tokenizer.from_str(tokenizer_to_json(ours))
    ids = library.encode(f"lower 日本{EOT}", add_special_tokens=False).ids
    decoding = library_decoder(library, byte_level=True)([*ids, 10**12])
    assert decoding.text == library.decode(ids, skip_special_tokens=False)
    assert len(decoding.problems) == 1 and decoding.problems[0].startswith(f"id {10**12}: out of range")


def test_decoding_html_escapes_the_text_and_draws_each_token():
    ids = [piece.id for piece in encode("gpt2", "<b>x</b>")]
    decoding = decode("gpt2", parse_ids(json.dumps(ids)))
    assert decoding.text == "<b>x</b>"
    markup = decoding_html(decoding)
    assert "<b>x" not in markup and "&lt;b&gt;x&lt;/b&gt;" in markup
    assert markup.count('title="id ') == len(ids)


@pytest.mark.parametrize("name", ["gpt2", "o200k_base", "mistral-v1", "mistral-v3"])
def test_decoded_tokens_holding_parts_of_one_character_are_grouped_into_it(name):
    """As on every byte-level display: tokens that hold parts of one character sit in one dashed
    outline labelled with the character (GPT-2 spells 😀 and 서 in byte tokens; SentencePiece
    spells what its vocabulary lacks in byte-fallback pieces such as <0xF0>)."""
    text = "I\u2019m 😀 in 서울 \U0001fae8"
    pieces = encode(name, text)
    decoding = decode(name, [piece.id for piece in pieces])
    assert decoding.text == text
    spanned_text, spanned = decoded_pieces(decoding)
    assert spanned_text.strip() == text
    offset = len(spanned_text) - len(text)  # SentencePiece's decoder drops its first space
    # The same spans as the encoder's (the dropped space belonged to the first token).
    assert [(max(p.start - offset, 0), p.end - offset) for p in spanned] == [(p.start, p.end) for p in pieces]
    markup = decoding_html(decoding)
    assert markup.count('title="id ') == len(pieces)
    partial = [p for p in pieces if p.token_bytes and not _whole_characters(p.token_bytes)]
    assert partial, "the text should make this tokenizer spell a character in several tokens"
    assert 'class="tok-group"' in markup and 'class="tok-group-label">=' in markup


def test_a_lone_byte_decodes_as_its_byte_never_as_a_replacement_character():
    """GPT-2's id 12520 is " <0xF0><0x9F>", an emoji's first bytes: the text line says so, as the
    token row does, where the decoder writes "\ufffd"."""
    decoding = decode("gpt2", [12520])
    assert decoding.text == " \ufffd"
    assert shown_text(decoding) == " <0xF0><0x9F>"
    assert '<pre class="decoded-text"> &lt;0xF0&gt;&lt;0x9F&gt;</pre>' in decoding_html(decoding)
    whole = decode("gpt2", [piece.id for piece in encode("gpt2", "I 😀")])
    assert shown_text(whole) == whole.text == "I 😀"  # whole characters stay characters


def _whole_characters(token_bytes: bytes) -> bool:
    try:
        token_bytes.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_decoded_tokens_whose_bytes_are_not_the_text_are_drawn_side_by_side():
    """WordPiece's "##" pieces do not add up to the decoded text: no spans, no grouping."""
    config = RunConfig(TrainerConfig(algorithm="wordpiece", vocab_size=120), (), "whitespace")
    wordpiece = tokenizer_from_trace(train_corpus(CORPUS, config))
    ids = [piece.id for piece in encode_pieces(wordpiece, "lowest tower")]
    decoding = tokenizer_decoder(wordpiece)(ids)
    spanned_text, pieces = decoded_pieces(decoding)
    assert spanned_text is None and all(piece.end == 0 for piece in pieces)
    assert decoding_html(decoding).count('class="tok mono-tok') == len(ids)


def test_every_column_kind_can_decode(ours):
    assert tokenizer_column(ours, "ours").decode is not None
    for name in BUNDLED:
        assert pretrained_column(name).decode is not None
