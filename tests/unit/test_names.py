"""One name per concept (docs/architecture.md, "Names"): the names chosen there, kept by reading the source.

- A `RunConfig` parameter or annotated name is `config` (or `<something>_config`), and no name
  assigned a `RunConfig(...)` is `run`: `run` is a finished `Run` (explorer.runs.run).

Each rule is a function over source text, checked on a made-up sample first (so that a rule that
finds nothing is caught), then over explorer/, tests/ and bench/.

What it does not do: check names a user's link, a stored run or a trace file holds (query
parameters, JSON keys): those stay as they are, for compatibility.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tests import ROOT

FOLDERS = ("explorer", "tests", "bench")


def config_names(source: str) -> Iterator[tuple[int, str]]:
    """(line, name) of every parameter or annotated name typed `RunConfig` (or `RunConfig | None`)
    that is not `config` or `..._config`, and every `run` assigned `RunConfig(...)`."""
    for node in ast.walk(ast.parse(source)):
        named: list[tuple[int, str]] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            named = [(item.lineno, item.arg) for item in arguments if _is_run_config(item.annotation)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            named = [(node.lineno, node.target.id)] if _is_run_config(node.annotation) else []
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if ast.unparse(node.value.func) == "RunConfig":
                yield from (
                    (node.lineno, target.id) for target in node.targets if ast.unparse(target) == "run"
                )
        yield from ((line, name) for line, name in named if name != "config" and not name.endswith("_config"))


def _is_run_config(annotation: ast.expr | None) -> bool:
    return annotation is not None and ast.unparse(annotation).strip("'\"") in {
        "RunConfig",
        "RunConfig | None",
    }


def sources() -> Iterator[tuple[str, str]]:
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def test_the_config_rule_finds_a_run_config_named_run():
    sample = (
        "def train(run: RunConfig, config: RunConfig, other_config: 'RunConfig | None'): ...\n"
        "run = RunConfig()\n"
        "config = RunConfig()\nbpe = RunConfig()\n"
        "class Column:\n    run: RunConfig | None = None\n"
        "def start(make: Callable[[], RunConfig]): ...\n"
    )
    assert list(config_names(sample)) == [(1, "run"), (2, "run"), (6, "run")]


def test_a_run_config_is_named_config():
    found = [f"{path}:{line} {name}" for path, source in sources() for line, name in config_names(source)]
    assert found == []
