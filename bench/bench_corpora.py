"""Training speed and memory on corpora nobody here wrote, against the `tokenizers` library and
`rustbpe`, measured in the same run.

    .venv/bin/python bench/bench_corpora.py [--sizes 1,5,20] [--repeat 3] [--kinds prose,code,cjk]
                                            [--engines rust,python] [--jobs N] [--smoke]

Three corpus kinds, built from files any Debian machine with Python has, cut or cycled to each size
in MB (`build_corpus`):
  prose  the licence texts of /usr/share/common-licenses and every /usr/share/doc/*/copyright;
  code   the standard library's .py files (this interpreter's);
  cjk    the UTF-8 test texts of CPython's test/cjkencodings (about 11 KB, found in any installed
         CPython's test suite), extended by a character bigram chain over them (seeded), because
         cycling 11 KB would make every word a repeat.
Cases per kind and size: BPE library flavor, byte-level, vocabulary 5,000 at 1 MB and 32,000 above
(ours on each engine, `train --engine rust|python`; the library's BpeTrainer; rustbpe with the
GPT-2 split pattern); WordPiece course flavor, bert pre-tokenizer, 8,000 (ours on each engine, the
library's WordPieceTrainer: the library has one WordPiece).
Every figure is a whole process (interpreter start, reading, training, writing tokenizer.json and,
for ours, the full trace), the median of --repeat runs, the tools interleaved so that the machine's
drift touches each alike; peak RSS from wait4. rustbpe is a benchmark-only dependency
(requirements-dev.txt); without it its column says so.
--smoke (what CI runs): 0.05 MB of each kind built, every tool run once (vocabulary 400) on the
first kind alone (the same commands on every kind: 7 more interpreter starts per kind).
This is a benchmark, not a test: it prints figures and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_train import LIBRARY_SCRIPT, PYTHON, ROOT, ours, run  # noqa: E402

MB = 1_000_000
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
RUSTBPE_SCRIPT = """
import sys
import rustbpe
corpus, vocab_size, pattern = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(corpus, encoding="utf-8").read().split("\\n")
tokenizer = rustbpe.Tokenizer()
tokenizer.train_from_iterator(iter(lines), vocab_size, pattern=pattern)
print(len(tokenizer.get_mergeable_ranks()))
"""


def source_files(kind: str) -> list[Path]:
    if kind == "prose":
        names = sorted(glob.glob("/usr/share/common-licenses/*")) + sorted(
            glob.glob("/usr/share/doc/*/copyright")
        )
    elif kind == "code":
        names = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "**", "*.py"), recursive=True))
    else:
        found: dict[str, str] = {}  # file name -> first path (each Python version has the same files)
        for prefix in (sys.base_prefix, "/usr", "/usr/local", os.path.expanduser("~/.pyenv/versions/*")):
            for name in sorted(
                glob.glob(os.path.join(prefix, "lib", "python3*", "test", "cjkencodings", "*-utf8.txt"))
            ):
                found.setdefault(os.path.basename(name), name)
        names = [found[name] for name in sorted(found)]
    return [Path(name) for name in names if os.path.isfile(name)]


def read_texts(paths: list[Path]) -> list[str]:
    texts, seen = [], set()
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if text not in seen:  # many copyright files are the same text
            seen.add(text)
            texts.append(text)
    return texts


def bigram_text(seed_text: str, size: int) -> str:
    """`size` UTF-8 bytes drawn from a character bigram chain over `seed_text` (random.Random(0))."""
    following: dict[str, list[str]] = {}
    for first, second in zip(seed_text, seed_text[1:]):
        following.setdefault(first, []).append(second)
    chooser = random.Random(0)
    out, total, char = [], 0, seed_text[0]
    while total < size:
        char = chooser.choice(following.get(char) or seed_text)
        out.append(char)
        total += len(char.encode())
    return "".join(out)


def build_corpus(kind: str, size: int) -> str | None:
    """About `size` UTF-8 bytes of `kind`, cut at a line break; None when this machine has no sources."""
    texts = read_texts(source_files(kind))
    if not texts:
        return None
    if kind == "cjk":
        seed = "\n".join(texts)
        return seed + "\n" + bigram_text(seed, max(0, size - len(seed.encode())))
    parts, total, index = [], 0, 0
    while total < size:
        text = texts[index % len(texts)]
        parts.append(text)
        total += len(text.encode())
        index += 1
    whole = "".join(parts).encode()[:size].decode("utf-8", errors="ignore")
    return whole[: whole.rfind("\n") + 1] or whole


def has_rustbpe() -> bool:
    return subprocess.run([PYTHON, "-c", "import rustbpe"], capture_output=True).returncode == 0


def median_of(results: list[tuple[float, float, str]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def interleaved(repeat: int, commands: dict[str, list[str] | None]) -> dict[str, tuple[float, float] | None]:
    """The median (seconds, peak MB) of each command, the commands run in turn `repeat` times."""
    results: dict[str, list] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            if command is not None:
                results[name].append(run(command))
    return {name: median_of(found) if found else None for name, found in results.items()}


def cell(figure: tuple[float, float] | None) -> str:
    return "n/a" if figure is None else f"{figure[0]:.2f} s, {figure[1]:.0f} MB"


def ratio(ours_figure, other) -> str:
    if ours_figure is None or other is None:
        return "n/a"
    return f"{ours_figure[0] / other[0]:.2f}x time, {ours_figure[1] / other[1]:.2f}x memory"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,5,20", help="corpus sizes in MB, comma-separated")
    parser.add_argument("--kinds", default="prose,code,cjk")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None, help="our CLI's --jobs (default: its own)")
    parser.add_argument(
        "--engines", default="rust,python", help="our engines to time (rust is left out when not built)"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="each kind built, trained once on the first (what CI runs)"
    )
    parser.add_argument("--write-corpus", nargs=3, metavar=("KIND", "BYTES", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_corpus:
        kind, size, path = args.write_corpus
        text = build_corpus(kind, int(size))
        if text is not None:
            Path(path).write_text(text, encoding="utf-8")
        print("none" if text is None else "written")
        return
    sizes = [0.05] if args.smoke else [float(size) for size in args.sizes.split(",")]
    repeat = 1 if args.smoke else args.repeat
    rust = has_rustbpe()
    built = has_compiled_engine()
    engines = [engine for engine in args.engines.split(",") if engine != "rust" or built]
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "explorer")], check=True)
    jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    rust_note = "yes" if rust else "not installed"
    print(
        f"median of {repeat}; whole processes; cores: {os.cpu_count()}; rustbpe: {rust_note}; "
        f"our compiled engine: {'built' if built else 'not built'}"
    )
    print(
        "| corpus | case | ours, Rust | ours, Python | tokenizers | rustbpe | Rust / tokenizers "
        "| Rust / rustbpe | Python / tokenizers |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    trained: list[str] = []  # --smoke: the kind the tools ran on (the same code on every kind)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for kind in args.kinds.split(","):
            for size in sizes:
                corpus = out / f"{kind}.txt"
                # Built in a process of its own: a child's peak RSS starts from its parent's size
                # (Linux keeps the high-water mark across fork and exec), so this one stays small.
                command = [PYTHON, __file__, "--write-corpus", kind, str(int(size * MB)), str(corpus)]
                if (
                    subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()
                    == "none"
                ):
                    print(f"| {kind} | skipped: no source files on this machine | | | | | | | |")
                    continue
                name = f"{kind} {corpus.stat().st_size / MB:.2f} MB"
                if args.smoke and trained:  # every kind's corpus is built; the tools run once
                    print(f"| {name} | smoke: corpus built, trained on {trained[0]} alone | | | | | | | |")
                    continue
                trained.append(kind)
                bpe_vocab = 400 if args.smoke else (5000 if size <= 1 else 32000)
                bpe_options = ["--algorithm", "bpe", "--flavor", "library", "--vocab-size", str(bpe_vocab)]
                bpe_options += ["--pre-tokenizer", "byte-level", "--special-tokens", "", *jobs]
                library = [
                    PYTHON,
                    "-c",
                    LIBRARY_SCRIPT,
                    "bpe",
                    str(corpus),
                    str(out / "lib.json"),
                    str(bpe_vocab),
                ]
                rustbpe = [PYTHON, "-c", RUSTBPE_SCRIPT, str(corpus), str(bpe_vocab), GPT2_PATTERN]
                figures = interleaved(
                    repeat,
                    {
                        **ours_by_engine(corpus, out, bpe_options, engines),
                        "library": library,
                        "rustbpe": rustbpe if rust else None,
                    },
                )
                print(row(name, f"BPE library, {bpe_vocab:,}", figures), flush=True)
                wp_vocab = 400 if args.smoke else 8000
                wp_options = ["--algorithm", "wordpiece", "--flavor", "course", "--vocab-size", str(wp_vocab)]
                wp_options += ["--pre-tokenizer", "bert", "--special-tokens", "[UNK]", *jobs]
                library = [
                    PYTHON,
                    "-c",
                    LIBRARY_SCRIPT,
                    "wordpiece",
                    str(corpus),
                    str(out / "lib.json"),
                    str(wp_vocab),
                ]
                figures = interleaved(
                    repeat, {**ours_by_engine(corpus, out, wp_options, engines), "library": library}
                )
                print(row(name, f"WordPiece course, {wp_vocab:,}", figures), flush=True)


def has_compiled_engine() -> bool:
    return subprocess.run([PYTHON, "-c", "import explorer_engine"], capture_output=True).returncode == 0


def ours_by_engine(corpus: Path, out: Path, options: list[str], engines: list[str]) -> dict[str, list[str]]:
    """Our CLI's command per engine asked for (`train --engine`)."""
    return {engine: ours(corpus, out, *options, "--engine", engine) for engine in engines}


def row(name: str, case: str, figures: dict) -> str:
    rust, python = figures.get("rust"), figures.get("python")
    library, rustbpe = figures.get("library"), figures.get("rustbpe")
    return (
        f"| {name} | {case} | {cell(rust)} | {cell(python)} | {cell(library)} | {cell(rustbpe)} | "
        f"{ratio(rust, library)} | {ratio(rust, rustbpe)} | {ratio(python, library)} |"
    )


if __name__ == "__main__":
    main()
