"""explorer.compare: the boundary diff, the metrics curve read from a trace, corpus measurement
through the batch encoders, uploaded tokenizer files, and the Compare page's figures."""

from __future__ import annotations

import html
import math
import re
from dataclasses import replace

import numpy as np
import pytest
import tokenizers
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

from explorer.compare import (
    UploadedFile,
    library_host,
    measure_corpus,
    pretrained_column,
    read_uploads,
    tokenizer_column,
)
from explorer.compare.curve import CURVE_COLUMNS, metrics_curve, word_lengths
from explorer.compare.diff import boundary_diff, diff_summary
from explorer.compare.encoders import pretrained_batch_encoder, spans_from_byte_lengths
from explorer.compare.html import boundary_diff_html, column_html, figures_table_html
from explorer.compare.readers import tokenizer_json_upload, vocab_merges_upload, vocab_txt_upload
from explorer.drawing import charts
from explorer.drawing.wording import character_count
from explorer.measures.metrics import compute_metrics, metrics_table
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.pretrained import PRETRAINED, encode_pretrained, read_verified
from explorer.run_config import RunConfig, TrainerConfig
from explorer.tokens import TOKEN, UNKNOWN, Piece
from explorer.train import tokenizer_from_trace, train_corpus
from explorer.work.tasks import library_encode_task

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It's 3.14, isn't it?",
    "Café déjà vu: naïve coöperation, Ægir and Øresund; ΟΔΟΣ ὁδός.",
    "日本語のテキストと中文文本 mixed with English words and emoji 😀👍🏽🎉.",
    "to be or not to be, that is the question: whether 'tis nobler in the mind",
    "low lower lowest newer newest widest, the lowest tower was lower",
] * 3
TEXTS = [
    "A mouse called Petar sits on the legendary throne in the ivory tower.",
    "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
    "Naïve café 😀 日本語 [CLS] x² \t two  spaces",
    "",
]


def P(start: int, end: int, id: int = 0) -> Piece:
    """A hand-made piece: character offsets and an id."""
    return Piece(id, "", start, end)


def spans(*bounds):
    return [P(start, end, index) for index, (start, end) in enumerate(bounds)]


def cuts(segments):
    return [(s.start, s.end, s.a_cut, s.b_cut, s.differs) for s in segments]


# ---------------------------------------------------------------- boundary diff (hand-made cases)


def test_identical_tokenizations_agree_everywhere():
    segments = boundary_diff("ab cd", spans((0, 2), (2, 5)), spans((0, 2), (2, 5)))
    assert cuts(segments) == [(0, 2, False, False, False), (2, 5, True, True, False)]
    assert diff_summary(segments).__dict__ == {"both": 1, "only_a": 0, "only_b": 0}


def test_different_cuts_are_flagged_on_their_side():
    # lo|wer against low|er
    segments = boundary_diff("lower", spans((0, 2), (2, 5)), spans((0, 3), (3, 5)))
    assert cuts(segments) == [
        (0, 2, False, False, False),
        (2, 3, True, False, True),
        (3, 5, False, True, True),
    ]
    assert [s.text for s in segments] == ["lo", "w", "er"]
    assert [(s.a_tokens, s.b_tokens) for s in segments] == [((0,), (0,)), ((1,), (0,)), ((1,), (1,))]
    assert diff_summary(segments).__dict__ == {"both": 0, "only_a": 1, "only_b": 1}


def test_text_one_tokenizer_drops_is_uncovered_for_it():
    # BERT drops the space; GPT-2 glues it to the next word: "a", "·b"
    segments = boundary_diff("a b", spans((0, 1), (2, 3)), spans((0, 1), (1, 3)))
    assert cuts(segments) == [
        (0, 1, False, False, False),
        (1, 2, True, True, False),
        (2, 3, True, False, True),
    ]
    assert segments[1].a_tokens == () and segments[1].b_tokens == (1,)


