"""Scripted solvers drive a Desktop through pyautogui strings, reading the a11y tree only.

For every task: the oracle scores 1.0, a no-op 0.0, and a wrong solution (built from the
same step builders, so it is just as GUI-driven) 0.0.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable
from pathlib import Path

import pytest
from pyauto import run, solve

import drums_gym.solvers
from drums_gym.local.desktop import Desktop
from drums_gym.local.tasks import CATALOG, get_task
from drums_gym.solvers import SOLVERS, Solver, get_solver, routes
from drums_gym.solvers import a11y as ax
from drums_gym.solvers.base import Check, Step, click, hotkey, write
from drums_gym.solvers.gui import (
    ChmodGui,
    copy_items,
    desktop_icon,
    dock,
    file_icon,
    place,
    rename,
)
from drums_gym.solvers.terminal import shell

HAS_TERMINAL = importlib.util.find_spec("drums_gym.local.desktop.terminal") is not None
needs_terminal = pytest.mark.skipif(not HAS_TERMINAL, reason="the Terminal app is not there yet")


def started(task_id: str, screen: tuple[int, int] | None = None) -> Desktop:
    task = get_task(task_id)
    desk = task.create_desktop(seed=1, screen=screen)
    task.setup(desk)
    return desk


def score(task_id: str, solver: Solver, screen: tuple[int, int] | None = None) -> float:
    desk = started(task_id, screen)
    assert solve(desk, solver) == "DONE"
    return get_task(task_id).check(desk)


CASES = [pytest.param(short, route, id=f"{short}-{route}",
                      marks=[needs_terminal] if route == "terminal" else [])
         for short, route in sorted(SOLVERS) if route != "answer"]  # FAIL: test_os_split


@pytest.mark.parametrize(("short", "route"), CASES)
def test_oracle_scores_one(short: str, route: str) -> None:
    assert score(short, get_solver(short, route)) == 1.0


@pytest.mark.parametrize("short", sorted({s for s, r in SOLVERS if r == "gui"}))
def test_gui_oracles_read_positions_from_the_tree(short: str) -> None:
    assert score(short, get_solver(short, "gui"), screen=(1280, 800)) == 1.0


@pytest.mark.parametrize("task_id", list(CATALOG))
def test_no_op_scores_zero(task_id: str) -> None:
    desk = started(task_id)
    run(desk, "pyautogui.moveTo(700, 500)", "pyautogui.click()", "pyautogui.press('esc')")
    assert get_task(task_id).check(desk) == 0.0


def test_every_task_has_a_solver_and_both_routes_where_both_apply() -> None:
    for task in CATALOG.values():
        assert ("answer" if task.infeasible else "terminal") in routes(task.id)
    gui = {s for s, r in SOLVERS if r == "gui"}
    assert gui == {"e0df059f", "7688b85f", "5ea617a3", "6f56bf42", "23393935", "4d117223",
                   "bedcedc4", "f9be0997", "a4d98375", "3ce045a0", "b6781586", "28cc3b7e",
                   "ec4e3f68"}  # the settings tasks: Settings window, dock menu


# -- wrong solutions ----------------------------------------------------------------

class Plan(Solver):
    """A solver from a list of steps (for the wrong solutions below)."""

    def __init__(self, steps: Iterable[Step]) -> None:
        self._plan = list(steps)
        super().__init__()

    def plan(self) -> Iterable[Step]:
        return self._plan


def active(title: str) -> Check:
    return lambda tree: ax.frame(tree, title, active=True)


WRONG_GUI = {
    "e0df059f": lambda: rename(desktop_icon("todo_list_Jan_1"), "todo_list_Jan_3"),
    "7688b85f": lambda: [  # into Documents instead of done/
        click(desktop_icon("todo.txt")), hotkey("ctrl", "x"), click(dock("Files")),
        click(place("Documents"), check=ax.active_frame),
        hotkey("ctrl", "v", check=active("Documents"))],
    "5ea617a3": lambda: [  # deleted for good instead of restored
        click(dock("Files")), click(place("Trash"), check=ax.active_frame),
        click(file_icon("poster_party_night.webp", "Trash"), button="right",
              check=active("Trash")),
        click(lambda t: ax.find(t, "menu-item", "Delete Permanently"))],
    "6f56bf42": lambda: [  # only dir1 and dir2
        click(dock("Files")), *copy_items(["file1"], "Home"),
        click(file_icon("dir1", "Home"), clicks=2), hotkey("ctrl", "v", check=active("dir1")),
        hotkey("alt", "left"), click(file_icon("dir2", "Home"), clicks=2, check=active("Home")),
        hotkey("ctrl", "v", check=active("dir2"))],
    "23393935": lambda: [  # the whole vacation folder, not the .jpg files
        click(desktop_icon("photos"), clicks=2), *copy_items(["vacation"], "photos"),
        hotkey("ctrl", "l"), write("~/Desktop/cpjpg\n"),
        hotkey("ctrl", "v", check=active("cpjpg"))],
}
class ChmodFirstFileOnly(ChmodGui):
    FILES = ChmodGui.FILES[:1]


WRONG_GUI["4d117223"] = lambda: list(ChmodFirstFileOnly().plan())

WRONG_TERMINAL = {
    "4d117223": ["chmod 644 ~/testDir/file1.txt"],
    "5ced85fc": ["printf '1\\n2\\n3\\n' > ~/output.txt"],
}


@pytest.mark.parametrize("short", sorted(WRONG_GUI))
def test_wrong_gui_solution_scores_zero(short: str) -> None:
    assert score(short, Plan(WRONG_GUI[short]())) == 0.0


@needs_terminal
@pytest.mark.parametrize("short", sorted(WRONG_TERMINAL))
def test_wrong_terminal_solution_scores_zero(short: str) -> None:
    assert score(short, Plan(shell(*WRONG_TERMINAL[short]))) == 0.0


# -- the API --------------------------------------------------------------------------

def test_get_solver_api() -> None:
    s = get_solver("E0DF059F-28a6-4169-924f-b9623e7184cc")
    assert s.route == "gui" and s.task_id.startswith("e0df059f")
    assert get_solver("5ced85fc").route == "terminal"
    with pytest.raises(ValueError, match="route"):
        get_solver("e0df059f", route="mouse")
    with pytest.raises(KeyError, match="no 'gui' solver"):
        get_solver("5ced85fc", route="gui")
    with pytest.raises(KeyError, match="deadbeef"):
        get_solver("deadbeef")
    with pytest.raises(ValueError, match="task_id"):
        get_solver("abc")
    with pytest.raises(ValueError, match="accessibility=True"):
        s(None, "", {})


def test_solver_waits_then_fails_and_resets() -> None:
    s = get_solver("e0df059f")
    empty = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0], "size": [9, 9],
             "states": [], "children": []}
    answers = [s(None, "", {"accessibility": empty}) for _ in range(s.max_waits + 1)]
    assert answers == ["WAIT"] * s.max_waits + ["FAIL"]
    s.reset()
    desk = started("e0df059f")
    assert solve(desk, s) == "DONE" and s(None, "", {"accessibility": {}}) == "DONE"


def test_solvers_import_only_the_action_language() -> None:
    root = Path(drums_gym.solvers.__file__).parent
    for path in root.glob("*.py"):
        for n in ast.walk(ast.parse(path.read_text())):
            if isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
                assert not n.module.startswith("drums_gym") or n.module.startswith(
                    "drums_gym.actions"), (path.name, n.module)
            if isinstance(n, ast.Import):
                assert all(not a.name.startswith("drums_gym.local") for a in n.names)
