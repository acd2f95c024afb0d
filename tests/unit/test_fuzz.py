"""Arbitrary Unicode through every stage: no unexpected exception, and the invariants hold.

Texts are drawn from every code point except lone surrogates (category Cs): a Python str may hold
them, but they are not text. They cannot be encoded as UTF-8, so `decode_upload` never produces
them, `check_corpus` rejects them (tested below), and the byte-level pipeline and tokenizer.json
could not carry them anyway; the library cannot even receive them from Python.

Invariants: offsets lie within the text with start <= end; byte-level BPE (library flavor, no
normalizer, no suffix) decodes what it encodes; a trace has one entry per merge in every per-step
list and survives its JSON; our tokenizer and the library loading our tokenizer.json agree.
"""

import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as LibraryTokenizer

from explorer.checks import (
    InputError,
    Limits,
    check_corpus,
    corpus_prefix,
    decode_upload,
    sample_lines,
)
from explorer.lessons.explain import explain_vocab_size, special_token_notes
from explorer.pipeline.normalizers import NORMALIZERS, build_normalizer
from explorer.pipeline.pre_tokenizers import PRE_TOKENIZERS, build_pre_tokenizer
from explorer.pipeline.tokenizer_json import tokenizer_from_json, tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.train import tokenizer_from_trace, trace_from_json, train_corpus
from explorer.training.bpe.merge_history import STOP_REASONS, MergeHistory
from explorer.training.settings_checks import check_special_tokens

CHARACTERS = st.characters(exclude_categories=["Cs"])
TEXTS = st.text(CHARACTERS, max_size=30)
CORPORA = st.lists(TEXTS, min_size=1, max_size=4).map("\n".join)
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_offsets_within(offsets, text):
    for start, end in offsets:
        assert 0 <= start <= end <= len(text), (offsets, text)


@FUZZ
@given(text=TEXTS, names=st.lists(st.sampled_from(list(NORMALIZERS)), min_size=1, max_size=3))
def test_every_normalizer_keeps_alignments_within_the_text(text, names):
    normalizer = build_normalizer(names)
    normalized = normalizer.normalize(text)
    assert normalized.text == normalizer.normalize_str(text)
    assert len(normalized.alignments) == len(normalized.text)
    assert_offsets_within(normalized.alignments, text)


@FUZZ
@given(text=TEXTS, name=st.sampled_from(list(PRE_TOKENIZERS)))
def test_every_pre_tokenizer_gives_ordered_pieces_within_the_text(text, name):
    pre_tokenizer = build_pre_tokenizer(name)
    pieces = pre_tokenizer.pre_tokenize(text)
    assert_offsets_within([span for _, span in pieces], text)
    starts = [start for _, (start, _) in pieces]
    assert starts == sorted(starts)
    assert [piece for piece, _ in pieces] == pre_tokenizer.words(text)