def test_bytes_of_one_character_split_between_tokens():
    # A splits "é" into two byte tokens (both span the character); B keeps it whole.
    segments = boundary_diff("é!", spans((0, 1), (0, 1), (1, 2)), spans((0, 1), (1, 2)))
    assert cuts(segments) == [(0, 1, False, False, True), (1, 2, True, True, False)]
    assert segments[0].a_splits_character and not segments[0].b_splits_character


def test_segments_tile_the_text_and_ignore_empty_pieces():
    text = "[CLS] hello"
    segments = boundary_diff(text, [P(0, 0), *spans((0, 5), (6, 11))], spans((0, 1), (1, 11)))
    assert "".join(s.text for s in segments) == text
    assert [s.start for s in segments] == [0, 1, 5, 6]
    assert boundary_diff("", [], []) == []


def test_diff_html_escapes_and_marks_the_differences():
    text = "<script>x</script>"
    segments = boundary_diff(text, spans((0, 8), (8, 9), (9, 18)), spans((0, 1), (1, 18)))
    html = boundary_diff_html(segments, "A <b>", "B")
    assert "<script>" not in html and "&lt;" in html and "<b>" not in html
    assert html.count('class="diff-seg differs"') == sum(s.differs for s in segments) == 3
    assert "diff-only-a" in html and "diff-only-b" in html


def test_diff_of_real_tokenizers_is_consistent():
    text = TEXTS[2]
    a, b = encode_pretrained("gpt2", text), encode_pretrained("o200k_base", text)
    segments = boundary_diff(text, a, b)
    assert "".join(s.text for s in segments) == text
    cuts_a = {p.start for p in a} | {p.end for p in a}
    assert {s.start for s in segments if s.a_cut} == {c for c in cuts_a if 0 < c < len(text)}
    assert any(s.a_splits_character for s in segments)  # GPT-2 cuts 日本語 / 😀 into bytes


# ---------------------------------------------------------------- the curve from the trace


@pytest.fixture(scope="module", params=["bpe", "wordpiece"])
def trained(request):
    algorithm = request.param
    pre_tokenizer = "byte-level" if algorithm == "bpe" else "bert"
    specials = ("[UNK]",) if algorithm == "wordpiece" else ()
    config = TrainerConfig(algorithm=algorithm, vocab_size=320, special_tokens=specials)
    return train_corpus("\n".join(CORPUS), RunConfig(config, (), pre_tokenizer))


def direct_metrics(trace, k, corpus_text):
    """The curve's figures after k merges: tokens from every word's segmentation, characters,
    bytes and words counted on the corpus lines as compute_metrics counts a text."""
    segmentations = [trace.segment(word, k) for word in trace.words]
    lines = [line for line in corpus_text.split("\n") if line]
    pre_tokens = sum(trace.counts)
    tokens = sum(count * len(seg) for seg, count in zip(segmentations, trace.counts))
    split = sum(count for seg, count in zip(segmentations, trace.counts) if len(seg) >= 2)
    counted = compute_metrics("text", lines, lambda text: [])
    return {
        "merges": k,
        "vocab_size": trace.vocab_sizes[k],
        "tokens": tokens,
        "chars_per_token": counted.characters / tokens,
        "bytes_per_token": counted.utf8_bytes / tokens,
        "fertility": tokens / counted.words,
        "split_pre_token_share": split / pre_tokens,
    }


