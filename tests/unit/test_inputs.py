"""explorer.checks and explorer.lessons.explain: every bad input a visitor can give gets a clear message,
and odd but valid text trains and encodes like any other."""

import codecs
import gzip
import json
import math

import pytest
import tomllib
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import models, pre_tokenizers, trainers

from explorer.checks import (
    Budget,
    InputError,
    Limits,
    check_corpus,
    corpus_prefix,
    decode_upload,
    sample_lines,
)
from explorer.lessons.explain import explain_vocab_size, special_token_notes
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.train import encode_pieces, tokenizer_from_trace, train_corpus
from explorer.training.settings_checks import check_special_tokens, check_vocab_size
from tests import ROOT

SMALL = Limits(max_corpus_mb=0.01)  # 10,000 bytes


# ---------------------------------------------------------------- limits


def test_default_limits_are_documented_values():
    limits = Limits()
    assert (
        limits.max_corpus_mb,
        limits.max_seconds,
        limits.max_steps,
        limits.max_vocab,
        limits.max_upload_mb,
    ) == (4.0, 60.0, 50_000, 100_000, 50)
    assert limits.max_corpus_bytes == 4_000_000


def test_upload_limit_agrees_with_streamlit_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] == Limits().max_upload_mb
    assert (
        Limits().max_upload_mb >= 10 * Limits().max_corpus_mb
    )  # a file too large to train still gets our offer


