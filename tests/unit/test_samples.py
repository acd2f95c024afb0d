"""Built-in sample corpora (explorer/samples.py): what they contain, and that they match the seeds."""

from __future__ import annotations

import ast
import re
import unicodedata

import regex

from explorer.samples import (
    GERMAN,
    HF_COURSE,
    MULTILINGUAL,
    SAMPLE_SENTENCES,
    SAMPLES,
    STUDY_IN_SCARLET,
    sample_by_key,
)
from tests.helpers.shared_files import seed_text


def test_samples_are_listed_in_order_and_found_by_key():
    assert list(SAMPLES) == ["hf-course", "german", "scarlet", "multilingual", "shakespeare"]
    assert all(key == sample.key and sample.label and sample.text.strip() for key, sample in SAMPLES.items())
    assert sample_by_key("german") is GERMAN
    assert sample_by_key("nope") is None and sample_by_key(None) is None and sample_by_key("") is None


def test_multilingual_sample_covers_the_hard_cases():
    text = MULTILINGUAL.text
    assert "\u200d" in text  # a ZWJ emoji sequence (family)
    assert regex.search(r"\p{Regional_Indicator}{2}", text)  # a flag
    assert (
        regex.search(r"\p{Han}", text)
        and regex.search(r"\p{Hiragana}", text)
        and regex.search(r"\p{Hangul}", text)
    )
    assert any(unicodedata.combining(char) for char in text)  # a decomposed accent
    assert "é" in text  # and precomposed ones
    assert regex.search(r"\p{Arabic}", text) and regex.search(r"\p{Hebrew}", text)  # right-to-left
    assert "def tokenize(text):" in text and "\n    return" in text  # code with indentation


def test_sample_sentences_are_the_tutorials():
    assert SAMPLE_SENTENCES == (
        "A mouse called Petar sits on the legendary throne in the ivory tower.",
        "Auf dem legendären Thron im Elfenbeinturm sitzt eine Maus namens Petar.",
    )


def test_hf_course_corpus_matches_the_seed():
    seed = seed_text("hf-course-wordpiece.txt")
    block = re.search(r"corpus = \[(.*?)\]", seed, re.S).group(1)
    assert HF_COURSE.text.split("\n") == ast.literal_eval("[" + block + "]")


def test_german_corpus_matches_the_seed():
    seed = seed_text("bpe-german-demo.md")
    block = re.search(r"corpus = \[(.*?)\]", seed, re.S).group(1)
    assert GERMAN.text.split("\n") == ast.literal_eval("[" + block + "]")


def test_study_in_scarlet_matches_the_seed():
    seed = seed_text("tokenization-tutorial-bpe-wordpiece.md")
    text_en = re.search(r'text_en = """\n(.*?)\n"""', seed, re.S).group(1).strip()
    assert STUDY_IN_SCARLET.text == text_en


def test_the_book_size_sample_is_tinyshakespeare_and_stays_out_of_the_text_area():
    import hashlib

    from explorer.samples import SHAKESPEARE

    data = SHAKESPEARE.text.encode("utf-8")
    assert (
        hashlib.sha256(data).hexdigest() == "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
    )
    assert SHAKESPEARE.text.startswith("First Citizen:\nBefore we proceed any further, hear me speak.")
    assert SHAKESPEARE.large and not any(
        sample.large for sample in SAMPLES.values() if sample is not SHAKESPEARE
    )
