"""`Action`: one parsed, normalised pyautogui call, and its expansion into input events.

Actions come from :func:`drums_gym.actions.parse`, which resolves aliases and fills defaults,
so each action name has one argument set:

=============  ===============================================================
name           args
=============  ===============================================================
``moveTo``     ``x``, ``y`` (int or None: None keeps that coordinate)
``moveRel``    ``xOffset``, ``yOffset`` (int)
``click``      ``x``, ``y``, ``clicks``, ``interval``, ``button``
``mouseDown``  ``x``, ``y``, ``button``
``mouseUp``    ``x``, ``y``, ``button``
``dragTo``     ``x``, ``y``, ``button``, ``mouseDownUp``
``dragRel``    ``xOffset``, ``yOffset``, ``button``, ``mouseDownUp``
``scroll``     ``clicks``, ``x``, ``y`` (vertical; ``vscroll`` too)
``hscroll``    ``clicks``, ``x``, ``y``
``write``      ``message`` (str of characters, or tuple of key names), ``interval``
``press``      ``keys`` (tuple of key names), ``presses``, ``interval``
``keyDown``    ``key``
``keyUp``      ``key``
``hotkey``     ``keys`` (tuple of key names), ``interval``
``sleep``      ``seconds`` (float)
=============  ===============================================================

``button`` is ``"left"``, ``"middle"`` or ``"right"``; key names are normalised with
:func:`drums_gym.actions.keys.normalize_key`. ``write`` of a string types only what
pyautogui types on X11 (:data:`X11_TYPED`); other characters are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from drums_gym.actions.events import (
    Button,
    Event,
    KeyDown,
    KeyUp,
    MouseDown,
    MouseMove,
    MouseUp,
    Scroll,
    Sleep,
)
from drums_gym.actions.keys import normalize_key

__all__ = ["ACTION_NAMES", "Action", "ArgValue", "expand", "iter_expand"]

ArgValue = int | float | str | bool | None | tuple[str, ...]
"""The value of one normalised action argument."""

Point = tuple[int, int]


@dataclass(frozen=True)
class Action:
    """One allowed pyautogui (or ``time.sleep``) call, normalised.

    ``args`` holds ``(name, value)`` pairs in signature order; ``lineno`` is the line of the
    call in the parsed code (not part of equality).

    >>> from drums_gym.actions import parse
    >>> action = parse("pyautogui.doubleClick(10, 20)")[0]
    >>> action.name, action.kwargs["clicks"]
    ('click', 2)
    >>> action.events((0, 0))
    [MouseMove(x=10, y=20), MouseDown(button='left'), MouseUp(button='left'), \
MouseDown(button='left'), MouseUp(button='left')]
    """

    name: str
    args: tuple[tuple[str, ArgValue], ...]
    lineno: int | None = field(default=None, compare=False)

    @property
    def kwargs(self) -> dict[str, ArgValue]:
        """The arguments as a new dict."""
        return dict(self.args)

    def events(self, pointer: tuple[int, int] = (0, 0)) -> list[Event]:
        """The primitive events of this action, starting with the pointer at ``pointer``."""
        return list(self.iter_events(pointer))

    def iter_events(self, pointer: tuple[int, int] = (0, 0)) -> Iterator[Event]:
        """Like :meth:`events`, lazily (the parser counts events without building lists)."""
        expander = _EXPANDERS.get(self.name)
        if expander is None:
            raise ValueError(f"unknown action name {self.name!r}")
        return expander(self.kwargs, (int(pointer[0]), int(pointer[1])))

    def to_code(self) -> str:
        """Canonical pyautogui code for this action; ``parse(a.to_code()) == [a]``.

        >>> from drums_gym.actions import parse
        >>> parse("pyautogui.rightClick((5, 6))")[0].to_code()
        "pyautogui.click(x=5, y=6, clicks=1, interval=0.0, button='right')"
        """
        kwargs = self.kwargs
        if self.name == "sleep":
            return f"time.sleep({kwargs['seconds']!r})"
        if self.name == "hotkey":
            keys = ", ".join(repr(k) for k in _keys(kwargs["keys"]))
            sep = ", " if keys else ""
            return f"pyautogui.hotkey({keys}{sep}interval={kwargs['interval']!r})"
        parts = ", ".join(f"{key}={_code_value(value)}" for key, value in self.args)
        return f"pyautogui.{self.name}({parts})"


def _code_value(value: ArgValue) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(repr(item) for item in value) + "]"
    return repr(value)


def expand(actions: Iterable[Action], pointer: tuple[int, int] = (0, 0)) -> list[Event]:
    """Expand actions into primitive input events, the way pyautogui performs them.

    ``pointer`` is the pointer position before the first action; it is tracked through the
    expansion, so relative moves and clicks without coordinates land where pyautogui would.
    Durations and tweens are not expanded (moves are instant); ``Sleep`` separates repeated
    clicks, presses and typed characters when their ``interval`` is positive.

    >>> from drums_gym.actions import parse
    >>> expand(parse("pyautogui.moveRel(5, -5); pyautogui.hotkey('ctrl', 'c')"), (100, 100))
    [MouseMove(x=105, y=95), KeyDown(key='ctrl'), KeyDown(key='c'), KeyUp(key='c'), \
KeyUp(key='ctrl')]
    """
    events: list[Event] = []
    for event in iter_expand(actions, pointer):
        events.append(event)
    return events


def iter_expand(actions: Iterable[Action], pointer: tuple[int, int] = (0, 0)) -> Iterator[Event]:
    """Lazy :func:`expand`."""
    current = (int(pointer[0]), int(pointer[1]))
    for action in actions:
        for event in action.iter_events(current):
            if isinstance(event, MouseMove):
                current = (event.x, event.y)
            yield event


# --- expansion of each action name ------------------------------------------------------------


def _target(x: object, y: object, pointer: Point) -> Point | None:
    """Where a move to (x, y) goes; None when both are None (pyautogui does not move)."""
    if not isinstance(x, (int, float)) and not isinstance(y, (int, float)):
        return None
    return (
        int(x) if isinstance(x, (int, float)) else pointer[0],
        int(y) if isinstance(y, (int, float)) else pointer[1],
    )


def _move_to(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    target = _target(a["x"], a["y"], pointer)
    if target is not None:
        yield MouseMove(*target)


def _move_rel(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    dx, dy = _int(a["xOffset"]), _int(a["yOffset"])
    if dx or dy:
        yield MouseMove(pointer[0] + dx, pointer[1] + dy)


def _click(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield from _move_to(a, pointer)
    button = _button(a["button"])
    interval = _float(a["interval"])
    for i in range(_int(a["clicks"])):
        if i and interval > 0:
            yield Sleep(interval)
        yield MouseDown(button)
        yield MouseUp(button)


def _mouse_down(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield from _move_to(a, pointer)
    yield MouseDown(_button(a["button"]))


def _mouse_up(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield from _move_to(a, pointer)
    yield MouseUp(_button(a["button"]))


def _drag(target: Point | None, a: dict[str, ArgValue]) -> Iterator[Event]:
    button = _button(a["button"])
    if a["mouseDownUp"]:
        yield MouseDown(button)
    if target is not None:
        yield MouseMove(*target)
    if a["mouseDownUp"]:
        yield MouseUp(button)


def _drag_to(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield from _drag(_target(a["x"], a["y"], pointer), a)


def _drag_rel(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    dx, dy = _int(a["xOffset"]), _int(a["yOffset"])
    if dx or dy:  # pyautogui: dragRel(0, 0) does nothing at all
        yield from _drag((pointer[0] + dx, pointer[1] + dy), a)


def _scroll(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield from _move_to(a, pointer)
    if _int(a["clicks"]):
        yield Scroll(dy=_int(a["clicks"]))


def _hscroll(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield from _move_to(a, pointer)
    if _int(a["clicks"]):
        yield Scroll(dx=_int(a["clicks"]))


def _tap(key: str) -> Iterator[Event]:
    yield KeyDown(key)
    yield KeyUp(key)


#: The characters pyautogui's X11 backend types (its ``keyboardMapping``: printable ASCII,
#: tab, newline, carriage return, backspace). ``write`` drops any other character silently,
#: as ``_pyautogui_x11._keyDown`` does (``write('héllo 中文')`` types ``hllo ``).
X11_TYPED = frozenset(chr(c) for c in range(0x20, 0x7F)) | frozenset("\t\n\r\b")


def _write(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    message = a["message"]
    interval = _float(a["interval"])
    items: Iterable[str] = message if isinstance(message, (str, tuple)) else ()
    for i, item in enumerate(items):
        if i and interval > 0:
            yield Sleep(interval)  # pyautogui sleeps after a dropped character too
        if isinstance(message, str) and item not in X11_TYPED:
            continue
        yield from _tap(normalize_key(item))


def _press(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    keys = _keys(a["keys"])
    interval = _float(a["interval"])
    for i in range(_int(a["presses"])):
        if i and interval > 0:
            yield Sleep(interval)
        for key in keys:
            yield from _tap(key)


def _key_down(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield KeyDown(str(a["key"]))


def _key_up(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield KeyUp(str(a["key"]))


def _hotkey(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    keys = _keys(a["keys"])
    interval = _float(a["interval"])
    sequence: list[Event] = [KeyDown(k) for k in keys]
    sequence += [KeyUp(k) for k in reversed(keys)]
    for i, event in enumerate(sequence):
        if i and interval > 0:
            yield Sleep(interval)
        yield event


def _sleep(a: dict[str, ArgValue], pointer: Point) -> Iterator[Event]:
    yield Sleep(_float(a["seconds"]))


def _int(value: ArgValue) -> int:
    return int(value) if isinstance(value, (int, float)) else 0


def _float(value: ArgValue) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _keys(value: ArgValue) -> tuple[str, ...]:
    return value if isinstance(value, tuple) else ()


def _button(value: ArgValue) -> Button:
    if value == "middle":
        return "middle"
    if value == "right":
        return "right"
    return "left"


_EXPANDERS = {
    "moveTo": _move_to,
    "moveRel": _move_rel,
    "click": _click,
    "mouseDown": _mouse_down,
    "mouseUp": _mouse_up,
    "dragTo": _drag_to,
    "dragRel": _drag_rel,
    "scroll": _scroll,
    "hscroll": _hscroll,
    "write": _write,
    "press": _press,
    "keyDown": _key_down,
    "keyUp": _key_up,
    "hotkey": _hotkey,
    "sleep": _sleep,
}

ACTION_NAMES: frozenset[str] = frozenset(_EXPANDERS)
"""The names an `Action` can have."""
