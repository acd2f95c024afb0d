"""`python -m explorer train INPUT...` streams its inputs and trains what the `tokenizers` library
trains on the same files:

- by default each line keeps its ending: the same tokenizer.json as the library's own
  `Tokenizer.train([file])` (a file with "\\r\\n", blank lines, multi-byte characters and no final
  line break), built here by hand and by the program `--print-code` prints;
- `--reading lines` is today's reading (`train_from_iterator(lines)`), and .gz/.zst files and
  JSONL/Parquet records print programs that give the same bytes as the CLI;
- `train_corpus` given paths trains what the CLI trains.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess

import pytest
import zstandard
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from tests import ROOT
from tests.helpers.cli import cli
from tests.parity.test_reproduce_code import run_program

TEXT = (
    "The cat sat on the mat.\r\n\r\nthe cat  ran, naïve café 日本語 😀\n\n\n"
    "  indented line\tand a tab\r\nThe end of the cat\nlast line without a break"
)


def train_cli(*arguments, cwd=ROOT) -> subprocess.CompletedProcess:
    done = cli("train", *arguments, cwd=cwd)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return done


def test_a_file_trains_as_the_librarys_train_of_it(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(TEXT.encode("utf-8"))
    out = tmp_path / "cli.json"
    done = train_cli(corpus, "--vocab-size", 300, "--out", out, "--json", "--chunk-mb", "0.00001")
    assert json.loads(done.stdout)["reading"] == "lines-with-endings"
    assert "reading lines-with-endings" in done.stderr.decode()

    library = Tokenizer(models.BPE())
    library.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    library.train([str(corpus)], trainer)
    library.decoder = decoders.ByteLevel()
    library.save(str(tmp_path / "library.json"))
    assert out.read_bytes() == (tmp_path / "library.json").read_bytes()


@pytest.mark.parametrize(
    ("files", "options"),
    [
        (("a.txt", "b.txt.gz"), ()),
        (("a.txt", "b.txt.zst"), ("--reading", "lines")),
        (("r.jsonl", "r.jsonl.gz"), ("--text-field", "text")),
        (("r.parquet",), ("--text-column", "text")),
    ],
)
def test_print_code_trains_what_the_cli_trains(tmp_path, files, options):
    import pyarrow as pa
    import pyarrow.parquet as pq

    half = len(TEXT) // 2
    texts = [TEXT[:half], TEXT[half:]]
    records = "\n".join(json.dumps({"text": text}, ensure_ascii=False) for text in texts) + "\n"
    for name, text in zip(files, texts):
        path = tmp_path / name
        data = (records if ".jsonl" in name else text).encode("utf-8")
        if name.endswith(".gz"):
            data = gzip.compress(data)
        elif name.endswith(".zst"):
            data = zstandard.ZstdCompressor().compress(data)
        if name.endswith(".parquet"):
            pq.write_table(pa.table({"id": [1, 2], "text": texts}), path)
        else:
            path.write_bytes(data)
    out = tmp_path / "cli.json"
    done = train_cli(*files, "--vocab-size", 290, "--out", out, "--print-code", *options, cwd=tmp_path)
    program = done.stdout.decode()
    (tmp_path / "run").mkdir()
    for name in files:  # the program names the files as the command line did: relative to its folder
        os.link(tmp_path / name, tmp_path / "run" / name)
    run_program(program, tmp_path / "run")
    assert (tmp_path / "run" / "tokenizer.json").read_bytes() == out.read_bytes()


def test_reading_lines_is_todays_result_and_train_corpus_takes_paths(tmp_path):
    from explorer.pipeline.tokenizer_json import tokenizer_to_json
    from explorer.run_config import RunConfig, TrainerConfig
    from explorer.train import tokenizer_from_trace, train_corpus

    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(TEXT.encode("utf-8"))
    config = RunConfig(TrainerConfig(vocab_size=300))
    today = tokenizer_to_json(tokenizer_from_trace(train_corpus(TEXT, config)))
    assert tokenizer_to_json(tokenizer_from_trace(train_corpus([corpus], config))) == today
    files = RunConfig(TrainerConfig(vocab_size=300), reading="lines-with-endings")
    streamed = train_corpus([corpus], files)
    assert streamed.config.reading == "lines-with-endings"
    assert tokenizer_to_json(tokenizer_from_trace(streamed)) == tokenizer_to_json(
        tokenizer_from_trace(train_corpus(TEXT, files))
    )
    assert tokenizer_to_json(tokenizer_from_trace(streamed)) != today
