"""Compare's research figures through AppTest: below the corpus figures, one row per measured
column (the current run and the GPT columns) with figures recomputed here from tiktoken's encoding
of the same lines, and their definitions, naming the papers, one click away."""

from __future__ import annotations

import math
from collections import Counter

from explorer.pretrained import load_encoding
from explorer.training.word_counts import split_lines
from explorer.ui.common.state import TRAINED_CORPUS
from tests.app.helpers import COMPARE, new_app, session_value, train


def test_compare_shows_the_research_figures_of_every_measured_column_and_their_definitions():
    at = train(new_app())
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
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
