"""A run's merges against a pretrained tokenizer's (explorer.compare.merge_overlap): constructed
merge lists whose answers are known, and real ones checked against files read here: a BPE trained
on a few lines (by the app and by the `tokenizers` library) against GPT-2's own vocab.bpe, GPT-2's
merges recovered from its ranks as tiktoken-style vocabularies are, and DeepSeek's merges."""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import models, pre_tokenizers, trainers

from explorer.compare.merge_overlap import (
    BYTE_LEVEL_BPE,
    MergeOverlap,
    merge_overlap,
    not_comparable_reason,
    pretrained_merges,
    run_byte_merges,
    tiktoken_merges,
)
from explorer.drawing.charts import merge_overlap_figure
from explorer.pretrained import info_for, package_directory
from explorer.pretrained.tiktoken_backend import mergeable_ranks
from explorer.run_config import RunConfig, TrainerConfig
from explorer.train import train_corpus
from explorer.work.tasks import merge_overlap_task

LINES = [
    "The cat sat on the mat; the hat was on the cat.",
    "Then the other cat sat there, and that was that.",
    "There is nothing either good or bad, but thinking makes it so.",
] * 5


def pairs(text: str) -> list[tuple[bytes, bytes]]:
    """ "ab cd" -> [(b"a", b"b"), (b"c", b"d")]: two-character merges written briefly."""
    return [(word[:1].encode(), word[1:].encode()) for word in text.split()]


def test_counts_ranks_and_partings_of_a_constructed_pair_of_lists():
    run = pairs("th he in xy er zz an")
    pretrained = pairs("th in he er an re on")
    found = merge_overlap(run, pretrained)
    assert found.steps == [1, 2, 3, 4, 5, 6, 7]
    assert found.matched == [1, 2, 3, 3, 4, 4, 5]
    assert found.ranks == [0, 2, 1, None, 3, None, 4]
    assert found.total_matched == 5 and found.median_rank() == 2.0
    assert found.same_order == 1  # th; then he against in
    assert found.same_set == 3  # {th, he, in} both
    assert [(p.rank, p.left + p.right) for p in found.run_only] == [(3, b"xy"), (5, b"zz")]
    # the pretrained's first 7 merges that the run lacks
    assert [(p.rank, p.left + p.right) for p in found.pretrained_only] == [(5, b"re"), (6, b"on")]
    assert found.rank_points() == [(0, 0), (1, 2), (2, 1), (4, 3), (6, 4)]


def test_same_bytes_split_elsewhere_is_another_merge_and_a_repeat_counts_at_its_first_rank():
    run = [(b"ha", b"t"), (b" ", b"t")]
    pretrained = [(b" ", b"t"), (b"h", b"at"), (b" ", b"t")]
    found = merge_overlap(run, pretrained)
    assert found.ranks == [None, 0]
    assert found.same_order == 0 and found.same_set == 0


def test_identical_lists_agree_everywhere_and_empty_ones_are_empty():
    merges = pairs("ab cd ef gh")
    found = merge_overlap(merges, merges + pairs("ij"))
    assert found.matched == [1, 2, 3, 4] and found.same_order == found.same_set == 4
    assert not found.run_only and not found.pretrained_only
    empty = merge_overlap([], merges)
    assert empty.steps == [] and empty.matched == [] and empty.median_rank() is None


