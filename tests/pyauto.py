"""Driving a simulated desktop with pyautogui strings only (parse + expand), as the host does."""

from __future__ import annotations

from typing import Any

from drums_gym.actions import Sleep, expand, parse
from drums_gym.local.desktop import Desktop
from drums_gym.solvers import Solver
from drums_gym.solvers.a11y import Node, center, find, walk

__all__ = ["at", "names", "node", "run", "solve", "states"]


def run(desk: Desktop, *lines: str) -> None:
    """Run pyautogui code (one statement per argument, or several per line)."""
    desk.apply(expand(parse("\n".join(lines)), pointer=desk.pointer))


def node(desk: Desktop | Node, role: str, name: str, within: tuple[str, str] | None = None
         ) -> Node:
    """The node ``role``/``name`` of the desktop's tree (inside ``within=(role, name)``)."""
    tree = desk.accessibility() if isinstance(desk, Desktop) else desk
    if within is not None:
        tree = find(tree, *within)
    return find(tree, role, name)


def at(n: Node) -> str:
    """``"x, y"`` of a node's centre, for pyautogui calls."""
    x, y = center(n)
    return f"{x}, {y}"


def names(desk: Desktop, role: str, within: tuple[str, str] | None = None) -> list[str]:
    tree: Any = desk.accessibility()
    if within is not None:
        tree = find(tree, *within)
    return [n["name"] for n in walk(tree) if n["role"] == role]


def states(desk: Desktop, role: str, name: str, within: tuple[str, str] | None = None
           ) -> list[str]:
    return list(node(desk, role, name, within)["states"])


def solve(desk: Desktop, solver: Solver, max_steps: int = 80) -> str:
    """Let ``solver`` drive ``desk`` with the desktop's a11y tree until DONE/FAIL."""
    for _ in range(max_steps):
        action = solver(None, "", {"accessibility": desk.accessibility()})
        if action in ("DONE", "FAIL"):
            return action
        if action == "WAIT":
            desk.apply([Sleep(1.0)])
        else:
            run(desk, action)
    return "TIMEOUT"
