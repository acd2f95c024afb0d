"""Training on corpora whose vocabulary keeps growing, up to 10 GB on disk, against the `tokenizers`
library, and counting them in one process against a Dask local cluster.

    .venv/bin/python bench/bench_growth.py [--sizes 100,1000,10000] [--file-mb 100] [--seed 0]
        [--corpus-dir DIR] [--vocab-size 32000] [--repeat 1] [--library-timeout 14400]
        [--tools ours,library,count] [--smoke]

The corpora are corpus_growth.py's (Zipf words whose tail keeps bringing new ones, lines of 5-30
tokens), --file-mb per file (1 GB is 10 files of 100 MB: every tool gets the list of files),
cached in --corpus-dir (default: explorer-bench-growth in the temporary folder) so that a rerun
writes nothing; a size's files are the first files of the larger sizes.

Per size, whole processes, peak RSS from wait4 (the largest process of its tree, not their sum:
for the Dask cluster, the largest of the client, scheduler and workers), the median of --repeat
runs, the tools in turn:
  ours       `python -m explorer train FILES... --vocab-size V` (byte-level BPE, library flavor,
             no special token), with its trace, reading the files as the library does
             (`--reading lines-with-endings`) where the CLI has that option;
  library    `Tokenizer.train(files, BpeTrainer)`, ByteLevel pre-tokenizer and alphabet, in a
             process killed after --library-timeout seconds; how it fails (out of memory, the
             time limit, an exit status) is printed in its row;
  count      `python -m explorer count FILES... --out counts.parquet` in one process, and
             `--scheduler local:2` (a Dask LocalCluster of 2 workers), compared with the first.
--tools picks some of them (`--tools ours` after the library has failed once at 10 GB).
A command this checkout's CLI does not have is skipped with a sentence saying so. Below the table:
the distinct words of our trace (the vocabulary the corpus grew to), whether our tokenizer.json
has the library's vocabulary and merges (or the first merge that differs), and whether both count
files are the same bytes.
The generated text has no "\\r", no trailing space and no empty line, so reading it one line a
sequence (`--reading lines`, today's CLI) or with each line's "\\n" (the library's `train(files)`)
gives the same words but for the "Ċ" word of the line breaks, and the same merges.
--smoke (what CI runs): about 1 MB in a fresh temporary folder, vocabulary 500, one run.
This is a benchmark, not a test: it prints figures and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_train import PYTHON, ROOT, Measured, measure, ours  # noqa: E402

MB = 1_000_000
GENERATOR = Path(__file__).resolve().parent / "corpus_growth.py"
LIBRARY_FILES_SCRIPT = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
out, vocab_size, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
tokenizer = Tokenizer(models.BPE())
tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
trainer = trainers.BpeTrainer(
    vocab_size=vocab_size, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
)
tokenizer.train(files, trainer)
tokenizer.save(out)
"""


def cli_help(command: str) -> str | None:
    """`python -m explorer COMMAND --help`, or None when the CLI has no such command."""
    found = subprocess.run(
        [PYTHON, "-m", "explorer", command, "--help"], capture_output=True, text=True, cwd=ROOT
    )
    return found.stdout if found.returncode == 0 else None


def generate(folder: Path, total_bytes: int, file_bytes: int, seed: int) -> list[Path]:
    """The corpus's files, written by corpus_growth.py in a process of its own (a child's peak RSS
    starts from its parent's: this one stays small) unless cached."""
    command = [PYTHON, str(GENERATOR), str(folder), str(total_bytes), str(file_bytes), str(seed)]
    listed = subprocess.run([*command, str(os.cpu_count() or 1)], check=True, capture_output=True, text=True)
    return [Path(line) for line in listed.stdout.splitlines()]


def failure(measured: Measured, timeout: float | None) -> str | None:
    """How a run failed, in one sentence, or None when it succeeded."""
    where = f"at {measured.peak_mb / 1000:.1f} GB after {measured.seconds:.0f} s"
    if measured.timed_out:
        return f"did not finish in {timeout:.0f} s (peak {measured.peak_mb:.0f} MB)"
    if os.WIFSIGNALED(measured.status):
        number = os.WTERMSIG(measured.status)
        if number == signal.SIGKILL:  # not ours (that is timed_out): the kernel's out-of-memory killer
            return f"out of memory (killed by signal 9) {where}"
        return f"killed by signal {number} ({signal.Signals(number).name}) {where}: {measured.last_error}"
    code = os.waitstatus_to_exitcode(measured.status)
    return None if code == 0 else f"exited with status {code} {where}: {measured.last_error}"