def test_metrics_curve_equals_direct_recomputation(trained):
    trace = trained
    assert trace.steps > 20
    # the corpus's user-perceived characters, as the run holds them (the trace counts code points)
    curve = metrics_curve(trace, points=trace.steps + 1, characters=character_count("\n".join(CORPUS)))
    assert list(curve.columns) == list(CURVE_COLUMNS)
    assert list(curve["merges"]) == list(range(trace.steps + 1))
    for k in (0, 1, 7, trace.steps // 2, trace.steps):
        row = curve.iloc[k].to_dict()
        expected = direct_metrics(trace, k, "\n".join(CORPUS))
        assert row == pytest.approx(expected), k


def test_metrics_curve_ends_on_the_whole_corpus_tables_figures(trained):
    """The curve and the whole-corpus table name the same measures: at the last merge they agree
    (this corpus has no special tokens, and encoding cuts every word as training did)."""
    corpus_lines = [line for line in CORPUS if line]
    column = tokenizer_column(tokenizer_from_trace(trained), "ours")
    table = measure_corpus(column, corpus_lines).metrics
    last = metrics_curve(trained, characters=character_count("\n".join(CORPUS))).iloc[-1]
    assert last["tokens"] == table.tokens
    assert last["chars_per_token"] == pytest.approx(table.chars_per_token)
    assert last["bytes_per_token"] == pytest.approx(table.bytes_per_token)
    assert last["fertility"] == pytest.approx(table.fertility)


def test_metrics_curve_samples_the_run(trained):
    curve = metrics_curve(trained, points=10)
    assert len(curve) == 10
    assert curve["merges"].iloc[0] == 0 and curve["merges"].iloc[-1] == trained.steps
    assert curve["tokens"].is_monotonic_decreasing
    assert curve["split_pre_token_share"].is_monotonic_decreasing


def test_curve_counts_bytes_and_characters_of_the_text():
    trace = train_corpus("é é é ab", RunConfig(TrainerConfig(vocab_size=300), (), "byte-level"))
    # words: "é" (2 bytes) x1, "Ġé" x2, "Ġab" x1 as byte symbols
    characters, utf8_bytes = word_lengths(trace)
    assert sorted(zip(trace.words, characters, utf8_bytes)) == sorted(
        [("Ã©", 1, 2), ("ĠÃ©", 2, 3), ("Ġab", 3, 3)]
    )
    first = metrics_curve(trace).iloc[0]
    assert first["tokens"] == 2 + 3 * 2 + 3  # one token per byte before any merge
    assert first["bytes_per_token"] == pytest.approx(len("é é é ab".encode()) / 11)
    assert first["chars_per_token"] == pytest.approx(len("é é é ab") / 11)
    assert first["fertility"] == pytest.approx(11 / 4)
    # A trace written before version 3 has no corpus counts: its pre-tokens stand in.
    trace.corpus = None
    first = metrics_curve(trace).iloc[0]
    assert first["bytes_per_token"] == 1.0
    assert first["chars_per_token"] == pytest.approx((1 + 2 * 2 + 3) / 11)


def test_curve_of_a_run_without_merges():
    trace = train_corpus("a b a", RunConfig(TrainerConfig(vocab_size=1), (), "whitespace-split"))
    curve = metrics_curve(trace)
    assert list(curve["merges"]) == [0]
    assert curve["split_pre_token_share"].iloc[0] == 0


# ---------------------------------------------------------------- a whole corpus, in batches


def test_pretrained_batch_encoder_gives_encode_pretrained_spans():
    texts = [*TEXTS, "lone \ud800 surrogate", "<|endoftext|> is text"]
    for name in PRETRAINED:
        batch = pretrained_batch_encoder(name)(texts)
        assert len(batch) == len(texts) and batch.unknown is None
        for index, text in enumerate(texts):
            assert batch.spans(index) == [(p.id, p.start, p.end) for p in encode_pretrained(name, text)]


def test_pretrained_batch_encoder_reads_the_vocabulary_once(monkeypatch):
    from explorer.compare import encoders
    from explorer.pretrained import tiktoken_backend

    reads = []
    read_ranks = tiktoken_backend.mergeable_ranks
    monkeypatch.setattr(
        tiktoken_backend, "mergeable_ranks", lambda name: reads.append(name) or read_ranks(name)
    )
    tiktoken_backend.load_encoding.cache_clear()
    encoders._byte_lengths.cache_clear()
    texts = ["many lines, many batches"] * 10
    encode_batch = pretrained_batch_encoder("gpt2")
    assert len(encode_batch(texts)) == len(encode_batch(texts[:3])) + 7
    assert reads == ["gpt2"]


def test_spans_from_byte_lengths_widen_partial_characters():
    lengths = np.array([0, 1, 1, 1, 0, 0, 0, 2])
    encoded = spans_from_byte_lengths(["aé", "ab", "", "éa"], [[1, 2, 3], [7], [], [2, 3, 1]], lengths)
    assert [encoded.spans(index) for index in range(len(encoded))] == [
        [(1, 0, 1), (2, 1, 2), (3, 1, 2)],
        [(7, 0, 2)],
        [],
        [(2, 0, 1), (3, 0, 1), (1, 1, 2)],
    ]


def test_measuring_through_the_library_equals_our_encoder(trained):
    column = tokenizer_column(tokenizer_from_trace(trained), "ours")
    corpus = CORPUS + TEXTS
    measured = measure_corpus(column, corpus)
    direct = compute_metrics("ours", corpus, column.encode)
    assert measured.metrics == direct
    assert measured.seconds >= 0


def test_measuring_in_small_batches_changes_no_figure(trained, monkeypatch):
    import explorer.compare.measure
    import explorer.measures.metrics

    column = tokenizer_column(tokenizer_from_trace(trained), "ours")
    corpus = (CORPUS + TEXTS) * 3
    whole = compute_metrics("ours", corpus, column.encode)
    assert len(corpus) < min(
        explorer.compare.measure.MEASURE_BATCH, explorer.measures.metrics.SPAN_BATCH
    )  # one batch
    monkeypatch.setattr(explorer.compare.measure, "MEASURE_BATCH", 4)
    monkeypatch.setattr(explorer.measures.metrics, "SPAN_BATCH", 3)
    assert whole.split_words > 0 and whole.texts > 12
    assert measure_corpus(column, corpus).metrics == whole
    assert compute_metrics("ours", corpus, column.encode) == whole
    assert measure_corpus(column, []).metrics.texts == 0


@pytest.mark.parametrize(
    "name, special_tokens", [("cl100k_base", False), ("deepseek-v4", False), ("deepseek-v4", True)]
)
def test_measuring_pretrained_equals_encoding_one_by_one(name, special_tokens):
    """tiktoken's batch route, and the library's for a bundled tokenizer.json, either switch."""
    column = pretrained_column(name, special_tokens)
    corpus = [*CORPUS, "<｜end▁of▁sentence｜> <think>é</think>", "lone \ud800 surrogate", *CORPUS[:3]]
    measured = measure_corpus(column, corpus)
    assert measured.metrics == compute_metrics(column.name, corpus, column.encode)


# ---------------------------------------------------------------- uploads


@pytest.fixture(scope="module")
def library_byte_level():
    tok = LibraryTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    return tok


@pytest.fixture(scope="module")
def library_wordpiece():
    tok = LibraryTokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False
    )
    tok.train_from_iterator(CORPUS, trainer)
    return tok


