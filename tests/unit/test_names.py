"""One name per concept (docs/architecture.md, "Names"): the names chosen there, kept by reading the source.

- A `RunConfig` parameter or annotated name is `config` (or `<something>_config`), and no name
  assigned a `RunConfig(...)` is `run`: `run` is a finished `Run` (explorer.runs.run).
- `count_words` gives words and their counts, nothing else, in Python and in the compiled engine's
  stub; words and figures is `count_corpus` (so the engine has no `fn count_words`).
- A page's key (`PAGE`, or what app.py's page passes to `frame.finish`) is the name of its package
  under explorer/ui/.

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


def count_words_returns(source: str) -> Iterator[tuple[int, str]]:
    """(line, return annotation) of every `def count_words` that does not return `dict[str, int]`."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "count_words":
            returns = ast.unparse(node.returns) if node.returns is not None else "nothing said"
            if returns != "dict[str, int]":
                yield node.lineno, returns


def page_key(source: str) -> str | None:
    """A page script's key: its `PAGE = "..."`, or the first argument of its `frame.finish(...)`."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and [ast.unparse(target) for target in node.targets] == ["PAGE"]:
            return ast.literal_eval(node.value)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "frame.finish":
            first = node.args[0]
            if isinstance(first, ast.Constant):
                return first.value
    return None


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


def test_the_count_words_rule_finds_one_that_returns_figures():
    sample = (
        "def count_words(text) -> dict[str, int]: ...\n"
        "def count_words(text, *, figures: bool) -> tuple[list[str], bytes, tuple | None] | None: ...\n"
    )
    assert [line for line, _ in count_words_returns(sample)] == [2]


def test_count_words_gives_words_only_on_both_engines():
    stub = ROOT / "stubs" / "explorer_engine.pyi"
    found = [
        f"{path}:{line} returns {returns}"
        for path, source in [*sources(), (str(stub.relative_to(ROOT)), stub.read_text(encoding="utf-8"))]
        for line, returns in count_words_returns(source)
    ]
    assert found == []
    rust = [
        path.name for path in (ROOT / "engine" / "src").rglob("*.rs") if "fn count_words" in path.read_text()
    ]
    assert rust == [], "the engine's count of words and figures is count_corpus, as Python's is"


def test_the_page_key_is_found_in_either_form():
    assert page_key('PAGE = "history"\nwith frame.page("x"):\n    frame.finish(PAGE)\n') == "history"
    assert page_key('with frame.page("x"):\n    frame.finish("train", params)\n') == "train"


def test_a_page_key_is_its_package_name():
    scripts = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    keys = {script.name: page_key(script.read_text(encoding="utf-8")) for script in scripts}
    assert None not in keys.values(), keys
    assert {
        name: key for name, key in keys.items() if not (ROOT / "explorer" / "ui" / str(key)).is_dir()
    } == {}
