"""Every `unsafe` in the compiled engine (engine/src/) says why it is sound: a `// SAFETY:` comment
right above it (the comment lines just before the line, as clippy's `undocumented_unsafe_blocks`
asks; lib.rs denies that lint too, for whoever runs clippy)."""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "engine" / "src"
UNSAFE = re.compile(r"\bunsafe\b")


def _undocumented(text: str) -> list[int]:
    """Line numbers of `unsafe` code with no SAFETY comment in the comment lines just above it."""
    lines = text.splitlines()
    missing = []
    for number, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if not UNSAFE.search(code):
            continue
        above = number - 1
        comments = []
        while above >= 0 and lines[above].strip().startswith("//"):
            comments.append(lines[above].strip())
            above -= 1
        if not any(comment.startswith("// SAFETY:") for comment in comments):
            missing.append(number + 1)
    return missing


def test_the_check_finds_an_unsafe_without_a_safety_comment():
    assert _undocumented("fn f() {\n    // reads it\n    unsafe { g() }\n}\n") == [3]
    assert _undocumented("// SAFETY: g has no precondition.\nunsafe { g() }\n") == []


def test_every_unsafe_in_the_engine_has_a_safety_comment():
    sources = sorted(SOURCE.glob("*.rs"))
    assert sources
    found = {path.name: _undocumented(path.read_text(encoding="utf-8")) for path in sources}
    assert {name: lines for name, lines in found.items() if lines} == {}
