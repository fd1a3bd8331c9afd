"""The allowed functions: pyautogui's real signatures, argument binding and validation.

Each allowed call maps to a :class:`Signature` (parameter names in pyautogui's order, as of
pyautogui 0.9.54) and a builder that validates literal argument values and returns the
normalised action name and arguments (see :mod:`drums_gym.actions.action`).

Cosmetic arguments are accepted and ignored: ``duration`` (moves are instant),
``logScreenshot`` and ``_pause``. ``tween`` is refused by name: a tween is a function, and
arguments must be literals.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from drums_gym.actions.action import ArgValue
from drums_gym.actions.keys import key_name
from drums_gym.actions.limits import (
    MAX_CLICKS,
    MAX_COORDINATE,
    MAX_PRESSES,
    MAX_SCROLL,
    MAX_SECONDS,
)

__all__ = ["SIGNATURES", "ArgumentProblem", "LiteralValue", "Signature"]

LiteralValue = int | float | str | bool | None | tuple["LiteralValue", ...]
"""A value the literal reader produces (lists and tuples both become tuples)."""

Built = tuple[str, tuple[tuple[str, ArgValue], ...]]
Builder = Callable[["Signature", Mapping[str, LiteralValue]], Built]

_VARARGS = "*args"


class ArgumentProblem(Exception):
    """A wrong argument; the parser turns it into ``ActionError(construct="argument")``."""


@dataclass(frozen=True)
class Signature:
    """How an allowed function takes its arguments."""

    public: str
    """The function as code names it: ``"pyautogui.click"``, ``"time.sleep"``."""
    params: tuple[str, ...]
    """Positional-or-keyword parameters, in order."""
    build: Builder
    required: tuple[str, ...] = ()
    varargs: bool = False
    """``*args`` (``hotkey``): positional arguments are collected under ``"*args"``."""
    kwonly: tuple[str, ...] = ()
    positional_only: bool = False

    def check_names(self, n_positional: int, keywords: Sequence[str]) -> None:
        """Check argument count and keyword names before any value is read."""
        pub = self.public
        if self.positional_only and keywords:
            raise ArgumentProblem(f"{pub}() takes no keyword arguments")
        if not self.varargs and n_positional > len(self.params):
            raise ArgumentProblem(
                f"{pub}() takes at most {len(self.params)} positional arguments "
                f"({n_positional} given)"
            )
        if "tween" in self.params and n_positional > self.params.index("tween"):
            raise ArgumentProblem(_tween_message(pub))
        seen: set[str] = set()
        for name in keywords:
            if name == "tween":
                raise ArgumentProblem(_tween_message(pub))
            if name not in self.params and name not in self.kwonly:
                raise ArgumentProblem(f"{pub}() got an unexpected keyword argument {name!r}")
            if name in seen:
                raise ArgumentProblem(f"{pub}() got keyword argument {name!r} twice")
            if not self.varargs and name in self.params[:n_positional]:
                raise ArgumentProblem(f"{pub}() got multiple values for argument {name!r}")
            seen.add(name)
        for name in self.required:
            if name not in seen and name not in self.params[:n_positional]:
                raise ArgumentProblem(f"{pub}() is missing the required argument {name!r}")

    def bind(
        self, positional: Sequence[LiteralValue], keywords: Mapping[str, LiteralValue]
    ) -> Built:
        """Validate and normalise the (already name-checked) argument values."""
        values: dict[str, LiteralValue]
        if self.varargs:
            values = {_VARARGS: tuple(positional)}
        else:
            values = dict(zip(self.params, positional, strict=False))
        values.update(keywords)
        _check_cosmetic(self, values)
        return self.build(self, values)


def _tween_message(pub: str) -> str:
    return (
        f"{pub}(): argument 'tween' is not supported (a tween is a function and arguments "
        "must be literals; moves are instant)"
    )


# --- value checks -----------------------------------------------------------------------------


def _show(value: LiteralValue) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _problem(sig: Signature, name: str, expected: str, value: LiteralValue) -> ArgumentProblem:
    return ArgumentProblem(
        f"{sig.public}(): argument {name!r} must be {expected} (got {_show(value)})"
    )


def _is_number(value: LiteralValue) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(sig: Signature, name: str, value: LiteralValue, expected: str) -> float:
    if not _is_number(value) or not math.isfinite(value):  # type: ignore[arg-type]
        raise _problem(sig, name, expected, value)
    return value  # type: ignore[return-value]


def _seconds(sig: Signature, name: str, value: LiteralValue) -> float:
    expected = f"a number of seconds from 0 to {MAX_SECONDS:g}"
    seconds = _number(sig, name, value, expected)
    if not 0 <= seconds <= MAX_SECONDS:
        raise _problem(sig, name, expected, value)
    return float(seconds)


def _count(sig: Signature, name: str, value: LiteralValue, limit: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise _problem(sig, name, f"an int from 0 to {limit}", value)
    return value


def _coordinate(sig: Signature, name: str, value: LiteralValue) -> int:
    if isinstance(value, str):
        raise _problem(
            sig, name, "a number (image file names are not supported: use coordinates)", value
        )
    expected = f"a number from {-MAX_COORDINATE} to {MAX_COORDINATE}"
    number = _number(sig, name, value, expected)
    if abs(number) > MAX_COORDINATE:
        raise _problem(sig, name, expected, value)
    return int(number)  # pyautogui truncates floats with int()


def _optional_coordinate(sig: Signature, name: str, value: LiteralValue) -> int | None:
    return None if value is None else _coordinate(sig, name, value)


def _point(
    sig: Signature, values: Mapping[str, LiteralValue], xname: str = "x", yname: str = "y"
) -> tuple[int | None, int | None]:
    """pyautogui's ``_normalizeXYArgs``: ``(x, y)``, or an ``(x, y)`` pair as ``x``."""
    x, y = values.get(xname), values.get(yname)
    if isinstance(x, tuple):
        if len(x) != 2:
            raise _problem(sig, xname, "a number or an (x, y) pair", x)
        if y is not None:
            raise ArgumentProblem(
                f"{sig.public}(): argument {yname!r} must not be given when {xname!r} "
                "is an (x, y) pair"
            )
        x, y = x
    return _optional_coordinate(sig, xname, x), _optional_coordinate(sig, yname, y)


