"""Training speed and memory against the `tokenizers` library, measured in the same run.

    .venv/bin/python bench/bench_train.py [--repeat 3] [--smoke]

Every figure is a whole process (interpreter start, imports, reading the corpus, training, writing
tokenizer.json and, for ours, the full trace JSON), best of --repeat runs, peak RSS from wait4.
Ours and the library's runs alternate, so that the machine's speed, which drifts, drifts for both.
Cases, on ../shared/data/tinyshakespeare.txt (skipped with a message when absent):
  1. BPE, library flavor, byte-level, vocab 5,000: ours vs BpeTrainer (same vocab, same merges).
  2. WordPiece, course flavor (likelihood), bert pre-tokenizer, vocab 5,000 vs WordPieceTrainer.
  3. The course's own loop (recount every pair every merge): first 200 merges timed, the rest
     extrapolated linearly (each of its steps rescans the whole corpus), reported as such.
  4. One pre-token of 1,000,000 characters ("ab" repeated with a few "c"s so that merges keep
     coming), vocab 300: ours only (the library needs 46 s for 200,000 characters).
--smoke (what CI runs, so that the script cannot rot): every case once, on the first 20,000
characters of the bundled Shakespeare sample (explorer/data), vocab 400, 20 course-loop merges,
a 10,000-character pre-token.
This is a benchmark, not a test: it prints figures and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"
SMOKE_CHARACTERS = 20_000
PYTHON = sys.executable

LIBRARY_SCRIPT = """
import sys, time
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
kind, corpus, out, vocab_size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if kind == "bpe":
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
else:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, show_progress=False, special_tokens=["[UNK]"])
tok.train([corpus], trainer)  # as practitioners call it; our CLI reads a file the same way
tok.save(out)
"""

COURSE_LOOP_SCRIPT = """
import sys, time
from collections import defaultdict
sys.path.insert(0, sys.argv[2])
from explorer.training.word_counts import count_words
text = open(sys.argv[1], encoding="utf-8").read()
word_freqs = count_words(text, (), "bert")
splits = {w: [c if i == 0 else "##" + c for i, c in enumerate(w)] for w in word_freqs}
started = time.perf_counter()
for step in range(int(sys.argv[3])):  # the course's compute_pair_scores + merge_pair, verbatim in substance
    letter_freqs, pair_freqs = defaultdict(int), defaultdict(int)
    for word, freq in word_freqs.items():
        split = splits[word]
        if len(split) == 1:
            letter_freqs[split[0]] += freq
            continue
        for i in range(len(split) - 1):
            letter_freqs[split[i]] += freq
            pair_freqs[(split[i], split[i + 1])] += freq
        letter_freqs[split[-1]] += freq
    scores = {p: f / (letter_freqs[p[0]] * letter_freqs[p[1]]) for p, f in pair_freqs.items()}
    best, top = None, None
    for pair, score in scores.items():
        if top is None or top < score:
            best, top = pair, score
    a, b = best
    for word in word_freqs:
        split = splits[word]
        i = 0
        while i < len(split) - 1:
            if split[i] == a and split[i + 1] == b:
                split = split[:i] + [a + b[2:] if b.startswith("##") else a + b] + split[i + 2 :]
            else:
                i += 1
        splits[word] = split
print(time.perf_counter() - started)
"""


@dataclass(frozen=True)
class Measured:
    """One whole process: wall seconds, peak RSS in MB, stdout, the last line of stderr, its wait
    status (os.wait4's) and whether it was killed for running past its time limit."""

    seconds: float
    peak_mb: float
    output: str
    last_error: str
    status: int
    timed_out: bool


def measure(command: list[str], timeout: float | None = None) -> Measured:
    """Run `command` to its end, or until `timeout` seconds have passed: then its whole process
    group is killed (SIGKILL). Its figures whether it succeeded or not."""
    expired = threading.Event()

    def kill_group() -> None:
        expired.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=errors, cwd=ROOT, start_new_session=timeout is not None
        )
        timer = threading.Timer(timeout, kill_group) if timeout is not None else None
        if timer is not None:
            timer.start()
        output = process.stdout.read().decode()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        if timer is not None:
            timer.cancel()
        errors.seek(0)
        lines = errors.read().decode(errors="replace").strip().splitlines()
    return Measured(
        seconds, usage.ru_maxrss / 1024, output, lines[-1] if lines else "", status, expired.is_set()
    )


