"""What the step-by-step view costs next to a plain encode, on a sentence and on one huge word.

    .venv/bin/python bench/bench_encode_steps.py [--smoke]

Prints, for GPT-2 / cl100k_base / o200k_base and for a byte-level BPE trained here (vocabulary
400 on the built-in samples), the best of 5 runs of `pretrained_encode_steps` / `encode_steps`
and of the plain encoder (`encode_pretrained`, i.e. tiktoken; `Tokenizer.encode`) on
  - a 90-character sentence with accents, Korean and an emoji (every step recorded);
  - one 100,000-letter word (over the bounds: final tokens only, from the same merge loop);
and the ratio steps / plain. The tiktoken files are loaded before timing.
--smoke (what CI runs, so that the script cannot rot): GPT-2 only, one run each, a 2,000-letter word.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.lessons.encode_steps import encode_steps, pretrained_encode_steps  # noqa: E402
from explorer.pretrained import encode_pretrained, load_encoding  # noqa: E402
from explorer.run_config import RunConfig, TrainerConfig  # noqa: E402
from explorer.samples import GERMAN, HF_COURSE, MULTILINGUAL  # noqa: E402
from explorer.train import tokenizer_from_trace, train_corpus  # noqa: E402

PRETRAINED = ("gpt2", "cl100k_base", "o200k_base")
SENTENCE = "A mouse called Petar sits on the legendary throne in the ivory tower. 서울 😀 naïve café"


def best_ms(function, *args, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        function(*args)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="every case once, small (what CI runs)")
    args = parser.parse_args()
    names, word_letters, runs = (("gpt2",), 2_000, 1) if args.smoke else (PRETRAINED, 100_000, 5)
    random.seed(1)
    huge_word = "".join(random.choice("abcdefghij") for _ in range(word_letters))
    texts = (("sentence", SENTENCE, runs), (f"{word_letters:,}-letter word", huge_word, 1))
    ours = tokenizer_from_trace(
        train_corpus(
            "\n".join([HF_COURSE.text, GERMAN.text, MULTILINGUAL.text]),
            RunConfig(TrainerConfig(vocab_size=400)),
        )
    )
    rows = []
    for name in names:
        load_encoding(name)
        pretrained_encode_steps(name, "warm up")
        for label, text, runs in texts:
            rows.append(
                (
                    name,
                    label,
                    best_ms(pretrained_encode_steps, name, text, runs=runs),
                    best_ms(encode_pretrained, name, text, runs=runs),
                )
            )
    for label, text, runs in texts:
        rows.append(
            (
                "ours (byte-level BPE, 400)",
                label,
                best_ms(encode_steps, ours, text, runs=runs),
                best_ms(ours.encode, text, runs=runs),
            )
        )
    print(f"{'tokenizer':<28} {'text':<20} {'steps ms':>10} {'plain ms':>10} {'ratio':>7}")
    for name, label, steps, plain in rows:
        print(f"{name:<28} {label:<20} {steps:>10.2f} {plain:>10.2f} {steps / plain:>7.1f}")


if __name__ == "__main__":
    main()
