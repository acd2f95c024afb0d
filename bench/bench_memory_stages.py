"""Where a CLI training's memory goes: the stages of `python -m explorer train FILE --trace` run one
by one, with the process's memory after each.

    python bench/bench_memory_stages.py CORPUS... [--vocab-size 32000] [--tracemalloc] [--smoke]

--smoke (what CI runs): the first 20,000 characters of the bundled Shakespeare sample, vocabulary 400.

Each stage calls what `explorer.cli.train_command` calls (count_inputs, train_counted, the
history's save_tokenizer, write_json_fields) and prints, after it: the resident
memory (VmRSS), the highest resident memory during the stage (VmHWM, reset before each stage
through /proc/self/clear_refs), and, with --tracemalloc, the Python objects alive and their peak
during the stage (Rust's allocations are not traced; tracemalloc slows the run and adds its own
memory to the resident figures). The distinct words divide each figure: bytes per distinct word.

What it does not do: compare with the library (bench_growth.py, bench_corpora.py do) or time the
stages.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _status() -> dict[str, int]:
    """VmRSS and VmHWM of this process, in bytes."""
    figures = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                figures[name] = int(value.split()[0]) * 1024
    return figures


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets VmHWM to the current RSS
    except OSError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="*")
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--tracemalloc", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="a small sample, vocabulary 400 (what CI runs)")
    args = parser.parse_args()
    if args.smoke:
        from pathlib import Path

        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_train import smoke_corpus

        args.corpus, args.vocab_size = (
            [str(smoke_corpus(Path(tempfile.mkdtemp(prefix="memory-smoke-"))))],
            400,
        )
    elif not args.corpus:
        parser.error("give a corpus file (or --smoke)")

    from dataclasses import replace

    from explorer.checks import Limits
    from explorer.cli.common import write_json_fields
    from explorer.corpora.counting import Counting
    from explorer.corpora.inputs import expand_inputs, reading_of
    from explorer.corpora.streaming import count_inputs
    from explorer.run_config import MAX_SYMBOLS
    from explorer.runs.settings import defaults_for
    from explorer.session.requests import asked_settings, check_settings
    from explorer.training.trainers import train_counted

    limits = Limits(
        max_corpus_mb=float("inf"),
        max_seconds=float("inf"),
        max_steps=float("inf"),
        max_vocab=MAX_SYMBOLS - 1,
    )
    settings = replace(defaults_for("bpe"), vocab_size=args.vocab_size)
    inputs = expand_inputs(args.corpus)
    _, config = check_settings(asked_settings(settings, limits), limits)
    config = replace(config, reading=reading_of(inputs, None))
    out = tempfile.mkdtemp(prefix="memory-stages-")
    words = [0]
    rows = []

    def stage(name: str, run):
        if args.tracemalloc:
            tracemalloc.reset_peak()
        _reset_peak()
        result = run()
        figures = _status()
        traced = tracemalloc.get_traced_memory() if args.tracemalloc else None
        rows.append((name, figures["VmRSS"], figures["VmHWM"], traced))
        return result

    if args.tracemalloc:
        tracemalloc.start()
    stage("imported", lambda: None)
    gc.disable()  # as the CLI does while counting and training
    counts = stage("counted", lambda: count_inputs(inputs, Counting.of(config), jobs=os.cpu_count() or 1))
    words[0] = len(counts.words)
    holder = [counts]
    del counts

    def train():
        counted = holder.pop()
        return train_counted(counted.hand_over(), counted.figures, config)

    trace = stage("trained (engine built, merges, trace)", train)
    gc.enable()
    stage("tokenizer.json written", lambda: trace.save_tokenizer(os.path.join(out, "tokenizer.json")))
    stage(
        "trace written",
        lambda: write_json_fields(os.path.join(out, "trace.json"), trace.json_fields(), "--trace"),
    )

    print(f"{words[0]:,} distinct words; MB and bytes per distinct word")
    header = f"{'stage':40} {'RSS':>8} {'peak':>8} {'peak/word':>10}"
    if args.tracemalloc:
        header += f" {'py now':>8} {'py peak':>8} {'py peak/word':>13}"
    print(header)
    for name, rss, peak, traced in rows:
        line = f"{name:40} {rss / 1e6:8.1f} {peak / 1e6:8.1f} {peak / max(words[0], 1):10.0f}"
        if traced is not None:
            line += f" {traced[0] / 1e6:8.1f} {traced[1] / 1e6:8.1f} {traced[1] / max(words[0], 1):13.0f}"
        print(line)


if __name__ == "__main__":
    main()
