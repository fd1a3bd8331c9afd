"""No code under drums_gym/ reads the call stack to guess what a caller will do (issue 23):
the step limit is the env's own, and a wrapper that truncates is scored by
`VerifyOnTruncation` outside it. The scan is ast-based (names, attributes, imports), and
a planted frame walk shows it fails."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "drums_gym"
#: attributes and functions that reach frames: sys._getframe, frame.f_locals / f_back /
#: f_globals, inspect.stack / currentframe / getouterframes / trace, traceback.extract_stack
FRAME_ATTRIBUTES = {"_getframe", "f_locals", "f_back", "f_globals", "currentframe",
                    "getouterframes", "getinnerframes", "extract_stack", "walk_stack"}
INSPECT_STACK = {"stack", "trace"}


def stack_reads(package: Path) -> list[str]:
    """``path:line: what`` for every place a module of ``package`` reaches a frame."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            what = None
            if isinstance(node, ast.Attribute):
                if node.attr in FRAME_ATTRIBUTES:
                    what = node.attr
                elif (node.attr in INSPECT_STACK and isinstance(node.value, ast.Name)
                      and node.value.id == "inspect"):
                    what = f"inspect.{node.attr}"
            elif isinstance(node, ast.ImportFrom) and node.module in ("sys", "inspect"):
                names = {a.name for a in node.names} & (FRAME_ATTRIBUTES | INSPECT_STACK)
                what = ", ".join(sorted(names)) or None
            if what:
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {what}")
    return found


def test_no_module_reads_the_call_stack():
    assert stack_reads(PACKAGE) == []


def test_a_planted_frame_walk_is_found(tmp_path):
    planted = tmp_path / "drums_gym"
    (planted / "envs").mkdir(parents=True)
    (planted / "envs" / "clean.py").write_text("x = 1\n")
    (planted / "envs" / "guess.py").write_text(
        "import sys\nimport inspect\nfrom sys import _getframe\n\n"
        "def outer():\n    frame = sys._getframe(1)\n    return frame.f_locals.get('self')\n\n"
        "def callers():\n    return inspect.stack()\n"
    )
    found = stack_reads(planted)
    assert sorted(line.split(": ", 1)[1] for line in found) == [
        "_getframe", "_getframe", "f_locals", "inspect.stack"], found
    assert all(line.startswith("drums_gym/envs/guess.py:") for line in found)