def assert_encodes_like(column, library: LibraryTokenizer) -> None:
    texts = TEXTS + CORPUS[:5]
    for text in texts:
        expected = library.encode(text, add_special_tokens=False)
        pieces = column.encode(text)
        assert [p.id for p in pieces] == expected.ids, text
        assert [(p.start, p.end) for p in pieces] == expected.offsets, text
    batch = column.encode_batch(texts)
    assert [[token_id for token_id, _, _ in batch.spans(index)] for index in range(len(texts))] == [
        library.encode(t, add_special_tokens=False).ids for t in texts
    ]


def test_our_exported_tokenizer_json_uploads(trained):
    exported = tokenizer_to_json(tokenizer_from_trace(trained), pretty=True)
    upload = tokenizer_json_upload(UploadedFile("my tokenizer.json", exported.encode()))
    assert upload.tokenizer is not None and upload.library_json is None  # read by our reader
    assert upload.name == "my tokenizer.json (uploaded)"
    assert_encodes_like(upload.column, LibraryTokenizer.from_str(exported))


@pytest.mark.parametrize("which", ["library_byte_level", "library_wordpiece"])
def test_a_library_made_tokenizer_json_uploads(which, request):
    library = request.getfixturevalue(which)
    upload = tokenizer_json_upload(UploadedFile("tokenizer.json", library.to_str().encode()))
    assert upload.tokenizer is not None  # our reader reads what the library writes
    assert_encodes_like(upload.column, library)


