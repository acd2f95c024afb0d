"""Compare's research figures through AppTest: below the corpus figures, one row per measured
column (the current run and the GPT columns) with figures recomputed here from tiktoken's encoding
of the same lines, and their definitions, naming the papers, one click away; an upload the audit
cannot read keeps its row, empty, with the reason escaped."""

from __future__ import annotations

import html
import math
from collections import Counter

from tokenizers import Tokenizer as LibraryTokenizer
from tokenizers import models, pre_tokenizers

from explorer.pretrained import load_encoding
from explorer.training.word_counts import split_lines
from explorer.ui.common.state import MEASURE_JOBS, TRAINED_CORPUS
from explorer.ui.common.state import Widget as W
from tests.app.helpers import (
    collect,
    compare_settled,
    html_bodies,
    new_app,
    open_compare,
    session_value,
    train,
)


def test_compare_shows_the_research_figures_of_every_measured_column_and_their_definitions():
    at = train(new_app())
    open_compare(at)
    assert not at.exception, at.exception
    collect(at, MEASURE_JOBS)  # measured in workers, however loaded the machine
    corpus_table, research = (frame.value for frame in at.dataframe)
    assert list(research.index) == list(corpus_table.index) and len(research) == 4
    assert list(research.columns[:5]) == [
        "Rényi eff. (α 2.5)",
        "bytes / token",
        "unreachable",
        "of which not UTF-8",
        "unused",
    ]
    assert "tokens/char Latin" in research.columns
    assert list(research.columns).index("tokens/char Latin") < list(research.columns).index(
        "tokens/char Common"
    )
    assert research.notna().all().all()  # every column measured, our run's included

    lines = split_lines(session_value(at, TRAINED_CORPUS)[1])  # a small corpus: measured whole
    encoding = load_encoding("gpt2")
    counts = Counter(i for line in lines for i in encoding.encode_ordinary(line))
    total = sum(counts.values())
    entropy = math.log(sum((count / total) ** 2.5 for count in counts.values())) / (1 - 2.5)
    gpt2 = research.loc["GPT-2"]
    assert abs(gpt2["Rényi eff. (α 2.5)"] - entropy / math.log(50256)) < 1e-9
    assert abs(gpt2["bytes / token"] - sum(len(line.encode()) for line in lines) / total) < 1e-9
    assert (gpt2["unreachable"], gpt2["of which not UTF-8"], gpt2["unused"]) == (
        344,
        344,
        50256 - len(counts),
    )

    (definitions,) = [expander for expander in at.expander if expander.label == "What these figures mean"]
    text = " ".join(str(element.value) for element in definitions.markdown)
    for named in (
        "Zouhar et al. 2023",
        "Tokenization and the noiseless channel",
        "Fishing for Magikarp",
        "cohere-ai/magikarp",
        "LiteToken",
        "2602.04706",
        "TokEval",
    ):
        assert named in text, named


def test_an_upload_only_the_library_reads_has_a_row_without_figures_and_says_why():
    wordlevel = LibraryTokenizer(models.WordLevel({"[UNK]": 0, "the": 1, "a": 2}, unk_token="[UNK]"))
    wordlevel.pre_tokenizer = pre_tokenizers.Whitespace()
    at = train(new_app())
    open_compare(at)
    at.file_uploader(key=W.TOKENIZER_UPLOAD).upload(
        "<i>word</i>level.json", wordlevel.to_str().encode(), "application/json"
    ).run()
    assert not at.exception, at.exception
    compare_settled(at)  # the upload's figures, measured in a worker
    _, research = (frame.value for frame in at.dataframe)
    name = "<i>word</i>level.json (uploaded)"
    assert name in research.index and research.loc[name].isna().all()
    assert research.drop(index=name).notna().all().all()
    notes = " ".join(html_bodies(at))
    assert "<i>word" not in notes  # escaped
    assert f"{name}: no research figures, an upload only the tokenizers library reads" in html.unescape(notes)
