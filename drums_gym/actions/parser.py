"""Parse pyautogui code strings with `ast` against an allowlist. Nothing is ever executed.

The code is turned into a syntax tree and read node by node: only the statements, calls and
literal arguments listed below become actions; anything else raises `ActionError` naming the
construct and its line. Literal values are read from the tree by this module itself.

Allowed:

- ``import pyautogui``, ``import time``, ``import pyautogui, time`` (no aliases, no ``from``)
- ``pass``
- calls ``pyautogui.<function>(...)`` for the functions in
  :data:`drums_gym.actions.signatures.SIGNATURES`, and ``time.sleep(seconds)``, whose
  arguments are literals: int, float, str, bool, None, a unary minus or plus before a number,
  f-strings without expressions, and tuples/lists of those.
"""

from __future__ import annotations

import ast
import threading
import warnings
from typing import NoReturn

from drums_gym.actions.action import Action
from drums_gym.actions.errors import ActionError
from drums_gym.actions.limits import MAX_CODE_CHARS, MAX_EVENTS, MAX_STATEMENTS
from drums_gym.actions.signatures import SIGNATURES, ArgumentProblem, LiteralValue

__all__ = ["parse", "validate"]

_ALLOWED_MODULES = ("pyautogui", "time")
_HINT = "only pyautogui.* and time.sleep calls with literal arguments"
_ALLOWED_FUNCTIONS = ", ".join(
    name.removeprefix("pyautogui.") for name in SIGNATURES if name.startswith("pyautogui.")
)

_STATEMENTS = {
    "Assign": "assignment",
    "AugAssign": "augmented assignment",
    "AnnAssign": "annotated assignment",
    "For": "for loop",
    "AsyncFor": "async for loop",
    "While": "while loop",
    "If": "if statement",
    "With": "with statement",
    "AsyncWith": "async with statement",
    "FunctionDef": "function definition",
    "AsyncFunctionDef": "async function definition",
    "ClassDef": "class definition",
    "Return": "return statement",
    "Delete": "del statement",
    "Raise": "raise statement",
    "Try": "try statement",
    "TryStar": "try statement",
    "Assert": "assert statement",
    "Global": "global statement",
    "Nonlocal": "nonlocal statement",
    "Break": "break statement",
    "Continue": "continue statement",
    "Match": "match statement",
    "TypeAlias": "type alias statement",
}

_EXPRESSIONS = {
    "Lambda": ("lambda", "lambda"),
    "ListComp": ("comprehension", "list comprehension"),
    "SetComp": ("comprehension", "set comprehension"),
    "DictComp": ("comprehension", "dict comprehension"),
    "GeneratorExp": ("comprehension", "generator expression"),
    "NamedExpr": ("walrus", "assignment expression (:=)"),
    "Subscript": ("subscript", "subscript"),
    "Slice": ("subscript", "slice"),
    "BoolOp": ("operator", "boolean operator"),
    "Compare": ("operator", "comparison"),
    "IfExp": ("expression", "conditional expression"),
    "Dict": ("expression", "dict display"),
    "Set": ("expression", "set display"),
    "Starred": ("starred", "* unpacking"),
    "Await": ("expression", "await"),
    "Yield": ("expression", "yield"),
    "YieldFrom": ("expression", "yield from"),
    "FormattedValue": ("f-string", "f-string with expressions"),
    "JoinedStr": ("f-string", "f-string with expressions"),
}

_OPERATORS = {
    "Add": "+",
    "Sub": "-",
    "Mult": "*",
    "MatMult": "@",
    "Div": "/",
    "FloorDiv": "//",
    "Mod": "%",
    "Pow": "**",
    "LShift": "<<",
    "RShift": ">>",
    "BitOr": "|",
    "BitXor": "^",
    "BitAnd": "&",
    "USub": "-",
    "UAdd": "+",
    "Not": "not",
    "Invert": "~",
}

# warnings.catch_warnings() swaps process-wide state: serialise our own uses of it
_WARNINGS_LOCK = threading.Lock()