def test_library_vocab_and_merges_upload(library_byte_level, tmp_path):
    vocab_path, merges_path = library_byte_level.model.save(str(tmp_path))
    upload = vocab_merges_upload(
        UploadedFile("vocab.json", open(vocab_path, "rb").read()),
        UploadedFile("merges.txt", open(merges_path, "rb").read()),
    )
    assert "byte-level" in upload.note
    plain = LibraryTokenizer.from_str(library_byte_level.to_str())
    plain.add_special_tokens([])  # the files do not say <|endoftext|> is special: compare on text without it
    assert_encodes_like(upload.column, plain)


def test_a_library_vocab_txt_uploads(library_wordpiece, tmp_path):
    (vocab_path,) = library_wordpiece.model.save(str(tmp_path))
    upload = vocab_txt_upload(UploadedFile("vocab.txt", open(vocab_path, "rb").read()))
    assert "uncased" in upload.note  # the library's BertNormalizer lowercased the corpus
    assert_encodes_like(upload.column, library_wordpiece)
    unknown = [p.id for p in upload.column.encode("the ☃") if p.kind == UNKNOWN]
    assert unknown == [library_wordpiece.token_to_id("[UNK]")]


def test_gpt2_files_as_vocab_json_and_merges_txt_give_gpt2_ids():
    info = PRETRAINED["gpt2"]
    encoder_json, vocab_bpe = (read_verified(info.module, data_file) for data_file in info.files)
    found, errors = read_uploads(
        [UploadedFile("merges.txt", vocab_bpe), UploadedFile("vocab.json", encoder_json)]
    )
    assert errors == [] and len(found) == 1  # GPT-2's vocab holds a token "model": still a vocab.json
    column = found[0].column
    for text in TEXTS:
        assert [p.id for p in column.encode(text)] == [p.id for p in encode_pretrained("gpt2", text)]


def unigram_json() -> str:
    vocab = [("<unk>", 0.0), ("▁", -2.0), ("▁the", -1.0), ("t", -3.0), ("h", -3.0), ("e", -3.0), ("▁a", -2.5)]
    tok = LibraryTokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    return tok.to_str()


def test_a_unigram_tokenizer_json_is_read_by_ours_and_encodes_like_the_library():
    text = unigram_json()
    upload = tokenizer_json_upload(UploadedFile("unigram.json", text.encode()))
    assert upload.tokenizer is not None and upload.library_json is None
    column = upload.column
    library = LibraryTokenizer.from_str(text)
    for sentence in ["the a theatre", "xyz the", ""]:
        expected = library.encode(sentence, add_special_tokens=False)
        pieces = column.encode(sentence)
        assert [p.id for p in pieces] == expected.ids
        # "▁the" shown as is; an unknown token, which the library spells as its text, by its name
        assert [p.value for p in pieces] == [
            "<unk>" if token_id == 0 else token for token_id, token in zip(expected.ids, expected.tokens)
        ]
    assert [p.id for p in column.encode("the xyz") if p.kind == UNKNOWN] == [0]
    body, total = column_html(column, ["the xyz"])
    assert total == len(library.encode("the xyz").ids) and "▁the" in body
    assert measure_corpus(column, ["the xyz", "a the"]).metrics.unknown_tokens > 0


