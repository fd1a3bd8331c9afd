"""Keyboard state: pyautogui key names, modifier tracking, shifted characters (US layout)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Modifiers", "normalize_key", "shifted"]

_MODIFIERS = {
    "ctrl": "ctrl", "ctrlleft": "ctrl", "ctrlright": "ctrl", "control": "ctrl",
    "shift": "shift", "shiftleft": "shift", "shiftright": "shift",
    "alt": "alt", "altleft": "alt", "altright": "alt", "option": "alt",
    "optionleft": "alt", "optionright": "alt",
    "win": "super", "winleft": "super", "winright": "super", "super": "super",
    "command": "super", "cmd": "super", "meta": "super",
}

_ALIASES = {
    "return": "enter", "\n": "enter", "\r": "enter", "esc": "escape", "del": "delete",
    "\b": "backspace", "\t": "tab", "space": " ", "pgup": "pageup", "pgdn": "pagedown",
    "apps": "menu",
}

_SHIFTED = dict(zip("`1234567890-=[]\\;',./", "~!@#$%^&*()_+{}|:\"<>?", strict=True))


def normalize_key(key: str) -> str:
    """pyautogui-style name: named keys lower-cased, common aliases folded."""
    if len(key) > 1:
        key = key.lower()
    return _ALIASES.get(key, key)


def shifted(ch: str) -> str:
    """The character shift+``ch`` types on a US keyboard."""
    if ch.isalpha():
        return ch.upper()
    return _SHIFTED.get(ch, ch)


@dataclass
class Modifiers:
    """Which modifier keys are held (tracks left/right variants separately)."""

    held: set[str] = field(default_factory=set)

    def _on(self, kind: str) -> bool:
        return any(_MODIFIERS[k] == kind for k in self.held)

    @property
    def ctrl(self) -> bool:
        return self._on("ctrl")

    @property
    def shift(self) -> bool:
        return self._on("shift")

    @property
    def alt(self) -> bool:
        return self._on("alt")

    @property
    def super(self) -> bool:
        return self._on("super")

    def any(self) -> bool:
        return bool(self.held)

    def press(self, key: str) -> bool:
        """Record a key press; True when ``key`` is a modifier."""
        if key in _MODIFIERS:
            self.held.add(key)
            return True
        return False

    def release(self, key: str) -> None:
        self.held.discard(key)
