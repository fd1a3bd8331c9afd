"""A Files (Nautilus 42)-like window: location bar, sidebar of places, an icon view.

`FilesModel` holds the state and geometry, `files_view` draws it and builds its
accessibility nodes; this module handles input and runs the operations.

Mouse: click selects, ctrl+click toggles, shift+click selects a range,
double-click opens, right-click opens a context menu. Keys: Enter / ctrl+O
open, F2 rename, Delete trash, ctrl+C / ctrl+X / ctrl+V copy, cut, paste,
ctrl+A select all, ctrl+shift+N new folder, ctrl+L type a location,
alt+Left / alt+Right / alt+Up / Backspace navigate, ctrl+H hidden files,
arrows move the selection, Menu / shift+F10 the context menu.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from ..budget import charge
from . import file_ops, files_view
from .files_model import (
    PLACES,
    SIDEBAR_W,
    TRASH_BAR_H,
    TRASH_URI,
    FilesModel,
    Item,
    display_name,
    inside,
)
from .files_properties import open_properties
from .fs import HOME
from .popups import SEPARATOR, Menu, MenuItem
from .textfield import TextField

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["PLACES", "TRASH_URI", "FolderWindow", "Item", "display_name"]

SCROLL_STEP = 48  # pixels per wheel click


class FolderWindow(FilesModel):
    """A Files window on ``path`` (a folder, or ``trash:///``)."""

    # -- drawing and accessibility (files_view) ---------------------------
    def draw_header(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                    active: bool) -> None:
        files_view.draw_header(self, img, d, host, active)

    def draw_content(self, img: Image.Image, d: ImageDraw.ImageDraw, host: Desktop,
                     active: bool) -> None:
        files_view.draw_content(self, img, d, host, active)

    def content_accessibility(self, host: Desktop) -> list[dict[str, Any]]:
        return files_view.accessibility(self, host)

    # -- mouse ------------------------------------------------------------
    def item_at(self, host: Desktop, x: int, y: int) -> Item | None:
        if not inside(self.view_rect(), x, y):
            return None
        items = self.items(host)
        i = self.index_at(x, y, len(items))
        return None if i is None else items[i]

    def on_press(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        if y < self.y + self.HEADER_H:
            self._press_header(host, x, y, button)
            return
        self.location = None
        cx0, cy0, _, _ = self.content_rect()
        if x < cx0 + SIDEBAR_W:
            for i, (_, path) in enumerate(PLACES):
                if path and inside(self.place_rect(i), x, y) and button == "left" and (
                        path == TRASH_URI or host.fs.is_dir(path)):
                    self.navigate(path)
            return
        if self.in_trash and y < cy0 + TRASH_BAR_H:
            for label, box in self.trash_button_rects().items():
                if inside(box, x, y) and button == "left":
                    self._trash_button(host, label)
            return
        self._press_view(host, x, y, button, clicks)

    def _press_header(self, host: Desktop, x: int, y: int, button: str) -> None:
        if button != "left":
            return
        if inside(self.back_rect(), x, y):
            self.back()
        elif inside(self.forward_rect(), x, y):
            self.forward()
        elif self.location is None:
            for _, path, box in self.crumb_rects():
                if inside(box, x, y):
                    self.navigate(path)
                    return

    def _press_view(self, host: Desktop, x: int, y: int, button: str, clicks: int) -> None:
        item = self.item_at(host, x, y)
        mods = host.mods
        if button == "right":
            if item is None:
                self.selected = set()
            elif item.key not in self.selected:
                self._select_only(item.key)
            self.open_menu(host, (x, y))
            return
        if button != "left":
            return
        if item is None:
            if not (mods.ctrl or mods.shift):
                self.selected = set()
        elif mods.ctrl:
            self.selected ^= {item.key}
            self.cursor = self.anchor = item.key
        elif mods.shift and self.anchor is not None:
            self.selected = self._range(host, self.anchor, item.key)
            self.cursor = item.key
        else:
            self._select_only(item.key)
            if clicks >= 2:
                self.open_items(host, [item])

    def _range(self, host: Desktop, a: str, b: str) -> set[str]:
        items = self.items(host)
        ia, ib = self.index_of(host, a), self.index_of(host, b)
        if ia is None or ib is None:
            raise ValueError(f"{a if ia is None else b!r} is not in the view")
        i, j = sorted((ia, ib))
        charge(j - i + 1)
        return {item.key for item in items[i:j + 1]}

    def on_scroll(self, host: Desktop, dx: int, dy: int) -> None:
        count = len(self.items(host))
        self.scroll = max(0, min(self.scroll - dy * SCROLL_STEP, self.max_scroll(count)))

    # -- operations -------------------------------------------------------
    def open_items(self, host: Desktop, items: list[Item]) -> None:
        """Enter the first folder; further folders open in new windows (files: no app)."""
        folders = [i for i in items if i.is_dir and not self.in_trash]
        if folders:
            for extra in folders[1:]:
                host.open_folder(extra.path)
            host.raise_window(self)
            self.navigate(folders[0].path)

    def rename_selected(self, host: Desktop) -> None:
        items = self.selected_items(host)
        if len(items) == 1 and not self.in_trash:
            i = self.index_of(host, items[0].key)
            if i is None:
                return
            self._reveal(i)
            host.start_rename_path(items[0].path, self.tile(i), owner=self)

    def new_folder(self, host: Desktop) -> None:
        if self.in_trash or not host.fs.is_dir(self.path):
            return
        name = host.fs.unique_name(self.path, "Untitled Folder", "{stem} {n}")
        vx0, vy0, vx1, _ = self.view_rect()
        cx = (vx0 + vx1) // 2
        host.start_rename_path(self.path, (cx - 40, vy0 - 4, cx + 40, vy0 + 4), owner=self,
                               creating=True, name=name)

    def trash_selected(self, host: Desktop) -> None:
        if not self.in_trash:
            file_ops.trash(host.fs, [i.path for i in self.selected_items(host)])
            self.selected = set()

    def restore_selected(self, host: Desktop) -> None:
        file_ops.restore(host.fs, sorted(self.selected))

    def copy_selected(self, host: Desktop, op: str) -> None:
        items = self.selected_items(host)
        if items and not self.in_trash:
            host.clipboard = (op, tuple(i.path for i in items))

    def paste(self, host: Desktop) -> None:
        if not self.in_trash:
            names = host.paste_into(self.path)
            if names:
                self.selected, self.cursor, self.anchor = set(names), names[0], names[0]

    def _trash_button(self, host: Desktop, label: str) -> None:
        if label == "Restore":
            self.restore_selected(host)
        elif host.fs.trash_items():
            x0, _, _, y1 = self.trash_button_rects()["Empty…"]
            host.menu = Menu.at((MenuItem("Empty All Items", "empty-trash"),
                                 MenuItem("Cancel", "cancel")), (x0, y1 + 4),
                                (host.width, host.height), owner=self, name="Empty Trash?")
            host.menu_targets = ()

    # -- menus ------------------------------------------------------------
    def open_menu(self, host: Desktop, point: tuple[int, int]) -> None:
        sel = self.selected_items(host)
        if self.in_trash:
            items: tuple[MenuItem, ...] = (
                (MenuItem("Restore From Trash", "restore"),
                 MenuItem("Delete Permanently", "delete")) if sel else
                (MenuItem("Select All", "select-all"),))
        elif sel:
            one = len(sel) == 1
            folder = one and sel[0].is_dir
            items = (MenuItem("Open", "open"), MenuItem("Open in New Window", "open-window"),
                     SEPARATOR, MenuItem("Cut", "cut"), MenuItem("Copy", "copy"),
                     MenuItem("Move to Trash", "trash"), MenuItem("Rename…", "rename", one),
                     SEPARATOR, MenuItem("Properties", "properties"),
                     *((MenuItem("Open in Terminal", "terminal"),) if folder else ()))
        else:
            items = (MenuItem("New Folder…", "new-folder"), SEPARATOR,
                     MenuItem("Paste", "paste", host.clipboard is not None),
                     MenuItem("Select All", "select-all"), SEPARATOR,
                     MenuItem("Properties", "properties"),
                     MenuItem("Open in Terminal", "terminal"))
        host.menu = Menu.at(items, point, (host.width, host.height), owner=self)
        host.menu_targets = tuple(i.key for i in sel)

    def run_menu_action(self, host: Desktop, action: str, targets: list[str]) -> None:
        keys = set(self.entries(host))
        self.selected = {t for t in targets if t in keys} if targets else self.selected
        if action == "open":
            self.open_items(host, self.selected_items(host))
        elif action == "open-window":
            for item in self.selected_items(host):
                if item.is_dir:
                    host.open_folder(item.path)
        elif action in ("cut", "copy"):
            self.copy_selected(host, action)
        elif action == "trash":
            self.trash_selected(host)
        elif action == "rename":
            self.rename_selected(host)
        elif action == "new-folder":
            self.new_folder(host)
        elif action == "paste":
            self.paste(host)
        elif action == "select-all":
            self.selected = keys
        elif action == "restore":
            self.restore_selected(host)
        elif action == "delete":
            for key in sorted(self.selected):
                host.fs.delete_from_trash(key)
        elif action == "empty-trash":
            host.fs.empty_trash()
        elif action == "properties":
            self.properties(host)
        elif action == "terminal" and not self.in_trash:
            folders = [i.path for i in self.selected_items(host) if i.is_dir]
            host.open_terminal(folders[0] if folders else self.path)

    def properties(self, host: Desktop) -> None:
        """The Properties dialog of the (first) selected item, else of this folder."""
        items = self.selected_items(host)
        if items and not self.in_trash:
            open_properties(host, items[0].path)
        elif not items and not self.in_trash and host.fs.is_dir(self.path):
            open_properties(host, self.path)

    # -- keyboard ---------------------------------------------------------
    def on_key(self, host: Desktop, key: str) -> bool:
        mods = host.mods
        if self.location is not None:
            return self._location_key(host, key)
        k = key.lower() if len(key) == 1 else key
        sel = self.selected_items(host)
        if (mods.alt and key == "left") or (key == "backspace" and not mods.any()):
            self.back()
        elif mods.alt and key == "right":
            self.forward()
        elif mods.alt and key == "up":
            self.up()
        elif mods.alt and key == "home":
            self.navigate(HOME)
        elif (key == "enter" and not mods.alt) or (mods.ctrl and k == "o"):
            self.open_items(host, sel)
        elif key == "f2":
            self.rename_selected(host)
        elif key == "delete":
            self.trash_selected(host)
        elif mods.ctrl and mods.shift and k == "n":
            self.new_folder(host)
        elif mods.ctrl and k == "a":
            self.selected = set(self.entries(host))
        elif mods.ctrl and k in ("c", "x"):
            self.copy_selected(host, "copy" if k == "c" else "cut")
        elif mods.ctrl and k == "v":
            self.paste(host)
        elif mods.ctrl and k == "l":
            self.location = TextField(self.path, len(self.path), 0)
        elif mods.ctrl and k == "h":
            self.show_hidden = not self.show_hidden
        elif (mods.ctrl and k == "i") or (mods.alt and key == "enter"):
            self.properties(host)
        elif key == "escape":
            self.selected = set()
        elif key == "menu" or (mods.shift and key == "f10"):
            i = self.index_of(host, sel[0].key) if sel else None
            box = self.tile(i) if i is not None else self.view_rect()
            self.open_menu(host, ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2))
        elif key in ("left", "right", "up", "down", "home", "end"):
            self._arrow(host, key, mods.shift)
        else:
            return False
        return True

    def _location_key(self, host: Desktop, key: str) -> bool:
        field, mods = self.location, host.mods
        if field is None:
            return False
        if key == "escape":
            self.location = None
        elif key == "enter":
            self._go_to(host, field.text.strip())
        elif mods.ctrl and key.lower() == "v":
            field.insert(host.text_clipboard.replace("\n", " "))
        elif mods.ctrl and key.lower() in ("c", "x") and field.selected_text():
            host.text_clipboard = field.selected_text()
            if key.lower() == "x":
                field.insert("")
        else:
            return field.key(key, shift=mods.shift, ctrl=mods.ctrl)
        return True

    def _go_to(self, host: Desktop, text: str) -> None:
        if text.startswith("trash:"):
            self.navigate(TRASH_URI)
            return
        if text.startswith("file://"):
            text = text[len("file://"):]
        path = host.fs.normpath(text) if text else self.path
        if host.fs.is_dir(path):
            self.navigate(path)
        elif host.fs.exists(path):
            self.navigate(path.rsplit("/", 1)[0] or "/")
            name = path.rsplit("/", 1)[1]
            self.selected, self.cursor, self.anchor = {name}, name, name
        else:
            self.location = None

    def _arrow(self, host: Desktop, key: str, extend: bool) -> None:
        items = self.items(host)
        if not items:
            return
        found = self.index_of(host, self.cursor)
        cur = -1 if found is None else found
        step = {"left": -1, "right": 1, "up": -self.per_row(), "down": self.per_row()}
        if key == "home":
            target = 0
        elif key == "end":
            target = len(items) - 1
        elif cur < 0 or not self.selected:
            target = max(cur, 0)  # nothing selected: select the focused (or first) item
        else:
            target = max(0, min(len(items) - 1, cur + step[key]))
        key_at = items[target].key
        if extend and self.anchor is not None and self.index_of(host, self.anchor) is not None:
            self.selected = self._range(host, self.anchor, key_at)
            self.cursor = key_at
        else:
            self._select_only(key_at)
        self._reveal(target)

    def _reveal(self, i: int) -> None:
        _, y0, _, y1 = self.tile(i)
        _, vy0, _, vy1 = self.view_rect()
        if y0 < vy0:
            self.scroll -= vy0 - y0 + 12
        elif y1 > vy1:
            self.scroll += y1 - vy1 + 12
        self.scroll = max(0, self.scroll)