def run(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and stdout of one whole process, which must succeed."""
    measured = measure(command)
    if measured.status != 0:
        raise SystemExit(f"command failed: {' '.join(command)}")
    return measured.seconds, measured.peak_mb, measured.output


def best_of(repeat: int, command: list[str]) -> tuple[float, float]:
    results = [run(command)[:2] for _ in range(repeat)]
    return min(r[0] for r in results), max(r[1] for r in results)


def paired_best_of(repeat: int, ours_command: list[str], library_command: list[str]):
    """Best of `repeat` for both, run alternately (ours, library, ours, ...): this machine's speed
    drifts over a minute, and alternating keeps the drift out of the ratio."""
    ours_results, library_results = [], []
    for _ in range(repeat):
        ours_results.append(run(ours_command)[:2])
        library_results.append(run(library_command)[:2])
    best = lambda results: (min(r[0] for r in results), max(r[1] for r in results))  # noqa: E731
    return best(ours_results), best(library_results)


def smoke_corpus(folder: Path) -> Path:
    """The first SMOKE_CHARACTERS of the bundled Shakespeare sample, as a file in `folder`."""
    sys.path.insert(0, str(ROOT))
    from explorer.samples import SHAKESPEARE

    path = folder / "smoke.txt"
    path.write_text(SHAKESPEARE.text[:SMOKE_CHARACTERS], encoding="utf-8")
    return path


def ours(corpus: Path | list[Path], out: Path, *options: str) -> list[str]:
    """Our CLI's `train` on `corpus` (a file, or several)."""
    return [
        PYTHON,
        "-m",
        "explorer",
        "train",
        *map(str, corpus if isinstance(corpus, list) else [corpus]),
        *options,
        "--out",
        str(out / "ours.json"),
        "--trace",
        str(out / "trace.json"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="every case once, small (what CI runs)")
    args = parser.parse_args()
    # repeats, vocabulary, course-loop merges timed, 1,000-character blocks in the long pre-token
    repeat, vocab, loop_merges, blocks = (1, 400, 20, 10) if args.smoke else (args.repeat, 5000, 200, 1000)
    if not args.smoke and not CORPUS.exists():
        print(f"skipped: {CORPUS} is absent (the benchmark corpus lives in ../shared/data)")
        return
    # Byte-compile our package first, as an installed one would be (the library's is): with
    # PYTHONDONTWRITEBYTECODE set, every run would otherwise compile its modules again.
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "explorer")], check=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        corpus = smoke_corpus(out) if args.smoke else CORPUS
        print(
            f"corpus: {corpus.name}, {corpus.stat().st_size / 1e6:.2f} MB; best of {repeat}; "
            f"whole processes; cores: {os.cpu_count()}"
        )
        bpe_ours, bpe_lib = paired_best_of(
            repeat,
            ours(
                corpus,
                out,
                "--algorithm",
                "bpe",
                "--flavor",
                "library",
                "--vocab-size",
                str(vocab),
                "--pre-tokenizer",
                "byte-level",
                "--special-tokens",
                "",
            ),
            [PYTHON, "-c", LIBRARY_SCRIPT, "bpe", str(corpus), str(out / "lib.json"), str(vocab)],
        )
        rows.append((f"BPE library flavor, byte-level, {vocab:,}", bpe_ours, bpe_lib))
        wp_ours, wp_lib = paired_best_of(
            repeat,
            ours(
                corpus,
                out,
                "--algorithm",
                "wordpiece",
                "--flavor",
                "course",
                "--vocab-size",
                str(vocab),
                "--pre-tokenizer",
                "bert",
                "--special-tokens",
                "[UNK]",
            ),
            [PYTHON, "-c", LIBRARY_SCRIPT, "wordpiece", str(corpus), str(out / "lib.json"), str(vocab)],
        )
        rows.append((f"WordPiece course flavor (likelihood), bert, {vocab:,}", wp_ours, wp_lib))

        print("\n| case | ours (s) | library (s) | ratio | ours peak RSS (MB) | library peak RSS (MB) |")
        print("|---|---|---|---|---|---|")
        for name, (our_s, our_mb), (lib_s, lib_mb) in rows:
            print(
                f"| {name} | {our_s:.2f} | {lib_s:.2f} | {our_s / lib_s:.2f}x | {our_mb:.0f} | {lib_mb:.0f} |"
            )

        loop_seconds = float(
            run([PYTHON, "-c", COURSE_LOOP_SCRIPT, str(corpus), str(ROOT), str(loop_merges)])[2]
        )
        merges = vocab - 5 - 65  # about the course WordPiece's merges to reach `vocab` (alphabet ~65 + [UNK])
        extrapolated = loop_seconds / loop_merges * merges
        print(
            f"\ncourse loop: {loop_merges} merges in {loop_seconds:.1f} s -> about {extrapolated:.0f} s "
            f"for {merges:,} merges (extrapolated linearly); ours {wp_ours[0]:.2f} s whole process: "
            f"{extrapolated / wp_ours[0]:.0f}x faster"
        )

        long_word = out / "long.txt"
        body = ("ab" * 499 + "cc") * blocks  # 1,000,000 characters (smoke: 10,000), no space
        long_word.write_text(body, encoding="utf-8")
        long_ours = best_of(
            repeat,
            ours(
                long_word,
                out,
                "--vocab-size",
                "300",
                "--pre-tokenizer",
                "whitespace-split",
                "--special-tokens",
                "",
            ),
        )
        print(
            f"one {len(body):,}-character pre-token, vocab 300: "
            f"{long_ours[0]:.2f} s, peak {long_ours[1]:.0f} MB"
        )


if __name__ == "__main__":
    main()
