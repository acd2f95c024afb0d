"""Which merge engine trains BPE and WordPiece: the compiled one (Rust, the `explorer_engine`
extension that `python3 tasks.py` builds from engine/ when cargo is there) or the Python one
(explorer/training/bpe/, the readable reference the compiled one is tested against; both record
the same trace, byte for byte).

`EXPLORER_ENGINE` (or `train --engine` on the command line) says which: `auto` (the default: the
compiled engine when it is built, else Python), `rust` (an error when it is not built) or `python`.

What it does not do: train (explorer/training/bpe/) or build the extension (tasks.py).
"""

from __future__ import annotations

import os
from types import ModuleType

ENGINES = ("auto", "rust", "python")
ENGINE_VARIABLE = "EXPLORER_ENGINE"


def compiled() -> ModuleType | None:
    """The compiled engine's module, or None when it is not built."""
    try:
        import explorer_engine
    except ImportError:
        return None
    return explorer_engine


def resolve(requested: str | None = None) -> str:
    """`rust` or `python`: the engine that trains for `requested` (None: $EXPLORER_ENGINE, else auto)."""
    choice = requested or os.environ.get(ENGINE_VARIABLE) or "auto"
    if choice not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)} (got {choice!r})")
    if choice == "python":
        return "python"
    if compiled() is None:
        if choice == "rust":
            raise ValueError(
                "the Rust engine is not built (python3 tasks.py builds it when cargo is installed); "
                "use the Python engine (engine python)"
            )
        return "python"
    return "rust"


def module_for(requested: str | None = None) -> ModuleType | None:
    """The compiled engine's module when it trains for `requested` (see `resolve`), else None."""
    return compiled() if resolve(requested) == "rust" else None
