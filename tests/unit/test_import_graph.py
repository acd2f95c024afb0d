"""explorer's modules import one another without a circle, and none reads another's private names.

The import graph is read from the source (`ast`), not from running it: every module under
explorer/ (found by walking the folder, so moving files needs no change here) is a node, a package's
__init__.py included, as the package's own node. An edge is any import of an explorer module,
wherever it stands (at the top, inside a function, under `if TYPE_CHECKING:`): `import explorer.a`
and `from explorer.a import b` are edges to explorer.a, or to explorer.a.b when b is a submodule.
Importing explorer.a.b also runs explorer/a/__init__.py, but that is not counted as an edge: a
package's __init__ importing its own modules would otherwise make a circle of every package.

A private name is one that starts with "_" and is not a dunder (`__version__`). Reading one from
another module: `from explorer.a import _name`, or `alias._name` where `alias` is an imported
explorer module.

What it does not do: see imports made with importlib by name, or private attributes read on
objects (`job._state`), which no parser can tell apart from the object's own.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests import ROOT

PACKAGE = ROOT / "explorer"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def explorer_modules() -> dict[str, Path]:
    """Every module of the explorer package by its dotted name."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = explorer_modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, path in MODULES.items()}


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def imported_from(module: str, node: ast.ImportFrom) -> str:
    """The absolute module name of a `from ... import` (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(module: str):
    """(imported module, name bound here or None, names imported from it, node) for each import
    of an explorer module in `module`."""
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    yield alias.name, alias.asname or alias.name.split(".")[0], (), node
        elif isinstance(node, ast.ImportFrom):
            source = imported_from(module, node)
            if source not in MODULES:
                continue
            plain = []
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in MODULES:
                    yield submodule, alias.asname or alias.name, (), node
                else:
                    plain.append(alias.name)
            if plain:
                yield source, None, tuple(plain), node


def import_graph() -> dict[str, set[str]]:
    graph = {name: set() for name in MODULES}
    for name in MODULES:
        for target, _, _, _ in imports(name):
            if target != name:
                graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph as [a, b, ..., a], or None (a depth-first search)."""
    done: set[str] = set()
    path: list[str] = []
    on_path: dict[str, int] = {}

    def visit(node: str) -> list[str] | None:
        on_path[node] = len(path)
        path.append(node)
        for target in sorted(graph[node]):
            if target in on_path:
                return [*path[on_path[target] :], target]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        del on_path[node]
        done.add(node)
        return None

    for node in sorted(graph):
        if node not in done:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything but names and attributes."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(names)]


def private_reads(module: str) -> list[str]:
    """Where `module` reads a private name of another explorer module, as "line N: what"."""
    found = []
    aliases: dict[str, str] = {}  # a name bound in this module -> the explorer module it is
    for target, bound, names, node in imports(module):
        if bound is not None:
            aliases[bound] = target if bound != "explorer" or "." not in target else "explorer"
        for name in names:
            if is_private(name) and target != module:
                found.append(f"line {node.lineno}: from {target} import {name}")
    for node in ast.walk(TREES[module]):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        names = dotted(node.value)
        if not names or names[0] not in aliases:
            continue
        owner = ".".join([aliases[names[0]], *names[1:]])
        if owner in MODULES and owner != module:
            found.append(f"line {node.lineno}: {owner}.{node.attr}")
    return found


def test_the_modules_are_found():
    assert "explorer" in MODULES and "explorer.work.pool" in MODULES, sorted(MODULES)[:10]
    assert len(MODULES) > 50


def test_the_graph_sees_imports_inside_functions_and_submodules():
    graph = import_graph()
    # explorer.work.tasks imports explorer.pipeline inside train_task, and chunked as a submodule.
    assert "explorer.pipeline" in graph["explorer.work.tasks"]
    assert "explorer.work.chunked" in graph["explorer.work.tasks"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "an import circle: " + " -> ".join(cycle)


def test_no_module_reads_another_modules_private_names():
    found = {name: reads for name in MODULES if (reads := private_reads(name))}
    assert not found, "private names read across modules:\n" + "\n".join(
        f"{name} ({MODULES[name].relative_to(ROOT)}) {read}"
        for name, reads in found.items()
        for read in reads
    )