def wordlevel_json() -> str:
    tok = LibraryTokenizer(models.WordLevel({"[UNK]": 0, "the": 1, "a": 2}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return tok.to_str()


def test_a_tokenizer_json_our_reader_does_not_support_falls_back_to_the_library():
    text = wordlevel_json()
    upload = tokenizer_json_upload(UploadedFile("wordlevel.json", text.encode()))
    assert upload.tokenizer is None and upload.library_json == text
    assert upload.note.startswith("Encoded by the tokenizers library: our reader does not support it (")
    library = LibraryTokenizer.from_str(text)
    for sentence in ["the a theatre", "xyz the", ""]:
        assert [p.id for p in upload.column.encode(sentence)] == library.encode(
            sentence, add_special_tokens=False
        ).ids
    assert [p.kind for p in upload.column.encode("xyz the")] == [UNKNOWN, TOKEN]


def test_a_library_only_column_is_built_without_a_parse_and_encodes_through_its_host(monkeypatch):
    """Issue 50: the column of a tokenizer.json only the library reads was built by parsing it
    (`Tokenizer.from_str`: seconds of the server's GIL). It is built from the facts read where the
    file was read, and encodes and decodes through its host (the server's: a worker's job), which
    gives what the library gives."""
    library = LibraryTokenizer.from_str(wordlevel_json())
    library.add_special_tokens(["<s>"])
    text = library.to_str()
    upload = tokenizer_json_upload(UploadedFile("wordlevel.json", text.encode()))  # as in a worker
    asked = []

    class Host:  # the server's would ask a worker; this one notes what it is asked
        def encode(self, file, texts):
            asked.append(("encode", file.key, file.special_tokens, list(texts)))
            return library_host.HERE.encode(file, texts)

        def decode(self, file, ids):
            asked.append(("decode", file.key, list(ids)))
            return library_host.HERE.decode(file, ids)

    class NoParse:  # tokenizers.Tokenizer, refusing to parse
        def __getattr__(self, name):
            return getattr(LibraryTokenizer, name)

        def from_str(self, json_text):
            raise AssertionError("the column parsed the file")

    library_host._parsed.cache_clear()  # the parse `tokenizer_json_upload` kept
    monkeypatch.setattr(tokenizers, "Tokenizer", NoParse())
    column = replace(upload, library_host=Host(), _columns={}).column_for(True)
    plain = replace(upload, library_host=Host(), _columns={}).column_for(False)
    assert column.vocab_size == 4 and column.special == "special tokens on: <s> is one token"
    assert plain.special == "special tokens off: <s> is plain text"
    assert asked == []  # nothing encoded, nothing parsed: built from the facts
    monkeypatch.undo()
    expected = [library.encode(sentence, add_special_tokens=False).ids for sentence in ("the <s>", "a xyz")]
    assert [[p.id for p in pieces] for pieces in column.encode_texts(["the <s>", "a xyz"])] == expected
    assert [p.id for p in column.encode("a xyz")] == expected[1]
    assert column.decode([1, 2]).text == library.decode([1, 2], skip_special_tokens=False)
    assert asked == [
        ("encode", upload.key, True, ["the <s>", "a xyz"]),
        ("encode", upload.key, True, ["a xyz"]),
        ("decode", upload.key, [1, 2]),
    ]
    # the worker's side: the same pieces as the column here
    assert library_encode_task(
        None, library_host.LibraryFile(upload.key, text, False, False, 0), ["<s>"]
    ) == [list(plain.encode("<s>"))]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ([("tokenizer.json", b"{not json")], "tokenizer.json: not valid JSON"),
        (
            [("tokenizer.json", b'{"model": {"type": "Magic"}}')],
            "the tokenizers library cannot read it either",
        ),
        ([("tokenizer.json", b"[1, 2]")], "neither a tokenizer.json"),
        ([("vocab.txt", b"")], "vocab.txt: the vocabulary is empty"),
        ([("vocab.txt", b"a\nb\n##c\n")], "no unknown token"),
        ([("vocab.txt", "caf\u00e9".encode("latin-1"))], "vocab.txt: not UTF-8 text"),
        ([("tokenizer.bin", b"\0\1")], "expected a tokenizer.json, a vocab.txt"),
        ([("vocab.json", b'{"a": 0, "b": 1}')], "vocab.json: a vocab.json needs its merges.txt"),
        ([("merges.txt", b"#version: 0.2\na b\n")], "merges.txt: a merges.txt needs its vocab.json"),
        (
            [("vocab.json", b'{"a": 0, "b": 1}'), ("merges.txt", b"#version: 0.2\na b c\n")],
            "merges.txt: merge 1",
        ),
        ([("vocab.json", b'{"a": 0, "b": 1}'), ("merges.txt", b"a b\n")], "'ab' is not in the vocabulary"),
        ([("vocab.json", b'{"a": -1}'), ("merges.txt", b"")], "vocab.json: the id of 'a'"),
    ],
)
def test_malformed_uploads_are_one_clear_message(files, message):
    found, errors = read_uploads([UploadedFile(name, data) for name, data in files])
    assert found == []
    assert len(errors) == 1 and message in errors[0], errors
    assert "Traceback" not in errors[0] and "\n" not in errors[0]


