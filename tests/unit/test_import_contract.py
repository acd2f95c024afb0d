"""The layout's rules, checked on the source (with `ast`, nothing imported):

- streamlit is imported only by app.py, pages/ and explorer/ui/, and every module of explorer/ui/
  imports it: what needs no Streamlit lives below, in explorer/session/, explorer/views/ and lower;
- the packages of explorer/ import in one direction, from the app down to the pipeline (`LAYERS`);
- inside explorer/ui/, a page's package imports only `common` and itself;
- at most `MOST_LOOSE_MODULES` modules sit at the top of explorer/, and no two modules share a
  file name (a stage's per-algorithm files and a package's `base.py` excepted), so a file name is
  enough to find a feature's code;
- every module says in its docstring what it does;
- explorer/lessons/ builds no HTML (that is explorer/views/);
- only explorer/ui/common/state.py reads or writes `st.session_state`;
- an `if TYPE_CHECKING:` block holds imports, and at least one;
- docs/architecture.md's layer list is `LAYERS`, and every arrow of its diagram is an import.

What it does not check: import circles and private names (tests/unit/test_import_graph.py).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPLORER = ROOT / "explorer"

# Lowest first. A package may import from its own layer's package and from lower layers only;
# packages that share a layer do not import each other.
LAYERS: list[set[str]] = [
    {"checks", "tokens", "samples"},
    {"pipeline"},
    {"run_config"},
    {"training"},
    {"corpora"},
    {"train"},
    {"drawing", "pretrained", "runstore", "runs"},
    {"lessons", "measures", "reproduce"},
    {"compare"},
    {"views"},
    {"work"},
    {"session"},
    {"cli"},
    {"ui"},
    {"__main__"},
]
UI_PAGES = {"train", "history", "vocabulary", "compare"}
MOST_LOOSE_MODULES = 8
SHARED_FILE_NAMES = {"__init__.py", "__main__.py", "base.py", "bpe.py", "wordpiece.py", "unigram.py"}


def modules() -> list[Path]:
    return sorted(path for path in EXPLORER.rglob("*.py") if "__pycache__" not in path.parts)


def every_import(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import, those under `if TYPE_CHECKING:` (type hints) included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def runtime_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import that runs (under `if TYPE_CHECKING:` excluded), with
    `from a import b` giving `a.b` (b may be a submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for statement in block.body
        for node in ast.walk(statement)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def top_package(module: str) -> str | None:
    """`explorer.training.bpe.engine` -> `training`; None outside explorer."""
    parts = module.split(".")
    return parts[1] if parts[0] == "explorer" and len(parts) > 1 else None


def layer_of(package: str) -> int:
    return next(index for index, layer in enumerate(LAYERS) if package in layer)


def own_package(path: Path) -> str:
    return path.relative_to(EXPLORER).with_suffix("").parts[0]


def test_every_package_of_explorer_has_a_layer():
    packages = {own_package(path) for path in modules()} - {"__init__"}
    assert packages == set().union(*LAYERS)


def test_streamlit_is_imported_only_by_the_app_its_pages_and_explorer_ui():
    allowed = {ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(EXPLORER / "ui").rglob("*.py")}
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in modules()
        if path not in allowed
        for line, module in runtime_imports(path)
        if module.split(".")[0] == "streamlit"
    ]
    assert offenders == []


def test_dask_is_imported_only_when_a_count_runs_on_a_cluster():
    """Dask is heavy: only explorer/corpora/cluster.py imports it, inside its functions."""
    cluster = EXPLORER / "corpora" / "cluster.py"
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in modules()
        for line, module in runtime_imports(path)
        if module.split(".")[0] in ("dask", "distributed") and path != cluster
    ]
    top_level = [
        node.lineno
        for node in ast.parse(cluster.read_text(encoding="utf-8")).body
        if isinstance(node, ast.Import | ast.ImportFrom)
        and any(name.split(".")[0] in ("dask", "distributed") for name in _imported_names(node))
    ]
    assert offenders == [] and top_level == []


def _imported_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    return [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]


def test_every_module_of_explorer_ui_imports_streamlit():
    """explorer/ui/ holds widgets only: a module that needs no Streamlit belongs below it."""
    without = [
        str(path.relative_to(ROOT))
        for path in sorted((EXPLORER / "ui").rglob("*.py"))
        if path.name != "__init__.py"
        and not any(module.split(".")[0] == "streamlit" for _, module in runtime_imports(path))
    ]
    assert without == []


def test_the_packages_import_downwards_only():
    """Type hints included: a module never names a layer above it."""
    offenders = []
    for path in modules():
        mine = own_package(path)
        if mine == "__init__":
            continue  # the package's public names: it may gather them from anywhere below ui
        for line, module in every_import(path):
            theirs = top_package(module)
            if theirs is None or theirs == mine or theirs not in set().union(*LAYERS):
                continue
            if layer_of(theirs) >= layer_of(mine):
                offenders.append(f"{path.relative_to(ROOT)}:{line} ({mine}) imports {module} ({theirs})")
    assert offenders == []


def test_the_public_names_load_from_below_the_app_and_only_on_first_use():
    import explorer

    homes = {top_package(module) for module in explorer._PUBLIC.values()}
    assert homes & {"ui", "cli", "work", "__main__"} == set()
    assert {module for _, module in runtime_imports(EXPLORER / "__init__.py")} == {
        "__future__.annotations",
        "importlib",
    }
    for name in explorer.__all__:
        assert getattr(explorer, name).__name__ == name
    # A module of the package alone (what a page's first view imports) loads no trainer and no numpy.
    probe = "import sys, explorer.tokens; print([m for m in ('numpy', 'explorer.train') if m in sys.modules])"
    assert (
        subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True).stdout
        == "[]\n"
    )


def test_a_pages_package_in_explorer_ui_imports_only_common_and_itself():
    offenders = []
    for page in sorted(UI_PAGES | {"common"}):
        for path in sorted((EXPLORER / "ui" / page).rglob("*.py")):
            for line, module in runtime_imports(path):
                parts = module.split(".")
                if parts[:2] != ["explorer", "ui"] or len(parts) < 3:
                    continue
                other = parts[2]
                if other in UI_PAGES and other != page:
                    offenders.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert offenders == []


def test_a_type_checking_block_holds_imports_only_and_at_least_one():
    offenders = [
        f"{path.relative_to(ROOT)}:{block.lineno}"
        for path in modules()
        for block in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(block, ast.If)
        and "TYPE_CHECKING" in ast.unparse(block.test)
        and not (block.body and all(isinstance(node, ast.Import | ast.ImportFrom) for node in block.body))
    ]
    assert offenders == []


def test_few_loose_modules_at_the_top_of_explorer():
    loose = sorted(
        path.name for path in EXPLORER.glob("*.py") if path.name not in {"__init__.py", "__main__.py"}
    )
    assert len(loose) <= MOST_LOOSE_MODULES, loose


def test_no_two_modules_share_a_file_name():
    names = Counter(path.name for path in modules() if path.name not in SHARED_FILE_NAMES)
    assert [name for name, count in names.items() if count > 1] == []


@pytest.mark.parametrize("path", modules(), ids=lambda path: str(path.relative_to(EXPLORER)))
def test_every_module_says_what_it_does(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring and len(docstring.split()) >= 5


ARCHITECTURE = ROOT / "docs" / "architecture.md"
ARROW = " ─► "


def doc_name(name: str) -> str:
    """A package or module as the doc writes it (`training/`, `train.py`) -> its name in `LAYERS`."""
    return name.removesuffix("/").removesuffix(".py")


def imported_packages(name: str) -> set[str]:
    """The packages of explorer/ that `name` imports (type hints included); `name` is a package of
    explorer/ or `app` / `pages`."""
    if name in ("app", "pages"):
        paths = [ROOT / "app.py"] if name == "app" else sorted((ROOT / "pages").glob("*.py"))
    else:
        paths = [path for path in modules() if own_package(path) == name]
    assert paths, f"{name} is neither a package of explorer/ nor the app"
    return {
        theirs
        for path in paths
        for _, module in every_import(path)
        if (theirs := top_package(module)) is not None and theirs != name
    }


def architecture_section() -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return text[text.index("## Layering") : text.index("Inside `ui/`, a page's package")]


def test_the_architecture_docs_layers_are_the_checked_ones():
    listed = [
        {doc_name(name) for name in re.findall(r"`([^`]+)`", names)}
        for names in re.findall(r"^\d+\. ((?:`[^`]+`(?:, )?)+)", architecture_section(), re.MULTILINE)
    ]
    assert listed == LAYERS


def test_every_arrow_of_the_architecture_diagram_is_an_import():
    """`a, b ─► c, d` says that each of a and b imports each of c and d; every package is drawn."""
    diagram = architecture_section().split("```")[1]
    arrows, drawn = [], set()
    for line in diagram.strip().splitlines():
        groups = [[doc_name(name.strip()) for name in group.split(",")] for group in line.split(ARROW)]
        assert len(groups) > 1, f"a line of the diagram with no arrow: {line!r}"
        drawn |= {name for group in groups for name in group}
        arrows += [
            (a, c) for left, right in zip(groups, groups[1:], strict=False) for a in left for c in right
        ]
    imported = {name: imported_packages(name) for name in {a for a, _ in arrows}}
    false = [f"{a} ─► {c}" for a, c in arrows if c not in imported[a]]
    assert false == []
    assert set().union(*LAYERS) - drawn == set()


HTML_TAG = re.compile(r"</?(?:a|b|br|code|details|div|i|li|p|pre|span|summary|table|td|th|tr|ul)[\s>/]")


def test_lessons_build_no_html():
    """What the pages teach is text and records; its HTML is explorer/views/'s."""
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((EXPLORER / "lessons").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and HTML_TAG.search(node.value)
    ]
    assert offenders == []


def test_only_state_py_touches_the_session_state():
    """explorer/ui/common/state.py owns every session key: the app, its pages and the rest of
    explorer/ go through it."""
    state = EXPLORER / "ui" / "common" / "state.py"
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *modules()]
        if path != state
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "session_state"
    ]
    assert offenders == []
