"""The compiled engine's generated files are what their generators write today: engine/src/classes.rs
(engine/generate_classes.py, from the Python pre-tokenizers' tables) and engine/src/shared.rs
(engine/generate_shared.py, from explorer/training/bpe/shared.py: the constants and column types
both merge engines agree on). A change to those Python sources without writing the Rust file again
fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"


@pytest.mark.parametrize(
    ("generator", "target"), [("generate_classes", "classes.rs"), ("generate_shared", "shared.rs")]
)
def test_the_committed_rust_tables_are_the_generated_ones(generator, target):
    spec = importlib.util.spec_from_file_location(generator, ENGINE / f"{generator}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ENGINE / "src" / target).read_text(encoding="utf-8")
    assert module.render() == committed, f"run: .venv/bin/python engine/{generator}.py"