def parse(code: str) -> list[Action]:
    """Parse a pyautogui code string into actions, refusing everything outside the allowlist.

    Statements may be separated by newlines or ``;``. Raises `ActionError` (a ``ValueError``)
    whose ``construct`` names what was refused and whose message names the line.

    >>> parse("import pyautogui; pyautogui.click(100, 200, button='right')")
    [Action(name='click', args=(('x', 100), ('y', 200), ('clicks', 1), ('interval', 0.0), \
('button', 'right')), lineno=1)]
    >>> parse("import os")
    Traceback (most recent call last):
    ...
    drums_gym.actions.errors.ActionError: line 1: import of 'os' is not allowed (only pyautogui \
and time)
    """
    if not isinstance(code, str):
        raise ActionError(f"action code must be a str, not {type(code).__name__}", "type")
    if len(code) > MAX_CODE_CHARS:
        raise ActionError(
            f"code is {len(code)} characters long; the limit is {MAX_CODE_CHARS}", "limit"
        )
    module = _parse_module(code)
    if len(module.body) > MAX_STATEMENTS:
        raise ActionError(
            f"code has {len(module.body)} statements; the limit is {MAX_STATEMENTS}", "limit"
        )
    actions: list[Action] = []
    try:
        for statement in module.body:
            action = _statement(statement)
            if action is not None:
                actions.append(action)
    except RecursionError:
        raise ActionError("code is nested too deeply", "limit") from None
    _check_event_count(actions)
    return actions


def validate(code: str) -> None:
    """Raise `ActionError` when ``parse(code)`` would; return None otherwise.

    >>> validate("pyautogui.press('enter')")
    """
    parse(code)


# --- module and statements --------------------------------------------------------------------


def _parse_module(code: str) -> ast.Module:
    if "\0" in code:  # the parser refuses NUL too, without a position (Python < 3.12)
        index = code.index("\0")
        line = code.count("\n", 0, index) + 1
        column = index - (code.rfind("\n", 0, index) + 1) + 1
        raise ActionError(
            f"syntax error at line {line}, column {column}: code contains a NUL character",
            "syntax",
            line,
        )
    try:
        with _WARNINGS_LOCK, warnings.catch_warnings():
            # invalid escape sequences warn; the parser's warnings are not the policy's business
            warnings.simplefilter("ignore")
            return ast.parse(code, mode="exec")
    except SyntaxError as exc:
        where = f" at line {exc.lineno}, column {exc.offset}" if exc.lineno else ""
        raise ActionError(f"syntax error{where}: {exc.msg}", "syntax", exc.lineno) from None
    except ValueError as exc:  # e.g. an int literal over the int/str conversion digit limit
        raise ActionError(f"syntax error: {exc}", "syntax") from None
    except (RecursionError, MemoryError):
        raise ActionError("code is nested too deeply to parse", "limit") from None


def _fail(node: ast.AST, construct: str, detail: str) -> NoReturn:
    lineno = getattr(node, "lineno", None)
    prefix = f"line {lineno}: " if lineno is not None else ""
    raise ActionError(prefix + detail, construct, lineno)


def _statement(node: ast.stmt) -> Action | None:
    if isinstance(node, ast.Pass):
        return None
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in _ALLOWED_MODULES:
                _fail(
                    node,
                    "import",
                    f"import of {alias.name!r} is not allowed (only pyautogui and time)",
                )
            if alias.asname is not None:
                _fail(
                    node,
                    "import",
                    f"import alias {alias.asname!r} is not allowed (write `import {alias.name}`)",
                )
        return None
    if isinstance(node, ast.ImportFrom):
        _fail(
            node,
            "import",
            "from-import is not allowed (write `import pyautogui` and call pyautogui.<function>)",
        )
    if _is_setting(node):
        return None
    if isinstance(node, ast.Expr):
        if isinstance(node.value, ast.Call):
            return _call(node.value)
        _literal(node.value)  # refuses non-literals with their own construct
        _fail(
            node, "statement", "a bare literal is not allowed (expression statements must be calls)"
        )
    kind = _STATEMENTS.get(type(node).__name__, f"{type(node).__name__} statement")
    _fail(
        node,
        "statement",
        f"{kind} is not allowed ({_HINT}, `import pyautogui`, `import time` and pass)",
    )


#: pyautogui settings agents set in their preambles (OSWorld's do); accepted as no-ops
_SETTINGS = frozenset(
    {"FAILSAFE", "PAUSE", "MINIMUM_DURATION", "MINIMUM_SLEEP", "DARWIN_CATCH_UP_TIME"}
)