_BUTTONS: dict[object, str] = {
    "left": "left",
    "middle": "middle",
    "right": "right",
    "primary": "left",
    "secondary": "right",
    1: "left",
    2: "middle",
    3: "right",
}


def _button(sig: Signature, values: Mapping[str, LiteralValue]) -> str:
    value = values.get("button", "primary")
    key: object = value.lower() if isinstance(value, str) else value
    if isinstance(value, bool) or key not in _BUTTONS:
        raise _problem(
            sig, "button", "one of 'left', 'middle', 'right', 'primary', 'secondary'", value
        )
    return _BUTTONS[key]


def _bool(sig: Signature, name: str, value: LiteralValue) -> bool:
    if not isinstance(value, bool):
        raise _problem(sig, name, "True or False", value)
    return value


def _key(sig: Signature, name: str, value: LiteralValue) -> str:
    if not isinstance(value, str):
        raise _problem(sig, name, "a key name (str)", value)
    return key_name(value)  # an unknown name is a no-op when pressed, as in pyautogui


def _key_list(sig: Signature, name: str, value: LiteralValue) -> tuple[str, ...]:
    if isinstance(value, str):
        return (_key(sig, name, value),)
    if isinstance(value, tuple):
        return tuple(_key(sig, name, item) for item in value)
    raise _problem(sig, name, "a key name or a list of key names", value)


def _check_cosmetic(sig: Signature, values: Mapping[str, LiteralValue]) -> None:
    if "duration" in values:
        _seconds(sig, "duration", values["duration"])
    if "logScreenshot" in values and values["logScreenshot"] is not None:
        _bool(sig, "logScreenshot", values["logScreenshot"])
    if "_pause" in values:
        _bool(sig, "_pause", values["_pause"])


