"""Unigram training speed against the `tokenizers` library and against the course's own loop.

    .venv/bin/python bench/bench_unigram.py [--repeat 5] [--smoke]

Every figure is a whole process (interpreter start, imports, reading the corpus, training, writing
tokenizer.json and, for ours, the trace JSON), peak RSS from wait4; ours and the other alternate
run by run (the machine's speed drifts), best and median of --repeat. On
../shared/data/tinyshakespeare.txt (EXPLORER_SHARED_DIR overrides ../shared; skipped with a
message when absent):
  1. Library flavor, vocab 8,000, Metaspace, unk "<unk>": ours vs the library's UnigramTrainer.
  2. Course flavor, vocab 100, seed 300, on the first 5,000 characters (482 distinct words):
     ours vs the course's loop (tests/reference/unigram_course.py), both measured.
  3. Course flavor on the whole text: ours measured; the course's loop extrapolated. It computes
     the whole loss once per round plus once per piece scored: one loss computation is timed
     (best of 3) and multiplied by their number in our run (the same rounds and pieces).
--smoke (what CI runs, so that the script cannot rot): every case once, on the first 20,000
characters of the bundled Shakespeare sample (bench_train.smoke_corpus), vocab 400 for case 1,
the first 1,000 characters for case 2.

    .venv/bin/python bench/bench_unigram.py --prose [--repeat 3] [--sizes 1,5] [--engines rust,python]
                                            [--smoke]

`--prose`: the library flavor at vocab 8,000 against the library's UnigramTrainer on licence prose
(Debian's /usr/share/common-licenses/* and /usr/share/doc/*/copyright, concatenated, paragraphs
deduplicated, cut to 1 MB and 5 MB): time and peak RSS, each run a fresh process, ours on each
engine (`train --engine`; the compiled one is `rust`) and the library in turn. `--prose --smoke`
(run by tests/test_bench_smoke.py): 20 KB at vocab 400, once, on both engines.
This is a benchmark, not a test: it prints figures and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_train import PYTHON, ROOT, run, smoke_corpus  # noqa: E402  (the same process runner)

sys.path.insert(0, str(ROOT))
from explorer.training.unigram.round_history import RoundHistory  # noqa: E402

CORPUS = (
    Path(os.environ.get("EXPLORER_SHARED_DIR") or ROOT.parent / "shared") / "data" / "tinyshakespeare.txt"
)
LICENCE_FILES = ("/usr/share/common-licenses/*", "/usr/share/doc/*/copyright")

LIBRARY_SCRIPT = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
corpus, vocab_size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tok = Tokenizer(models.Unigram())
tok.pre_tokenizer = pre_tokenizers.Metaspace()
trainer = trainers.UnigramTrainer(vocab_size=vocab_size, unk_token="<unk>", show_progress=False)
tok.train_from_iterator(open(corpus, encoding="utf-8").read().split("\\n"), trainer)
tok.save(out)
"""

COURSE_LOOP_SCRIPT = """
import sys, time
sys.path.insert(0, sys.argv[2])
from tests.reference import unigram_course as course
from explorer.training.word_counts import count_words
word_freqs = count_words(open(sys.argv[1], encoding="utf-8").read(), (), "metaspace")
if sys.argv[3] == "train":
    course.train(word_freqs, 100, 300)
else:  # time one compute_loss of the initial model, best of 3
    model = course.model_from(course.initial_token_freqs(word_freqs, 300))
    times = []
    for _ in range(3):
        started = time.perf_counter()
        course.compute_loss(model, word_freqs)
        times.append(time.perf_counter() - started)
    print(min(times))
"""


def paired(repeat: int, ours_command: list[str], other_command: list[str]):
    """(ours, other): each (best s, median s, peak MB), run alternately."""
    return interleaved(repeat, [ours_command, other_command])


def interleaved(repeat: int, commands: list[list[str]]) -> list[tuple[float, float, float]]:
    """Per command (best s, median s, peak MB), the commands run in turn `repeat` times."""
    runs: list[list] = [[] for _ in commands]
    for _ in range(repeat):
        for command, seen in zip(commands, runs):
            seen.append(run(command)[:2])

    def summary(seen):
        seconds = [s for s, _ in seen]
        return min(seconds), statistics.median(seconds), max(mb for _, mb in seen)

    return [summary(seen) for seen in runs]


def ours(corpus: Path, out: Path, flavor: str, vocab_size: int, engine: str = "auto") -> list[str]:
    return [
        PYTHON,
        "-m",
        "explorer",
        "train",
        str(corpus),
        "--reading",  # one sequence per line, as LIBRARY_SCRIPT's train_from_iterator(lines)
        "lines",
        "--algorithm",
        "unigram",
        "--flavor",
        flavor,
        "--vocab-size",
        str(vocab_size),
        "--out",
        str(out / "ours.json"),
        "--trace",
        str(out / "trace.json"),
        "--engine",
        engine,
    ]


def row(name: str, mine, other) -> str:
    return (
        f"| {name} | {mine[0]:.2f} / {mine[1]:.2f} | {other[0]:.2f} / {other[1]:.2f} | "
        f"{mine[0] / other[0]:.2f}x / {mine[1] / other[1]:.2f}x | {mine[2]:.0f} | {other[2]:.0f} |"
    )


