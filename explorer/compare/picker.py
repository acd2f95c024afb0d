"""The Compare page's model picker, as data: which columns are offered in which order, what each
option says, which start ticked, and which match a search.

Options are grouped by family: the runs trained here first, then OpenAI, Meta, Qwen, DeepSeek,
Mistral (explorer.pretrained.FAMILIES), then uploads. Each option's label carries its family and
its vocabulary size, so typing "qwen" or "meta" in the multiselect's own search box finds the
family.
The page starts small (`DEFAULT_PRETRAINED`: GPT-2, GPT-4, GPT-4o, as before the open models
were bundled): a bundled tokenizer is loaded only when its column is first shown.

`runs_left_note(names, ...)`: the sentence that names the runs that left the session's earlier
runs (and so the picker), and why: a run never leaves it without a word.

What it does not do: draw the widget (explorer.ui.compare.model_picker) or build columns
(explorer.compare.columns).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from explorer.compare.columns import UPLOADS, YOUR_RUNS, TokenizerColumn
from explorer.pretrained import FAMILIES, PRETRAINED

FAMILY_ORDER = (YOUR_RUNS, *FAMILIES, UPLOADS)
DEFAULT_PRETRAINED = frozenset(f"pretrained:{name}" for name in PRETRAINED)


def family_rank(family: str) -> int:
    return FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER)


def in_picker_order(columns: Sequence[TokenizerColumn]) -> list[TokenizerColumn]:
    """The columns grouped by family in `FAMILY_ORDER`, keeping their order within a family."""
    return sorted(columns, key=lambda column: family_rank(column.family))


def option_label(column: TokenizerColumn) -> str:
    """'Meta · Llama 3 · 128,256 ids': the family, the name, the vocabulary size."""
    size = f" · {column.vocab_size:,} ids" if column.vocab_size else ""
    return f"{column.family or 'Other'} · {column.name}{size}"


def hidden_at_first(columns: Iterable[TokenizerColumn], earlier_run_keys: Iterable[str]) -> set[str]:
    """Keys of the columns that start unticked: earlier runs and the bundled tokenizers beyond the
    default three. Everything else (the current run, the other algorithm's, uploads) starts ticked."""
    earlier = set(earlier_run_keys)
    return {
        column.key
        for column in columns
        if column.key in earlier
        or (column.key.startswith("pretrained:") and column.key not in DEFAULT_PRETRAINED)
    }


def runs_left_note(names: Sequence[str], kept: int, max_characters: int) -> str:
    """Which runs left the picker and why ('' for none).

    >>> runs_left_note(["#1 BPE 300 · sample"], 4, 8_000_000)[:75]
    'No longer in the list: #1 BPE 300 · sample. A session keeps its current run'
    """
    if not names:
        return ""
    return (
        f"No longer in the list: {', '.join(names)}. A session keeps its current run, the other "
        f"algorithm's and the {kept} runs before them whose corpora together hold at most "
        f"{max_characters:,} code points; the oldest leaves first. Train it again to compare it."
    )
