"""Python source text for the generated programs, laid out as `ruff format` lays it out (line
length 110 by default), so that a program reads like hand-written code and pastes into any editor.

- `Call` and `Items` (a list or tuple display) are expressions whose arguments are expressions
  (a plain `str` is an expression already written, e.g. `literal(value)`);
- `render(expression, indent)` writes one on one line when it fits, else one argument a line with
  a trailing comma, the arguments laid out the same way in turn;
- `assignment(name, expression)`: `name = expression` the same way;
- `literal(value)`: `repr` of a value, the one way a user's string (a special token, a split
  pattern, a path) is written into a program, so that no string can break out of its literal.

What it does not do: parse or check code (the tests run `ruff format --check` and the programs).
"""

from __future__ import annotations

from dataclasses import dataclass, field

WIDTH = 110
INDENT = "    "


def literal(value: object) -> str:
    """The Python literal of a str, number, bool, None, or a tuple/list of them: `repr`, with a
    string in double quotes when that needs no escape (as `ruff format` writes it)."""
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and value.count('"') <= value.count("'"):
            return _double_quoted(text[1:-1])
        return text
    if isinstance(value, tuple):
        return flat(Items(tuple(literal(item) for item in value), "()"))
    if isinstance(value, list):
        return flat(Items(tuple(literal(item) for item in value)))
    return repr(value)


def _double_quoted(body: str) -> str:
    """The single-quoted literal body `body` (repr's escapes) between double quotes: its escaped
    single quotes unescaped, its double quotes escaped."""
    out, index = [], 0
    while index < len(body):
        character = body[index]
        if character == "\\":
            pair = body[index : index + 2]
            out.append("'" if pair == "\\'" else pair)
            index += 2
            continue
        out.append('\\"' if character == '"' else character)
        index += 1
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class Call:
    """`function(positional..., name=value...)`."""

    function: str
    positional: tuple[Expression, ...] = ()
    keywords: tuple[tuple[str, Expression], ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Items:
    """A list (`[...]`) or tuple (`(...)`) display of expressions."""

    items: tuple[Expression, ...]
    brackets: str = "[]"


Expression = str | Call | Items


def _arguments(expression: Call | Items) -> list[tuple[str, Expression]]:
    """(prefix, argument) pairs: "name=" for a keyword argument, "" otherwise."""
    if isinstance(expression, Items):
        return [("", item) for item in expression.items]
    return [("", item) for item in expression.positional] + [
        (f"{name}=", value) for name, value in expression.keywords
    ]


def _brackets(expression: Call | Items) -> tuple[str, str]:
    if isinstance(expression, Items):
        return expression.brackets[0], expression.brackets[1]
    return f"{expression.function}(", ")"


def flat(expression: Expression) -> str:
    """The expression on one line."""
    if isinstance(expression, str):
        return expression
    opening, closing = _brackets(expression)
    parts = [prefix + flat(argument) for prefix, argument in _arguments(expression)]
    if isinstance(expression, Items) and expression.brackets == "()" and len(parts) == 1:
        return f"({parts[0]},)"
    return opening + ", ".join(parts) + closing


def render(expression: Expression, indent: int = 0, lead: int = 0, trail: int = 0) -> str:
    """The expression at `indent` levels, `lead` characters already on its first line and `trail`
    to follow its last (a comma): one line if it fits in WIDTH, else one argument a line."""
    one_line = flat(expression)
    if isinstance(expression, str) or len(INDENT) * indent + lead + len(one_line) + trail <= WIDTH:
        return one_line
    opening, closing = _brackets(expression)
    inner = INDENT * (indent + 1)
    lines = [opening]
    for prefix, argument in _arguments(expression):
        lines.append(inner + prefix + render(argument, indent + 1, len(prefix), 1) + ",")
    lines.append(INDENT * indent + closing)
    return "\n".join(lines)


def assignment(name: str, expression: Expression, indent: int = 0) -> str:
    """`name = expression`, laid out by `render`."""
    return f"{INDENT * indent}{name} = {render(expression, indent, len(name) + 3)}"


def statement(expression: Expression, indent: int = 0) -> str:
    """An expression statement (a call), laid out by `render`."""
    return INDENT * indent + render(expression, indent)
