"""A single-line text entry model: text, cursor and selection, edited by key names.

>>> f = TextField("report.txt", anchor=0, cursor=6)
>>> f.selected_text()
'report'
>>> for ch in "notes":
...     _ = f.key(ch)
>>> f.text
'notes.txt'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TextField"]


@dataclass
class TextField:
    """Text with a cursor; ``anchor`` is the other end of the selection (== cursor: none)."""

    text: str = ""
    cursor: int = 0
    anchor: int = 0

    def __post_init__(self) -> None:
        self.cursor = max(0, min(self.cursor, len(self.text)))
        self.anchor = max(0, min(self.anchor, len(self.text)))

    def selection(self) -> tuple[int, int]:
        """``(start, end)`` of the selection; empty when start == end."""
        return min(self.cursor, self.anchor), max(self.cursor, self.anchor)

    def selected_text(self) -> str:
        a, b = self.selection()
        return self.text[a:b]

    def _delete_selection(self) -> bool:
        a, b = self.selection()
        if a == b:
            return False
        self.text = self.text[:a] + self.text[b:]
        self.cursor = self.anchor = a
        return True

    def insert(self, s: str) -> None:
        """Type ``s``, replacing the selection."""
        self._delete_selection()
        self.text = self.text[: self.cursor] + s + self.text[self.cursor:]
        self.cursor += len(s)
        self.anchor = self.cursor

    def select_all(self) -> None:
        self.anchor, self.cursor = 0, len(self.text)

    def set_cursor(self, pos: int, extend: bool = False) -> None:
        self.cursor = max(0, min(pos, len(self.text)))
        if not extend:
            self.anchor = self.cursor

    def _word_left(self) -> int:
        i = self.cursor
        while i > 0 and not self.text[i - 1].isalnum():
            i -= 1
        while i > 0 and self.text[i - 1].isalnum():
            i -= 1
        return i

    def _word_right(self) -> int:
        i, n = self.cursor, len(self.text)
        while i < n and not self.text[i].isalnum():
            i += 1
        while i < n and self.text[i].isalnum():
            i += 1
        return i

    def key(self, key: str, shift: bool = False, ctrl: bool = False) -> bool:
        """Apply one key press (pyautogui name or a printable character).

        Returns True when the key was an editing key this field handled.
        """
        if len(key) == 1 and key.isprintable():
            if ctrl:
                if key.lower() == "a":
                    self.select_all()
                    return True
                return False
            self.insert(key)
            return True
        a, b = self.selection()
        if key == "backspace":
            if not self._delete_selection() and self.cursor > 0:
                start = self._word_left() if ctrl else self.cursor - 1
                self.text = self.text[:start] + self.text[self.cursor:]
                self.cursor = self.anchor = start
            return True
        if key == "delete":
            if not self._delete_selection() and self.cursor < len(self.text):
                end = self._word_right() if ctrl else self.cursor + 1
                self.text = self.text[: self.cursor] + self.text[end:]
            return True
        if key in ("left", "right"):
            if a != b and not shift:
                self.set_cursor(a if key == "left" else b)
            elif ctrl:
                self.set_cursor(self._word_left() if key == "left" else self._word_right(), shift)
            else:
                self.set_cursor(self.cursor + (-1 if key == "left" else 1), shift)
            return True
        if key in ("home", "up", "pageup"):
            self.set_cursor(0, shift)
            return True
        if key in ("end", "down", "pagedown"):
            self.set_cursor(len(self.text), shift)
            return True
        return False
