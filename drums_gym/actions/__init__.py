"""The action language: pyautogui code strings, parsed with `ast`, never executed.

>>> from drums_gym.actions import expand, parse
>>> expand(parse("pyautogui.click(10, 20)\\npyautogui.write('hi')"), pointer=(0, 0))
[MouseMove(x=10, y=20), MouseDown(button='left'), MouseUp(button='left'), KeyDown(key='h'), \
KeyUp(key='h'), KeyDown(key='i'), KeyUp(key='i')]
>>> parse_control("DONE")
'DONE'
"""

from drums_gym.actions.action import ACTION_NAMES, Action, ArgValue, expand, iter_expand
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
from drums_gym.actions.keys import KEYBOARD_KEYS, canonical_key, is_valid_key, normalize_key
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
    "canonical_key",
    "expand",
    "is_valid_key",
    "iter_expand",
    "normalize_key",
    "parse",
    "parse_control",
    "validate",
]
