"""Compare's research figures (explorer.compare.research, explorer.measures.audit.research_figures),
each checked against a computation of its own: the `tokenizers` library's and tiktoken's encodings
counted here, Rényi efficiency recomputed from those counts, unreachable ids found by encoding each
token alone here, and the table's cells read back against the counts they divide."""

from __future__ import annotations

import math
from collections import Counter, OrderedDict

import pytest
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

from explorer.compare import research
from explorer.compare.research import (
    LIBRARY_ONLY,
    NOT_UTF8,
    RENYI,
    UNREACHABLE,
    UNUSED,
    column_research,
    research_table,
    script_column,
)
from explorer.pretrained import load_encoding, package_directory
from tests.unit.test_audit import LINES, SYMBOL_TO_BYTE

EOT = "<|endoftext|>"


@pytest.fixture(scope="module")
def library() -> LibraryTokenizer:
    """A byte-level BPE trained by the library on LINES, with one special token."""
    tokenizer = LibraryTokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=[EOT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(LINES, trainer)
    return tokenizer


def renyi(counts: Counter, vocabulary: int, alpha: float = 2.5) -> float:
    total = sum(counts.values())
    return (
        math.log(sum((count / total) ** alpha for count in counts.values()))
        / (1 - alpha)
        / math.log(vocabulary)
    )


def test_our_tokenizer_json_figures_match_the_library(library):
    figures = column_research({"name": "ours", "tokenizer_json": library.to_str()}, LINES)
    assert figures["research_reason"] is None
    found = figures["research"]
    special = library.token_to_id(EOT)
    ordinary = set(library.get_vocab(with_added_tokens=False).values()) - {special}
    counts = Counter(i for line in LINES for i in library.encode(line, add_special_tokens=False).ids)
    unreachable, not_utf8 = 0, 0
    for token, token_id in library.get_vocab(with_added_tokens=False).items():
        if token_id == special:
            continue
        try:
            text = bytes(SYMBOL_TO_BYTE[symbol] for symbol in token).decode("utf-8")
        except UnicodeDecodeError:
            unreachable, not_utf8 = unreachable + 1, not_utf8 + 1
            continue
        unreachable += library.encode(text, add_special_tokens=False).ids != [token_id]
    assert found["tokens"] == sum(counts.values())
    assert found["renyi_efficiency"] == {"alpha": 2.5, "value": pytest.approx(renyi(counts, len(ordinary)))}
    assert found["unused_count"] == len(ordinary - set(counts)) > 0
    assert (found["unreachable_count"], found["unreachable_not_utf8"]) == (unreachable, not_utf8)
    assert not_utf8 > 0  # partial characters exist (é's bytes)
    utf8 = sum(len(line.encode("utf-8")) for line in LINES)
    assert found["bytes_per_token"] == pytest.approx(utf8 / sum(counts.values()))
    assert sum(entry["tokens"] for entry in found["scripts"].values()) == sum(counts.values())


def test_gpt2_figures_match_tiktoken():
    encoding = load_encoding("gpt2")
    found = column_research({"pretrained": "gpt2"}, LINES)["research"]
    counts = Counter(i for line in LINES for i in encoding.encode_ordinary(line))
    unreachable, not_utf8 = 0, 0
    for token_id in range(50256):  # 50256 is <|endoftext|>
        try:
            text = encoding.decode_single_token_bytes(token_id).decode("utf-8")
        except UnicodeDecodeError:
            unreachable, not_utf8 = unreachable + 1, not_utf8 + 1
            continue
        unreachable += encoding.encode_ordinary(text) != [token_id]
    assert (
        (found["unreachable_count"], found["unreachable_not_utf8"]) == (unreachable, not_utf8) == (344, 344)
    )
    assert found["unused_count"] == 50256 - len(counts)
    assert found["renyi_efficiency"]["value"] == pytest.approx(renyi(counts, 50256))
    assert found["tokens"] == sum(counts.values())


@pytest.mark.parametrize("name", ["gpt2", "o200k_base"])
def test_a_line_of_one_script_puts_every_token_in_that_script(name, monkeypatch):
    """In context, a byte token of a Han or Hangul character is Han or Hangul (GPT-2 spells most of
    them in bytes), so a line of one script has as many of its tokens as the whole line. (The
    unreachable ids, which do not depend on the lines and take o200k_base seconds, are left out:
    tested above.)"""
    monkeypatch.setattr(research, "_unreachable_by_content", OrderedDict())
    none_unreachable = {"unreachable_count": 0, "unreachable_not_utf8": 0}
    monkeypatch.setattr(research, "unreachable_counts", lambda subject: none_unreachable)
    encoding = load_encoding(name)
    lines = ["東京東京大阪京都", "안녕하세요", "Москва"]
    scripts = column_research({"pretrained": name}, lines)["research"]["scripts"]
    for line, script in zip(lines, ["Han", "Hangul", "Cyrillic"]):
        assert scripts[script] == {"characters": len(line), "tokens": len(encoding.encode_ordinary(line))}
    assert "(part of a character)" not in scripts


def test_a_sentencepiece_upload_is_measured_and_a_library_only_upload_says_why():
    data = (
        package_directory("mistral_common") / "data/mistral_instruct_tokenizer_240323.model.v3"
    ).read_bytes()
    uploaded = column_research({"name": "m.model", "sentencepiece": data}, LINES)
    bundled = column_research({"pretrained": "mistral-v3"}, LINES)
    assert uploaded["research"] == bundled["research"]  # the same file, bundled or uploaded
    assert uploaded["research"]["unreachable_count"] > 0
    library_only = column_research({"name": "u.json", "library_json": "{}"}, LINES)
    assert library_only == {"research": None, "research_reason": LIBRARY_ONLY}


def test_unreachable_counts_are_computed_once_per_tokenizer(monkeypatch):
    calls = []
    real = research.unreachable_counts
    monkeypatch.setattr(research, "unreachable_counts", lambda subject: calls.append(1) or real(subject))
    research._unreachable_by_content.clear()
    first = column_research({"pretrained": "gpt2"}, LINES[:2])
    second = column_research({"pretrained": "gpt2"}, LINES[2:4])
    assert len(calls) == 1
    assert first["research"]["unreachable_count"] == second["research"]["unreachable_count"] == 344


def test_the_table_divides_each_scripts_tokens_by_its_characters():
    def figures(renyi_value, scripts):
        return {
            "renyi_efficiency": {"alpha": 2.5, "value": renyi_value},
            "bytes_per_token": 3.5,
            "unreachable_count": 7,
            "unreachable_not_utf8": 5,
            "unused_count": 100,
            "scripts": scripts,
        }

    one = figures(
        0.5,
        {
            "Common": {"characters": 50, "tokens": 10},
            "Latin": {"characters": 100, "tokens": 25},
            "Han": {"characters": 10, "tokens": 20},
            "(part of a character)": {"characters": 0, "tokens": 3},
        },
    )
    two = figures(None, {"Latin": {"characters": 100, "tokens": 50}, "Han": {"characters": 10, "tokens": 5}})
    table = research_table([("one", one), ("two", two), ("none", None)])
    assert list(table.index) == ["one", "two", "none"]
    scripts = [script_column(script) for script in ("Latin", "Han", "Common")]  # Common last
    assert list(table.columns) == [RENYI, "bytes / token", UNREACHABLE, NOT_UTF8, UNUSED, *scripts]
    assert table.loc["one", script_column("Latin")] == 0.25
    assert table.loc["one", script_column("Han")] == 2.0
    assert table.loc["two", script_column("Han")] == 0.5
    assert math.isnan(table.loc["two", script_column("Common")])
    assert math.isnan(table.loc["two", RENYI]) and table.loc["one", RENYI] == 0.5
    assert (table.loc["one", UNREACHABLE], table.loc["one", NOT_UTF8], table.loc["one", UNUSED]) == (
        7,
        5,
        100,
    )
    assert table.loc["none"].isna().all()


def test_a_measurement_stored_before_the_research_figures_reads_without_them():
    import dataclasses

    from explorer.compare import measure_corpus, pretrained_column
    from explorer.session import measurements

    metrics = dataclasses.asdict(measure_corpus(pretrained_column("gpt2"), LINES).metrics)
    older = {"metrics": metrics, "seconds": 0.5, "lines": len(LINES), "characters": 1, "complete": True}
    read = measurements.measured(older, "GPT-2")
    assert read.research is None and read.research_reason == measurements.OLDER_MEASUREMENT
    assert read.metrics.name == "GPT-2" and read.metrics.tokens == metrics["tokens"]
    garbled = measurements.measured({**older, "research": "not a dict", "research_reason": None}, "GPT-2")
    assert garbled.research is None and garbled.research_reason == measurements.OLDER_MEASUREMENT
    new = measurements.measured({**older, "research": {"tokens": 3}, "research_reason": None}, "GPT-2")
    assert new.research == {"tokens": 3} and new.research_reason is None


def test_research_figures_in_small_batches_are_the_same(monkeypatch):
    from explorer.measures import audit
    from explorer.measures.audit_subjects import subject_from_pretrained

    subject = subject_from_pretrained("gpt2", replay=False)
    whole = audit.research_figures(subject, LINES)
    monkeypatch.setattr(audit, "RESEARCH_BATCH", 2)
    assert audit.research_figures(subject, LINES) == whole
