"""Reproduce in Python (explorer.reproduce): each generated program runs in a fresh interpreter (cwd a
temporary folder, the repository on PYTHONPATH, no network) and gives what our run gives:

- a library-flavor run's plain `tokenizers` program: our tokenizer.json byte for byte (BPE; with a
  prefix or suffix and WordPiece given the order the library run used for its decorated block, the
  library's hash order; Unigram: the same pieces, scores within 1e-3, everything else equal);
- an API program (any flavor): our tokenizer.json and trace byte for byte (but the trace's seconds);
- the merge-step program: the pair, count and candidates of the trace;
- the Compare program: each column's ids as our encoders give them;
- the notebook: its code cells run in order print the run's first merges;
- `python -m explorer train --print-code`: the printed program, run, writes the --out file's bytes.
"""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from explorer import (
    RunConfig,
    TrainerConfig,
    UnigramConfig,
    tokenizer_from_trace,
    tokenizer_to_json,
    train_corpus,
)
from explorer.corpora.counter import ChunkCounter
from explorer.corpora.counting import Counting
from explorer.reproduce import (
    CompareColumn,
    CorpusSource,
    api_program,
    compare_program,
    has_library_program,
    library_program,
    merge_step_program,
    run_notebook,
)
from explorer.reproduce.notebook import notebook_json
from explorer.samples import SAMPLES
from explorer.training.bpe.trainer import train
from explorer.training.trainers import effective_config

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
PROGRAMS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def run_program(code: str, folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    (folder / "program.py").write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "program.py", *arguments],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def fresh(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("program")


# Small corpora: words over a few letters, special-token look-alikes, quotes that must stay in strings.
corpus_texts = st.lists(
    st.lists(
        st.text(st.sampled_from(list("abcdéE '\"#")), min_size=1, max_size=7), min_size=1, max_size=5
    ).map(" ".join),
    min_size=1,
    max_size=6,
).map("\n".join)
normalizer_choices = st.sampled_from([(), (), ("lowercase",), ("nfd", "strip-accents"), ("nfkc",), ("bert",)])
bpe_pre_tokenizers = st.sampled_from(
    [
        "byte-level",
        "byte-level-cl100k",
        "byte-level-o200k",
        "byte-level-llama3",
        "whitespace",
        "whitespace-split",
        "bert",
        "metaspace",
    ]
)
special_token_lists = st.lists(
    st.sampled_from(["[UNK]", "[CLS]", "[SEP]", "<|endoftext|>", "a'\"b", "<s>"]), max_size=3, unique=True
).map(tuple)


@st.composite
def library_runs(draw):
    algorithm = draw(st.sampled_from(["bpe", "bpe", "wordpiece"]))
    pre_tokenizer = draw(bpe_pre_tokenizers)
    decorated = (
        draw(st.sampled_from([None, None, ("##", None), (None, "</w>")])) if algorithm == "bpe" else None
    )
    trainer = TrainerConfig(
        algorithm,
        vocab_size=draw(st.integers(1, 80)),
        min_frequency=draw(st.sampled_from([0, 0, 2])),
        special_tokens=draw(special_token_lists),
        continuing_subword_prefix=decorated[0] if decorated else None,
        end_of_word_suffix=decorated[1] if decorated else None,
    )
    return RunConfig(trainer, draw(normalizer_choices), pre_tokenizer)


def decorated_block(library_vocab: list[str], word_counts: dict[str, int], config: RunConfig) -> list[str]:
    """The order in which the library run added its decorated characters (its hash-map order)."""
    trainer = effective_config(config).trainer
    prefix, suffix = trainer.prefix, trainer.suffix
    specials = list(dict.fromkeys(trainer.special_tokens))
    characters = {c for word in word_counts for c in word} | set(trainer.initial_alphabet)
    initial = specials + sorted(characters - set(specials))
    decorated = set()
    for word in word_counts:
        for i, c in enumerate(word):
            decorated.add(
                (prefix + c if i and prefix else c) + (suffix if suffix and i == len(word) - 1 else "")
            )
    return library_vocab[len(initial) : len(initial) + len(decorated - set(initial))]


def our_tokenizer_json(text: str, config: RunConfig, library_json: str) -> str:
    """Our run's tokenizer.json; with a prefix or suffix, trained given the library run's block order."""
    if config.is_unigram or (config.trainer.prefix is None and config.trainer.suffix is None):
        return tokenizer_to_json(tokenizer_from_trace(train_corpus(text, config)), pretty=True)
    counter = ChunkCounter(Counting.of(config))  # the words of the run's reading
    counter.add_text(text)
    word_counts = counter.result().words
    vocab = json.loads(library_json)["model"]["vocab"]
    effective = effective_config(config)
    trace = train(
        word_counts,
        effective.trainer,
        decorated_order=decorated_block(sorted(vocab, key=vocab.get), word_counts, config),
    )
    trace.config = effective
    return tokenizer_to_json(tokenizer_from_trace(trace), pretty=True)


@PROGRAMS
@given(text=corpus_texts, config=library_runs())
def test_library_program_writes_our_tokenizer_json(tmp_path_factory, text, config):
    folder = fresh(tmp_path_factory)
    (folder / "corpus.txt").write_bytes(text.encode("utf-8"))
    run_program(library_program(config, CorpusSource.from_pasted(text)), folder)
    library_json = (folder / "tokenizer.json").read_text(encoding="utf-8")
    assert our_tokenizer_json(text, config, library_json) == library_json


# Line endings that matter when kept: "\r\n", blank lines, a last line with or without its break.
texts_with_endings = (
    st.lists(
        st.tuples(
            st.text(st.sampled_from(list("abcé '")), max_size=7), st.sampled_from(["\n", "\r\n", "\n\n"])
        ),
        min_size=1,
        max_size=6,
    ).map(lambda lines: "".join(line + end for line, end in lines))
    | corpus_texts
)


@PROGRAMS
@given(text=texts_with_endings, config=library_runs())
def test_library_program_reads_lines_with_their_endings_as_the_run(tmp_path_factory, text, config):
    config = dataclasses.replace(config, reading="lines-with-endings")
    folder = fresh(tmp_path_factory)
    (folder / "corpus.txt").write_bytes(text.encode("utf-8"))
    run_program(library_program(config, CorpusSource.from_pasted(text, reading=config.reading)), folder)
    library_json = (folder / "tokenizer.json").read_text(encoding="utf-8")
    assert our_tokenizer_json(text, config, library_json) == library_json


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    text=corpus_texts,
    vocab_size=st.integers(8, 40),
    specials=special_token_lists,
    unk=st.sampled_from(["<unk>", None]),
    normalizers=normalizer_choices,
    pre_tokenizer=st.sampled_from(["metaspace", "metaspace", "whitespace", "byte-level"]),
)
def test_library_unigram_program_gives_our_pieces(
    tmp_path_factory, text, vocab_size, specials, unk, normalizers, pre_tokenizer
):
    config = RunConfig(
        UnigramConfig(vocab_size=vocab_size, special_tokens=specials, unk_token=unk),
        normalizers,
        pre_tokenizer,
    )
    folder = fresh(tmp_path_factory)
    (folder / "corpus.txt").write_bytes(text.encode("utf-8"))
    try:
        trace = train_corpus(text, config)
    except ValueError:
        return  # a corpus our trainer refuses (e.g. no words)
    # A run stuck below the corpus's required pieces has no library program: the library's trainer
    # never finishes there (explorer.reproduce.trained_config.has_library_program).
    assume(has_library_program(trace))
    ours = json.loads(tokenizer_to_json(tokenizer_from_trace(trace)))
    run_program(library_program(config, CorpusSource.from_pasted(text)), folder)
    library = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    ours_vocab, library_vocab = ours["model"].pop("vocab"), library["model"].pop("vocab")
    assert ours == library
    assert {piece for piece, _ in ours_vocab} == {piece for piece, _ in library_vocab}
    # Scores within 1e-3 but for the characters the library puts back at min + 0.0001 k (hash order).
    library_scores = dict(library_vocab)
    close = [abs(score - library_scores[piece]) <= 1e-3 for piece, score in ours_vocab]
    assert sum(not ok for ok in close) <= len({c for line in text.split() for c in line})


