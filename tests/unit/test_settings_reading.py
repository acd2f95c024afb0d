"""The Train page's `Settings.reading`: part of a run's key and link only when it is not "lines",
so that every key and link made before the field existed is the same (the keys below were computed
with the code before it); a bad reading in a link falls back to "lines" with a note; a count file's
settings the form cannot take are named."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest

from explorer.checks import Limits
from explorer.corpora.counting import Counting
from explorer.runs import settings as settings_module
from explorer.runs.run import corpus_digest
from explorer.runs.settings import Settings, counting_problem, from_query_params, with_counting
from explorer.session import serving, stored_runs

BEFORE_READING = [  # (settings, their key for b"k" * 32 and "a corpus\n", their link) before the field
    (Settings(), "c8ab399ae8734ba626fdaa1b03d938e357e30aa4e26a31f8036c5a48136287a7", {"algorithm": "bpe"}),
    (
        Settings(algorithm="unigram", pre_tokenizer="metaspace", special_tokens="", vocab_size=300),
        "0681638a4e560179a5485f000044580ee0ed1655752a4ed71dc25c6b8175009e",
        {"algorithm": "unigram", "vocab_size": "300"},
    ),
    (
        Settings(algorithm="wordpiece", pre_tokenizer="bert", prefix="##", normalizers=("nfkc",)),
        "ba096fbb779a7773a1e99633da9ce9bf6bbd2d351a4ab67747a66467e3c61b72",
        {"algorithm": "wordpiece", "normalizers": "nfkc", "special_tokens": "<|endoftext|>"},
    ),
]


@pytest.mark.parametrize(("settings", "old_key", "old_link"), BEFORE_READING)
def test_keys_and_links_made_before_the_reading_are_the_same(monkeypatch, settings, old_key, old_link):
    monkeypatch.setattr(serving, "secret", lambda: b"k" * 32)
    assert serving.training_key(corpus_digest("a corpus\n"), settings, Limits()) == old_key
    assert settings.to_query_params() == old_link
    assert from_query_params(old_link, Limits()) == (settings.canonical(), [])
    old_meta = {"settings": {name: value for name, value in asdict(settings).items() if name != "reading"}}
    assert stored_runs.settings_from_meta(old_meta) == settings  # a run stored before the field


def test_another_reading_is_in_the_key_and_the_link(monkeypatch):
    monkeypatch.setattr(serving, "secret", lambda: b"k" * 32)
    settings = Settings(reading="lines-with-endings")
    assert serving.training_key(corpus_digest("a corpus\n"), settings, Limits()) != BEFORE_READING[0][1]
    assert settings.to_query_params() == {"algorithm": "bpe", "reading": "lines-with-endings"}
    assert from_query_params(settings.to_query_params(), Limits()) == (settings, [])
    assert settings.run_config(Limits()).reading == "lines-with-endings"


def test_a_bad_reading_in_a_link_is_a_note_and_lines():
    settings, notes = from_query_params({"algorithm": "bpe", "reading": "pages"}, Limits())
    assert settings.reading == "lines" and notes == [
        "Ignored reading='pages' from the link (choose from lines, lines-with-endings)."
    ]


def test_a_count_files_settings_replace_the_forms_and_what_the_form_lacks_is_named(monkeypatch):
    counting = Counting(("nfkc",), "byte-level-o200k", "records")
    assert with_counting(Settings(), counting) == replace(
        Settings(), normalizers=("nfkc",), pre_tokenizer="byte-level-o200k", reading="records"
    )
    assert counting_problem(counting) is None
    monkeypatch.setattr(settings_module, "PRE_TOKENIZER_NAMES", ["byte-level"])
    assert counting_problem(counting) == "pre-tokenizer 'byte-level-o200k'"