def test_malformed_files_raise_value_errors_naming_the_file():
    with pytest.raises(ValueError, match=r"^my\.json: not valid JSON"):
        tokenizer_json_upload(UploadedFile("my.json", b"{"))
    with pytest.raises(ValueError, match=r"^v\.txt: no unknown token"):
        vocab_txt_upload(UploadedFile("v.txt", b"a\nb\n"))
    with pytest.raises(ValueError, match=r"^m\.txt: merge 1 \('a b c'\)"):
        vocab_merges_upload(UploadedFile("v.json", b'{"a": 0}'), UploadedFile("m.txt", b"a b c\n"))


def test_good_files_are_kept_beside_bad_ones(library_wordpiece, tmp_path):
    (vocab_path,) = library_wordpiece.model.save(str(tmp_path))
    found, errors = read_uploads(
        [UploadedFile("bad.json", b"{"), UploadedFile("bert-vocab.txt", open(vocab_path, "rb").read())]
    )
    assert [u.name for u in found] == ["bert-vocab.txt (uploaded)"] and len(errors) == 1


def test_two_pairs_are_matched_by_name(library_byte_level, tmp_path):
    vocab_path, merges_path = library_byte_level.model.save(str(tmp_path))
    vocab, merges = open(vocab_path, "rb").read(), open(merges_path, "rb").read()
    found, errors = read_uploads(
        [
            UploadedFile("a-vocab.json", vocab),
            UploadedFile("b-merges.txt", merges),
            UploadedFile("b-vocab.json", vocab),
            UploadedFile("a-merges.txt", merges),
        ]
    )
    assert errors == [] and sorted(u.name for u in found) == [
        "a-vocab.json + a-merges.txt (uploaded)",
        "b-vocab.json + b-merges.txt (uploaded)",
    ]


# ---------------------------------------------------------------- columns and figures


def test_column_html_names_the_tokenizer_escaped():
    column = pretrained_column("gpt2")
    body, total = column_html(column, TEXTS[:1])
    assert 'data-tokenizer="GPT-2"' in body and total == 15
    evil = tokenizer_column(
        tokenizer_from_trace(
            train_corpus("ab ab", RunConfig(TrainerConfig(vocab_size=260), (), "byte-level"))
        ),
        '"><script>',
    )
    body, _ = column_html(evil, ["ab"])
    assert "<script>" not in body and 'data-tokenizer="&quot;&gt;&lt;script&gt;"' in body


def test_metrics_bar_chart_has_a_panel_per_ratio():
    columns = [pretrained_column(name) for name in PRETRAINED]
    table = metrics_table(compute_metrics(c.name, TEXTS, c.encode) for c in columns)
    table.loc["<b>evil</b>"] = table.iloc[0]
    figure = charts.metrics_bar_chart(table)
    assert len(figure.data) == 5
    assert list(figure.data[0].x) == pytest.approx(list(table["characters / token"]))
    assert list(figure.data[3].x) == pytest.approx(list(table["words split"]))
    assert list(figure.data[4].x) == list(table["characters lost"])
    assert "&lt;b&gt;evil&lt;/b&gt;" in figure.data[0].y and "<b>evil</b>" not in figure.to_json()
    titles = [annotation.text for annotation in figure.layout.annotations]
    assert titles == [
        "characters / token",
        "bytes / token",
        "tokens per word",
        "words split",
        "characters lost",
    ]


