"""stubs/explorer_engine.pyi, the types mypy checks the package's calls to the compiled engine
against, names exactly what the built module exports: every function and class, every public
method and property of a class, and the parameters of each where the module states them (PyO3's
text signatures). An export added, renamed or removed on one side only fails here."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from types import ModuleType

import pytest

from explorer.training import engines

STUB = Path(__file__).resolve().parents[2] / "stubs" / "explorer_engine.pyi"
compiled = engines.compiled()
pytestmark = pytest.mark.skipif(compiled is None, reason="the compiled engine is not built")


def _public(names) -> set[str]:
    return {name for name in names if not name.startswith("_")}


def _parameters(function: ast.FunctionDef) -> list[str]:
    arguments = function.args
    names = [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]
    return [name for name in names if name != "self"]


def _stub() -> dict[str, ast.FunctionDef | ast.ClassDef]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)}


def _exported(module: ModuleType) -> set[str]:
    # maturin installs the extension inside a package of its name: that inner module is not an export.
    return {name for name in _public(dir(module)) if not isinstance(getattr(module, name), ModuleType)}


def _signature_names(callable_) -> list[str] | None:
    """The parameters the module states for `callable_`, or None where it states none."""
    try:
        signature = inspect.signature(callable_)
    except (TypeError, ValueError):
        return None
    return [name for name in signature.parameters if name != "self"]


def test_the_stub_names_every_export_and_nothing_else():
    assert compiled is not None
    assert set(_stub()) == _exported(compiled)


@pytest.mark.parametrize("name", sorted(_stub()))
def test_each_stubbed_name_has_the_exports_members_and_parameters(name):
    assert compiled is not None
    node, exported = _stub()[name], getattr(compiled, name)
    if isinstance(node, ast.FunctionDef):
        assert _signature_names(exported) in (None, _parameters(node))
        return
    members = {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}
    assert _public(members) == _public(vars(exported)), f"{name}'s public members"
    init = members.get("__init__")  # none for a class Python cannot make (CountedWords)
    assert _signature_names(exported) in (None, _parameters(init) if init else []), f"{name}()"
    for member in _public(members):
        stated = _signature_names(getattr(exported, member))  # None for a property
        assert stated in (None, _parameters(members[member])), f"{name}.{member}"