def _is_setting(node: ast.stmt) -> bool:
    """``pyautogui.FAILSAFE = False`` and the like: a literal assigned to a known setting."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return False
    target = node.targets[0]
    if not (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "pyautogui"
        and target.attr in _SETTINGS
    ):
        return False
    value = _literal(node.value)
    if isinstance(value, bool) or (isinstance(value, (int, float)) and 0 <= value <= 60):
        return True
    _fail(node, "argument", f"pyautogui.{target.attr} must be a bool or a number in [0, 60]")


# --- calls ------------------------------------------------------------------------------------


def _call(node: ast.Call) -> Action:
    signature = SIGNATURES[_callee(node.func)]
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            _fail(arg, "starred", f"* unpacking in a call to {signature.public}() is not allowed")
    keywords: list[str] = []
    for keyword in node.keywords:
        if keyword.arg is None:
            _fail(
                keyword.value,
                "starred",
                f"** unpacking in a call to {signature.public}() is not allowed",
            )
        keywords.append(keyword.arg)
    try:
        signature.check_names(len(node.args), keywords)
    except ArgumentProblem as problem:
        _fail(node, "argument", str(problem))
    positional = [_literal(arg) for arg in node.args]
    values = {keyword.arg: _literal(keyword.value) for keyword in node.keywords if keyword.arg}
    try:
        name, args = signature.bind(positional, values)
    except ArgumentProblem as problem:
        _fail(node, "argument", str(problem))
    return Action(name, args, node.lineno)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for an attribute chain over a name, else None (iterative: chains can be long)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def _callee(func: ast.expr) -> str:
    """The allowed function a call's callee names, or raise."""
    if isinstance(func, ast.Name):
        _fail(func, "call", f"call to {func.id}() is not allowed ({_HINT})")
    if not isinstance(func, ast.Attribute):
        _refuse(func)
    chain = _dotted(func)
    if chain is None:
        _refuse(func)
    if chain in SIGNATURES:
        return chain
    module, _, rest = chain.partition(".")
    if module == "pyautogui" and "." not in rest:
        _fail(
            func,
            "call",
            f"call to {chain}() is not allowed (allowed pyautogui functions: {_ALLOWED_FUNCTIONS})",
        )
    if module == "time" and "." not in rest:
        _fail(func, "call", f"call to {chain}() is not allowed (only time.sleep)")
    _fail(func, "attribute", f"attribute chain {chain} is not allowed")


# --- literals and refusals --------------------------------------------------------------------


def _literal(node: ast.expr) -> LiteralValue:
    """The value of a literal argument, read from the tree (never evaluated)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        kind = "Ellipsis (...)" if value is Ellipsis else f"{type(value).__name__} literal"
        _fail(node, "literal", f"{kind} is not allowed (literals are int, float, str, bool, None)")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if isinstance(operand, ast.Constant):
            number = _literal(operand)
            if isinstance(number, (int, float)) and not isinstance(number, bool):
                return -number if isinstance(node.op, ast.USub) else number
        symbol = _OPERATORS[type(node.op).__name__]
        _fail(node, "operator", f"unary {symbol} is only allowed before a number")
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_literal(element) for element in node.elts)
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for part in node.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                _fail(node, "f-string", "f-string with expressions is not allowed")
            parts.append(part.value)
        return "".join(parts)
    _refuse(node, in_argument=True)


def _refuse(node: ast.expr, *, in_argument: bool = False) -> NoReturn:
    """Raise the ActionError for an expression outside the allowlist."""
    if isinstance(node, ast.Name):
        _fail(node, "name", f"name {node.id!r} is not allowed ({_HINT})")
    if isinstance(node, ast.Attribute):
        chain = _dotted(node)
        if chain is not None:
            _fail(node, "attribute", f"attribute chain {chain} is not allowed")
        root = _root(node)
        if isinstance(root, ast.Constant):
            _fail(node, "attribute", "attribute access on a literal is not allowed")
        _refuse(root, in_argument=in_argument)
    if isinstance(node, ast.Call):
        func = node.func
        while isinstance(func, ast.Call):  # f()()(): iterative, calls can nest deeply
            func = func.func
        name = func.id if isinstance(func, ast.Name) else _dotted(func)
        if name is None:
            _refuse(func, in_argument=in_argument)
        where = " as an argument (arguments must be literals)" if in_argument else ""
        _fail(node, "call", f"call to {name}() is not allowed{where}")
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        symbol = _OPERATORS.get(type(node.op).__name__, type(node.op).__name__)
        _fail(node, "operator", f"operator {symbol} is not allowed (arguments must be literals)")
    construct, kind = _EXPRESSIONS.get(
        type(node).__name__, ("expression", f"{type(node).__name__} expression")
    )
    _fail(node, construct, f"{kind} is not allowed")


# --- limits -----------------------------------------------------------------------------------


def _check_event_count(actions: list[Action]) -> None:
    count = 0
    for action in actions:
        for _event in action.iter_events((0, 0)):  # the count does not depend on the pointer
            count += 1
            if count > MAX_EVENTS:
                raise ActionError(
                    f"line {action.lineno}: code expands to more than {MAX_EVENTS} input events",
                    "limit",
                    action.lineno,
                )
