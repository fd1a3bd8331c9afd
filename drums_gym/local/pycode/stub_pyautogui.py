"""The ``pyautogui`` module agent code imports inside the sandbox (never imported by the host).

`server.py` executes this source, in each action's fresh fork, as the module ``pyautogui``
with ``_CHANNEL`` (the pipe to the desktop's owner) and ``_SETUP`` (the key names) in its
namespace. Each input function
sends its name and arguments to the owner, which applies it on the desktop at once and
answers; queries (`position`, `size`, `pixel`) answer from the live desktop. A refused
argument raises here, in the agent's code, as pyautogui would.
"""

import collections
import contextlib
import json

_CHANNEL = globals().get("_CHANNEL")
_SETUP = globals().get("_SETUP") or {}

FAILSAFE = True
PAUSE = 0.1
MINIMUM_DURATION = 0.1
MINIMUM_SLEEP = 0.05
DARWIN_CATCH_UP_TIME = 0.01
KEYBOARD_KEYS = list(_SETUP.get("keys", ()))
KEY_NAMES = KEYBOARD_KEYS
_X11 = frozenset(_SETUP.get("x11", ()))

Point = collections.namedtuple("Point", "x y")
Size = collections.namedtuple("Size", "width height")


class PyAutoGUIException(Exception):
    """pyautogui's base exception."""


class FailSafeException(PyAutoGUIException):
    pass


class ImageNotFoundException(PyAutoGUIException):
    pass


_TWEEN = "<tween>"


def linear(n):
    return n


def _tween(name):
    def tween(n):
        return n

    tween.__name__ = name
    return tween


for _name in [
    "easeInQuad",
    "easeOutQuad",
    "easeInOutQuad",
    "easeInCubic",
    "easeOutCubic",
    "easeInOutCubic",
    "easeInQuart",
    "easeOutQuart",
    "easeInOutQuart",
    "easeInQuint",
    "easeOutQuint",
    "easeInOutQuint",
    "easeInSine",
    "easeOutSine",
    "easeInOutSine",
    "easeInExpo",
    "easeOutExpo",
    "easeInOutExpo",
    "easeInCirc",
    "easeOutCirc",
    "easeInOutCirc",
    "easeInElastic",
    "easeOutElastic",
    "easeInOutElastic",
    "easeInBack",
    "easeOutBack",
    "easeInOutBack",
    "easeInBounce",
    "easeOutBounce",
    "easeInOutBounce",
]:
    globals()[_name] = _tween(_name)


def _value(value):
    if callable(value):
        return _TWEEN
    if isinstance(value, (list, tuple)):
        return [_value(item) for item in value]
    return value


def _request(message):
    reader, writer = _CHANNEL
    try:
        line = json.dumps(message)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"pyautogui.{message.get('call')}(): {exc}") from None
    writer.write(line.encode() + b"\n")
    reply = json.loads(reader.readline())
    if "raise" in reply:
        kind = {"TypeError": TypeError, "ValueError": ValueError}.get(reply["raise"])
        raise (kind or PyAutoGUIException)(reply["message"])
    return reply.get("ok")


def _call(name, args, kwargs):
    return _request(
        {
            "call": name,
            "args": [_value(a) for a in args],
            "kwargs": {k: _value(v) for k, v in kwargs.items()},
        }
    )


def _input(name):
    def function(*args, **kwargs):
        _call("pyautogui." + name, args, kwargs)

    function.__name__ = name
    return function


for _name in [
    "moveTo",
    "moveRel",
    "move",
    "click",
    "leftClick",
    "rightClick",
    "middleClick",
    "doubleClick",
    "tripleClick",
    "mouseDown",
    "mouseUp",
    "dragTo",
    "dragRel",
    "drag",
    "scroll",
    "vscroll",
    "hscroll",
    "write",
    "typewrite",
    "press",
    "keyDown",
    "keyUp",
    "hotkey",
]:
    globals()[_name] = _input(_name)


def sleep(seconds):
    """Let ``seconds`` pass on the desktop's clock (``time.sleep`` is this function too)."""
    _call("time.sleep", (seconds,), {})


def position(x=None, y=None):
    px, py = _request({"query": "position"})
    return Point(int(x) if x is not None else px, int(y) if y is not None else py)


def size():
    return Size(*_request({"query": "size"}))


resolution = size


def onScreen(x, y=None):
    if y is None:
        x, y = x
    width, height = size()
    return 0 <= int(x) < width and 0 <= int(y) < height


def pixel(x, y):
    return tuple(_request({"query": "pixel", "x": int(x), "y": int(y)}))


def pixelMatchesColor(x, y, expectedRGBColor, tolerance=0):
    got = pixel(x, y)
    return all(abs(a - b) <= tolerance for a, b in zip(got, expectedRGBColor[:3], strict=False))


def isValidKey(key):
    return key in _X11  # pyautogui looks the key up as given


@contextlib.contextmanager
def hold(keys, logScreenshot=None, _pause=True):
    keys = [keys] if isinstance(keys, str) else list(keys)
    for key in keys:
        keyDown(key)  # noqa: F821 - made by _input above
    try:
        yield
    finally:
        for key in reversed(keys):
            keyUp(key)  # noqa: F821 - made by _input above


def _unavailable(name):
    def function(*args, **kwargs):
        raise NotImplementedError(
            f"pyautogui.{name}() is not available on this desktop (the observation is the "
            "screenshot; use coordinates)"
        )

    function.__name__ = name
    return function


for _name in [
    "screenshot",
    "locateOnScreen",
    "locateAllOnScreen",
    "locateCenterOnScreen",
    "locate",
    "locateAll",
    "center",
    "alert",
    "confirm",
    "prompt",
    "password",
]:
    globals()[_name] = _unavailable(_name)