course_runs = st.builds(
    lambda algorithm, vocab_size, specials, normalizers, pre_tokenizer: RunConfig(
        UnigramConfig("course", vocab_size, special_tokens=specials)
        if algorithm == "unigram"
        else TrainerConfig(algorithm, "course", vocab_size, special_tokens=specials),
        normalizers,
        pre_tokenizer,
    ),
    st.sampled_from(["bpe", "wordpiece", "unigram"]),
    st.integers(5, 60),
    special_token_lists,
    normalizer_choices,
    bpe_pre_tokenizers,
)


@PROGRAMS
@given(
    config=st.one_of(course_runs, library_runs()), sample=st.sampled_from(["hf-course", "german", "scarlet"])
)
def test_api_program_writes_our_tokenizer_and_trace(tmp_path_factory, config, sample):
    folder = fresh(tmp_path_factory)
    trace = train_corpus(SAMPLES[sample].text, config)
    run_program(api_program(config, CorpusSource.from_sample(sample)), folder)
    assert (folder / "tokenizer.json").read_text(encoding="utf-8") == tokenizer_to_json(
        tokenizer_from_trace(trace), pretty=True
    )
    written = json.loads((folder / "trace.json").read_text(encoding="utf-8"))
    expected = json.loads(trace.to_json())
    written.pop("seconds"), expected.pop("seconds")
    assert written == expected


