"""Low-level input events: what a parsed pyautogui action expands to.

`drums_gym.actions.parse` turns a pyautogui code string into `Action` values;
`Action.events()` expands each into the primitive input events below, the way
pyautogui itself turns ``click(10, 20, clicks=2)`` into moves, presses and
releases. A desktop (the local host's simulator, or anything else) consumes
events only, so it never needs to know pyautogui's signatures.

Coordinates are absolute screen pixels (ints). Key names are pyautogui's
lower-case key names (``"enter"``, ``"ctrl"``, ``"f2"``, ``"a"``); a printable
character typed by ``write``/``typewrite`` is sent as ``KeyDown``/``KeyUp`` of
that character itself (``"A"`` for an upper-case A, ``" "`` for space), so a
desktop inserts ``key`` into a text field when ``len(key) == 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Button",
    "Event",
    "KeyDown",
    "KeyUp",
    "MouseDown",
    "MouseMove",
    "MouseUp",
    "Scroll",
    "Sleep",
]

Button = Literal["left", "middle", "right"]


@dataclass(frozen=True)
class MouseMove:
    """Move the pointer to the absolute position ``(x, y)``."""

    x: int
    y: int


@dataclass(frozen=True)
class MouseDown:
    """Press ``button`` at the current pointer position."""

    button: Button = "left"


@dataclass(frozen=True)
class MouseUp:
    """Release ``button`` at the current pointer position."""

    button: Button = "left"


@dataclass(frozen=True)
class Scroll:
    """Scroll wheel clicks at the pointer: ``dy > 0`` is up, ``dx > 0`` is right."""

    dx: int = 0
    dy: int = 0


@dataclass(frozen=True)
class KeyDown:
    """Press a key (pyautogui name, or a single printable character)."""

    key: str


@dataclass(frozen=True)
class KeyUp:
    """Release a key (pyautogui name, or a single printable character)."""

    key: str


@dataclass(frozen=True)
class Sleep:
    """Let ``seconds`` of desktop time pass (double-click timing, animations)."""

    seconds: float


Event = MouseMove | MouseDown | MouseUp | Scroll | KeyDown | KeyUp | Sleep