def test_a_long_run_is_sampled_first_and_last_kept_and_counts_stay_exact():
    run = [(bytes([k % 200]), str(k).encode()) for k in range(5_000)]
    pretrained = run[::2]  # every other merge, at rank k // 2
    found = merge_overlap(run, pretrained, points=50, partings=3)
    assert len(found.steps) == 50 and found.steps[0] == 1 and found.steps[-1] == 5_000
    assert all(matched == (n + 1) // 2 for n, matched in zip(found.steps, found.matched))
    assert [p.rank for p in found.run_only] == [1, 3, 5]
    assert found.pretrained_only == []
    assert len(found.rank_points(limit=100)) <= 100


def test_round_trip_through_plain_data():
    found = merge_overlap(pairs("th he xy"), pairs("th he in"))
    again = MergeOverlap.from_dict(json.loads(json.dumps(found.to_dict())))
    assert again == found


def test_runs_that_cannot_be_compared_say_why():
    assert not_comparable_reason("bpe") is None
    assert "Unigram" in (not_comparable_reason("unigram") or "")
    assert "WordPiece" in (not_comparable_reason("wordpiece", prefix="##") or "")
    assert "prefix" in (not_comparable_reason("bpe", prefix="##") or "")
    assert "suffix" in (not_comparable_reason("bpe", suffix="</w>") or "")


def test_byte_level_symbols_become_bytes_and_char_level_tokens_their_utf8():
    vocab = ["Ġ", "Ã©", "Ċ", "é"]
    assert run_byte_merges(vocab, [(0, 1, 9), (2, 0, 9)], byte_level=True) == [
        (b" ", "é".encode()),
        (b"\n", b" "),
    ]
    assert run_byte_merges(vocab, [(3, 3, 9)], byte_level=False) == [("é".encode(), "é".encode())]


def test_every_byte_level_bpe_is_listed_and_no_sentencepiece_model():
    assert {"gpt2", "cl100k_base", "o200k_base", "llama3", "qwen", "deepseek-v4"} <= set(BYTE_LEVEL_BPE)
    assert all(info_for(name).kind != "sentencepiece" for name in BYTE_LEVEL_BPE)
    with pytest.raises(ValueError, match="not a bundled byte-level BPE"):
        pretrained_merges("mistral-v1")


# ---------------------------------------------------------------- real merges


def gpt2_vocab_bpe_lines() -> list[str]:
    """GPT-2's merges as the file writes them ("Ġ t"), read here from the package's file."""
    info = info_for("gpt2")
    path = package_directory(info.module) / "data" / "vocab.bpe"
    return [line for line in path.read_text(encoding="utf-8").split("\n")[1:] if line]


@pytest.fixture(scope="module")
def gpt2_lines() -> list[str]:
    return gpt2_vocab_bpe_lines()


def test_gpt2_merges_are_its_vocab_bpe_and_what_tiktoken_parents_recovers(gpt2_lines):
    merges = pretrained_merges("gpt2")
    assert len(merges) == len(gpt2_lines) == 50_000
    # the ranks alone (as for every tiktoken-style vocabulary) give back the same merges, in order
    assert tuple(tiktoken_merges(mergeable_ranks("gpt2")[0])) == merges


def test_a_run_trained_here_against_gpt2_matches_the_file_line_by_line(gpt2_lines):
    trace = train_corpus("\n".join(LINES), RunConfig(TrainerConfig(vocab_size=256 + 60)))
    file_rank = {}
    for rank, line in enumerate(gpt2_lines):
        file_rank.setdefault(line, rank)
    # the trace's merges in GPT-2's own symbols ("Ġ", "t"): compared as text with the file's lines
    expected = [file_rank.get(f"{left} {right}") for left, right in trace.merge_strings()]
    run = run_byte_merges(trace.vocab, trace.merges, byte_level=True)
    found = merge_overlap(run, pretrained_merges("gpt2"))
    assert found.ranks == expected
    assert found.matched[-1] == sum(rank is not None for rank in expected) > 20
    assert found.run_merges == trace.steps == 60


def test_a_run_the_library_trained_against_gpt2_through_the_worker_task(gpt2_lines):
    library = LibraryTokenizer(models.BPE())
    library.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + 50, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    library.train_from_iterator(LINES, trainer)
    merges = json.loads(library.to_str())["model"]["merges"]
    lines = [" ".join(merge) if isinstance(merge, list) else merge for merge in merges]
    in_gpt2 = set(gpt2_lines)
    vocab = {token: token_id for token, token_id in library.get_vocab().items()}
    tokens = sorted(vocab, key=vocab.__getitem__)
    run = run_byte_merges(
        tokens, [(vocab[line.split(" ")[0]], vocab[line.split(" ")[1]], 0) for line in lines], byte_level=True
    )

    class Reporter:
        def report(self, **_):
            pass

    result = MergeOverlap.from_dict(merge_overlap_task(Reporter(), run, "gpt2"))
    assert [rank is not None for rank in result.ranks] == [line in in_gpt2 for line in lines]
    first_absent = next(k for k, line in enumerate(lines) if line not in in_gpt2)
    assert result.run_only[0].rank == first_absent


def test_deepseek_merges_are_its_tokenizer_json_merges():
    merges = pretrained_merges("deepseek-v4")
    assert len(merges) == 127_741
    assert merges[:2] == ((b" ", b"t"), (b" ", b"a"))


def test_the_figure_draws_the_counts_the_shares_and_the_ranks():
    found = merge_overlap(pairs("th he in xy"), pairs("th in he er"))
    figure = merge_overlap_figure(found.steps, found.matched, found.rank_points(), found.run_merges, "GPT<2>")
    titles = [annotation.text for annotation in figure.layout.annotations]
    assert titles == ["merges in common", "share in common", "merge n in GPT&lt;2&gt;"]
    counts, shares = figure.data[1], figure.data[2]
    assert list(counts.y) == [1, 2, 3, 3] and list(shares.y) == [1.0, 1.0, 1.0, 0.75]
    assert list(figure.data[-1].x) == [1, 2, 3] and list(figure.data[-1].y) == [1, 3, 2]


def test_a_char_level_run_is_compared_by_its_tokens_utf8(gpt2_lines):
    config = RunConfig(TrainerConfig(vocab_size=80, flavor="course"), (), "whitespace")
    trace = train_corpus("\n".join(LINES), config)
    assert not_comparable_reason(config.algorithm, config.prefix, config.suffix) is None
    file_rank: dict[str, int] = {}
    for rank, line in enumerate(gpt2_lines):
        file_rank.setdefault(line, rank)
    # ASCII letters and punctuation are their own byte-level symbols: the file's lines as text again
    assert all(token.isascii() and " " not in token for token in trace.vocab)
    expected = [file_rank.get(f"{left} {right}") for left, right in trace.merge_strings()]
    found = merge_overlap(
        run_byte_merges(trace.vocab, trace.merges, byte_level=False), pretrained_merges("gpt2")
    )
    assert found.ranks == expected and found.total_matched > 5
