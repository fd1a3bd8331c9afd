"""The `Task` record, lookup errors, and the setup steps OSWorld task configs use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drums_gym.actions import expand, parse

from ..desktop import Desktop

__all__ = ["DEFAULT_GATES", "Task", "UnknownTask", "click_center", "open_terminal", "pyautogui"]

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


# -- setup steps (what OSWorld configs run through pyautogui) --------------------

def pyautogui(desktop: Desktop, code: str) -> None:
    """Run pyautogui code on the desktop, as a config's ``python -c "import pyautogui; ..."``
    step does (``time.sleep`` calls are left out: the simulator needs no settling time)."""
    desktop.apply(expand(parse(code), pointer=desktop.pointer))


def click_center(desktop: Desktop) -> None:
    """``pyautogui.click(SCREEN_WIDTH_HALF, SCREEN_HEIGHT_HALF)``: focus the desktop."""
    pyautogui(desktop, f"pyautogui.click({desktop.width // 2}, {desktop.height // 2})")


def open_terminal(desktop: Desktop) -> None:
    """Click the centre, then ``ctrl+alt+t`` (and the config's ``activate_window Terminal``:
    the new terminal has the focus)."""
    click_center(desktop)
    pyautogui(desktop, "pyautogui.hotkey('ctrl', 'alt', 't')")