def measured_runs(repeat: int, commands: dict[str, list[str]], timeouts: dict[str, float]) -> dict:
    """Per command: (median seconds, median peak MB) of `repeat` runs in turn, or the sentence
    saying how its first failed run failed (it is not run again)."""
    results: dict[str, list[Measured]] = {name: [] for name in commands}
    failed: dict[str, str] = {}
    for _ in range(repeat):
        for name, command in commands.items():
            if name in failed:
                continue
            measured = measure(command, timeouts.get(name))
            why = failure(measured, timeouts.get(name))
            if why is None:
                results[name].append(measured)
            else:
                failed[name] = why
    return {
        name: failed.get(name)
        or (statistics.median(m.seconds for m in found), statistics.median(m.peak_mb for m in found))
        for name, found in results.items()
    }


def same_result(ours_json: Path, library_json: Path) -> str:
    """Whether two tokenizer.json files have the same BPE vocabulary and merges, in a sentence."""
    models = [json.loads(path.read_text(encoding="utf-8"))["model"] for path in (ours_json, library_json)]
    merges = [
        [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
        for model in models
    ]
    for step, (our_merge, their_merge) in enumerate(zip(*merges), start=1):
        if our_merge != their_merge:
            ours_text, theirs = " ".join(our_merge), " ".join(their_merge)
            return f"differ at merge {step:,} (ours {ours_text!r}, the library's {theirs!r})"
    if len(merges[0]) != len(merges[1]):
        return f"differ: {len(merges[0]):,} merges against the library's {len(merges[1]):,}"
    if models[0]["vocab"] != models[1]["vocab"]:
        return f"same {len(merges[0]):,} merges, vocabularies differ"
    return f"equal ({len(merges[0]):,} merges, {len(models[0]['vocab']):,} tokens)"


def helper(option: str, *paths: Path) -> str:
    """This script's answer to a hidden `option`, in a process of its own (like the corpus's: a
    trace of millions of words read here would raise the peak of every later run)."""
    command = [PYTHON, __file__, option, *map(str, paths)]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def succeeded(figure) -> bool:
    """Whether a run was made and gave figures (not a sentence saying how it failed)."""
    return figure is not None and not isinstance(figure, str)


def cell(figure) -> str:
    """The seconds and peak MB cells, or the failure across both."""
    return f"{figure} | " if isinstance(figure, str) else f"{figure[0]:.2f} | {figure[1]:.0f}"


def ratio(figure, other, of: str) -> str:
    if not succeeded(figure) or not succeeded(other):
        return "n/a"
    return f"{figure[0] / other[0]:.2f}x time, {figure[1] / other[1]:.2f}x memory of {of}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--sizes", default="100,1000,10000", help="corpus sizes in MB on disk, comma-separated"
    )
    parser.add_argument(
        "--file-mb", type=float, default=100, help="size of each file in MB (the last one the rest)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--corpus-dir", type=Path, help="where corpora are cached (default: the temporary folder's)"
    )
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--tools", default="ours,library,count", help="the runs to make, comma-separated")
    parser.add_argument("--library-timeout", type=float, default=4 * 3600, help="seconds (default: 4 hours)")
    parser.add_argument(
        "--smoke", action="store_true", help="about 1 MB, vocabulary 500, one run (what CI runs)"
    )
    parser.add_argument("--same-result", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--distinct-words", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.same_result:
        print(same_result(*args.same_result))
        return
    if args.distinct_words:
        print(len(json.loads(args.distinct_words.read_text(encoding="utf-8"))["words"]))
        return
    train_help, count_help = cli_help("train"), cli_help("count")
    streams = "[--reading" in (train_help or "")  # the usage line: an option it takes
    sizes = [1.0] if args.smoke else [float(size) for size in args.sizes.split(",")]
    file_mb = (0.5 if streams else 1.0) if args.smoke else args.file_mb
    vocab = 500 if args.smoke else args.vocab_size
    repeat = 1 if args.smoke else args.repeat
    tools = set(args.tools.split(","))  # "count" is both count runs
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        folder = args.corpus_dir or (
            out / "corpora" if args.smoke else Path(tempfile.gettempdir()) / "explorer-bench-growth"
        )
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "explorer")], check=True)
        print(
            f"corpora in {folder}; vocabulary {vocab:,}; median of {repeat}; whole processes; "
            f"cores: {os.cpu_count()}; library time limit {args.library_timeout:.0f} s"
        )
        print("| corpus | tool | seconds | peak MB | ratio |")
        print("|---|---|---|---|---|")
        notes = []
        for size in sizes:
            files = generate(folder, int(size * MB), int(file_mb * MB), args.seed)
            name = f"{sum(path.stat().st_size for path in files) / MB:,.0f} MB in {len(files)} file(s)"
            commands, skipped = {}, {}
            reading = ["--reading", "lines-with-endings"] if streams else []
            options = ["--algorithm", "bpe", "--flavor", "library", "--vocab-size", str(vocab)]
            options += ["--pre-tokenizer", "byte-level", "--special-tokens", "", *reading]
            if streams or len(files) == 1:
                commands["ours"] = ours(files, out, *options)
            else:
                skipped["ours"] = (
                    "skipped: this CLI's train reads one file (`train INPUT...` streams on branch h-stream)"
                )
            library_json = out / "library.json"
            commands["library"] = [
                PYTHON,
                "-c",
                LIBRARY_FILES_SCRIPT,
                str(library_json),
                str(vocab),
                *map(str, files),
            ]
            if count_help is None:
                skipped["count"] = "skipped: this CLI has no `count` command (branch h-countfiles)"
            else:
                count_options = [*map(str, files)] + (
                    ["--pre-tokenizer", "byte-level"] if "[--pre-tokenizer" in count_help else []
                )
                count_options += ["--reading", "lines-with-endings"] if "[--reading" in count_help else []
                commands["count"] = [
                    PYTHON,
                    "-m",
                    "explorer",
                    "count",
                    *count_options,
                    "--out",
                    str(out / "counts-1.parquet"),
                ]
                if "[--scheduler" in count_help:
                    commands["count local:2"] = [
                        *commands["count"][:-1],
                        str(out / "counts-2.parquet"),
                        "--scheduler",
                        "local:2",
                    ]
                else:
                    skipped["count local:2"] = (
                        "skipped: this CLI's count has no --scheduler (the Dask part, not on this branch)"
                    )
            chosen = {name: command for name, command in commands.items() if name.split()[0] in tools}
            figures = measured_runs(repeat, chosen, {"library": args.library_timeout})
            library = figures.get("library")
            for tool in ("ours", "library", "count", "count local:2"):
                if tool in skipped and tool.split()[0] in tools:
                    print(f"| {name} | {tool} | {cell(skipped[tool])} | |")
                elif tool in figures:
                    against = {
                        "ours": ratio(figures[tool], library, "the library"),
                        "count local:2": ratio(figures[tool], figures.get("count"), "one process"),
                    }
                    print(
                        f"| {name} | {tool} | {cell(figures[tool])} | {against.get(tool, '')} |", flush=True
                    )
            if succeeded(figures.get("ours")):
                words = helper("--distinct-words", out / "trace.json")
                notes.append(f"{name}: {int(words):,} distinct words (pre-tokenized, in our trace)")
                if succeeded(library):
                    verdict = helper("--same-result", out / "ours.json", library_json)
                    notes.append(f"{name}: our vocabulary and merges against the library's: {verdict}")
            if succeeded(figures.get("count local:2")) and succeeded(figures.get("count")):
                same = filecmp.cmp(out / "counts-1.parquet", out / "counts-2.parquet", shallow=False)
                verdict = "the same bytes" if same else "differ"
                notes.append(f"{name}: the count files of local:2 and of one process: {verdict}")
        print("\n".join(["", *notes]))


if __name__ == "__main__":
    main()
