"""The import graph of a package, and the checks `test_layers.py` runs on it.

Every function takes the package directory (``.../drums_gym``) as an argument, so the
planted-violation tests run the very same checks on a temporary copy of the package.

- `imports` reads what each module imports (ast, relative imports resolved, ``from p
  import m`` counted as importing the submodule ``p.m`` when it is one and as importing
  ``p`` itself otherwise), with where it happens: at module level, inside a function
  (a lazy import) or under ``if TYPE_CHECKING:`` (never executed).
- `static_violations` checks those imports against a table of `Layer` rows.
- `runtime_violations` imports a layer's modules in a fresh interpreter with the packages
  it must not use blocked in ``sys.modules`` and reports project modules it loaded that
  are not below it.
- `import_cycles` answers the cycles of the graph of executed imports.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "Import",
    "Layer",
    "Probe",
    "compare_cycles",
    "import_cycles",
    "imports",
    "layer_of",
    "modules",
    "present",
    "probe",
    "runtime_violations",
    "static_violations",
]

Kind = Literal["module", "function", "typing"]


@dataclass(frozen=True)
class Layer:
    """One row of the layer table.

    ``modules``: the project modules (and packages, with everything under them) forming
    the layer. ``uses``: the layers it may import (and, transitively, what those use).
    ``lazy``: layers it may import only inside a function (never at import time; not
    loaded by importing the layer). ``blocked``: third-party packages it must not load
    (blocked in ``sys.modules`` for the runtime check, and never imported by its own code).
    ``banned``: third-party packages its own code must not import, though what it uses
    may load them (``envs`` never touches httpx; the client it uses does).
    ``stdlib_only``: importing the layer loads nothing but the standard library.
    ``optional``: third-party packages the layer's modules need from an extra; a module
    that cannot import because one is not installed is left out of the runtime check
    (CI's integrations venv, which has them, runs it whole).
    """

    name: str
    modules: tuple[str, ...]
    uses: tuple[str, ...] = ()
    lazy: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()
    banned: tuple[str, ...] = ()
    stdlib_only: bool = False
    optional: tuple[str, ...] = ()


@dataclass(frozen=True)
class Import:
    """``source`` imports ``target`` at ``line``; ``kind`` says when that runs."""

    source: str
    target: str
    line: int
    kind: Kind

    def where(self) -> str:
        return f"{self.source}:{self.line}"


def modules(package: Path) -> dict[str, Path]:
    """Every module of the package at ``package`` by dotted name (packages by their name)."""
    found: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, Kind]]:
    """Every import statement with when it runs."""

    def walk(node: ast.AST, kind: Kind) -> Iterator[tuple[ast.Import | ast.ImportFrom, Kind]]:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, kind
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from walk(child, "typing")
            for child in node.orelse:
                yield from walk(child, kind)
            return
        inner: Kind = kind
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and kind != "typing":
            inner = "function"
        for child in ast.iter_child_nodes(node):
            yield from walk(child, inner)

    yield from walk(tree, "module")


def imports(package: Path) -> list[Import]:
    """What each module of ``package`` imports (third-party names as written)."""
    known = modules(package)
    found: list[Import] = []
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        tree = ast.parse(path.read_text(), filename=str(path))
        for node, kind in _import_nodes(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    parent = ".".join(base + ([node.module] if node.module else []))
                else:
                    parent = node.module or ""
                for alias in node.names:
                    sub = f"{parent}.{alias.name}"
                    targets.append(sub if sub in known else parent)
            found.extend(Import(name, t, node.lineno, kind) for t in dict.fromkeys(targets))
    return found


def present(layer: Layer, package: Path) -> bool:
    """Whether any module of the layer exists yet (rows for future layers are skipped)."""
    return any(layer_of(m, [layer]) is layer for m in modules(package))


def layer_of(module: str, layers: Iterable[Layer]) -> Layer | None:
    """The layer ``module`` belongs to (the longest matching prefix), or None."""
    best: tuple[int, Layer | None] = (0, None)
    for layer in layers:
        for prefix in layer.modules:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best[0]:
                best = (len(prefix), layer)
    return best[1]


def _closure(layer: Layer, by_name: Mapping[str, Layer]) -> set[str]:
    """Names of the layers ``layer`` may use at import time, transitively (not lazily)."""
    seen: set[str] = set()
    todo = list(layer.uses)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            if name in by_name:
                todo.extend(by_name[name].uses)
    return seen


def static_violations(package: Path, layers: Sequence[Layer], *, root: str) -> list[str]:
    """Imports, read from the source, that break the table (one sentence each).

    A module of a layer may import its own layer and the layers it uses; the bare root
    package ``root`` is the top of the graph and no layer may import it (``from root
    import x`` where ``x`` is not a submodule is an import of the root). Modules that
    belong to no layer are reported too, so a new module gets a row.
    """
    by_name = {layer.name: layer for layer in layers}
    problems: list[str] = []
    for name in modules(package):
        if name != root and layer_of(name, layers) is None:
            problems.append(f"{name} belongs to no layer of the table")
    for imp in imports(package):
        layer = layer_of(imp.source, layers)
        if layer is None:
            continue
        top = imp.target.split(".")[0]
        if top != root:
            if top in layer.blocked or top in layer.banned:
                problems.append(f"{imp.where()} imports {imp.target} ({layer.name} must not)")
            continue
        if imp.target == root:
            problems.append(
                f"{imp.where()} imports the package root {root} (the top), from layer "
                f"{layer.name}"
            )
            continue
        target = layer_of(imp.target, layers)
        if target is None or target is layer:
            continue
        if target.name in _closure(layer, by_name):
            continue
        if target.name in layer.lazy and imp.kind == "function":
            continue
        how = {"module": "at import time", "function": "in a function", "typing": "for typing"}
        problems.append(
            f"{imp.where()} imports {imp.target} {how[imp.kind]}: layer {layer.name} may not "
            f"use {target.name}"
        )
    return problems


_PROBE = r"""
import importlib, json, sys
root, out = sys.argv[1], sys.argv[2]
blocked, names = json.loads(sys.argv[3]), json.loads(sys.argv[4])
sys.path.insert(0, root)
for name in blocked:
    sys.modules[name] = None
before = set(sys.modules)
errors = []
for name in names:
    try:
        importlib.import_module(name)
    except ImportError as exc:
        errors.append(f"{name}: {type(exc).__name__}: {exc}")
loaded = sorted(set(sys.modules) - before)
origin = getattr(sys.modules.get(names[0].split(".")[0]), "__file__", None)
with open(out, "w") as f:
    json.dump({"errors": errors, "loaded": loaded, "origin": origin}, f)
"""


@dataclass(frozen=True)
class Probe:
    """What importing some modules in a fresh interpreter did."""

    errors: list[str]  # "<module>: <ImportError type>: <message>" per failed import
    loaded: list[str]  # every module it loaded (not those the interpreter starts with)
    origin: str | None  # the file the package was imported from


def probe(package: Path, names: Sequence[str], *, blocked: Iterable[str], tmp: Path) -> Probe:
    """Import ``names`` (in order) in a fresh isolated interpreter that finds the package
    at ``package`` first, with ``blocked`` set to None in ``sys.modules`` (importing one
    of those raises ImportError). ``tmp``: a scratch directory for the child's report."""
    fd, name = tempfile.mkstemp(prefix="probe-", suffix=".json", dir=tmp)
    os.close(fd)
    out = Path(name)
    subprocess.run(
        [sys.executable, "-I", "-c", _PROBE, str(package.parent), str(out),
         json.dumps(list(blocked)), json.dumps(list(names))],
        check=True, timeout=120,
    )
    report = json.loads(out.read_text())
    return Probe(report["errors"], report["loaded"], report["origin"])


def runtime_violations(
    package: Path,
    layers: Sequence[Layer],
    layer: Layer,
    *,
    root: str,
    tmp: Path,
    always: Iterable[str] = (),
) -> list[str]:
    """Import every module of ``layer`` in a fresh interpreter with its blocked packages
    blocked; answer what went wrong (import errors, project modules loaded that are not
    the layer, what it uses, the root or ``always`` (what importing the root always
    loads); third-party modules of a stdlib-only layer).
    """
    names = [
        m for m in modules(package)
        if layer_of(m, layers) is layer and m.rpartition(".")[2] != "__main__"
    ]
    if not names:
        return []
    by_name = {row.name: row for row in layers}
    allowed = {layer.name, *_closure(layer, by_name)}
    exempt = {root, *always}
    report = probe(package, names, blocked=layer.blocked, tmp=tmp)
    missing = tuple(f": ModuleNotFoundError: No module named '{name}" for name in layer.optional)
    problems = [e for e in report.errors if not any(m in e for m in missing)]
    expected = str(package / "__init__.py")
    if report.origin != expected:
        problems.append(f"imported {root} from {report.origin}, not {expected}")
    for module in report.loaded:
        top = module.split(".")[0]
        if top == root:
            owner = layer_of(module, layers)
            if module not in exempt and (owner is None or owner.name not in allowed):
                problems.append(
                    f"importing {layer.name} loaded {module}"
                    f" ({owner.name if owner else 'no layer'}), which it may not use"
                )
        elif layer.stdlib_only and top not in sys.stdlib_module_names and not top.startswith("_"):
            problems.append(f"importing {layer.name} loaded {module}, not the standard library")
    return problems


def compare_cycles(
    found: Iterable[frozenset[str]], known: Iterable[frozenset[str]]
) -> tuple[list[list[str]], list[list[str]]]:
    """``(new, gone)``: cycles found that are not known, and known cycles not found
    (each sorted), so that an allowlist of known cycles can only shrink."""
    found, known = list(found), list(known)
    new = [sorted(c) for c in found if c not in known]
    gone = [sorted(c) for c in known if c not in found]
    return new, gone


def import_cycles(package: Path) -> list[frozenset[str]]:
    """The cycles of the graph of executed imports (module level and in functions; not
    ``TYPE_CHECKING``), each as the set of modules of one strongly connected component."""
    known = modules(package)
    graph: dict[str, set[str]] = {name: set() for name in known}
    for imp in imports(package):
        if imp.kind != "typing" and imp.target in known:
            graph[imp.source].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[frozenset[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                cycles.append(frozenset(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for node in sorted(graph):
            if node not in index:
                connect(node)
    finally:
        sys.setrecursionlimit(limit)
    return cycles
