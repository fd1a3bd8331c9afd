"""Scripted solvers: an oracle policy for each bundled task, one per route.

A solver speaks only the env's language: it reads positions from the accessibility
tree in ``info["accessibility"]`` and answers pyautogui strings (then ``"DONE"``).
It never imports the local host, so it drives a remote Drums desktop the same way.

>>> solver = get_solver("e0df059f")            # the GUI route by default
>>> solver.route, routes("e0df059f")
('gui', ('gui', 'terminal'))
>>> tree = {"role": "desktop-frame", "name": "Desktop", "position": [0, 0],
...         "size": [1920, 1080], "states": [], "children": [
...             {"role": "layered-pane", "name": "Desktop Icons", "position": [0, 0],
...              "size": [1920, 1080], "states": [], "children": [
...                  {"role": "icon", "name": "todo_list_Jan_1", "position": [82, 38],
...                   "size": [108, 116], "states": [], "children": []}]}]}
>>> solver(None, "", {"accessibility": tree})
'pyautogui.click(136, 96)'

With an env (``accessibility=True``)::

    env = gym.make("Drums/e0df059f", accessibility=True)
    obs, info = env.reset()
    solver = get_solver(info["task_id"])
    while True:
        obs, reward, terminated, truncated, info = env.step(solver(obs, "", info))
        if terminated or truncated:
            break
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import a11y
from .base import Solver
from .gui import (
    ChmodGui,
    ChmodGuiLong,
    CopyFileToDirsGui,
    CopyJpgsGui,
    CopyJpgsGuiLong,
    MoveTodoGui,
    RenameFolderGui,
    RestorePosterGui,
)
from .settings_gui import (
    BlankScreenGui,
    DoNotDisturbGui,
    EnlargeTextGui,
    LockScreenGui,
    MaxVolumeGui,
    RemoveFavoriteGui,
    UtcTimezoneGui,
)
from .system import (
    BlankScreenTerminal,
    DoNotDisturbTerminal,
    EnlargeTextTerminal,
    InstallSpotifyTerminal,
    LockScreenTerminal,
    MaxVolumeTerminal,
    RemoveFavoriteTerminal,
    SshUserTerminal,
    TerminalSizeTerminal,
    UtcTimezoneTerminal,
    infeasible_solvers,
)
from .terminal import (
    AppendBrTerminal,
    ChmodTerminal,
    CopyFailedNotebooksTerminal,
    CopyFileToDirsTerminal,
    CopyJpgsTerminal,
    CountPhpLinesTerminal,
    GzipOldFilesTerminal,
    MoveTodoTerminal,
    RenameFolderTerminal,
    RestorePosterTerminal,
)

__all__ = ["ROUTES", "SOLVERS", "Solver", "a11y", "get_solver", "routes"]

#: ``answer``: the solver only answers (``FAIL`` for an infeasible task); ``gui-long``: a
#: GUI route longer than the default step limit, kept by name (one control per action).
ROUTES: tuple[str, ...] = ("gui", "terminal", "answer", "gui-long")

_ALL: tuple[type[Solver], ...] = (
    RenameFolderGui, MoveTodoGui, RestorePosterGui, CopyFileToDirsGui, CopyJpgsGui, ChmodGui,
    RenameFolderTerminal, MoveTodoTerminal, RestorePosterTerminal, CopyFileToDirsTerminal,
    CopyJpgsTerminal, ChmodTerminal, AppendBrTerminal,
    InstallSpotifyTerminal, BlankScreenTerminal, RemoveFavoriteTerminal, DoNotDisturbTerminal,
    MaxVolumeTerminal, UtcTimezoneTerminal, EnlargeTextTerminal, LockScreenTerminal,
    TerminalSizeTerminal, CopyFailedNotebooksTerminal, GzipOldFilesTerminal,
    CountPhpLinesTerminal, SshUserTerminal, *infeasible_solvers(),
    BlankScreenGui, DoNotDisturbGui, LockScreenGui, EnlargeTextGui, UtcTimezoneGui,
    MaxVolumeGui, RemoveFavoriteGui, CopyJpgsGuiLong, ChmodGuiLong,
)

#: Solver classes by ``(short task id, route)``.
SOLVERS: Mapping[tuple[str, str], type[Solver]] = MappingProxyType(
    {(cls.task_id[:8], cls.route): cls for cls in _ALL})


def _short(task_id: str) -> str:
    if not isinstance(task_id, str) or len(task_id.strip()) < 8:
        raise ValueError(f"task_id must be a task id (8 characters or more), got {task_id!r}")
    return task_id.strip().lower()[:8]


def routes(task_id: str) -> tuple[str, ...]:
    """The routes with a solver for this task (full or short id), GUI first."""
    short = _short(task_id)
    return tuple(r for r in ROUTES if (short, r) in SOLVERS)


def get_solver(task_id: str, route: str | None = None, max_steps: int | None = None) -> Solver:
    """A fresh solver for ``task_id`` by ``route`` (``"gui"``, ``"terminal"``,
    ``"answer"``; None: the first available whose episode fits ``max_steps``, GUI before
    terminal, else the shortest). Raises KeyError when there is none.

    >>> get_solver("23393935").route, get_solver("23393935", max_steps=5).route
    ('gui', 'terminal')
    >>> get_solver("23393935", "gui-long").steps, get_solver("23393935").steps
    (24, 11)
    """
    if route is not None and route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES} or None, got {route!r}")
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
    ):
        raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
    short = _short(task_id)
    available = routes(short)
    if not available:
        known = sorted({k[0] for k in SOLVERS})
        raise KeyError(f"no solver for task {task_id!r}; solvers exist for {', '.join(known)}")
    if route is None and max_steps is not None:
        fitting = [r for r in available if SOLVERS[(short, r)].steps <= max_steps]
        route = fitting[0] if fitting else min(available, key=lambda r: SOLVERS[(short, r)].steps)
    chosen = route or available[0]
    if chosen not in available:
        raise KeyError(f"task {short} has no {chosen!r} solver; routes: {', '.join(available)}")
    return SOLVERS[(short, chosen)]()
