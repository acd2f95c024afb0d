"""The checks an uploaded tokenizer file passes before anything parses it, the worker task that
parses it, and the chunked pickle the server rebuilds it from."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from explorer.checks import InputError, Limits
from explorer.checks.limits import MB
from explorer.compare import UploadedFile, read_uploads
from explorer.compare.upload_checks import check_upload, estimated_entries, over_session_bound
from explorer.work import chunked
from explorer.work.tasks import read_uploads_task

VOCAB_TXT = "\n".join(["[UNK]", "[CLS]", "a", "mouse", "the", "##s", "t", "##o"]) + "\n"


class Quiet:
    """The reporter a task gets, without a pool."""

    def report(self, **progress):
        pass

    def should_stop(self):
        return False


def bpe_json(tokens: int) -> bytes:
    letters = [chr(ord("a") + i) for i in range(26)]
    vocab = {letter: index for index, letter in enumerate(letters)}
    merges = []
    for first in letters:
        for second in letters:
            if len(vocab) >= tokens:
                break
            vocab[first + second] = len(vocab)
            merges.append([first, second])
    model = {"type": "BPE", "vocab": vocab, "merges": merges}
    return json.dumps({"version": "1.0", "added_tokens": [], "model": model}).encode()


def test_the_estimate_counts_lines_of_a_txt_and_entries_of_a_json():
    assert estimated_entries(UploadedFile("vocab.txt", VOCAB_TXT.encode())) == 8
    data = bpe_json(300)  # 300 tokens, 274 merges written as pairs
    assert (
        abs(estimated_entries(UploadedFile("tokenizer.json", data)) - (300 + 274)) <= 10
    )  # plus the few keys of the pipeline
    assert estimated_entries(UploadedFile("tokenizer.model", b"\0" * 100)) is None


def test_a_file_over_the_size_limit_is_refused_in_one_sentence_naming_file_and_limit():
    upload = UploadedFile("big.json", b" " * (2 * MB + 1))
    with pytest.raises(ValueError) as refused:
        check_upload(upload, Limits(max_tokenizer_mb=2))
    assert str(refused.value) == (
        "big.json: 2.0 MB is over the limit of 2 MB for an uploaded tokenizer file on this server"
    )


def test_a_file_over_the_entry_limit_is_refused_and_one_within_both_passes():
    upload = UploadedFile("tokenizer.json", bpe_json(300))
    with pytest.raises(ValueError, match=r"tokenizer.json: about 5\d\d entries .* limit of 500 "):
        check_upload(upload, Limits(max_tokenizer_entries=500))
    check_upload(upload, Limits(max_tokenizer_entries=1_000))  # raises nothing


def test_the_upload_limits_come_from_the_environment_and_a_bad_one_is_named():
    limits = Limits.from_env(
        {
            "EXPLORER_UPLOAD_TOKENIZER_MB": "5",
            "EXPLORER_UPLOAD_TOKENIZER_ENTRIES": "1000",
            "EXPLORER_SESSION_UPLOAD_MB": "12.5",
        }
    )
    assert (limits.max_tokenizer_mb, limits.max_tokenizer_entries, limits.max_session_uploads_mb) == (
        5.0,
        1000,
        12.5,
    )
    assert (Limits().max_tokenizer_mb, Limits().max_tokenizer_entries) == (20.0, 500_000)
    with pytest.raises(InputError, match="EXPLORER_UPLOAD_TOKENIZER_ENTRIES must be a whole number"):
        Limits.from_env({"EXPLORER_UPLOAD_TOKENIZER_ENTRIES": "many"})


def test_the_session_bound_drops_the_oldest_and_keeps_the_newest():
    limits = Limits(max_session_uploads_mb=10)
    assert over_session_bound([4 * MB, 4 * MB], limits) == 0
    assert over_session_bound([4 * MB, 4 * MB, 4 * MB], limits) == 1
    assert over_session_bound([30 * MB], limits) == 0  # the newest stays, whatever its size


def test_the_worker_task_gives_what_read_uploads_gives_and_refuses_too_many_entries():
    files = [("tokenizer.json", bpe_json(300)), ("vocab.txt", VOCAB_TXT.encode()), ("x.json", b"{")]
    expected, expected_errors = read_uploads([UploadedFile(name, data) for name, data in files])
    result = read_uploads_task(Quiet(), files, 1_000)
    rebuilt = [chunked.loads(packed) for _, packed in result["tokenizers"]]
    assert [t.key for t in rebuilt] == [t.key for t in expected]
    assert [indexes for indexes, _ in result["tokenizers"]] == [[0], [1]]
    assert result["errors"] == expected_errors
    text = "the mouse"
    assert list(rebuilt[1].column.encode(text)) == list(expected[1].column.encode(text))

    refused = read_uploads_task(Quiet(), files[:1], 400)  # 300 tokens + 274 merges counted exactly
    assert refused["tokenizers"] == []
    assert refused["errors"] == [
        "tokenizer.json: 574 entries (tokens and merges) is over the limit of 400 for an uploaded "
        "tokenizer on this server"
    ]


def test_a_chunked_pickle_keeps_shared_containers_shared():
    table = {str(i): i for i in range(chunked.BIG + 5)}
    items = list(range(chunked.BIG * 3))
    obj = {"a": table, "b": table, "items": items, "small": [1, 2]}
    main, chunks = chunked.dumps(obj)
    back = chunked.loads((main, chunks))
    assert back == obj and back["a"] is back["b"]
    assert len(chunks) == 2 and len(chunks[1]) == 3  # the list in three chunks


def word_level_json(entries: int, long_token: str = "") -> bytes:
    """A WordLevel tokenizer.json (only the library reads it) of `entries` tokens, plus one more."""
    vocab = {f"w{index}": index for index in range(entries)}
    vocab["[UNK]"] = len(vocab)
    if long_token:
        vocab[long_token] = len(vocab)
    model = {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    data = {"version": "1.0", "added_tokens": [], "pre_tokenizer": {"type": "Whitespace"}, "model": model}
    return json.dumps(data).encode()


def test_a_token_of_brackets_does_not_hide_the_entries_of_a_json():
    """Issue 50: one 400,000-character token of "[" took 400,000 off the estimate."""
    data = word_level_json(2_000, long_token="[" * 40_000)
    assert estimated_entries(UploadedFile("tokenizer.json", data)) >= 2_002
    with pytest.raises(ValueError, match="about 2,0\\d\\d entries"):
        check_upload(UploadedFile("tokenizer.json", data), Limits(max_tokenizer_entries=2_000))


def test_a_library_only_upload_is_counted_exactly_whatever_its_model():
    """Issue 50: a WordLevel (or Unigram) tokenizer.json, which only the library reads, counted 0
    entries in the worker, so any number passed the limit."""
    import tokenizers

    unigram = tokenizers.Tokenizer(tokenizers.models.Unigram([(f"p{i}", -1.0 - i) for i in range(300)], 0))
    files = [("tokenizer.json", word_level_json(600)), ("u-tokenizer.json", unigram.to_str().encode())]
    read = read_uploads_task(Quiet(), files, 1_000)
    assert len(read["tokenizers"]) == 2 and not read["errors"]
    (kept,) = [chunked.loads(packed) for _, packed in read["tokenizers"][:1]]
    assert kept.library_json is not None and kept.library_facts.entries == 601
    refused = read_uploads_task(Quiet(), files, 500)
    assert [indexes for indexes, _ in refused["tokenizers"]] == [[1]]  # the Unigram's 300 pass
    assert refused["errors"] == [
        "tokenizer.json: 601 entries (tokens and merges) is over the limit of 500 for an uploaded "
        "tokenizer on this server"
    ]
    assert list(kept.column.encode("w5 w7 zz")) == list(
        replace(kept, library_facts=None, _columns={}).column.encode("w5 w7 zz")
    )  # the facts read in the worker are those the server would read
