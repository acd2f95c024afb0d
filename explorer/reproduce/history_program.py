"""The Merge history page as code: a program that reads a downloaded trace with the explorer package
and prints merge number k (1-based, as the page numbers them): the pair, its count (and the
course WordPiece's likelihood score), and the pairs that competed with it, best first, as the trace
recorded them (`trace.candidates`, the chosen pair first; count(a) and count(b) where a score was
computed from them).

`merge_step_program(k, trace_path="trace.json")` writes it; the path is written with `repr`. It
ends by saving the run's tokenizer.json beside the trace, as every program here does.

What it does not do: Unigram rounds (a RoundHistory has no merges), or explain why the pair won
(explorer.lessons.merge_step does, in the page).
"""

from __future__ import annotations

from explorer.reproduce.python_source import literal


def merge_step_program(k: int, trace_path: str = "trace.json") -> str:
    """A program printing merge number `k` (1-based) of the trace saved at `trace_path`."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k is a merge number from 1, not {k!r}")
    lines = [
        '"""Merge number k of a Tokenizer Explorer run, read from its trace: the pair, its count and the',
        'pairs that competed with it."""',
        "",
        "from pathlib import Path",
        "",
        "from explorer import save_tokenizer, tokenizer_from_trace, trace_from_json",
        "",
        "# The trace downloaded from the app (or written by the CLI's --trace):",
        f"TRACE = {literal(str(trace_path))}",
        f"k = {k}  # the merge number, from 1 as on the Merge history page",
        "",
        'trace = trace_from_json(Path(TRACE).read_text(encoding="utf-8"))',
        "if not 1 <= k <= trace.steps:",
        '    raise SystemExit(f"This run has {trace.steps} {trace.step_noun}s: k must be between 1 and '
        '{trace.steps}.")',
        "vocab = trace.vocab",
        "left_id, right_id, new_id = trace.merges[k - 1]",
        "count, score = trace.merge_counts[k - 1], trace.merge_scores[k - 1]",
        'line = f"merge {k}: {vocab[left_id]!r} + {vocab[right_id]!r} -> {vocab[new_id]!r}, count {count:,}"',
        'print(line if score is None else f"{line}, score {score:.6g}")',
        "",
        "# The pairs that competed (the chosen one first): count, and for the course's WordPiece the",
        "# likelihood score count(ab) / (count(a) * count(b)) with count(a) and count(b).",
        "symbol_counts = trace.candidates.symbol_counts_at(k - 1)",
        "for rank, (left_id, right_id, count, score) in enumerate(trace.candidates[k - 1], 1):",
        '    line = f"{rank:>3}. {vocab[left_id]!r} + {vocab[right_id]!r}: count {count:,}"',
        "    if score is not None:",
        "        count_a, count_b = symbol_counts[rank - 1]",
        '        line += f", score {count:,} / ({count_a:,} * {count_b:,}) = {score:.6g}"',
        "    print(line)",
        "",
        "# The run's tokenizer, saved here as the app's tokenizer.json download is (to compare them):",
        'save_tokenizer(tokenizer_from_trace(trace), "tokenizer.json")',
    ]
    return "\n".join(lines) + "\n"