# --- builders ---------------------------------------------------------------------------------


def _build_move_to(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    x, y = _point(sig, v)
    return "moveTo", (("x", x), ("y", y))


def _offsets(sig: Signature, v: Mapping[str, LiteralValue]) -> tuple[int, int]:
    dx, dy = _point(sig, v, "xOffset", "yOffset")
    return dx or 0, dy or 0


def _build_move_rel(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    dx, dy = _offsets(sig, v)
    return "moveRel", (("xOffset", dx), ("yOffset", dy))


def _build_click(
    sig: Signature,
    v: Mapping[str, LiteralValue],
    clicks: int | None = None,
    button: str | None = None,
) -> Built:
    x, y = _point(sig, v)
    n = clicks if clicks is not None else _count(sig, "clicks", v.get("clicks", 1), MAX_CLICKS)
    return "click", (
        ("x", x),
        ("y", y),
        ("clicks", n),
        ("interval", _seconds(sig, "interval", v.get("interval", 0.0))),
        ("button", button if button is not None else _button(sig, v)),
    )


def _build_mouse_button(name: str, sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    x, y = _point(sig, v)
    return name, (("x", x), ("y", y), ("button", _button(sig, v)))


def _build_drag_to(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    x, y = _point(sig, v)
    return "dragTo", (
        ("x", x),
        ("y", y),
        ("button", _button(sig, v)),
        ("mouseDownUp", _bool(sig, "mouseDownUp", v.get("mouseDownUp", True))),
    )


def _build_drag_rel(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    dx, dy = _offsets(sig, v)
    return "dragRel", (
        ("xOffset", dx),
        ("yOffset", dy),
        ("button", _button(sig, v)),
        ("mouseDownUp", _bool(sig, "mouseDownUp", v.get("mouseDownUp", True))),
    )


def _build_scroll(name: str, sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    expected = f"a number from {-MAX_SCROLL} to {MAX_SCROLL}"
    clicks = _number(sig, "clicks", v["clicks"], expected)
    if abs(clicks) > MAX_SCROLL:
        raise _problem(sig, "clicks", expected, v["clicks"])
    x, y = _point(sig, v)
    return name, (("clicks", int(clicks)), ("x", x), ("y", y))


def _build_write(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    message = v["message"]
    normalised: str | tuple[str, ...]
    if isinstance(message, str):
        normalised = message  # characters pyautogui cannot press on X11 are no-ops
    elif isinstance(message, tuple):
        normalised = _key_list(sig, "message", message)
    else:
        raise _problem(sig, "message", "a string or a list of key names", message)
    return "write", (
        ("message", normalised),
        ("interval", _seconds(sig, "interval", v.get("interval", 0.0))),
    )


def _build_press(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    return "press", (
        ("keys", _key_list(sig, "keys", v["keys"])),
        ("presses", _count(sig, "presses", v.get("presses", 1), MAX_PRESSES)),
        ("interval", _seconds(sig, "interval", v.get("interval", 0.0))),
    )


def _build_key(name: str, sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    return name, (("key", _key(sig, "key", v["key"])),)


def _build_hotkey(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    given = v[_VARARGS]
    args = given if isinstance(given, tuple) else ()  # bind() puts a tuple there
    if args and isinstance(args[0], tuple):
        if len(args) > 1:
            raise ArgumentProblem(
                f"{sig.public}(): pass the keys as separate arguments or as one list, not both"
            )
        args = args[0]
    keys = tuple(_key(sig, "keys", key) for key in args)
    return "hotkey", (
        ("keys", keys),
        ("interval", _seconds(sig, "interval", v.get("interval", 0.0))),
    )


def _build_sleep(sig: Signature, v: Mapping[str, LiteralValue]) -> Built:
    return "sleep", (("seconds", _seconds(sig, "seconds", v["seconds"])),)


# --- the table --------------------------------------------------------------------------------

_TAIL = ("duration", "tween", "logScreenshot", "_pause")
_CLICK_VARIANT = ("x", "y", "interval", *_TAIL)
_MULTI_CLICK = ("x", "y", "interval", "button", *_TAIL)
_DRAG = ("duration", "tween", "button", "logScreenshot", "_pause", "mouseDownUp")
_SCROLL = ("clicks", "x", "y", "logScreenshot", "_pause")
_KEY = ("key", "logScreenshot", "_pause")


def _signatures() -> dict[str, Signature]:
    table = [
        Signature("pyautogui.moveTo", ("x", "y", *_TAIL), _build_move_to),
        Signature("pyautogui.moveRel", ("xOffset", "yOffset", *_TAIL), _build_move_rel),
        Signature("pyautogui.move", ("xOffset", "yOffset", *_TAIL), _build_move_rel),
        Signature(
            "pyautogui.click",
            ("x", "y", "clicks", "interval", "button", *_TAIL),
            _build_click,
        ),
        Signature(
            "pyautogui.leftClick", _CLICK_VARIANT, partial(_build_click, clicks=1, button="left")
        ),
        Signature(
            "pyautogui.rightClick",
            _CLICK_VARIANT,
            partial(_build_click, clicks=1, button="right"),
        ),
        Signature(
            "pyautogui.middleClick",
            _CLICK_VARIANT,
            partial(_build_click, clicks=1, button="middle"),
        ),
        Signature("pyautogui.doubleClick", _MULTI_CLICK, partial(_build_click, clicks=2)),
        Signature("pyautogui.tripleClick", _MULTI_CLICK, partial(_build_click, clicks=3)),
        Signature(
            "pyautogui.mouseDown",
            ("x", "y", "button", *_TAIL),
            partial(_build_mouse_button, "mouseDown"),
        ),
        Signature(
            "pyautogui.mouseUp",
            ("x", "y", "button", *_TAIL),
            partial(_build_mouse_button, "mouseUp"),
        ),
        Signature("pyautogui.dragTo", ("x", "y", *_DRAG), _build_drag_to),
        Signature("pyautogui.dragRel", ("xOffset", "yOffset", *_DRAG), _build_drag_rel),
        Signature("pyautogui.drag", ("xOffset", "yOffset", *_DRAG), _build_drag_rel),
        Signature("pyautogui.scroll", _SCROLL, partial(_build_scroll, "scroll"), ("clicks",)),
        Signature("pyautogui.vscroll", _SCROLL, partial(_build_scroll, "scroll"), ("clicks",)),
        Signature("pyautogui.hscroll", _SCROLL, partial(_build_scroll, "hscroll"), ("clicks",)),
        Signature(
            "pyautogui.write",
            ("message", "interval", "logScreenshot", "_pause"),
            _build_write,
            ("message",),
        ),
        Signature(
            "pyautogui.typewrite",
            ("message", "interval", "logScreenshot", "_pause"),
            _build_write,
            ("message",),
        ),
        Signature(
            "pyautogui.press",
            ("keys", "presses", "interval", "logScreenshot", "_pause"),
            _build_press,
            ("keys",),
        ),
        Signature("pyautogui.keyDown", _KEY, partial(_build_key, "keyDown"), ("key",)),
        Signature("pyautogui.keyUp", _KEY, partial(_build_key, "keyUp"), ("key",)),
        Signature(
            "pyautogui.hotkey",
            (),
            _build_hotkey,
            varargs=True,
            kwonly=("interval", "logScreenshot", "_pause"),
        ),
        Signature("pyautogui.sleep", ("seconds",), _build_sleep, ("seconds",)),
        Signature("time.sleep", ("seconds",), _build_sleep, ("seconds",), positional_only=True),
    ]
    return {sig.public: sig for sig in table}


SIGNATURES: dict[str, Signature] = _signatures()
"""Every allowed function, by the dotted name code calls it with."""
