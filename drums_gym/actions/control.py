"""Control words: the non-code actions of OSWorld (``DONE``, ``FAIL``, ``WAIT``)."""

from __future__ import annotations

from typing import Literal

__all__ = ["CONTROL_WORDS", "ControlWord", "parse_control"]

ControlWord = Literal["DONE", "FAIL", "WAIT"]

CONTROL_WORDS: tuple[ControlWord, ...] = ("DONE", "FAIL", "WAIT")
"""``DONE`` and ``FAIL`` end the episode; ``WAIT`` lets time pass."""


def parse_control(text: object) -> ControlWord | None:
    """The control word ``text`` is, or None when it is anything else (e.g. pyautogui code).

    Surrounding whitespace is ignored; the word itself is case-sensitive, as in OSWorld.

    >>> parse_control(" DONE\\n"), parse_control("done"), parse_control("pyautogui.click()")
    ('DONE', None, None)
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    for word in CONTROL_WORDS:
        if stripped == word:
            return word
    return None