def licence_prose(size: int) -> str:
    """Licence texts, each paragraph once, cut to `size` bytes of UTF-8 ("" when there are none)."""
    seen, paragraphs = set(), []
    for pattern in LICENCE_FILES:
        for path in sorted(glob.glob(pattern)):
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for paragraph in text.split("\n\n"):
                if paragraph.strip() and paragraph.strip() not in seen:
                    seen.add(paragraph.strip())
                    paragraphs.append(paragraph)
    return "\n\n".join(paragraphs).encode("utf-8")[:size].decode("utf-8", "ignore")


def built_engines() -> list[str]:
    from explorer.training import engines

    return (["rust"] if engines.compiled() is not None else []) + ["python"]


def prose(args) -> None:
    sizes = [0.02] if args.smoke else [float(size) for size in args.sizes.split(",")]
    vocab_size, repeat = (400, 1) if args.smoke else (8000, args.repeat)
    print(
        f"licence prose, library flavor vs UnigramTrainer, vocab {vocab_size:,}; {repeat} runs each, "
        "alternating; whole processes, peak RSS from wait4"
    )
    engines = args.engines.split(",") if args.engines else built_engines()
    print(
        "\n| corpus | engine | ours best / median (s) | library best / median (s) | time ratio best / median "
        "| ours peak MB | library peak MB | peak ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for size in sizes:
            text = licence_prose(int(size * 1e6))
            if len(text) < size * 1e6 * 0.9:
                print(f"skipped {size:g} MB: only {len(text.encode()) / 1e6:.2f} MB of licence texts here")
                continue
            corpus = out / f"prose-{size:g}.txt"
            corpus.write_text(text, encoding="utf-8")
            *figures, library = interleaved(
                repeat,
                [ours(corpus, out, "library", vocab_size, engine) for engine in engines]
                + [[PYTHON, "-c", LIBRARY_SCRIPT, str(corpus), str(vocab_size), str(out / "library.json")]],
            )
            for engine, mine in zip(engines, figures):
                print(
                    f"| {size:g} MB | {engine} | {mine[0]:.2f} / {mine[1]:.2f} | "
                    f"{library[0]:.2f} / {library[1]:.2f} | "
                    f"{mine[0] / library[0]:.2f}x / {mine[1] / library[1]:.2f}x | {mine[2]:.0f} | "
                    f"{library[2]:.0f} | {mine[2] / library[2]:.2f}x |"
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--prose", action="store_true", help="licence prose at 1 and 5 MB (see above)")
    parser.add_argument("--sizes", default="1,5", help="--prose: corpus sizes in MB, comma-separated")
    parser.add_argument(
        "--engines",
        default=None,
        help="--prose: our engines to time (train --engine), comma-separated; each row against the library "
        "(default: rust,python, or python where the Rust engine is not built)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="every case once, small (what CI runs); with --prose: 20 KB, once",
    )
    args = parser.parse_args()
    if args.prose:
        prose(args)
        return
    # repeats, case 1's vocabulary, characters of case 2's corpus
    repeat, vocab, small_characters = (1, 400, 1_000) if args.smoke else (args.repeat, 8000, 5_000)
    if not args.smoke and not CORPUS.exists():
        print(f"skipped: {CORPUS} is absent (the benchmark corpus lives in ../shared/data)")
        return
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "explorer")], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        corpus = smoke_corpus(out) if args.smoke else CORPUS
        print(
            f"corpus: {corpus.name}, {corpus.stat().st_size / 1e6:.2f} MB; {repeat} runs each, "
            "alternating; whole processes"
        )
        print(
            "\n| case | ours best / median (s) | other best / median (s) | ratio best / median "
            "| ours peak MB | other peak MB |"
        )
        print("|---|---|---|---|---|---|")
        mine, library = paired(
            repeat,
            ours(corpus, out, "library", vocab),
            [PYTHON, "-c", LIBRARY_SCRIPT, str(corpus), str(vocab), str(out / "library.json")],
        )
        print(row(f"library flavor, vocab {vocab:,} vs UnigramTrainer", mine, library))

        small = out / "small.txt"
        small.write_text(corpus.read_text(encoding="utf-8")[:small_characters], encoding="utf-8")
        mine, loop = paired(
            repeat,
            ours(small, out, "course", 100),
            [PYTHON, "-c", COURSE_LOOP_SCRIPT, str(small), str(ROOT), "train"],
        )
        print(
            row(f"course flavor, {small_characters:,} characters, vocab 100 vs the course's loop", mine, loop)
        )

        mine_full = run(ours(corpus, out, "course", 100))
        trace = json.loads((out / "trace.json").read_text(encoding="utf-8"))
        # The course computes the loss once per round and once per piece longer than one character.
        course_trace = RoundHistory.from_dict(trace)
        losses = sum(
            1 + sum(len(piece) > 1 for piece, _ in course_trace.pieces_at(r))
            for r in range(len(course_trace.rounds))
        )
        one_loss = float(run([PYTHON, "-c", COURSE_LOOP_SCRIPT, str(corpus), str(ROOT), "time"])[2])
        estimate = one_loss * losses
        shown = f"{estimate / 60:.1f} min" if estimate < 3600 else f"{estimate / 3600:.1f} h"
        print(
            f"\ncourse flavor, whole text, vocab 100: ours {mine_full[0]:.2f} s "
            f"(peak {mine_full[1]:.0f} MB); the course's "
            f"loop computes the whole loss {losses:,} times, {one_loss:.2f} s each: about {shown} "
            f"(extrapolated), {estimate / mine_full[0]:,.0f}x ours"
        )


if __name__ == "__main__":
    main()
