"""How much a corpus measurement on the Compare page costs beyond the encoder library it runs on.

    .venv/bin/python bench/bench_encoders.py [--megabytes 1] [--repeat 5] [--smoke]

For 1 MB of text (../shared/data/tinyshakespeare.txt when present, else the bundled copy in
explorer/data; 20 KB with --smoke), split into lines as a measurement splits a corpus, and for
each kind of column:

- tiktoken (GPT-2, o200k_base): tiktoken alone (ids only; the faster of its
  `encode_ordinary_batch` and `encode_ordinary` text by text on one thread), against
  `measure_corpus` of the pretrained column (every figure of explorer.measures.metrics);
- a tokenizer.json (the bundled DeepSeek V4 file) through the `tokenizers` library:
  `Tokenizer.encode_batch` alone, against `measure_corpus` of its pretrained column;
- one of our runs (byte-level BPE trained here on the first 100 KB; 10 KB with --smoke): the
  library on its exported tokenizer.json alone, against `measure_corpus` of its column (which
  goes through the library); and our own pure-Python encoder (`encode_pieces`, what a column
  whose tokenizer may drop characters measures with) on a tenth of the text, per MB.

Both sides encode the same texts: each `MEASURE_BATCH` lines' distinct lines, as
`measure_corpus` does. Printed: seconds for the library, for our path, their ratio (target: at
most 1.5x for tiktoken and library columns). Best of `--repeat` (default 5), the two sides run
in turn; loads happen before timing. Figures only; it asserts nothing. Compare ratios, not
seconds, on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.compare import measure_corpus, pretrained_column, tokenizer_column  # noqa: E402
from explorer.compare.encoders import load_tables  # noqa: E402
from explorer.compare.measure import MEASURE_BATCH  # noqa: E402
from explorer.measures.metrics import compute_metrics  # noqa: E402
from explorer.pipeline.tokenizer_json import tokenizer_to_json  # noqa: E402
from explorer.pretrained import info_for, load_encoding, read_verified  # noqa: E402
from explorer.run_config import RunConfig, TrainerConfig  # noqa: E402
from explorer.train import encode_pieces, tokenizer_from_trace, train_corpus  # noqa: E402
from explorer.training.word_counts import split_lines  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"
BUNDLED_TEXT = ROOT / "explorer" / "data" / "tinyshakespeare.txt"


def corpus(characters: int) -> str:
    path = SHARED if SHARED.exists() else BUNDLED_TEXT
    text = path.read_text(encoding="utf-8")
    while len(text) < characters:
        text += "\n" + text
    return text[:characters]


def batches(lines: list[str]) -> list[list[str]]:
    """Each `MEASURE_BATCH` lines' distinct lines: what `measure_corpus` hands its encoder."""
    return [
        list(dict.fromkeys(lines[first : first + MEASURE_BATCH]))
        for first in range(0, len(lines), MEASURE_BATCH)
    ]


def best(repeat: int, *works) -> list[float]:
    """The best time of each of `works`, run in turn `repeat` times (interleaved, so that a busy
    spell of the machine slows each alike)."""
    times: list[list[float]] = [[] for _ in works]
    for _ in range(repeat):
        for work, spent in zip(works, times):
            started = time.perf_counter()
            work()
            spent.append(time.perf_counter() - started)
    return [min(spent) for spent in times]


def row(label: str, library: float, ours: float, per_mb: float) -> None:
    print(
        f"   {label:<44} {library * per_mb:>8.3f} s {ours * per_mb:>8.3f} s {ours / library:>7.2f}x",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="20 KB, once (what CI runs)")
    args = parser.parse_args()
    characters = 20_000 if args.smoke else int(args.megabytes * 1_000_000)
    repeat = 1 if args.smoke else args.repeat
    text = corpus(characters)
    lines = split_lines(text)
    groups = batches(lines)
    per_mb = 1_000_000 / len(text.encode("utf-8"))
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{len(text):,} characters, {len(lines):,} lines; seconds per MB, best of {repeat}")
    print(f"   {'column':<44} {'library':>10} {'measuring':>10} {'ratio':>8}")

    for name in ("gpt2", "o200k_base"):
        load_tables(name)
        encoding = load_encoding(name)
        column = pretrained_column(name)
        measure_corpus(column, lines[:100])
        batch_api, one_by_one, ours = best(
            repeat,
            lambda encoding=encoding: [encoding.encode_ordinary_batch(group) for group in groups],
            lambda encoding=encoding: [list(map(encoding.encode_ordinary, group)) for group in groups],
            lambda column=column: measure_corpus(column, lines),
        )
        row(f"tiktoken {name}", min(batch_api, one_by_one), ours, per_mb)
        print(
            f"   {'':<4}(tiktoken's encode_ordinary_batch: {batch_api * per_mb:.3f} s, text by text: "
            f"{one_by_one * per_mb:.3f} s)"
        )

    import tokenizers

    info = info_for("deepseek-v4")
    (content,) = [read_verified(info.module, data_file) for data_file in info.files]
    deepseek = tokenizers.Tokenizer.from_str(content.decode("utf-8"))
    column = pretrained_column("deepseek-v4")
    measure_corpus(column, lines[:100])
    library, ours = best(
        repeat,
        lambda: [deepseek.encode_batch(group, add_special_tokens=False) for group in groups],
        lambda: measure_corpus(column, lines),
    )
    row("tokenizer.json (DeepSeek V4) via tokenizers", library, ours, per_mb)

    training_text = text[: 10_000 if args.smoke else 100_000]
    started = time.perf_counter()
    trace = train_corpus(training_text, RunConfig(TrainerConfig(vocab_size=1000), (), "byte-level"))
    tok = tokenizer_from_trace(trace)
    trained = time.perf_counter() - started
    run_column = tokenizer_column(tok, "run")
    run_library = tokenizers.Tokenizer.from_str(tokenizer_to_json(tok))
    measure_corpus(run_column, lines[:100])
    library, ours = best(
        repeat,
        lambda: [run_library.encode_batch(group, add_special_tokens=False) for group in groups],
        lambda: measure_corpus(run_column, lines),
    )
    row(f"our run (BPE, 1000, trained in {trained:.1f} s)", library, ours, per_mb)

    tenth = lines[: max(1, len(lines) // 10)]
    tenth_groups = batches(tenth)
    tenth_per_mb = 1_000_000 / sum(len(line.encode("utf-8")) for line in tenth)
    library, ours = best(
        1,
        lambda: [run_library.encode_batch(group, add_special_tokens=False) for group in tenth_groups],
        lambda: compute_metrics("run", tenth, lambda line: encode_pieces(tok, line)),
    )
    row("our run, our pure-Python encoder", library, ours, tenth_per_mb)


if __name__ == "__main__":
    main()
