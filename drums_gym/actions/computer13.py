"""computer_13: OSWorld's other action space, dicts such as ``{"action_type": "CLICK", ...}``.

A computer_13 action is translated as OSWorld's controller translates it (into pyautogui
calls), here into `Action` values bound by the same signatures as pyautogui code. Parameters
are the dict's other keys, or the dict under ``"parameters"``:

================  ==========================================================================
action_type       parameters, and the pyautogui call
================  ==========================================================================
``MOVE_TO``       none (no move) or ``x``, ``y``: ``moveTo(x, y)``
``CLICK``         none, ``button``, ``x``+``y``, or all three; ``num_clicks`` with a button
                  or with x+y: ``click(x=, y=, button=, clicks=)``
``MOUSE_DOWN``    none or ``button``: ``mouseDown(button=)``; ``MOUSE_UP`` likewise
``RIGHT_CLICK``   none or ``x``, ``y``: ``rightClick``; ``DOUBLE_CLICK`` likewise
``DRAG_TO``       ``x``, ``y``: ``dragTo(x, y, button='left')`` (without them: nothing)
``SCROLL``        ``dx`` and/or ``dy``: ``hscroll(dx)`` then ``vscroll(dy)``
``TYPING``        ``text``: ``typewrite(text)``
``PRESS``         ``key`` (one of ``KEYBOARD_KEYS``): ``press``; ``KEY_DOWN``/``KEY_UP`` too
``HOTKEY``        ``keys`` (a list of ``KEYBOARD_KEYS``): ``hotkey(*keys)``
``WAIT``          the control word ``WAIT``; ``DONE`` and ``FAIL`` likewise
================  ==========================================================================

Anything else (an unknown type, parameters OSWorld does not accept, a key outside
``KEYBOARD_KEYS``) is refused with an `ActionError` of construct ``computer_13``, where
OSWorld's controller raises.

>>> translate({"action_type": "CLICK", "x": 10, "y": 20, "button": "right", "num_clicks": 2})
[Action(name='click', args=(('x', 10), ('y', 20), ('clicks', 2), ('interval', 0.0), \
('button', 'right')), lineno=None)]
>>> translate(loads('{"action_type": "DONE"}'))
'DONE'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from drums_gym.actions.action import Action
from drums_gym.actions.calls import call_action
from drums_gym.actions.control import ControlWord
from drums_gym.actions.errors import ActionError
from drums_gym.actions.keys import KEYBOARD_KEYS

__all__ = ["ACTION_TYPES", "control_of", "dumps", "loads", "translate"]

_KEYS = frozenset(KEYBOARD_KEYS)
_CONTROL: dict[str, ControlWord] = {"WAIT": "WAIT", "FAIL": "FAIL", "DONE": "DONE"}
Params = Mapping[str, Any]


def _fail(detail: str) -> ActionError:
    return ActionError(f"computer_13 action: {detail}", "computer_13")


def _pg(name: str, **kwargs: Any) -> Action:
    return call_action("pyautogui." + name, (), kwargs, ignore_tween=True)


def _unknown(kind: str, p: Params) -> ActionError:
    return _fail(f"{kind} does not take the parameters {sorted(p)}")


def _move_to(p: Params) -> list[Action]:
    if not p:
        return [_pg("moveTo")]
    if "x" in p and "y" in p:
        return [_pg("moveTo", x=p["x"], y=p["y"])]
    raise _unknown("MOVE_TO", p)


def _click(p: Params) -> list[Action]:
    if not p:
        return [_pg("click")]
    args: dict[str, Any] = {}
    if "x" in p and "y" in p:
        args.update(x=p["x"], y=p["y"])
    elif "x" in p or "y" in p or "button" not in p:
        raise _unknown("CLICK", p)
    if "button" in p:
        args["button"] = p["button"]
    if "num_clicks" in p:
        args["clicks"] = p["num_clicks"]
    return [_pg("click", **args)]


def _button(name: str, kind: str) -> Callable[[Params], list[Action]]:
    def build(p: Params) -> list[Action]:
        if not p:
            return [_pg(name)]
        if "button" in p:
            return [_pg(name, button=p["button"])]
        raise _unknown(kind, p)

    return build


def _at(name: str, kind: str) -> Callable[[Params], list[Action]]:
    def build(p: Params) -> list[Action]:
        if not p:
            return [_pg(name)]
        if "x" in p and "y" in p:
            return [_pg(name, x=p["x"], y=p["y"])]
        raise _unknown(kind, p)

    return build


def _drag_to(p: Params) -> list[Action]:
    if "x" in p and "y" in p:
        return [_pg("dragTo", x=p["x"], y=p["y"], button="left", mouseDownUp=True)]
    return []  # OSWorld's controller does nothing for a DRAG_TO without x and y


def _scroll(p: Params) -> list[Action]:
    if "dx" not in p and "dy" not in p:
        raise _unknown("SCROLL", p)
    actions = []
    if "dx" in p:
        actions.append(_pg("hscroll", clicks=p["dx"]))
    if "dy" in p:
        actions.append(_pg("vscroll", clicks=p["dy"]))
    return actions


def _typing(p: Params) -> list[Action]:
    if "text" not in p:
        raise _unknown("TYPING", p)
    return [_pg("typewrite", message=p["text"])]


def _known_key(key: object, kind: str) -> str:
    if not isinstance(key, str) or key.lower() not in _KEYS:
        raise _fail(f"{kind}: key must be one of pyautogui.KEYBOARD_KEYS (got {key!r})")
    return key


def _key(name: str, kind: str) -> Callable[[Params], list[Action]]:
    def build(p: Params) -> list[Action]:
        if "key" not in p:
            raise _unknown(kind, p)
        arg = "keys" if name == "press" else "key"
        return [_pg(name, **{arg: _known_key(p["key"], kind)})]

    return build


def _hotkey(p: Params) -> list[Action]:
    if "keys" not in p:
        raise _unknown("HOTKEY", p)
    keys = p["keys"]
    if not isinstance(keys, list):
        raise _fail("HOTKEY: keys must be a list of keys")
    return [call_action("pyautogui.hotkey", [_known_key(k, "HOTKEY") for k in keys], {})]


_TRANSLATORS: dict[str, Callable[[Params], list[Action]]] = {
    "MOVE_TO": _move_to,
    "CLICK": _click,
    "MOUSE_DOWN": _button("mouseDown", "MOUSE_DOWN"),
    "MOUSE_UP": _button("mouseUp", "MOUSE_UP"),
    "RIGHT_CLICK": _at("rightClick", "RIGHT_CLICK"),
    "DOUBLE_CLICK": _at("doubleClick", "DOUBLE_CLICK"),
    "DRAG_TO": _drag_to,
    "SCROLL": _scroll,
    "TYPING": _typing,
    "PRESS": _key("press", "PRESS"),
    "KEY_DOWN": _key("keyDown", "KEY_DOWN"),
    "KEY_UP": _key("keyUp", "KEY_UP"),
    "HOTKEY": _hotkey,
}

ACTION_TYPES: tuple[str, ...] = (*_TRANSLATORS, *_CONTROL)
"""Every ``action_type`` of computer_13."""


def translate(action: Mapping[str, Any]) -> list[Action] | ControlWord:
    """The pyautogui actions of a computer_13 action, or its control word."""
    if not isinstance(action, Mapping):
        raise _fail(f"must be a dict, not {type(action).__name__}")
    kind = action.get("action_type")
    if not isinstance(kind, str):
        raise _fail("the dict has no str 'action_type'")
    if kind in _CONTROL:
        return _CONTROL[kind]
    translator = _TRANSLATORS.get(kind)
    if translator is None:
        raise _fail(f"unknown action_type {kind!r} (one of {', '.join(ACTION_TYPES)})")
    params = action["parameters"] if "parameters" in action else {
        key: value for key, value in action.items() if key != "action_type"
    }
    if not isinstance(params, Mapping):
        raise _fail(f"{kind}: parameters must be a dict")
    try:
        return translator(params)
    except ActionError as exc:
        if exc.construct == "computer_13":
            raise
        raise _fail(f"{kind}: {exc}") from None


def loads(text: str) -> dict[str, Any] | None:
    """The computer_13 action a JSON text holds (a JSON object with an ``action_type``),
    or None when ``text`` is something else (pyautogui code, a control word)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and "action_type" in value:
        return value
    return None


def dumps(action: Mapping[str, Any]) -> str:
    """The JSON text of a computer_13 action (how the env sends a dict to the host)."""
    try:
        return json.dumps(dict(action), separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _fail(f"is not JSON data: {exc}") from None


def control_of(action: object) -> ControlWord | None:
    """The control word of a computer_13 action (a dict or its JSON text), else None."""
    parsed = loads(action) if isinstance(action, str) else action
    if isinstance(parsed, Mapping):
        kind = parsed.get("action_type")
        if isinstance(kind, str):
            return _CONTROL.get(kind)
    return None