def test_limits_are_read_from_the_environment():
    environ = {
        "EXPLORER_MAX_CORPUS_MB": "2.5",
        "EXPLORER_MAX_SECONDS": "10",
        "EXPLORER_MAX_STEPS": "1000",
        "EXPLORER_MAX_VOCAB": "5000",
        "EXPLORER_MAX_UPLOAD_MB": "3",
        "UNRELATED": "x",
    }
    assert Limits.from_env(environ) == Limits(2.5, 10.0, 1000, 5000, 3)
    assert Limits.from_env({}) == Limits()
    assert Limits.from_env({"EXPLORER_MAX_STEPS": " "}) == Limits()
    # Streamlit's own override of server.maxUploadSize is the fallback for the upload limit.
    assert Limits.from_env({"STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "8"}).max_upload_mb == 8


@pytest.mark.parametrize(
    "environ, message",
    [
        ({"EXPLORER_MAX_STEPS": "lots"}, "EXPLORER_MAX_STEPS must be a whole number above 0, not 'lots'"),
        ({"EXPLORER_MAX_STEPS": "1.5"}, "EXPLORER_MAX_STEPS"),
        ({"EXPLORER_MAX_SECONDS": "-1"}, "EXPLORER_MAX_SECONDS must be a number above 0"),
        ({"EXPLORER_MAX_CORPUS_MB": "0"}, "EXPLORER_MAX_CORPUS_MB"),
        ({"STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "big"}, "STREAMLIT_SERVER_MAX_UPLOAD_SIZE"),
    ],
)
def test_bad_environment_values_name_the_variable(environ, message):
    with pytest.raises(InputError, match=message):
        Limits.from_env(environ)


@pytest.mark.parametrize(
    "field, value", [("max_steps", 0), ("max_vocab", 1.5), ("max_upload_mb", math.inf), ("max_seconds", True)]
)
def test_limits_reject_nonsense(field, value):
    with pytest.raises(InputError, match=field):
        Limits(**{field: value})


# ---------------------------------------------------------------- uploads

LATIN1 = "Le café était très bon, dit-il à sa sœur.\nÇa coûte 5 €.\n".replace("œ", "oe").replace("€", "EUR")
CP1252 = "He said “quoted” and paid €5 – a bargain.\nNaïve café.\n"


@pytest.mark.parametrize(
    "data, expected",
    [
        pytest.param("hello wörld\n".encode(), "hello wörld\n", id="utf-8"),
        pytest.param(codecs.BOM_UTF8 + b"hello\n", "hello\n", id="utf-8 with BOM (removed)"),
        pytest.param("日本語のテキスト".encode(), "日本語のテキスト", id="utf-8 CJK"),
    ],
)
def test_utf8_uploads_are_accepted(data, expected):
    assert decode_upload(data, "corpus.txt") == expected


@pytest.mark.parametrize(
    "data, message",
    [
        pytest.param(b"", "is empty (0 bytes)", id="empty"),
        pytest.param(codecs.BOM_UTF8, "is empty (only a byte order mark)", id="only a BOM"),
        pytest.param(
            "hello\n".encode("utf-16"), "is not UTF-8: it is UTF-16 (little-endian) text", id="utf-16 BOM"
        ),
        pytest.param(
            codecs.BOM_UTF16_BE + "hi".encode("utf-16-be"), "UTF-16 (big-endian)", id="utf-16-be BOM"
        ),
        pytest.param(
            "hello world\n".encode("utf-16-le"), "it looks like UTF-16 (little-endian) text", id="utf-16-le"
        ),
        pytest.param(
            "hello world\n".encode("utf-16-be"), "it looks like UTF-16 (big-endian) text", id="utf-16-be"
        ),
        pytest.param(
            codecs.BOM_UTF32_LE + "hi".encode("utf-32-le"), "UTF-32 (little-endian)", id="utf-32 BOM"
        ),
        pytest.param(
            codecs.BOM_UTF32_BE + "hi".encode("utf-32-be"), "UTF-32 (big-endian)", id="utf-32-be BOM"
        ),
        pytest.param(
            "hello world\n".encode("utf-32-le"), "it looks like UTF-32 (little-endian) text", id="utf-32-le"
        ),
        pytest.param(
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "looks like a PDF document, not text", id="pdf"
        ),
        pytest.param(
            b"PK\x03\x04\x14\x00\x06\x00word/document.xml", "looks like a ZIP archive (.docx", id="zip/docx"
        ),
        pytest.param(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", "old Microsoft Office file", id="doc"),
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks like a PNG image, not text", id="png"),
        pytest.param(b"\xff\xd8\xff\xe0\x00\x10JFIF", "looks like a JPEG image", id="jpeg"),
        pytest.param(b"GIF89a\x01\x00\x01\x00", "looks like a GIF image", id="gif"),
        pytest.param(
            gzip.compress(b"hello"), "gzip-compressed file, not text: decompress it first", id="gzip"
        ),
        pytest.param(
            b"ELF header\x00\x01\x02 and then text",
            "binary file, not text (it has NUL bytes, the first at byte 10)",
            id="NUL bytes",
        ),
        pytest.param(
            LATIN1.encode("latin-1"),
            "is not UTF-8 (the first invalid byte is on line 1): it looks like Latin-1/Windows-1252",
            id="latin-1",
        ),
        pytest.param(CP1252.encode("cp1252"), "it looks like Latin-1/Windows-1252 text", id="cp1252"),
        pytest.param(
            "Привет, мир! Как дела?".encode("cp1251"),
            "another legacy encoding (such as Windows-1251",
            id="cp1251",
        ),
        pytest.param(
            "ok\nnaïve\ncafé".encode()[:-1], "ends in the middle of a UTF-8 character", id="truncated utf-8"
        ),
        pytest.param(
            "ok\nstill ok\ncaf€".encode()[:-1],
            "ends in the middle of a UTF-8 character",
            id="truncated utf-8, 2 of 3 bytes",
        ),
        pytest.param(
            "ok\ncafé".encode("latin-1"),
            "ASCII text that ends with the byte 0xE9, which is 'é' in Latin-1/Windows-1252",
            id="latin-1 ending in é",
        ),
        pytest.param(
            "héllo wörld ünïcode\n".encode() + "mais là\n".encode("latin-1"),
            "mostly UTF-8 but has 1 invalid byte sequence (the first on line 2)",
            id="mixed",
        ),
        pytest.param(bytes(range(1, 256)) * 4, "does not look like text", id="binary without NUL"),
    ],
)
def test_bad_uploads_say_what_they_look_like(data, message):
    with pytest.raises(InputError) as caught:
        decode_upload(data, "my file.txt")
    text = str(caught.value)
    assert message in text
    assert text.startswith("'my file.txt' ")
    assert "UTF-8" in text or "text in it" in text or "decompress" in text  # says what to do


def test_decode_never_transcodes_silently():
    with pytest.raises(InputError):
        decode_upload("café".encode("latin-1"), "f.txt")
    assert isinstance(InputError("x"), ValueError)


# ---------------------------------------------------------------- corpus checks


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("", "The corpus is empty.", id="empty"),
        pytest.param(
            " \n\t\u3000\n",
            "The corpus is empty: it has only white space (5 characters).",
            id="whitespace only",
        ),
        pytest.param(
            "word " * 2500,
            "The corpus is 12.5 KB of UTF-8 text; the limit is 10.0 KB. Train on its first 10.0 KB "
            "or on a random sample of its lines instead.",
            id="over the limit",
        ),
        pytest.param(
            "é" * 5000 + "x",
            "The corpus is 10,001 bytes of UTF-8 text; the limit is 10,000 bytes",
            id="one byte over",
        ),
        pytest.param("ab\ud800cd", "1 lone surrogate code point (U+D800 to U+DFFF)", id="lone surrogate"),
    ],
)
def test_a_corpus_that_cannot_be_trained_on_is_an_error(text, message):
    check = check_corpus(text, SMALL)
    assert not check.ok
    assert any(message in error for error in check.errors), check.errors


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param(
            "a\x00b\x00c\x1b[31m\x7f",
            "4 control characters (U+0000 NUL x2, U+001B ESC x1, U+007F DEL x1): "
            "they are trained on like any other character (the BERT normalizer removes them).",
            id="NUL and controls",
        ),
        pytest.param(
            "line one\rline two\rthree",
            "2 carriage returns (\\r) without a line feed",
            id="old Mac line endings",
        ),
        pytest.param(
            "a", "The corpus is a single character ('a'): there is no pair to merge", id="single character"
        ),
        pytest.param(
            "aaa aa\naaaa",
            "only one distinct character ('a'): the only tokens to learn are runs of it",
            id="one distinct character",
        ),
        pytest.param(
            "x " + "ab" * 600, "Line 1 has a run of 1,200 characters without white space", id="long word"
        ),
        pytest.param("short\n" + "word " * 30_000, "Line 2 is 150,000 characters long", id="long line"),
    ],
)
def test_an_odd_corpus_passes_with_a_warning(text, message):
    check = check_corpus(text, Limits())
    assert check.ok
    assert any(message in warning for warning in check.warnings), check.warnings


def test_long_word_and_line_thresholds():
    assert check_corpus(("x" * 999 + " ab\n") * 50, Limits()).warnings == ()
    assert len(check_corpus("x" * 1000 + " ab", Limits()).warnings) == 1
    assert len(check_corpus(("ab " * 33_333 + "\n") * 2, Limits()).warnings) == 0  # 99,999 characters a line


# Odd but ordinary text: no error, no warning, and it trains and encodes.
UNICODE_CORPORA = {
    "CJK without spaces": "東京は日本の首都です。\n北京是中国的首都。\n서울은 한국의 수도입니다.",
    "emoji ZWJ sequences": "family 👨‍👩‍👧‍👦 and 👩🏽‍💻 coder\n🏳️‍🌈 flag",
    "flags": "🇫🇷🇩🇪🇯🇵 and 🇺🇸 flags 🏴󠁧󠁢󠁳󠁣󠁴󠁿",
    "combining marks": "e\u0301te\u0301 Z\u0351\u0362a\u0338l\u0335g\u0321o\u0334 n\u0303 a\u0308",
    "right-to-left": "שלום עולם\nمرحبا بالعالم\nmixed עברית and English",
}
MARKUP_CORPORA = {
    "script tag": "<script>alert('x')</script>\n<script src=//evil.example></script>",
    "img onerror": '<img src=x onerror="alert(1)">\n<img onerror=alert(document.cookie)>',
    "javascript url": '[click](javascript:alert(1))\n<a href="javascript:void(0)">x</a>',
    "markdown": "# Title\n**bold** _it_ `code` [link](http://x)\n| a | b |\n:red[colour] $math$",
    "latex": "$$\\frac{a}{b} + \\sqrt{x^2}$$\n\\begin{equation} E = mc^2 \\end{equation}",
}


@pytest.mark.parametrize("name", [*UNICODE_CORPORA, *MARKUP_CORPORA])
def test_odd_corpora_are_accepted_and_survive_training(name):
    text = {**UNICODE_CORPORA, **MARKUP_CORPORA}[name]
    assert check_corpus(text, Limits()) == check_corpus("plain", Limits())  # no error, no warning
    for pre_tokenizer in ("byte-level", "whitespace-split"):
        trace = train_corpus(text, RunConfig(TrainerConfig(vocab_size=300), (), pre_tokenizer))
        tokenizer = tokenizer_from_trace(trace)
        for line in text.split("\n"):
            pieces = encode_pieces(tokenizer, line)
            if pre_tokenizer == "byte-level":
                # Tokens hold the characters literally (printable ASCII is its own byte symbol).
                assert b"".join(piece.token_bytes for piece in pieces) == line.encode()
                assert tokenizer.decode([piece.id for piece in pieces]) == line
            else:
                assert "".join(piece.value for piece in pieces) == "".join(line.split())
            assert all(line[piece.start : piece.end] for piece in pieces)


@pytest.mark.parametrize("name", list(MARKUP_CORPORA))
def test_markup_tokens_are_literal_and_exported_unescaped(name):
    text = MARKUP_CORPORA[name]
    trace = train_corpus(text, RunConfig(TrainerConfig(vocab_size=400), (), "whitespace-split"))
    tokenizer = tokenizer_from_trace(trace)
    tokens = tokenizer.encode(text.split("\n")[0]).tokens
    first_word = text.split()[0]
    assert first_word in tokens  # e.g. "<script>alert('x')</script>" learned whole, not escaped
    exported = tokenizer_to_json(tokenizer)
    assert first_word in json.loads(exported)["model"]["vocab"]
    library = LibraryTokenizer.from_str(exported)
    assert library.encode(text).ids == tokenizer.encode(text).ids


def test_a_million_character_word_trains():
    word = ("ab" * 499 + "cd") * 1000
    assert len(word) == 1_000_000
    assert any("1,000,000 characters without white space" in w for w in check_corpus(word, Limits()).warnings)
    trace = train_corpus(word, RunConfig(TrainerConfig(vocab_size=300), (), "whitespace-split"))
    assert trace.stop_reason in ("vocab_size", "no_pair_left") and trace.steps > 0
    assert "".join(trace.segment_index(0)) == word


# ---------------------------------------------------------------- shrinking a corpus


def test_corpus_prefix_cuts_after_a_line_and_never_inside_a_character():
    text = "ab\ncé\ndéf\n"
    assert corpus_prefix(text, 100) == text
    assert corpus_prefix(text, 7) == "ab\ncé\n"  # 7 bytes exactly
    assert corpus_prefix(text, 6) == "ab\n"
    assert corpus_prefix("ééé", 5) == "éé"  # one line longer than the limit: cut between characters
    assert corpus_prefix("👍👍", 7) == "👍"
    assert corpus_prefix("abc", 0) == ""
    for size in range(0, 30):
        prefix = corpus_prefix("x👨‍👩‍👧 é\nyz\n" * 2, size)
        assert len(prefix.encode()) <= size


def test_sample_lines_is_deterministic_keeps_order_and_fits():
    lines = [f"line {number} " + "é" * (number % 7) for number in range(1000)]
    text = "\n".join(lines)
    sample = sample_lines(text, 2000)
    assert sample == sample_lines(text, 2000, seed=0)
    assert sample != sample_lines(text, 2000, seed=1)
    assert len(sample.encode()) <= 2000
    picked = sample.splitlines()
    assert len(picked) > 50
    assert picked == sorted(picked, key=lines.index)  # original order
    assert sample_lines(text, 10**9) == text
    assert sample_lines("a" * 50 + "\n" + "b" * 50, 20) == ""  # no line fits


def test_a_shrunk_corpus_passes_the_check():
    text = "A line of text.\n" * 2000
    assert not check_corpus(text, SMALL).ok
    assert check_corpus(corpus_prefix(text, SMALL.max_corpus_bytes), SMALL).ok
    assert check_corpus(sample_lines(text, SMALL.max_corpus_bytes), SMALL).ok


# ---------------------------------------------------------------- special tokens


@pytest.mark.parametrize(
    "tokens, kind, message",
    [
        (["[CLS]", ""], "errors", "A special token is empty: it would take an id and never match"),
        (["[SEP]", "[SEP]"], "errors", "'[SEP]' is listed twice"),
        (["<\ud800>"], "errors", "holds a lone surrogate (U+D800 to U+DFFF), which is not text"),
        (["\n"], "warnings", "is only white space: it will replace that white space in every text"),
        (["the"], "warnings", "'the' is ordinary text: it will be cut out of every text that contains it"),
        (["|"], "warnings", "'|' is ordinary text"),
        (
            ["<end of text>"],
            "notes",
            "contains white space that the byte-level pre-tokenizer splits on: it still works whole",
        ),
        (["end-of-text"], "notes", "has separators that the byte-level pre-tokenizer splits on"),
    ],
)
def test_special_token_problems_are_errors_warnings_or_notes(tokens, kind, message):
    check = check_special_tokens(tokens, "byte-level")
    assert any(message in line for line in getattr(check, kind)), check
    if kind != "errors":
        assert check.ok


def test_usual_special_tokens_have_no_problem():
    """Not even a note: the app's own WordPiece and BPE defaults, and the usual marker shapes."""
    usual = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "<|endoftext|>",
        "<s>",
        "</s>",
        "<unk>",
        "<|im_start|>",
    ]
    for pre_tokenizer in ("byte-level", "bert", "whitespace", "whitespace-split", None):
        check = check_special_tokens(usual, pre_tokenizer)
        assert check.ok and not check.warnings and not check.notes, check


