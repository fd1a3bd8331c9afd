"""The action language: pyautogui code strings parsed with `ast`, and computer_13 dicts.

>>> from drums_gym.actions import expand, parse
>>> expand(parse("pyautogui.click(10, 20)\\npyautogui.write('hi')"), pointer=(0, 0))
[MouseMove(x=10, y=20), MouseDown(button='left'), MouseUp(button='left'), KeyDown(key='h'), \
KeyUp(key='h'), KeyDown(key='i'), KeyUp(key='i')]
>>> parse_control("DONE")
'DONE'
"""

from drums_gym.actions import computer13
from drums_gym.actions.action import ACTION_NAMES, Action, ArgValue, expand, iter_expand
from drums_gym.actions.calls import call_action
from drums_gym.actions.control import CONTROL_WORDS, ControlWord, parse_control
from drums_gym.actions.errors import CONSTRUCTS, ActionError
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
from drums_gym.actions.keys import (
    KEYBOARD_KEYS,
    X11_KEYS,
    canonical_key,
    is_valid_key,
    key_name,
    normalize_key,
    presses_key,
)
from drums_gym.actions.limits import (
    MAX_CLICKS,
    MAX_CODE_CHARS,
    MAX_COORDINATE,
    MAX_EVENTS,
    MAX_PRESSES,
    MAX_SCROLL,
    MAX_SECONDS,
    MAX_STATEMENTS,
)
from drums_gym.actions.parser import parse, validate

__all__ = [
    "ACTION_NAMES",
    "CONSTRUCTS",
    "CONTROL_WORDS",
    "KEYBOARD_KEYS",
    "MAX_CLICKS",
    "MAX_CODE_CHARS",
    "MAX_COORDINATE",
    "MAX_EVENTS",
    "MAX_PRESSES",
    "MAX_SCROLL",
    "MAX_SECONDS",
    "MAX_STATEMENTS",
    "X11_KEYS",
    "Action",
    "ActionError",
    "ArgValue",
    "Button",
    "ControlWord",
    "Event",
    "KeyDown",
    "KeyUp",
    "MouseDown",
    "MouseMove",
    "MouseUp",
    "Scroll",
    "Sleep",
    "call_action",
    "canonical_key",
    "computer13",
    "expand",
    "is_valid_key",
    "iter_expand",
    "key_name",
    "normalize_key",
    "parse",
    "parse_control",
    "presses_key",
    "validate",
]
