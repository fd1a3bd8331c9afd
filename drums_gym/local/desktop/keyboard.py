"""Keyboard routing: the open menu, the rename field, the focused window, or the desktop.

`KeyboardInput` is a mixin of `Desktop` (after `DesktopActions`, whose operations it calls).
"""

from __future__ import annotations

from .actions import DesktopActions
from .keys import Modifiers, normalize_key, shifted

__all__ = ["KeyboardInput"]


class KeyboardInput(DesktopActions):
    """Key presses (``KeyDown``) as GNOME routes them."""

    mods: Modifiers

    def _key_down(self, raw: str) -> None:
        key = normalize_key(raw)
        if self.mods.press(key):
            return
        if len(key) == 1 and self.mods.shift:
            key = shifted(key)
        if self.menu is not None:
            self._menu_key(key)
        elif self.rename is not None:
            self._rename_key(key)
        elif (w := self.active_window()) is not None:
            if (self.mods.alt and key == "f4") or (self.mods.ctrl and key.lower() == "w"):
                self.close_window(w)
            else:
                w.on_key(self, key)
        else:
            self._desktop_key(key)

    def _menu_key(self, key: str) -> None:
        if key == "escape":
            self.menu = None
        elif key == "enter" and self.menu is not None:
            hover = self.hovered_menu_item()
            if hover is not None:
                self.run_menu_action(self.menu.items[hover].action)

    def _rename_key(self, key: str) -> None:
        pop = self.rename
        if pop is None:
            return
        mods = self.mods
        if key == "enter":
            self.commit_rename()
            return
        if key == "escape":
            self.rename = None
            return
        if mods.ctrl and key.lower() in ("c", "x") and pop.field.selected_text():
            self.text_clipboard = pop.field.selected_text()
            if key.lower() == "x":
                pop.field.insert("")
        elif mods.ctrl and key.lower() == "v":
            pop.field.insert(self.text_clipboard.replace("\n", " "))
        elif mods.alt or mods.super or not pop.field.key(key, shift=mods.shift, ctrl=mods.ctrl):
            return
        self.validate_rename()

    def _desktop_key(self, key: str) -> None:
        mods, names = self.mods, sorted(self.selected)
        k = key.lower() if len(key) == 1 else key
        if key == "f2" and len(names) == 1:
            self.start_rename(names[0])
        elif key == "delete" and names:
            self.trash(names)
        elif key == "escape":
            self.selected = set()
        elif (key == "enter" or (mods.ctrl and k == "o")) and names:
            self.open_paths(names)
        elif mods.ctrl and mods.shift and k == "n":
            self.new_folder(self.pointer)
        elif mods.ctrl and k == "a":
            self.selected = set(self.grid.slots)
        elif mods.ctrl and k in ("c", "x"):
            self.set_clipboard("copy" if k == "c" else "cut", names)
        elif mods.ctrl and k == "v":
            self.paste()
        elif key == "menu" or (mods.shift and key == "f10"):
            if names:
                x0, y0, x1, y1 = self.grid.hit_box(names[0])
                self.open_icon_menu(((x0 + x1) // 2, (y0 + y1) // 2))
            else:
                self.open_desktop_menu(self.pointer)
        elif key in ("left", "right", "up", "down"):
            self._arrow(key)

    def _arrow(self, key: str) -> None:
        order = self.grid.ordered()
        if not order:
            return
        if not self.selected:
            self.selected = {order[0]}
            return
        cur = self.grid.slots[sorted(self.selected)[0]]
        rows = self.grid.rows
        step = {"up": -1, "down": 1, "left": -rows, "right": rows}[key]
        target = cur + step
        if key in ("up", "down") and target // rows != cur // rows:
            return
        by_slot = {s: n for n, s in self.grid.slots.items()}
        if target in by_slot:
            self.selected = {by_slot[target]}