def _library_bpe(corpus: str, special_tokens: list[str]) -> LibraryTokenizer:
    tokenizer = LibraryTokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=100, special_tokens=special_tokens, show_progress=False)
    tokenizer.train_from_iterator(corpus.split("\n"), trainer)
    return tokenizer


@pytest.mark.parametrize(
    "special, text, expected_tokens",
    [
        # Split by the pre-tokenizer, yet matched whole: special tokens come out of the raw text first.
        ("<end of text>", "the end<end of text>the", ["the", "end", "<end of text>", "the"]),
        # Ordinary text: cut out even from inside a word, by the library as by us.
        ("the", "theother", ["the", "o", "the", "r"]),
    ],
)
def test_special_token_behaviour_matches_the_library(special, text, expected_tokens):
    corpus = "the end of the text\nthe other end"
    library = _library_bpe(corpus, [special])
    trace = train_corpus(
        corpus, RunConfig(TrainerConfig(vocab_size=100, special_tokens=(special,)), (), "whitespace-split")
    )
    ours = tokenizer_from_trace(trace).encode(text)
    theirs = library.encode(text)
    assert ours.tokens == theirs.tokens == expected_tokens
    assert (ours.ids, ours.offsets) == (theirs.ids, theirs.offsets)


def test_a_merge_that_rebuilds_a_special_token_reuses_its_id_like_the_library():
    corpus = "the theory of the end\nthe end theory"
    library = _library_bpe(corpus, ["theory", "e"])
    trace = train_corpus(
        corpus,
        RunConfig(TrainerConfig(vocab_size=100, special_tokens=("theory", "e")), (), "whitespace-split"),
    )
    assert library.get_vocab() == trace.token_ids()
    assert library.token_to_id("theory") == 0 and library.get_vocab_size() == len(trace.vocab)
    notes = special_token_notes(trace)
    assert "The special token 'e' is also a character of the corpus: both share id 1." in notes
    assert any(
        note.startswith("Merge ")
        and "rebuilt the special token 'theory': it reuses the special token's id 0" in note
        for note in notes
    )


