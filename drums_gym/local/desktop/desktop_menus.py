"""The desktop's context menus (on an icon, on the background) and what their items do.

`DesktopMenus` is a component of `Desktop` (``desk.menus``). The open menu itself is
``desk.menu`` (a `Menu`) and the entries it acts on ``desk.menu_targets``; a menu a window
opened (``menu.owner``) hands its chosen item back to that window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..budget import charge
from .date_menu import DateMenu
from .files_properties import open_properties
from .fs import DESKTOP_DIR
from .popups import SEPARATOR, Menu, MenuItem
from .shell_menu import SystemMenu

if TYPE_CHECKING:
    from .desktop import Desktop

__all__ = ["DesktopMenus"]


class DesktopMenus:
    """Opening the desktop's menus and running their items."""

    def __init__(self, desk: Desktop) -> None:
        self.desk = desk

    def hovered_item(self) -> int | None:
        """The enabled menu item under the pointer (highlighted, and what Enter runs)."""
        desk = self.desk
        if desk.menu is None:
            return None
        if desk.menu.focus is not None:
            return desk.menu.focus
        return desk.menu.item_at(*desk.pointer)

    def open_icon_menu(self, point: tuple[int, int]) -> None:
        """The menu of the selected desktop icons, at ``point``."""
        desk = self.desk
        names = sorted(desk.selected)
        one = len(names) == 1
        is_dir = one and desk.fs.is_dir(f"{DESKTOP_DIR}/{names[0]}")
        items = (
            MenuItem("Open", "open"), MenuItem("Open With Other Application", "open-with", one),
            SEPARATOR,
            MenuItem("Cut", "cut"), MenuItem("Copy", "copy"),
            MenuItem("Rename…", "rename", one), MenuItem("Move to Trash", "trash"),
            SEPARATOR,
            MenuItem("Properties", "properties"), MenuItem("Show in Files", "show-in-files"),
            *((MenuItem("Open in Terminal", "terminal"),) if is_dir else ()),
        )
        desk.menu = Menu.at(items, point, (desk.width, desk.height))
        desk.menu_targets = tuple(names)

    def open_desktop_menu(self, point: tuple[int, int]) -> None:
        """The menu of the desktop background, at ``point``."""
        desk = self.desk
        items = (
            MenuItem("New Folder", "new-folder"), SEPARATOR,
            MenuItem("Paste", "paste", desk.clipboard is not None),
            MenuItem("Select All", "select-all"), SEPARATOR,
            MenuItem("Show Desktop in Files", "show-desktop"),
            MenuItem("Open in Terminal", "terminal"), SEPARATOR,
            MenuItem("Change Background…", "background"), SEPARATOR,
            MenuItem("Desktop Icons Settings", "icon-settings"),
            MenuItem("Display Settings", "display-settings"),
        )
        desk.menu = Menu.at(items, point, (desk.width, desk.height))
        desk.menu_targets = ()

    def open_system_menu(self) -> None:
        """The top bar's system menu (its right end): the volume slider, network, Settings,
        Lock, Power Off."""
        desk = self.desk
        desk.menu = SystemMenu.open(desk.fs, (desk.width, desk.height))
        desk.menu_targets = ()

    def open_date_menu(self) -> None:
        """The clock's menu: notifications, Do Not Disturb, the calendar."""
        desk = self.desk
        desk.menu = DateMenu.open(desk.fs, (desk.width, desk.height))
        desk.menu_targets = ()

    def run_action(self, action: str) -> None:
        """Run a context-menu item (closes the menu first). Unknown actions are no-ops."""
        desk = self.desk
        menu, targets = desk.menu, list(desk.menu_targets)
        desk.menu, desk.menu_targets = None, ()
        if menu is not None and menu.owner is not None:
            if menu.owner in desk.windows:
                menu.owner.run_menu_action(desk, action, targets)
            return
        if action == "system-settings":
            desk.open_settings()
            return
        if desk.dock.run_action(action):
            return
        if action == "terminal" and menu is not None:  # "Open in Terminal"
            path = f"{DESKTOP_DIR}/{targets[0]}" if targets else DESKTOP_DIR
            desk.open_terminal(path if desk.fs.is_dir(path) else DESKTOP_DIR)
        elif action == "open":
            desk.open_paths(targets)
        elif action == "rename" and len(targets) == 1:
            desk.start_rename(targets[0])
        elif action == "trash":
            desk.trash(targets)
        elif action in ("cut", "copy"):
            desk.set_clipboard(action, targets)
        elif action == "properties" and targets:
            open_properties(desk, f"{DESKTOP_DIR}/{targets[0]}")
        elif action == "show-in-files" or action == "show-desktop":
            win = desk.open_folder(DESKTOP_DIR)
            win.selected = set(targets)
        elif action == "new-folder":
            desk.new_folder(menu.origin if menu is not None else desk.pointer)
        elif action == "paste":
            desk.paste()
        elif action == "select-all":
            charge(len(desk.grid.slots))
            desk.selected = set(desk.grid.slots)
