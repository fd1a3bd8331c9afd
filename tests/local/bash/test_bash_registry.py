"""The simulated bash's command registry: commands by declaration, no global table, and a
package whose modules import without a cycle."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from drums_gym.local.desktop import bash as bash_pkg
from drums_gym.local.desktop.bash import BashSession
from drums_gym.local.desktop.bash.commands import standard_commands
from drums_gym.local.desktop.bash.context import Ctx
from drums_gym.local.desktop.bash.interp import Interpreter
from drums_gym.local.desktop.bash.registry import Args, Opts, Registry, command
from drums_gym.local.desktop.fs import FileSystem

PKG = Path(bash_pkg.__file__).parent


def _imports(path: Path, package: str) -> set[str]:
    """Project modules ``path`` imports at run time (``TYPE_CHECKING`` blocks excluded)."""
    tree = ast.parse(path.read_text())
    out: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(a.name for a in node.names)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child])

    visit(tree.body)
    return out


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state and (found := dfs(m)) is not None:
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := dfs(n)) is not None:
            return found
    return None


def _graph(folder: Path) -> dict[str, set[str]]:
    names = {p.stem for p in folder.glob("*.py")}
    return {p.stem: _imports(p, "") & names for p in folder.glob("*.py")}


def test_bash_package_has_no_import_cycle() -> None:
    assert _cycle(_graph(PKG)) is None


def test_cycle_check_catches_a_planted_cycle(tmp_path: Path) -> None:
    for p in PKG.glob("*.py"):
        (tmp_path / p.name).write_text(p.read_text())
    # Today's main: interp -> commands -> cmd_core -> interp.
    for name, line in (("cmd_core", "from .interp import BreakLoop"),
                       ("interp", "from .commands import standard_commands")):
        f = tmp_path / f"{name}.py"
        text = f.read_text().replace("from .context import", f"{line}\nfrom .context import", 1)
        f.write_text(text)
    found = _cycle(_graph(tmp_path))
    assert found is not None and "interp" in found and "cmd_core" in found


IMPORT_EACH_FIRST = """
import importlib, json, sys
package, names = sys.argv[1], sys.argv[2:]
failed = {}
for name in names:
    for loaded in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[loaded]  # the package afresh: this module is the first one asked for
    try:
        importlib.import_module(f"{package}.{name}")
    except ImportError as exc:
        failed[name] = str(exc)
print(json.dumps(failed))
"""


def modules_that_fail_to_import_first(
    package: str, names: list[str], cwd: Path | None = None
) -> dict[str, str]:
    """Each module of ``package`` imported as the first of it (the package reloaded before
    each), in a fresh interpreter: name -> the ImportError of those that fail."""
    done = subprocess.run([sys.executable, "-c", IMPORT_EACH_FIRST, package, *names],
                          capture_output=True, text=True, timeout=300, check=False, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_every_bash_module_imports_alone() -> None:
    names = [info.name for info in pkgutil.iter_modules([str(PKG)])]
    assert len(names) > 20
    assert modules_that_fail_to_import_first(bash_pkg.__name__, names) == {}


def test_a_module_that_fails_when_imported_first_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "__init__.py").write_text("")
    (planted / "a.py").write_text("from .b import B\nA = 1\n")
    (planted / "b.py").write_text("from .a import A\nB = 2\n")
    failed = modules_that_fail_to_import_first("planted", ["a", "b"], cwd=tmp_path)
    assert sorted(failed) == ["a", "b"] and "circular import" in failed["a"], failed


def test_commands_reach_the_interpreters_registry_not_a_global() -> None:
    """A registry given to the interpreter is what ``type``, ``which``, ``sudo`` and the
    command lookup see: a command added there runs and is known; nothing else is."""

    @command("greet", opts=Opts("l", {"loud": "l"}, with_value="", usage_status=2))
    def greet(ctx: Ctx, a: Args) -> int:
        ctx.out(("HELLO" if "l" in a.flags else "hello") + " " + " ".join(a.operands) + "\n")
        return 0

    sh = BashSession(FileSystem())
    reg = standard_commands().adding(greet)
    interp = Interpreter(sh.state, reg)
    from drums_gym.local.desktop.bash.context import IO

    io = IO()
    assert interp.run_source("greet -l you; type greet; which greet", io) == 0
    assert "".join(io.out) == "HELLO you\ngreet is /usr/bin/greet\n/usr/bin/greet\n"
    io = IO()
    assert interp.run_source("greet -x", io) == 2  # the usage error, printed by the decorator
    assert "".join(io.err) == ("greet: invalid option -- 'x'\n"
                               "Try 'greet --help' for more information.\n")
    # The standard session does not know it: no table was mutated.
    assert sh.submit("greet").output == "bash: greet: command not found\n"
    assert "greet" not in standard_commands()
    bare = Interpreter(sh.state, Registry([greet]))
    io = IO()
    bare.run_source("ls", io)
    assert "".join(io.err) == "bash: ls: command not found\n"


def test_builtins_and_programs_are_declared() -> None:
    sh = BashSession(FileSystem())
    assert sh.submit("type cd echo ls").output == (
        "cd is a shell builtin\necho is a shell builtin\nls is /usr/bin/ls\n")
    assert sh.submit("which ls echo; which cd; echo $?").output == (
        "/usr/bin/ls\n/usr/bin/echo\n1\n")
    reg = standard_commands()
    assert reg["dir"] is reg["ls"] and reg["egrep"] is reg["grep"]


@pytest.mark.parametrize("line, err", [
    ("cat -z", "cat: invalid option -- 'z'"),
    ("head --bogus", "head: unrecognized option '--bogus'"),
    ("sort -k", "sort: invalid option -- 'k'"),
    ("grep -e", "grep: option requires an argument -- 'e'"),
])
def test_usage_errors_come_from_one_place(line: str, err: str) -> None:
    out = BashSession(FileSystem()).submit(line).output
    prog = line.split()[0]
    assert out == f"{err}\nTry '{prog} --help' for more information.\n"