# ---------------------------------------------------------------- vocab size


@pytest.mark.parametrize("value", [0, -5, 100_001, 1.5, "300", True, None])
def test_check_vocab_size_rejects_what_is_out_of_range_or_not_an_integer(value):
    with pytest.raises(InputError, match="vocab_size must be"):
        check_vocab_size(value, Limits())


def test_check_vocab_size_accepts_the_bounds():
    assert check_vocab_size(1, Limits()) == 1
    assert check_vocab_size(100_000, Limits()) == 100_000
    assert check_vocab_size(10**6, Limits(max_vocab=math.inf)) == 10**6


CORPUS = "This is the Hugging Face Course.\nThis chapter is about tokenization.\nHope you like it!\n"


@pytest.mark.parametrize(
    "settings, requested, expected",
    [
        (
            dict(pre_tokenizer="byte-level"),
            100,
            "You asked for 100 tokens, but the starting alphabet alone has 256 (256 byte symbols). "
            "It is always kept whole, so no merge was learned.",
        ),
        (
            dict(pre_tokenizer="whitespace", special_tokens=("[UNK]",)),
            5,
            "You asked for 5 tokens, but the starting alphabet alone has 25 (24 characters + [UNK]).",
        ),
        (
            dict(pre_tokenizer="whitespace"),
            24,
            "The starting alphabet (24 characters) is exactly the 24 tokens asked for",
        ),
        (
            dict(pre_tokenizer="whitespace"),
            5000,
            "You asked for 5,000 tokens, but this corpus can only give 70: "
            "after 46 merges no pair is left to merge",
        ),
        (
            dict(pre_tokenizer="whitespace"),
            40,
            "Reached the 40 tokens asked for: 24 to start with, plus 16 merges.",
        ),
        (
            dict(pre_tokenizer="whitespace", min_frequency=3),
            5000,
            "the most frequent remaining pair occurs fewer than 3 times (min_frequency)",
        ),
    ],
)
def test_explain_vocab_size_says_why_the_vocabulary_has_its_size(settings, requested, expected):
    pre_tokenizer = settings.pop("pre_tokenizer")
    trace = train_corpus(
        CORPUS, RunConfig(TrainerConfig(vocab_size=requested, **settings), (), pre_tokenizer)
    )
    assert expected in explain_vocab_size(trace, requested)
    assert explain_vocab_size(trace) == explain_vocab_size(trace, requested)


