"""Where an action pressed a mouse button: parsed with :mod:`drums_gym.actions`, never run.

`clicks_of` follows the pointer through one step's pyautogui code. Before any action the
report does not know where the pointer is; a press whose position depends on that unknown
pointer (``pyautogui.click()`` with no coordinates, a relative move) is left unmarked rather
than guessed: the events are expanded from two different starting points and only presses
at the same place in both are kept.

>>> clicks_of("pyautogui.click(10, 20)", None)
([Click(x=10, y=20, button='left')], (10, 20))
>>> clicks_of("pyautogui.moveRel(5, 0)\\npyautogui.click()", None)
([], None)
>>> clicks_of("pyautogui.moveRel(5, 0)\\npyautogui.click()", (10, 20))
([Click(x=15, y=20, button='left')], (15, 20))
>>> clicks_of("DONE", (1, 2))
([], (1, 2))
"""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import ActionError, MouseDown, MouseMove, expand, parse, parse_control

__all__ = ["Click", "clicks_of"]

Point = tuple[int, int]


@dataclass(frozen=True)
class Click:
    """A mouse button pressed at screen pixel ``(x, y)``."""

    x: int
    y: int
    button: str


def _presses(code: str, pointer: Point) -> tuple[list[Click], Point]:
    events = expand(parse(code), pointer=pointer)
    x, y = pointer
    found: list[Click] = []
    for event in events:
        if isinstance(event, MouseMove):
            x, y = event.x, event.y
        elif isinstance(event, MouseDown):
            found.append(Click(x, y, str(event.button)))
    return found, (x, y)


def clicks_of(code: object, pointer: Point | None) -> tuple[list[Click], Point | None]:
    """The presses of ``code`` and the pointer after it (None: still unknown).

    ``pointer`` is where the pointer was before (None: unknown). Code that is not an
    action (a control word, text that does not parse, not a str) presses nothing and
    leaves the pointer where it was.
    """
    if not isinstance(code, str) or parse_control(code) is not None:
        return [], pointer
    try:
        if pointer is not None:
            return _presses(code, pointer)
        first, end_a = _presses(code, (0, 0))
        second, end_b = _presses(code, (1, 1))
    except (ActionError, ValueError):
        return [], pointer
    known = [a for a, b in zip(first, second, strict=True) if a == b]
    return known, end_a if end_a == end_b else None
