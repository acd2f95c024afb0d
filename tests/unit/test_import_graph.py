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

The checker is itself checked on a package made up for it (`TOY`), so that no name of an
explorer module is written here.

What it does not do: see imports made with importlib by name, or private attributes read on
objects (`job._state`), which no parser can tell apart from the object's own.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests import ROOT


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


class Package:
    """The modules of the package in folder `root / name`, parsed, and what they import."""

    def __init__(self, root: Path, name: str):
        self.modules: dict[str, Path] = {}  # dotted name -> file
        for path in sorted((root / name).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            self.modules[".".join(parts)] = path
        self.trees = {
            module: ast.parse(path.read_text(encoding="utf-8"), str(path))
            for module, path in self.modules.items()
        }

    def imported_from(self, module: str, node: ast.ImportFrom) -> str:
        """The absolute module name of a `from ... import` (relative imports resolved)."""
        if not node.level:
            return node.module or ""
        base = module.split(".")
        base = base if self.modules[module].name == "__init__.py" else base[:-1]
        base = base[: len(base) - (node.level - 1)]
        return ".".join([*base, *([node.module] if node.module else [])])

    def imports(self, module: str):
        """(imported module, name bound here or None, names imported from it, node) for each
        import of one of the package's modules in `module`."""
        for node in ast.walk(self.trees[module]):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in self.modules:
                        yield alias.name, alias.asname or alias.name.split(".")[0], (), node
            elif isinstance(node, ast.ImportFrom):
                source = self.imported_from(module, node)
                if source not in self.modules:
                    continue
                plain = []
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule in self.modules:
                        yield submodule, alias.asname or alias.name, (), node
                    else:
                        plain.append(alias.name)
                if plain:
                    yield source, None, tuple(plain), node

    def graph(self) -> dict[str, set[str]]:
        graph = {module: set() for module in self.modules}
        for module in self.modules:
            for target, _, _, _ in self.imports(module):
                if target != module:
                    graph[module].add(target)
        return graph

    def private_reads(self, module: str) -> list[str]:
        """Where `module` reads a private name of another module, as "line N: what"."""
        found = []
        aliases: dict[str, str] = {}  # a name bound in this module -> the module it is
        for target, bound, names, node in self.imports(module):
            if bound is not None:  # `import a.b` binds `a`
                aliases[bound] = target if "." not in target or bound != target.split(".")[0] else bound
            for name in names:
                if is_private(name) and target != module:
                    found.append(f"line {node.lineno}: from {target} import {name}")
        for node in ast.walk(self.trees[module]):
            if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
                continue
            names = dotted(node.value)
            if not names or names[0] not in aliases:
                continue
            owner = ".".join([aliases[names[0]], *names[1:]])
            if owner in self.modules and owner != module:
                found.append(f"line {node.lineno}: {owner}.{node.attr}")
        return found


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


EXPLORER = Package(ROOT, "explorer")

TOY = {  # a package made up to check the checker itself
    "toy/__init__.py": "from toy.a import f\n",
    "toy/a.py": "import toy.sub.b as bee\n\ndef f():\n    from toy.sub import c\n    return bee._hidden, c\n",
    "toy/sub/__init__.py": "",
    "toy/sub/b.py": "from toy.sub.c import _private, public\n",
    "toy/sub/c.py": "import toy.a\n\ndef g():\n    return toy.a._secret\n",
}


def toy_package(tmp_path: Path) -> Package:
    for name, text in TOY.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return Package(tmp_path, "toy")


def test_the_checker_sees_imports_inside_functions_submodules_and_private_reads(tmp_path):
    toy = toy_package(tmp_path)
    assert sorted(toy.modules) == ["toy", "toy.a", "toy.sub", "toy.sub.b", "toy.sub.c"]
    graph = toy.graph()
    assert graph["toy"] == {"toy.a"}
    assert graph["toy.a"] == {"toy.sub.b", "toy.sub.c"}  # `from toy.sub import c` is an edge to c
    assert graph["toy.sub.b"] == {"toy.sub.c"}
    assert find_cycle(graph) == ["toy.a", "toy.sub.b", "toy.sub.c", "toy.a"]
    assert toy.private_reads("toy.a") == ["line 5: toy.sub.b._hidden"]
    assert toy.private_reads("toy.sub.b") == ["line 1: from toy.sub.c import _private"]
    assert toy.private_reads("toy.sub.c") == ["line 4: toy.a._secret"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_explorer_is_found():
    assert "explorer" in EXPLORER.modules and len(EXPLORER.modules) > 50


def test_no_import_circle():
    cycle = find_cycle(EXPLORER.graph())
    assert cycle is None, "an import circle: " + " -> ".join(cycle)


def test_no_module_reads_another_modules_private_names():
    found = {module: reads for module in EXPLORER.modules if (reads := EXPLORER.private_reads(module))}
    assert not found, "private names read across modules:\n" + "\n".join(
        f"{module} ({EXPLORER.modules[module].relative_to(ROOT)}) {read}"
        for module, reads in found.items()
        for read in reads
    )
