"""The app's JavaScript lives in `.js` files, and every one of them parses (issue 53).

- No script in a Python string: a string literal of explorer/, app.py or pages/ (docstrings aside)
  holding a `<script` tag, an inline handler (`onclick="..."`), a `javascript:` URL, an
  `export default`, an `addEventListener(`, an arrow `=>` or a `function (` is a script body, and
  belongs in a `.js` file beside the module that declares its component
  (explorer/ui/history/player.js beside player.py), read from there at import. The guard is tested
  on planted snippets too.
- Every `.js` file of explorer/ is read by a module beside it (no file left over), and every `.js`
  file of explorer/ and tests/ parses as an ES module by Node's parser (`node --check`: V8's, as
  Chromium's is), which rejects a syntax error (a broken snippet).

Node is Debian's nodejs, which `tasks.py test` installs as it installs Chromium; without it the
parse tests are skipped with a message saying so.

What it does not do: run the scripts (each component's browser test, tests/browser/test_*_component.py,
does) or judge their style.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import ROOT

EXPLORER = ROOT / "explorer"
# A script body: a <script> tag, an inline handler (`onclick="..."`) or a javascript: URL in HTML,
# or the JavaScript a component's script is made of.
SCRIPT_BODY = re.compile(
    r"""<script\b|\son[a-z]+\s*=\s*["'{\\]|javascript:"""
    r"|\bexport\s+default\b|\baddEventListener\s*\(|=>|\bfunction\s*\(",
    re.IGNORECASE,
)
JS_FILES = sorted(path for folder in (EXPLORER, ROOT / "tests") for path in folder.rglob("*.js"))
BROKEN = "export default function(component) {\n  const { data } = component;\n  const shown = ;\n}\n"


def python_files() -> list[Path]:
    """The product's Python: the package, the app and its pages."""
    return sorted([*EXPLORER.rglob("*.py"), ROOT / "app.py", *(ROOT / "pages").glob("*.py")])


def script_strings(source: str) -> list[tuple[int, str]]:
    """(line, first line of the string) of each string literal in `source` that holds a script
    body; docstrings, which may name `function(...)` in prose, are not scripts."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value.strip().splitlines()[0][:60])
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and SCRIPT_BODY.search(node.value)
    ]


def test_no_javascript_lives_in_a_python_string():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {start!r}"
        for path in python_files()
        for line, start in script_strings(path.read_text(encoding="utf-8"))
    ]
    assert found == [], (
        "JavaScript in Python strings (move it into a .js file beside the module):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "source",
    [
        'JS = """\nexport default function(component) {\n  const { data } = component;\n}\n"""',
        "HTML = '<p>Hello</p><SCRIPT>alert(1)</SCRIPT>'",
        "def draw(handler):\n    return f\"el.addEventListener('click', {handler})\"",
        "SEND = 'const send = (value) => setStateValue(value);'",
        'IMAGE = \'<img src="x.png" onerror="alert(1)">\'',
        "LINK = '<a href=\"javascript:void(0)\">Play</a>'",
    ],
)
def test_the_guard_finds_a_script_in_a_string(source):
    assert len(script_strings(source)) == 1


def test_the_guard_leaves_prose_alone():
    source = (
        '"""A module that calls `function(a)` => b."""\n\n'
        'class Call:\n    """`function(positional..., name=value...)`."""\n\n'
        'LABEL = "Play the merges one after another"\n'
    )
    assert script_strings(source) == []


def test_every_javascript_file_of_the_package_is_read_beside_it():
    unread = [
        str(path.relative_to(ROOT))
        for path in JS_FILES
        if path.is_relative_to(EXPLORER)
        and not any(
            f'"{path.name}"' in module.read_text(encoding="utf-8") for module in path.parent.glob("*.py")
        )
    ]
    assert [path for path in JS_FILES if path.is_relative_to(EXPLORER)], "no .js file in explorer/"
    assert unread == []


def node_check(source: str, folder: Path) -> subprocess.CompletedProcess:
    """`node --check` of `source` as an ES module (a `.mjs` file: the components' scripts are
    modules, `export default function(component)`)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is missing (Debian: apt-get install nodejs): the JavaScript files are not parsed")
    module = folder / "script.mjs"
    module.write_text(source, encoding="utf-8")
    return subprocess.run([node, "--check", str(module)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("path", JS_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_javascript_file_parses(path, tmp_path):
    checked = node_check(path.read_text(encoding="utf-8"), tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_the_parser_rejects_a_syntax_error(tmp_path):
    checked = node_check(BROKEN, tmp_path)
    assert checked.returncode != 0 and "SyntaxError" in checked.stderr
