"""One text, one count: the characters and tokens of a text on the Compare page are the same
number in the box (`character_count` of the whole text, what the box's script mirrors), the counts
table (explorer.compare.counts), "Figures on this text" (explorer.measures.metrics), the corpus
figures of the same lines (explorer.compare.measure) and the decoder's note
(explorer.compare.decode); and a run's research figures on Compare, with its special tokens off,
are the Vocabulary page's audit of the same run (unreachable, unused, Rényi efficiency)."""

from __future__ import annotations

import pytest

from explorer.compare import measure_corpus, tokenizer_column
from explorer.compare.columns import sentences_from
from explorer.compare.counts import count_rows
from explorer.compare.decode import decoded_note
from explorer.drawing.wording import character_count, plural
from explorer.measures.metrics import compute_metrics
from explorer.pipeline.tokenizer_json import tokenizer_to_json
from explorer.run_config import RunConfig, TrainerConfig
from explorer.samples import MULTILINGUAL, STUDY_IN_SCARLET
from explorer.train import train_corpus
from explorer.work.tasks import audit_task, measure_task
from tests.unit.test_work_tasks import FakeReporter

EOT = "<|endoftext|>"
CORPUS = (STUDY_IN_SCARLET.text + "\n" + MULTILINGUAL.text + "\n" + EOT + " 東京\n") * 2
TEXTS = {
    "emoji and ZWJ": "Family 👨\u200d👩\u200d👧 says 👍🏽 and 🇯🇵.",
    "CRLF": "first line\r\nsecond line\r\n",
    "trailing newline": "The cat sat.\n",
    "CJK": "東京で寿司を食べました。が\u3099",  # a decomposed dakuten: one character, two code points
    "a line of spaces": "a\n   \n\nb",
    "everything": "日本語 👩\u200d💻\r\n\r\n  \ne\u0301 " + EOT + "\n",
}


@pytest.fixture(scope="module")
def run_tokenizer():
    trace = train_corpus(
        CORPUS, RunConfig(TrainerConfig(vocab_size=420, special_tokens=(EOT,)), (), "byte-level")
    )
    return trace.tokenizer_at(None)


@pytest.mark.parametrize("text", list(TEXTS.values()), ids=list(TEXTS))
def test_every_view_counts_the_same_characters_and_tokens(run_tokenizer, text):
    column = tokenizer_column(run_tokenizer, "run 1", special_tokens=False)
    sentences = sentences_from(text)
    encodings = [list(column.encode(sentence)) for sentence in sentences]
    (row,) = count_rows([column.name], [encodings], sentences)
    figures = compute_metrics(column.name, sentences, dict(zip(sentences, encodings)).__getitem__)
    corpus = measure_corpus(column, sentences).metrics
    box = character_count(text)
    assert row.characters == figures.characters == corpus.characters == box
    assert row.tokens == figures.tokens == corpus.tokens
    assert f"{row.characters_per_token:.2f}" == f"{figures.chars_per_token:.2f}"
    assert column.decode is not None
    for sentence, ids in zip(sentences, row.ids):
        note = decoded_note(column.decode(list(ids)))
        assert note.endswith(f" · {plural(character_count(sentence), 'character')}.")


def test_a_runs_research_figures_on_compare_are_its_vocabulary_audit(run_tokenizer):
    """The Compare column with the special-tokens switch off still audits the vocabulary with its
    special token special: |V| (Rényi), unreachable and unused are the Vocabulary page's."""
    column = tokenizer_column(run_tokenizer, "run 1", special_tokens=False)
    assert column.spec is not None
    measured = measure_task(FakeReporter(), CORPUS, column.spec, {"kind": "whole"})
    research = measured["research"]
    vocabulary = {"name": "this run", "tokenizer_json": tokenizer_to_json(run_tokenizer)}
    audited = audit_task(FakeReporter(), CORPUS, vocabulary, {"kind": "whole"})["audit"]
    assert research["ordinary_tokens"] == audited["ordinary_tokens"]
    assert research["unreachable_count"] == audited["unreachable_count"]
    assert research["unused_count"] == audited["unused"]["count"]
    assert research["renyi_efficiency"] == audited["renyi_efficiency"]
    assert research["bytes_per_token"] == audited["bytes_per_token"]
    # ... and the corpus figures still encode with the switch off: EOT's text is plain text
    on = measure_task(FakeReporter(), CORPUS, {**column.spec, "special_tokens": True}, {"kind": "whole"})
    assert measured["metrics"]["tokens"] > on["metrics"]["tokens"]