def check_trace(trace: MergeHistory, config: TrainerConfig) -> None:
    assert trace.steps == len(trace.merges)
    per_step = (
        trace.merge_counts,
        trace.merge_scores,
        trace.words_changed,
        trace.occurrences,
        trace.candidates,
    )
    assert all(len(values) == trace.steps for values in per_step)
    assert trace.stop_reason in STOP_REASONS
    assert len(trace.vocab) == len(set(trace.vocab)) >= trace.initial_vocab_size
    if config.flavor == "library" and trace.initial_vocab_size <= config.vocab_size:
        assert len(trace.vocab) <= config.vocab_size
    assert all(new_id < len(trace.vocab) for _, _, new_id in trace.merges)
    assert trace_from_json(trace.to_json()).to_dict() == trace.to_dict()
    assert explain_vocab_size(trace, config.vocab_size)
    special_token_notes(trace)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=CORPORA,
    probe=TEXTS,
    algorithm=st.sampled_from(["bpe", "wordpiece"]),
    flavor=st.sampled_from(["library", "course"]),
    pre_tokenizer=st.sampled_from(list(PRE_TOKENIZERS)),
    normalizers=st.lists(st.sampled_from(list(NORMALIZERS)), max_size=2, unique=True),
    vocab_size=st.integers(1, 300),
    special_tokens=st.sampled_from([(), ("[UNK]",), ("<|endoftext|>", "[CLS]", "[SEP]")]),
    suffix=st.sampled_from([None, "</w>"]),
)
def test_anything_trains_encodes_and_decodes(
    corpus, probe, algorithm, flavor, pre_tokenizer, normalizers, vocab_size, special_tokens, suffix
):
    if flavor == "course" and algorithm == "wordpiece":
        suffix = None
    config = TrainerConfig(
        algorithm=algorithm,
        flavor=flavor,
        vocab_size=vocab_size,
        special_tokens=special_tokens,
        end_of_word_suffix=suffix,
    )
    trace = train_corpus(corpus, RunConfig(config, tuple(normalizers), pre_tokenizer))
    check_trace(trace, config)

    tokenizer = tokenizer_from_trace(trace)
    exported = tokenizer_to_json(tokenizer)
    reloaded = tokenizer_from_json(exported)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library = LibraryTokenizer.from_str(exported)
    # WordPiece (## prefix) and a suffix leave markers the ByteLevel decoder does not strip.
    round_trips = (
        pre_tokenizer == "byte-level"
        and not normalizers
        and flavor == "library"
        and algorithm == "bpe"
        and suffix is None
    )
    for text in [probe, *corpus.split("\n")]:
        encoding = tokenizer.encode(text)
        assert_offsets_within(encoding.offsets, text)
        decoded = tokenizer.decode(encoding.ids)
        if round_trips:
            # Every byte is in the alphabet; special tokens in the text decode to their own text.
            ids = tokenizer.encode(text, add_special_tokens=False).ids  # no [CLS] ... [SEP] around it
            assert tokenizer.decode(ids, skip_special_tokens=False) == text
        expected = library.encode(text)
        assert (encoding.ids, encoding.offsets) == (expected.ids, expected.offsets)
        assert decoded == library.decode(encoding.ids)
        assert reloaded.encode(text).ids == encoding.ids


@FUZZ
@given(data=st.binary(max_size=200))
def test_decode_upload_on_any_bytes_gives_text_or_a_message(data):
    try:
        text = decode_upload(data, "f.txt")
    except InputError as error:
        assert str(error).startswith("'f.txt' ")
    else:
        assert text and text.encode("utf-8")  # never a lone surrogate


@FUZZ
@given(text=st.text(CHARACTERS, min_size=1, max_size=60))
def test_decode_upload_accepts_utf8_text_as_is(text):
    data = text.encode("utf-8")
    binary_looking = "\x00" in text or text.startswith(
        ("\ufeff", "%PDF-", "PK\x03\x04", "PK\x05\x06", "GIF87a", "GIF89a")
    )
    if binary_looking:
        return
    assert decode_upload(data, "f.txt") == text


@FUZZ
@given(text=st.text(max_size=80), max_bytes=st.integers(0, 120))  # surrogates included on purpose
def test_corpus_checks_and_shrinking_never_fail(text, max_bytes):
    check = check_corpus(text, Limits(max_corpus_mb=60 / 1_000_000))
    assert all(isinstance(message, str) and message for message in check.errors + check.warnings)
    has_surrogate = any("\ud800" <= char <= "\udfff" for char in text)
    assert has_surrogate <= (not check.ok)
    prefix = corpus_prefix(text, max_bytes)
    assert text.startswith(prefix)
    assert len(prefix.encode("utf-8", "surrogatepass")) <= max_bytes or prefix == text
    sample = sample_lines(text, max_bytes, seed=3)
    assert sample == text or len(sample.encode("utf-8", "surrogatepass")) <= max_bytes
    assert sample == sample_lines(text, max_bytes, seed=3)


@FUZZ
@given(
    tokens=st.lists(st.text(st.sampled_from("a [|]\n\ud800é👍") | st.characters(), max_size=5), max_size=4),
    pre_tokenizer=st.sampled_from([None, *PRE_TOKENIZERS]),
)
def test_special_token_checks_never_fail(tokens, pre_tokenizer):
    check = check_special_tokens(tokens, pre_tokenizer)
    surrogates = any("\ud800" <= char <= "\udfff" for token in tokens for char in token)
    assert check.ok == ("" not in tokens and len(set(tokens)) == len(tokens) and not surrogates)