def test_a_corpus_that_is_not_the_runs_is_refused(tmp_path):
    config = RunConfig(TrainerConfig(vocab_size=50))
    (tmp_path / "corpus.txt").write_text("another text", encoding="utf-8")
    (tmp_path / "program.py").write_text(
        library_program(config, CorpusSource.from_pasted("the run's text")), encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "program.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 1
    assert "This is not the run's corpus: its SHA-256 is" in done.stderr
    assert not (tmp_path / "tokenizer.json").exists()


def test_merge_step_program_prints_the_traces_merge(tmp_path):
    config = RunConfig(TrainerConfig("wordpiece", "course", 70, special_tokens=("[UNK]",)), (), "bert")
    trace = train_corpus(SAMPLES["hf-course"].text, config)
    (tmp_path / "my 'trace'.json").write_text(trace.to_json(), encoding="utf-8")
    printed = run_program(merge_step_program(3, "my 'trace'.json"), tmp_path).stdout.splitlines()
    left, right, new = trace.merges[2]
    vocab = trace.vocab
    assert printed[0].startswith(
        f"merge 3: {vocab[left]!r} + {vocab[right]!r} -> {vocab[new]!r}, count {trace.merge_counts[2]}"
    )
    assert len(printed) == 1 + len(trace.candidates[2])
    for line, (a, b, count, _score) in zip(printed[1:], trace.candidates[2]):
        assert f"{vocab[a]!r} + {vocab[b]!r}: count {count:,}" in line
    saved = (tmp_path / "tokenizer.json").read_text(encoding="utf-8")
    assert saved == tokenizer_to_json(tokenizer_from_trace(trace), pretty=True)


def tiny_sentencepiece_model() -> bytes:
    """A Unigram .model with byte fallback and a control piece of its own ("<|im_start|>")."""
    import io

    import sentencepiece

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(SAMPLES["scarlet"].text.splitlines()[:400]),
        model_writer=model,
        vocab_size=300,
        byte_fallback=True,
        character_coverage=1.0,
        hard_vocab_limit=False,
        control_symbols=["<|im_start|>"],
        minloglevel=2,
    )
    return model.getvalue()


