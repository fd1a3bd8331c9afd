"""The local host's task catalog: OSWorld tasks with a setup and a checker on a `Desktop`.

Checkers mirror the OSWorld task's evaluator (same file-state condition, same
0.0/1.0 scores), so a policy that solves a task here performs the same
effective change a real Drums desktop would score.

>>> task = get_task("e0df059f")
>>> desktop = task.create_desktop()
>>> task.setup(desktop)
>>> task.check(desktop)
0.0
>>> desktop.fs.rename("~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2")
>>> task.check(desktop)
1.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from drums_gym.actions.events import MouseDown, MouseMove, MouseUp

from .desktop import Desktop

__all__ = ["CATALOG", "DEFAULT_GATES", "Task", "UnknownTask", "get_task"]

DEFAULT_GATES: tuple[str, ...] = ("desktop_ready", "task_setup")


@dataclass(frozen=True)
class Task:
    """One task: ``setup(desktop)`` prepares a fresh desktop, ``check(desktop)`` scores it.

    ``setup`` and ``check`` are plain module-level functions (picklable, no lambdas).
    """

    id: str
    domain: str
    instruction: str
    setup: Callable[[Desktop], None] = field(repr=False, compare=False)
    check: Callable[[Desktop], float] = field(repr=False, compare=False)
    screen: tuple[int, int] = (1920, 1080)
    gates: tuple[str, ...] = DEFAULT_GATES

    @property
    def short_id(self) -> str:
        """The first 8 characters of ``id`` (``"e0df059f"``)."""
        return self.id[:8]

    def create_desktop(self, seed: int = 0, screen: tuple[int, int] | None = None) -> Desktop:
        """A fresh desktop (setup not yet run) at ``screen``, by default the task's size."""
        width, height = screen if screen is not None else self.screen
        return Desktop(width, height, seed=seed)

    def public(self) -> dict[str, Any]:
        """The JSON shape the HTTP API serves for this task."""
        return {"id": self.id, "short_id": self.short_id, "domain": self.domain,
                "instruction": self.instruction,
                "screen": {"width": self.screen[0], "height": self.screen[1]}}


class UnknownTask(KeyError):
    """No task has this id (full or 8-character short id)."""

    def __init__(self, task_id: str, known: list[str]) -> None:
        super().__init__(task_id)
        self.task_id, self.known = task_id, known

    def __str__(self) -> str:
        return f"unknown task {self.task_id!r}; known tasks: {', '.join(self.known)}"


def _click(desktop: Desktop, x: int, y: int) -> None:
    desktop.apply([MouseMove(x, y), MouseDown("left"), MouseUp("left")])


# -- e0df059f: rename a folder on the Desktop -----------------------------------

def _setup_e0df059f(desktop: Desktop) -> None:
    desktop.fs.mkdir("~/Desktop/todo_list_Jan_1", parents=True)
    _click(desktop, 960, 540)


def _check_e0df059f(desktop: Desktop) -> float:
    # OSWorld: `[ -d /home/user/Desktop/todo_list_Jan_2 ]` prints "Directory exists." -> 1.0
    return 1.0 if desktop.fs.is_dir("/home/user/Desktop/todo_list_Jan_2") else 0.0


_TASKS: tuple[Task, ...] = (
    Task(
        id="e0df059f-28a6-4169-924f-b9623e7184cc",
        domain="os",
        instruction='I have a directory named "todo_list_Jan_1". Can you help me change its '
                    'name into "todo_list_Jan_2"?',
        setup=_setup_e0df059f,
        check=_check_e0df059f,
    ),
)

#: Every task the local host serves, by full id.
CATALOG: Mapping[str, Task] = MappingProxyType({t.id: t for t in _TASKS})


def get_task(task_id: str) -> Task:
    """The task with this full id or short (8-character) id; raises `UnknownTask`."""
    key = task_id.strip().lower() if isinstance(task_id, str) else task_id
    if isinstance(key, str):
        if key in CATALOG:
            return CATALOG[key]
        matches = [t for t in CATALOG.values() if t.short_id == key]
        if len(matches) == 1:
            return matches[0]
    raise UnknownTask(str(task_id), sorted(t.short_id for t in CATALOG.values()))