def words_for_many_merges(count: int) -> str:
    """`count` words of a few shapes (w1x7y1, w2x1y2, ...): enough pairs for thousands of merges."""
    return " ".join(f"w{n}x{n * 7 % 13}y{n % 5}" for n in range(count))


def train_within(budget: Budget, text: str):
    """Byte-level BPE towards 5,000 tokens on `text`, with the budget's progress, stop and step limit."""
    return train_corpus(
        text,
        RunConfig(TrainerConfig(vocab_size=5000), (), "byte-level"),
        progress=budget.progress,
        should_stop=budget.should_stop,
        max_steps=budget.step_limit,
    )


def test_explain_a_run_stopped_by_the_budget():
    budget = Budget(max_steps=40)
    trace = train_within(budget, words_for_many_merges(3000))
    assert trace.stop_reason == "stopped" and trace.steps == 40  # exactly the limit
    assert explain_vocab_size(trace, 5000, budget.stop_cause(trace.stop_reason, trace.steps)) == (
        f"Stopped at {len(trace.vocab):,} of the 5,000 tokens asked for, after {trace.steps} merges, "
        "by the limit of 40 merges."
    )
    assert "by the Stop button or a time or step limit" in explain_vocab_size(trace, 5000)


def test_explain_a_corpus_with_no_words():
    trace = train_corpus("\x00\x01", RunConfig(TrainerConfig(vocab_size=10), ("bert",), "whitespace"))
    assert (
        explain_vocab_size(trace, 10)
        == "The corpus has no words once normalized and pre-tokenized, so nothing was learned."
    )


