"""Key names: pyautogui's ``KEYBOARD_KEYS`` and how the action language normalises them.

A key argument (``press``, ``keyDown``, ``keyUp``, ``hotkey``, a list given to ``write``) is
valid when it is one of :data:`KEYBOARD_KEYS` (compared in lower case) or a single printable
character. Normalisation follows pyautogui: names longer than one character are lower-cased,
single characters are kept as they are (``"A"`` stays ``"A"``: pyautogui presses shift for it).
The control characters pyautogui accepts become the keys they stand for: ``"\\n"`` and ``"\\r"``
are ``"enter"``, ``"\\t"`` is ``"tab"``.

>>> normalize_key("Enter"), normalize_key("A"), normalize_key("\\n")
('enter', 'A', 'enter')
>>> canonical_key("escape"), canonical_key("pgdn")
('esc', 'pagedown')

Key names pyautogui does not press are no-ops, as in pyautogui on X11 (the platform of
OSWorld's Ubuntu): pyautogui looks the name up in its X11 keyboard mapping and does nothing
when it is absent (``'super'``, ``'cmd'``, ``'meta'``) or unmapped on X11 (``'command'``,
``'option'``, ``'fn'``, ``'volumeup'``, ...). ``'win'``, ``'winleft'`` and ``'winright'`` are
the Super keys. One difference, kept on purpose: a printable character outside pyautogui's
mapping (``'é'``, ``'日'``) is typed here, where pyautogui on X11 drops it.

>>> key_name("Super"), presses_key("super"), presses_key("win"), presses_key("command")
('super', False, True, False)
"""

from __future__ import annotations

__all__ = [
    "KEYBOARD_KEYS",
    "KEY_ALIASES",
    "MEDIA_KEYS",
    "X11_KEYS",
    "canonical_key",
    "is_valid_key",
    "key_name",
    "normalize_key",
    "presses_key",
]

_CHARACTERS = (
    "\t\n\r " + r"""!"#$%&'()*+,-./0123456789:;<=>?@[\]^_`abcdefghijklmnopqrstuvwxyz{|}~"""
)
_NAMES = """
    accept add alt altleft altright apps backspace browserback browserfavorites browserforward
    browserhome browserrefresh browsersearch browserstop capslock clear convert ctrl ctrlleft
    ctrlright decimal del delete divide down end enter esc escape execute
    f1 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19 f2 f20 f21 f22 f23 f24 f3 f4 f5 f6 f7 f8 f9
    final fn hanguel hangul hanja help home insert junja kana kanji launchapp1 launchapp2
    launchmail launchmediaselect left modechange multiply nexttrack nonconvert
    num0 num1 num2 num3 num4 num5 num6 num7 num8 num9 numlock pagedown pageup pause pgdn pgup
    playpause prevtrack print printscreen prntscrn prtsc prtscr return right scrolllock select
    separator shift shiftleft shiftright sleep space stop subtract tab up volumedown volumemute
    volumeup win winleft winright yen command option optionleft optionright
"""

KEYBOARD_KEYS: tuple[str, ...] = (*_CHARACTERS, *_NAMES.split())
"""pyautogui's key names (``pyautogui.KEYBOARD_KEYS``, version 0.9.54), in its order."""

_KEY_SET = frozenset(KEYBOARD_KEYS)

KEY_ALIASES: dict[str, str] = {
    "escape": "esc",
    "return": "enter",
    "del": "delete",
    "pgdn": "pagedown",
    "pgup": "pageup",
    "prntscrn": "printscreen",
    "prtsc": "printscreen",
    "prtscr": "printscreen",
    "hanguel": "hangul",
}
"""Synonyms among :data:`KEYBOARD_KEYS` that press the same key; see :func:`canonical_key`.

Events keep the name the action used; a desktop that wants one name per key maps through this.
"""

_CONTROL_CHARS = {"\n": "enter", "\r": "enter", "\t": "tab"}

_X11_NAMES = """
    add alt altleft altright apps backspace capslock ctrl ctrlleft ctrlright decimal del delete
    divide down end enter esc escape execute
    f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19 f20 f21 f22 f23 f24
    help home insert left multiply num0 num1 num2 num3 num4 num5 num6 num7 num8 num9 numlock
    pagedown pageup pause pgdn pgup print printscreen prntscrn prtsc prtscr return right
    scrolllock select separator shift shiftleft shiftright space subtract tab up
    win winleft winright
"""
_X11_CHARACTERS = (
    "\b\t\n\r " + r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"""
    + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

#: The media keys: pyautogui 0.9.54 maps no X11 key code for them (its issue #443; PR #863
#: adds XF86AudioRaiseVolume and friends), yet agents press them as on any Ubuntu desktop
#: (``press('volumeup', presses=12)``), and the simulated desktop raises the volume a step as
#: GNOME does. We press them: docs/desktop.md says where this differs from OSWorld's VM.
MEDIA_KEYS: frozenset[str] = frozenset(("volumeup", "volumedown", "volumemute"))

X11_KEYS: frozenset[str] = frozenset((*_X11_NAMES.split(), *_X11_CHARACTERS)) | MEDIA_KEYS
"""The key names pyautogui presses on X11 (its ``keyboardMapping`` entries that are not None,
pyautogui 0.9.54), and :data:`MEDIA_KEYS`; any other name is a no-op there."""


def is_valid_key(key: object) -> bool:
    """Whether ``key`` is a key name pyautogui knows or a single printable character."""
    if not isinstance(key, str) or not key:
        return False
    if len(key) == 1:
        return key in _CONTROL_CHARS or key.isprintable()
    return key.lower() in _KEY_SET


def normalize_key(key: str) -> str:
    """The key name an event carries for ``key``; raises ``ValueError`` for an unknown key."""
    if not is_valid_key(key):
        raise ValueError(f"unknown key name {key!r}")
    if len(key) == 1:
        return _CONTROL_CHARS.get(key, key)
    return key.lower()


def canonical_key(key: str) -> str:
    """One name per physical key: ``normalize_key`` then :data:`KEY_ALIASES`."""
    name = normalize_key(key)
    return KEY_ALIASES.get(name, name)


def key_name(key: str) -> str:
    """The name pyautogui looks a key up by: lower case when longer than one character.

    Unlike :func:`normalize_key` it accepts any string (an unknown name is a no-op, not an
    error); ``"\\n"``/``"\\r"`` are ``"enter"`` and ``"\\t"`` is ``"tab"`` as there.
    """
    if len(key) == 1:
        return _CONTROL_CHARS.get(key, key)
    return key.lower()


def presses_key(name: str) -> bool:
    """Whether a key is pressed for ``name`` (a :func:`key_name`): pyautogui's X11 keys, and
    any other printable character (see the module's docstring)."""
    return name in X11_KEYS or (len(name) == 1 and name.isprintable())
