"""What the desktop does with the files its icons show: open, new folder, trash, clipboard.

`IconActions` is a component of `Desktop` (``desk.icon_actions``); it holds a reference to
the desktop whose state it changes. Input handlers (clicks, keys, menu items) call it
through the desktop's methods of the same names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import charge
from . import file_ops
from .fs import DESKTOP_DIR

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["IconActions"]


class IconActions:
    """Operations on the entries of ~/Desktop (open, new folder, trash, copy, paste)."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk

    def open_paths(self, names: list[str]) -> None:
        """Open desktop entries: folders in a Files window (files: a hook for later apps)."""
        desk = self.desk
        for name in names:
            path = f"{DESKTOP_DIR}/{name}"
            if desk.fs.is_dir(path):
                desk.open_folder(path)

    def new_folder(self, near: tuple[int, int]) -> str:
        """Create "New Folder" (or "New Folder 2", ...) near a point and start renaming it."""
        desk = self.desk
        name = "New Folder"
        n = 2
        while desk.fs.exists(f"{DESKTOP_DIR}/{name}"):
            charge()
            name, n = f"New Folder {n}", n + 1
        desk.fs.mkdir(f"{DESKTOP_DIR}/{name}", parents=True)
        desk.grid.place(name, near)
        desk.selected = {name}
        desk.start_rename(name)
        return name

    def trash(self, names: list[str]) -> None:
        """Move desktop entries ``names`` to the Trash (vanished ones are skipped)."""
        desk = self.desk
        for name in names:
            charge()
            if desk.fs.exists(f"{DESKTOP_DIR}/{name}"):
                desk.fs.trash(f"{DESKTOP_DIR}/{name}")
        desk.selected -= set(names)

    def set_clipboard(self, op: str, names: list[str]) -> None:
        """Copy (``op="copy"``) or cut desktop entries ``names`` to the file clipboard."""
        if names:
            self.desk.clipboard = (op, tuple(f"{DESKTOP_DIR}/{n}" for n in names))

    def paste(self) -> None:
        """Paste copied/cut files into ~/Desktop ("name (copy)" on clashes)."""
        self.desk.selected = set(self.paste_into(DESKTOP_DIR))

    def paste_into(self, directory: str) -> list[str]:
        """Paste the clipboard into ``directory`` (a cut is consumed); the new names."""
        desk = self.desk
        pasted = file_ops.paste(desk.fs, desk.clipboard, directory)
        if desk.clipboard is not None and desk.clipboard[0] == "cut":
            desk.clipboard = None
        return pasted
