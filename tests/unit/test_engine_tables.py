"""The compiled word counter's character classes (engine/src/classes.rs) are what
engine/generate_classes.py writes from the Python pre-tokenizers' tables today: a change to those
tables without regenerating the Rust file fails here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_the_committed_classes_are_the_generated_ones():
    spec = importlib.util.spec_from_file_location("generate_classes", ENGINE / "generate_classes.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    committed = (ENGINE / "src" / "classes.rs").read_text(encoding="utf-8")
    assert generator.render() == committed, "run: .venv/bin/python engine/generate_classes.py"
