"""The desktop simulator's modules say what they are, and no component casts ``self``.

`Desktop` holds the state; its parts (mouse, keyboard, drag and drop, menus, renaming,
icon actions, terminals) are components that hold a reference to it. These checks read the
sources with `ast`; each is shown to fail on a planted violation.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import drums_gym
from drums_gym.local.desktop import Desktop

DESKTOP_PKG = Path(drums_gym.__file__).parent / "local" / "desktop"
PROJECT_NAMES = {p.stem for p in Path(drums_gym.__file__).parent.iterdir()
                 if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists())}


def naming_problems(folder: Path) -> list[str]:
    """Modules of ``folder`` (not subpackages) named like a stdlib or a drums_gym module."""
    out = []
    for path in sorted(folder.glob("*.py")):
        name = path.stem
        if name in sys.stdlib_module_names:
            out.append(f"{path.name} shadows the standard library's {name}")
        if name in PROJECT_NAMES - {"__init__"}:
            out.append(f"{path.name} is named like drums_gym.{name}")
    return out


def self_casts(folder: Path) -> list[str]:
    """``cast(..., self)`` calls and classes that re-declare the desktop's state as mixins."""
    out = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "cast"
                    and any(isinstance(a, ast.Name) and a.id == "self" for a in node.args)):
                out.append(f"{path.name}:{node.lineno} casts self")
    return out


def test_desktop_modules_do_not_shadow_stdlib_or_project_names() -> None:
    assert naming_problems(DESKTOP_PKG) == []


def test_naming_check_catches_a_planted_module(tmp_path: Path) -> None:
    (tmp_path / "actions.py").write_text('"""A mixin."""\n')
    (tmp_path / "glob.py").write_text('"""Globs."""\n')
    problems = naming_problems(tmp_path)
    assert any("actions.py is named like drums_gym.actions" in p for p in problems)
    assert any("glob.py shadows" in p for p in problems)


def test_no_desktop_module_casts_self() -> None:
    assert self_casts(DESKTOP_PKG) == []


def test_cast_check_catches_a_planted_cast(tmp_path: Path) -> None:
    (tmp_path / "mixin.py").write_text(
        "from typing import cast\n\nclass M:\n"
        "    def f(self):\n        return cast('Desktop', self).fs\n")
    assert self_casts(tmp_path) == ["mixin.py:5 casts self"]


def test_desktop_is_one_class_with_components_not_mixins() -> None:
    """Desktop derives from object only; each component points back at its desktop."""
    assert Desktop.__bases__ == (object,)
    desk = Desktop()
    for part in (desk.mouse, desk.keyboard, desk.dnd, desk.menus, desk.rename_flow,
                 desk.icon_actions, desk.terminals):
        assert part.desk is desk
    twin = desk.clone()
    for part in (twin.mouse, twin.keyboard, twin.dnd, twin.menus, twin.rename_flow,
                 twin.icon_actions, twin.terminals):
        assert part.desk is twin