def test_metrics_curve_figure_draws_each_run_in_each_panel(trained):
    curve = metrics_curve(trained, points=20)
    figure = charts.metrics_curve_figure({"run <1>": curve, "run 2": curve})
    assert len(figure.data) == 8
    assert [trace.showlegend for trace in figure.data] == [True, False, False, False] * 2
    assert figure.data[0].name == "run &lt;1&gt;"
    assert list(figure.data[0].x) == list(curve["vocab_size"])
    assert list(figure.data[3].y) == pytest.approx(list(curve["split_pre_token_share"]))
    titles = [annotation.text for annotation in figure.layout.annotations]
    assert titles == ["characters / token", "bytes / token", "tokens per word", "pre-tokens split"]
    assert not any(math.isnan(v) for v in figure.data[0].y)


def test_short_names_stay_distinct():
    names = charts.short_names(["x" * 60, "x" * 60, "y"], limit=10)
    assert names == ["xxxxxxxxx…", "xxxxxxxxx… (2)", "y"]


def test_boundary_diff_finds_the_same_covering_tokens_as_a_scan_of_every_token():
    """The diff finds each segment's tokens by bisection; a plain scan of every piece is the
    reference, on random overlapping pieces (byte tokens share characters; empty spans exist)."""
    import random

    from explorer.compare.diff import boundary_diff
    from explorer.tokens import Piece

    def scan(pieces, start, end):
        return tuple(i for i, piece in enumerate(pieces) if piece.start < end and piece.end > start)

    rng = random.Random(7)
    for _ in range(200):
        text = "x" * 50
        pieces_a, pieces_b = (
            [
                Piece(i, "t", start, min(50, start + rng.randint(0, 6)))
                for i, start in enumerate(sorted(rng.randint(0, 49) for _ in range(rng.randint(0, 25))))
            ]
            for _ in range(2)
        )
        for segment in boundary_diff(text, pieces_a, pieces_b):
            assert segment.a_tokens == scan(pieces_a, segment.start, segment.end)
            assert segment.b_tokens == scan(pieces_b, segment.start, segment.end)


def test_figures_table_html_writes_every_figure_of_the_table_and_escapes_names():
    """The live figures table holds what metrics_table holds: the same rows, the same values."""
    sentences = ["Hello world, hello café", "x² 😀"]
    gpt2 = pretrained_column("gpt2")
    measured = [
        compute_metrics("<b>GPT-2</b>", sentences, gpt2.encode),
        compute_metrics("empty", [], gpt2.encode),  # ratios over nothing are NaN
    ]
    table = metrics_table(measured)
    markup = figures_table_html(measured)
    assert "<b>GPT-2</b>" not in markup and "&lt;b&gt;GPT-2&lt;/b&gt;" in markup
    headings = re.findall(r'<th title="[^"]+">([^<]+)</th>', markup)
    assert headings == list(table.columns)
    for name, row in re.findall(r'<tr data-tokenizer="([^"]*)">(.*?)</tr>', markup):
        values = [float(v) for v in re.findall(r'data-value="([^"]*)"', row)]
        expected = table.loc[html.unescape(name)].tolist()
        assert len(values) == len(expected)
        assert all(v == e or (math.isnan(v) and math.isnan(e)) for v, e in zip(values, expected)), name
    first = re.findall(r"<td[^>]*>([^<]*)</td>", markup)[: len(headings)]
    one = measured[0]
    assert first[0] == f"{one.tokens:,}" and first[1] == f"{one.chars_per_token:.2f}"
    assert first[4] == f"{100 * one.split_word_share:.2f}%"
    assert re.findall(r"<td[^>]*>([^<]*)</td>", markup)[len(headings) + 1] == "–"  # NaN
