"""Every difference between our WordPiece library flavor and `WordPieceTrainer` is the library's own
tie order, which changes from run to run.

The library adds the `##`-decorated characters to its vocabulary in hash-map order (a new order on
every call), and breaks ties between equally frequent pairs by id, so which of two tied pairs it
merges first changes from run to run; we add that block in code-point order. For each corpus and
each of a few library runs this test shows:
1. given that run's order of the decorated block, ours learns exactly that run's vocabulary, in
   order (so nothing but the block's order separates us: no other difference exists);
2. the block's order only decides ties: where our run (code-point order) and the run replayed
   with the library's order first merge differently, both merges have the same count, and
   every token in the symmetric difference of the two vocabularies is learned at or after it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from explorer.run_config import TrainerConfig
from explorer.training.word_counts import count_words, split_lines
from tests.helpers.engines import train

ROOT = Path(__file__).resolve().parents[2]
LICENCES = Path("/usr/share/common-licenses")
LIBRARY_RUNS = 3


def _shakespeare(characters: int) -> str:
    return (ROOT / "explorer" / "data" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:characters]


def _licences() -> str:
    names = ("Apache-2.0", "GPL-3", "LGPL-3", "MPL-2.0", "Artistic", "GFDL-1.3")
    texts = [(LICENCES / name).read_text(encoding="utf-8") for name in names if (LICENCES / name).is_file()]
    if not texts:
        pytest.skip(f"no licence texts in {LICENCES}")
    return "\n".join(texts)


def _few_letters() -> str:
    """Short words over four letters: equal pair counts everywhere, so ties decide most merges."""
    rng = random.Random(20)
    return "\n".join(
        " ".join("".join(rng.choice("abcd") for _ in range(rng.randint(2, 7))) for _ in range(12))
        for _ in range(400)
    )


CORPORA = {
    "shakespeare 100 KB, vocab 2,000": (lambda: _shakespeare(100_000), 2000),
    "shakespeare 400 KB, vocab 4,000": (lambda: _shakespeare(400_000), 4000),
    "licence texts, vocab 3,000": (_licences, 3000),
    "four letters, vocab 300": (_few_letters, 300),
}


def _library_vocab(text: str, vocab_size: int) -> list[str]:
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=["[UNK]"], show_progress=False)
    tokenizer.train_from_iterator(split_lines(text), trainer)
    vocab = json.loads(tokenizer.to_str())["model"]["vocab"]
    return sorted(vocab, key=vocab.get)


def _decorated_block(library_vocab: list[str], word_counts: dict) -> list[str]:
    """The order in which this library run added the `##` characters."""
    initial = ["[UNK]"] + sorted({c for word in word_counts for c in word} - {"[UNK]"})
    decorated = {"##" + c for word in word_counts for c in word[1:]}
    return library_vocab[len(initial) : len(initial) + len(decorated - set(initial))]


def _first_difference(one, other) -> int | None:
    steps = min(one.steps, other.steps)
    for step in range(steps):
        if one.vocab[one.merges[step][2]] != other.vocab[other.merges[step][2]]:
            return step
    return None if one.steps == other.steps else steps


@pytest.mark.parametrize("name", list(CORPORA))
def test_every_difference_from_the_library_is_its_own_tie_order(name):
    make_text, vocab_size = CORPORA[name]
    text = make_text()
    word_counts = count_words(text, (), "bert")
    config = TrainerConfig(algorithm="wordpiece", vocab_size=vocab_size, special_tokens=("[UNK]",))
    ours = train(word_counts, config)
    for _ in range(LIBRARY_RUNS):
        library = _library_vocab(text, vocab_size)
        replayed = train(word_counts, config, decorated_order=_decorated_block(library, word_counts))
        # 1. Nothing but the decorated block's order separates us from this run.
        assert replayed.vocab == library
        # 2. And that order only decides ties.
        differing = set(ours.vocab) ^ set(library)
        step = _first_difference(ours, replayed)
        if step is None:
            assert not differing
            continue
        assert step < min(ours.steps, replayed.steps), "one run stopped before the other"
        assert ours.merge_counts[step] == replayed.merge_counts[step]
        learned_before = {ours.vocab[merge[2]] for merge in ours.merges[:step]}
        assert not differing & learned_before
