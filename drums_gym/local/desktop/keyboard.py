"""Keyboard routing: the open menu, the rename field, the focused window, or the desktop.

`Keyboard` is a component of `Desktop` (``desk.keyboard``); `Desktop.apply` hands it every
``KeyDown``. The terminal launcher sees each key first (ctrl+alt+T works whatever has focus).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import charge
from .keys import normalize_key, shifted

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["Keyboard"]


class Keyboard:
    """Key presses (``KeyDown``) as GNOME routes them."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk
        self.super_tap = False  # Super went down and nothing else since (a tap opens Activities)

    def key_up(self, raw: str) -> None:
        """A key release: a Super key tapped alone toggles the Activities overview."""
        key = normalize_key(raw)
        desk = self.desk
        tapped = self.super_tap and key in ("win", "winleft", "winright", "super", "command",
                                            "cmd", "meta")
        desk.mods.release(key)
        if tapped:
            self.super_tap = False
            desk.menu = None
            desk.activities.toggle()

    def key_down(self, raw: str) -> None:
        """One key press: a modifier, a global shortcut, or a key for whatever has focus."""
        desk = self.desk
        key = normalize_key(raw)
        self.super_tap = key in ("win", "winleft", "winright", "super", "command", "cmd",
                                 "meta") and not desk.mods.any()
        if desk.terminals.shortcut(raw):
            return
        if desk.volume_key(key):  # media keys: a global grab, whatever has focus
            return
        if desk.mods.press(key):
            return
        if len(key) == 1 and desk.mods.shift:
            key = shifted(key)
        if desk.activities.is_open and desk.menu is None:
            desk.activities.press_key(key)
        elif desk.menu is not None:
            self._menu_key(key)
        elif desk.rename is not None:
            desk.rename_flow.key(key)
        elif (w := desk.active_window()) is not None:
            if (desk.mods.alt and key == "f4") or (desk.mods.ctrl and key.lower() == "w"):
                desk.close_window(w)
            else:
                w.on_key(desk, key)
        else:
            self._desktop_key(key)

    def _menu_key(self, key: str) -> None:
        desk = self.desk
        if key == "escape":
            desk.menu = None
        elif key in ("up", "down") and desk.menu is not None:
            desk.menu.focus = desk.menu.step(desk.hovered_menu_item(), 1 if key == "down" else -1)
        elif key in ("enter", " ") and desk.menu is not None:
            hover = desk.hovered_menu_item()
            if hover is not None:
                desk.run_menu_action(desk.menu.items[hover].action)

    def _desktop_key(self, key: str) -> None:
        desk = self.desk
        charge(len(desk.selected))
        mods, names = desk.mods, sorted(desk.selected)
        k = key.lower() if len(key) == 1 else key
        if key == "f2" and len(names) == 1:
            desk.start_rename(names[0])
        elif key == "delete" and names:
            desk.trash(names)
        elif key == "escape":
            desk.selected = set()
        elif (key == "enter" or (mods.ctrl and k == "o")) and names:
            desk.open_paths(names)
        elif mods.ctrl and mods.shift and k == "n":
            desk.new_folder(desk.pointer)
        elif mods.ctrl and k == "a":
            charge(len(desk.grid.slots))
            desk.selected = set(desk.grid.slots)
        elif mods.ctrl and k in ("c", "x"):
            desk.set_clipboard("copy" if k == "c" else "cut", names)
        elif mods.ctrl and k == "v":
            desk.paste()
        elif key == "menu" or (mods.shift and key == "f10"):
            if names:
                x0, y0, x1, y1 = desk.grid.hit_box(names[0])
                desk.open_icon_menu(((x0 + x1) // 2, (y0 + y1) // 2))
            else:
                desk.open_desktop_menu(desk.pointer)
        elif key in ("left", "right", "up", "down"):
            self._arrow(key)

    def _arrow(self, key: str) -> None:
        desk = self.desk
        first = desk.grid.first()
        if first is None:
            return
        if not desk.selected:
            desk.selected = {first}
            return
        cur = desk.grid.slots[sorted(desk.selected)[0]]
        rows = desk.grid.rows
        step = {"up": -1, "down": 1, "left": -rows, "right": rows}[key]
        target = cur + step
        if key in ("up", "down") and target // rows != cur // rows:
            return
        name = desk.grid.name_at_slot(target)
        if name is not None:
            desk.selected = {name}