# ---------------------------------------------------------------- budget


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_time_budget_stops_at_its_limit_and_not_before():
    clock = FakeClock()
    budget = Budget(max_seconds=60, clock=clock)
    clock.now += 59.9
    assert not budget.should_stop()
    clock.now += 0.1
    assert budget.should_stop() and budget.stopped_by == "the time limit (60 s)"


@pytest.mark.parametrize("limit", [1, 31, 32, 33, 100])
def test_budget_step_limit_stops_the_trainer_exactly_and_forwards_progress(limit):
    reports = []
    budget = Budget(max_steps=limit, progress=lambda step, planned: reports.append((step, planned)))
    trace = train_within(budget, words_for_many_merges(3000))
    assert (
        trace.steps == limit
        and budget.stop_cause(trace.stop_reason, trace.steps)
        == f"the limit of {limit:,} merge{'s' if limit > 1 else ''}"
    )
    assert not budget.should_stop()  # the time limit alone is asked every 32 merges
    assert reports[-1] == (limit, limit)  # planned shows the step limit
    assert Limits(max_steps=7, max_seconds=1).budget().step_limit == 7
    assert Budget(max_steps=math.inf).step_limit is None


def test_a_stop_that_is_not_the_budgets_has_no_cause_from_it():
    text = words_for_many_merges(300)
    budget = Budget(max_steps=1000)
    stopped = train_corpus(
        text,
        RunConfig(TrainerConfig(vocab_size=5000), (), "byte-level"),
        should_stop=lambda: True,
        max_steps=budget.step_limit,
    )
    assert (
        stopped.stop_reason == "stopped" and budget.stop_cause(stopped.stop_reason, stopped.steps) is None
    )  # a Stop button
    finished = train_corpus(
        text, RunConfig(TrainerConfig(vocab_size=300), (), "byte-level"), max_steps=budget.step_limit
    )
    assert (
        finished.stop_reason == "vocab_size"
        and budget.stop_cause(finished.stop_reason, finished.steps) is None
    )


def test_no_budget_never_stops():
    budget = Budget()
    budget.progress(10**9, 10**9)
    assert not budget.should_stop() and budget.stopped_by is None and budget.step_limit is None
