"""Driving a simulated Terminal through input events, as an agent would (tests' helper)."""

from __future__ import annotations

from typing import Any

from drums_gym.actions import expand, parse
from drums_gym.local.desktop import Desktop


def walk(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = [node]
    for child in node.get("children", ()):
        out += walk(child)
    return out


def center(node: dict[str, Any]) -> tuple[int, int]:
    (x, y), (w, h) = node["position"], node["size"]
    return x + w // 2, y + h // 2


class Term:
    """A desktop with a terminal opened by ctrl+alt+T (maximized unless ``maximize=False``)."""

    def __init__(self, desktop: Desktop | None = None, maximize: bool = True) -> None:
        self.d = desktop if desktop is not None else Desktop()
        self.act("pyautogui.hotkey('ctrl', 'alt', 't')")
        if maximize:
            frame = self.frame()
            button = next(n for n in frame["children"] if n["name"] == "Maximize")
            self.act(f"pyautogui.click{center(button)}")

    @property
    def fs(self) -> Any:
        return self.d.fs

    def act(self, code: str) -> None:
        """Run pyautogui code (parsed and expanded to events, never executed)."""
        self.d.apply(expand(parse(code), self.d.pointer))

    def write(self, text: str) -> None:
        self.act(f"pyautogui.write({text!r})")

    def hotkey(self, *keys: str) -> None:
        self.act(f"pyautogui.hotkey({', '.join(repr(k) for k in keys)})")

    def press(self, key: str, presses: int = 1) -> None:
        self.act(f"pyautogui.press({key!r}, presses={presses})")

    def nodes(self, role: str) -> list[dict[str, Any]]:
        return [n for n in walk(self.d.accessibility()) if n["role"] == role]

    def node(self) -> dict[str, Any]:
        """The a11y node of the topmost terminal."""
        found = self.nodes("terminal")
        if not found:
            raise LookupError("no terminal in the accessibility tree")
        return found[-1]

    def frame(self) -> dict[str, Any]:
        name = self.node()["name"]
        return [n for n in self.nodes("frame") if n["name"] == name][-1]

    def text(self) -> str:
        return str(self.node()["text"])

    def run(self, line: str) -> str:
        """Clear the screen (ctrl+L), type ``line`` and Enter; return what it printed
        (the rows between the echoed command and the next prompt)."""
        self.hotkey("ctrl", "l")
        self.write(line + "\n")
        rows = self.text().split("\n")
        return "\n".join(rows[1:-1])