@pytest.mark.parametrize("special_tokens", [False, True], ids=["switch-off", "switch-on"])
def test_compare_program_prints_the_pages_ids(tmp_path, special_tokens):
    """Every kind of column, the switch either way: the program's ids are the page's "Copy ids"
    (explorer.compare.counts) of the page's own columns, built as the page builds them."""
    import tokenizers

    from explorer.compare.columns import pretrained_column, sentences_from, tokenizer_column
    from explorer.compare.counts import count_rows
    from explorer.compare.readers import UploadedFile
    from explorer.compare.uploads import read_uploads
    from explorer.pretrained import BUNDLED

    # Two sentences (the page encodes each non-empty line apart), a blank line between them.
    text = (
        "<|begin_of_text|>Hi <|endoftext|> [INST] <s>x</s> <|im_start|> <unk> <|run|>\n\n  \n"
        "<\uff5cbegin\u2581of\u2581sentence\uff5c><think> 東京 😀 l'e\u0301té"
    )
    names = [name for name in BUNDLED if name != "mistral-tekken"]
    config = RunConfig(TrainerConfig(vocab_size=300, special_tokens=("<|endoftext|>", "<|run|>")))
    trace = train_corpus(SAMPLES["scarlet"].text, config)
    ours = tokenizer_from_trace(trace)
    exported = tokenizer_to_json(ours)
    library = tokenizers.Tokenizer.from_str(exported)
    library.add_tokens(["<s>"])  # an added token that is not special: our reader leaves it to the library
    files = {
        "run's tokenizer.json": exported.encode("utf-8"),
        "library's tokenizer.json": library.to_str().encode("utf-8"),
        "tiny.model": tiny_sentencepiece_model(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    uploads, errors = read_uploads([UploadedFile(name, data) for name, data in files.items()])
    assert not errors and [upload.name for upload in uploads] == [f"{name} (uploaded)" for name in files]
    assert uploads[0].tokenizer is not None and uploads[1].library_json is not None
    page_columns = [pretrained_column(name, special_tokens) for name in names]
    page_columns += [upload.column_for(special_tokens) for upload in uploads]
    page_columns.append(tokenizer_column(ours, "my run", special_tokens=special_tokens))
    columns = [CompareColumn("pretrained", name) for name in names]
    columns += [CompareColumn("tokenizer.json", name) for name in list(files)[:2]]
    columns += [
        CompareColumn("sentencepiece", "tiny.model"),
        CompareColumn("run", "my run", config, CorpusSource.from_sample("scarlet")),
    ]
    printed = run_program(compare_program(text, columns, special_tokens), tmp_path).stdout.splitlines()
    sentences = sentences_from(text)
    assert len(sentences) == 3  # a line of spaces is a sentence, as the box counts it
    page = count_rows(
        [column.name for column in page_columns],
        [[column.encode(sentence) for sentence in sentences] for column in page_columns],
        sentences,
    )
    program_ids = [json.loads(line[line.index("[") :]) for line in printed]
    assert program_ids == [json.loads(row.ids_json) for row in page]
    # The text holds special tokens of every column: the switch's other position gives other ids.
    others = [pretrained_column(name, not special_tokens) for name in names]
    others += [upload.column_for(not special_tokens) for upload in uploads]
    others.append(tokenizer_column(ours, "my run", special_tokens=not special_tokens))
    for column, other, ids in zip(page_columns, others, program_ids):
        assert [[piece.id for piece in other.encode(sentence)] for sentence in sentences] != ids, column.name


def execute_notebook(notebook: dict, folder: Path, monkeypatch) -> str:
    """What the notebook prints, executed by nbclient with a Python kernel in `folder` (offline: the
    kernel is this interpreter's, the explorer package on its path), as a reader runs it top to
    bottom; nbformat checks it is a valid version 4 notebook first."""
    read = nbformat.reads(notebook_json(notebook), as_version=4)
    nbformat.validate(read)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the kernel process inherits it
    nbclient.NotebookClient(read, timeout=300, resources={"metadata": {"path": str(folder)}}).execute()
    return "".join(
        output.get("text", "") for cell in read.cells if cell.cell_type == "code" for output in cell.outputs
    )


@pytest.mark.parametrize(
    "run",
    [
        RunConfig(TrainerConfig(vocab_size=60, flavor="course")),
        RunConfig(
            TrainerConfig("wordpiece", "library", 80, special_tokens=("[UNK]", "[CLS]", "[SEP]")),
            ("bert",),
            "bert",
        ),
        RunConfig(UnigramConfig("course", 100), (), "metaspace"),
    ],
    ids=["bpe-course", "wordpiece-library", "unigram-course"],
)
def test_notebook_cells_run_in_order_and_print_the_first_merges(tmp_path, run, monkeypatch):
    notebook = run_notebook(run, CorpusSource.from_sample("hf-course"))
    assert notebook["nbformat"] == 4 and notebook["cells"][0]["cell_type"] == "markdown"
    printed = execute_notebook(notebook, tmp_path, monkeypatch)
    trace = train_corpus(SAMPLES["hf-course"].text, run)
    if run.is_unigram:
        assert f"1 prune {trace.rounds[0].size_before} -> {trace.rounds[0].size_after}" in printed
    else:
        for number, (left, right) in enumerate(trace.merge_strings()[:3], 1):
            assert f"{number} {left!r} + {right!r} {trace.merge_counts[number - 1]}" in printed
    assert (tmp_path / "tokenizer.json").read_text(encoding="utf-8") == tokenizer_to_json(
        tokenizer_from_trace(trace), pretty=True
    )


@pytest.mark.parametrize("flavor", ["library", "course"])
def test_cli_print_code_prints_the_program_of_the_run(tmp_path, flavor):
    corpus = tmp_path / "my corpus.txt"
    corpus.write_text(SAMPLES["scarlet"].text, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "train",
            str(corpus),
            "--vocab-size",
            "300",
            "--flavor",
            flavor,
            "--special-tokens",
            "[UNK],[CLS],[SEP]",
            "--pre-tokenizer",
            "whitespace",
            "--out",
            str(tmp_path / "cli.json"),
            "--print-code",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert repr(str(corpus)).strip("'") in done.stdout
    folder = tmp_path / "run"
    folder.mkdir()
    run_program(done.stdout, folder)
    assert (folder / "tokenizer.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
